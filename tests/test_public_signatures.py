"""The public functions' signatures, pinned: keyword names, order, defaults, annotations
and which are keyword-only, as ``inspect.signature`` (and so ``help``) shows them.

A user's call names these keywords; renaming, reordering into positional, or changing a
default breaks it silently or loudly. The expected text below is the released signature
written out, so a change to it is a deliberate edit here, seen in review.
"""

from __future__ import annotations

import inspect

import pytest

import sqlmetrics as sm

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
RESAMPLING = ("ci_method: 'str' = 'auto'", "ci_unit: 'str | None' = None", "resamples: 'int' = 200", "seed: 'int' = 0")
INTERVALS = ("ci: 'float | None' = None", *RESAMPLING)
CLASS_SCORES = "class_scores: 'ClassScores | None' = None"
COMPARED = ("scores: 'Sequence[str] | None' = None", "arm: 'str | None' = None")
RUN_ON = ("engine: 'str' = 'duckdb'", "con: 'Any' = None", "spark: 'Any' = None")
DIALECT = "dialect: 'str' = 'duckdb'"
CONNECTION = "con: 'duckdb.DuckDBPyConnection | None' = None"
CLASSES = ("label: 'str' = 'label'", "prediction: 'str'", "weight: 'str | None' = None", COLUMNS[6])
CURVE = ("label: 'str' = 'label'", "score: 'str' = 'score'", "weight: 'str | None' = None", COLUMNS[6])
SOURCE = ("source: 'Any'", "metrics: 'Metrics'")
THINNING = ("drop_intermediate: 'bool' = False", "max_points: 'int | None' = None")

EXPECTED = {
    "evaluate": ((*SOURCE, "*", *COLUMNS, CLASS_SCORES, *INTERVALS, *RUN_ON), "pl.DataFrame"),
    "to_sql": (
        ("metrics: 'Metrics'", "*", "source: 'Any'", *COLUMNS, CLASS_SCORES, *INTERVALS, *COMPARED, DIALECT),
        "str",
    ),
    "compare": (
        (*SOURCE, "*", *COMPARED, "baseline: 'Any' = None", *COLUMNS, "ci: 'float' = 0.95", *RESAMPLING, *RUN_ON),
        "pl.DataFrame",
    ),
    "report": (
        (
            *SOURCE,
            "*",
            "output: 'str | Path' = 'report.html'",
            COLUMNS[0],
            COLUMNS[1],
            *COLUMNS[3:7],
            COLUMNS[2],
            COLUMNS[7],
            CLASS_SCORES,
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
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_signature_is_pinned(name):
    parameters, returned = EXPECTED[name]
    assert str(inspect.signature(getattr(sm, name))) == f"({', '.join(parameters)}) -> '{returned}'"

