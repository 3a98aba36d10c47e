"""The public functions' signatures, pinned: keyword names, order, defaults, annotations
and which are keyword-only, as ``inspect.signature`` (and so ``help``) shows them.

A user's call names these keywords; renaming, reordering into positional, or changing a
default breaks it silently or loudly. The expected text below is the released signature
written out, so a change to it is a deliberate edit here, seen in review. Where the
entry points build one ``Request`` from their keywords (``sqlmetrics.request``), its
fields must be those keywords, with ``to_sql``'s defaults: ``to_sql`` takes every one.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import sqlmetrics as sm
from sqlmetrics.registry import roles
from sqlmetrics.request import Request

COLUMNS = (
    "label: 'str' = 'label'",
    "score: 'str | None' = None",
    "prediction: 'str | None' = None",
    "query: 'str | None' = None",
    "item: 'str | None' = None",
    "weight: 'str | None' = None",
    "by: 'str | Sequence[str] | None' = None",
    "judgments: 'Any' = None",
)
# the roles a family adds beyond these (``spec.Role.generic``), each keyword as its declaration
# says, after the others (``registry.roles()``; none in this tree: tests/test_new_family.py adds one)
FAMILY_ROLES = tuple(f"{role.name}: '{role.annotation}' = {role.default!r}" for role in roles() if role.generic)
RESAMPLING = ("ci_method: 'str' = 'auto'", "ci_unit: 'str | None' = None", "resamples: 'int' = 200", "seed: 'int' = 0")
INTERVALS = ("ci: 'float | None' = None", *RESAMPLING)
CLASS_SCORES = "class_scores: 'ClassScores | None' = None"
COMPARED = (
    "scores: 'Sequence[str] | None' = None",
    "predictions: 'Sequence[str] | None' = None",
    "arm: 'str | None' = None",
)
ROLLED_UP = ("state: 'bool' = False", "rollup: 'bool' = False")
RUN_ON = ("engine: 'str' = 'duckdb'", "con: 'Any' = None", "spark: 'Any' = None")
DIALECT = "dialect: 'str' = 'duckdb'"
CONNECTION = "con: 'duckdb.DuckDBPyConnection | None' = None"
CLASSES = ("label: 'str' = 'label'", "prediction: 'str'", "weight: 'str | None' = None", COLUMNS[6])
CURVE = ("label: 'str' = 'label'", "score: 'str' = 'score'", "weight: 'str | None' = None", COLUMNS[6])
SOURCE = ("source: 'Any'", "metrics: 'Metrics'")
THINNING = ("drop_intermediate: 'bool' = False", "max_points: 'int | None' = None")

EXPECTED = {
    "evaluate": ((*SOURCE, "*", *COLUMNS, CLASS_SCORES, *FAMILY_ROLES, *INTERVALS, *RUN_ON), "pl.DataFrame"),
    "to_sql": (
        (
            "metrics: 'Metrics'",
            "*",
            "source: 'Any'",
            *COLUMNS,
            CLASS_SCORES,
            *FAMILY_ROLES,
            *INTERVALS,
            *COMPARED,
            *ROLLED_UP,
            DIALECT,
        ),
        "str",
    ),
    "compare": (
        (
            *SOURCE,
            "*",
            *COMPARED,
            "baseline: 'Any' = None",
            *COLUMNS,
            *FAMILY_ROLES,
            "ci: 'float' = 0.95",
            *RESAMPLING,
            *RUN_ON,
        ),
        "pl.DataFrame",
    ),
    "report": (
        (
            *SOURCE,
            "*",
            "output: 'str | Path' = 'report.html'",
            *COLUMNS,  # the roles' keywords, as every entry point writes them (sqlmetrics.docs: prediction moved
            CLASS_SCORES,  # after score, from after by: keyword-only, so no call changes)
            *FAMILY_ROLES,
            *INTERVALS,
            *COMPARED,
            "baseline: 'Any' = None",
            "max_slices: 'int | None' = 500",
            "engine: 'str' = 'duckdb'",
        ),
        "Path",
    ),
    "confusion_matrix": (("source: 'Any'", "*", *CLASSES, "engine: 'str' = 'duckdb'", CONNECTION), "pl.DataFrame"),
    "per_class": ((*SOURCE, "*", *CLASSES, "engine: 'str' = 'duckdb'", CONNECTION), "pl.DataFrame"),
    "roc_curve": (("source: 'Any'", "*", *CURVE, *THINNING, "engine: 'str' = 'duckdb'", CONNECTION), "pl.DataFrame"),
    "pr_curve": (("source: 'Any'", "*", *CURVE, *THINNING, "engine: 'str' = 'duckdb'", CONNECTION), "pl.DataFrame"),
    "calibration_curve": (
        (
            "source: 'Any'",
            "*",
            *CURVE,
            "bins: 'int' = 10",
            "strategy: 'str' = 'uniform'",
            "engine: 'str' = 'duckdb'",
            CONNECTION,
        ),
        "pl.DataFrame",
    ),
    "curve_sql": (("kind: 'str'", "*", "source: 'Any'", *CURVE, "**params: 'Any'"), "str"),
    "state": (
        (
            *SOURCE,
            "*",
            *COLUMNS,
            CLASS_SCORES,
            *FAMILY_ROLES,
            "engine: 'str' = 'duckdb'",
            "con: 'Any' = None",
            "score_digits: 'int | None' = None",
        ),
        "pl.DataFrame",
    ),
    "rollup": (
        ("states: 'Any'", "*", COLUMNS[6], "metrics: 'Metrics | None' = None", "ci: 'float | None' = None"),
        "pl.DataFrame",
    ),
    "interval_methods": (
        (
            "metrics: 'Metrics'",
            "*",
            "ci: 'float' = 0.95",
            *RESAMPLING,
            "prediction: 'str | None' = None",
            CLASS_SCORES,
            "query: 'str | None' = None",
        ),  # fmt: skip
        "pl.DataFrame",
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_signature_is_pinned(name):
    parameters, returned = EXPECTED[name]
    assert str(inspect.signature(getattr(sm, name))) == f"({', '.join(parameters)}) -> '{returned}'"


def test_request_fields_are_the_keywords_of_to_sql():
    """``Request`` holds the keywords of a call, by the same names and with the same
    defaults (a field that no keyword sets keeps its default, which must mean what
    leaving the keyword out means): one per declared role (``registry.roles()``, in
    ``Request.columns``) and its other fields."""
    keywords = inspect.signature(sm.to_sql).parameters
    declared = [(role.name, role.default) for role in roles()]
    fields = [(field.name, field.default) for field in dataclasses.fields(Request) if field.name != "columns"]
    assert [*declared, *fields] == [(name, keywords[name].default) for name, _ in [*declared, *fields]]
    assert {name for name, _ in [*declared, *fields]} == set(keywords) - {"metrics", "source", "dialect"}
    assert Request().columns == dict(declared)


def test_a_request_takes_the_fields_of_a_call_and_leaves_the_rest():
    """``Request.of`` of an entry point's arguments: the fields it names, the others (the
    source, the engine) left to the entry point, and ``Request``'s default for a field the
    entry point has no keyword for (``compare`` has no ``class_scores``)."""
    arguments = {"source": "logs", "metrics": ["auc"], "label": "click", "by": "day", "ci": 0.9, "engine": "polars"}
    request = Request.of(arguments)
    assert request == Request(label="click", by="day", ci=0.9)
    assert (request.class_scores, request.resamples, request.slices) == (None, 200, ["day"])


def test_a_comparison_without_a_level_takes_compares():
    """``to_sql`` and ``report`` write ``compare``'s statement at its default level, 0.95,
    when they are given no ``ci`` (``compare``'s own signature, pinned above, says 0.95)."""
    assert Request(arm="arm").at_compare_level().ci == inspect.signature(sm.compare).parameters["ci"].default
    assert Request(arm="arm", ci=0.8).at_compare_level().ci == 0.8
