"""The shared steps between ``base`` and the metrics: which a call needs, in what order,
and each rendered once for the call and the engine.

The steps are declared by the metric families (``sqlmetrics.steps.Intermediate``,
collected by ``registry.intermediates``); nothing here knows a family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from sqlmetrics.binding import Binding
from sqlmetrics.registry import hooks as family_hooks
from sqlmetrics.registry import intermediates, reads
from sqlmetrics.rules.tables import unit_rules
from sqlmetrics.sqltext import templates
from sqlmetrics.sqltext.dialects import dialect_named
from sqlmetrics.steps import Intermediate

# On the engines that spread rows over workers (``dialects.Dialect.distributed``), where a
# window over a whole slice runs on one worker, the running sums over scores in order
# (score_cum) are taken within SCORE_BUCKETS buckets of scores and over the buckets'
# totals instead (sql/intermediates/score_cum_distributed.sql; measured on DuckDB, which
# sorts a slice in parallel anyway: 4x slower on 5M distinct scores, so DuckDB and
# PostgreSQL keep the one window).
SCORE_BUCKETS = 1024


def needed(binding: Binding) -> list[str]:
    """The intermediates the metrics read, each after the ones it reads, in a stable order
    (and the class score histogram whenever class scores are bound: their checks read it)."""
    declared = intermediates()
    ordered: list[str] = []

    def add(name: str) -> None:
        for dependency in declared[name].after:
            add(dependency)
        if name not in ordered:
            ordered.append(name)

    for call in binding.calls:
        for name in call.spec.intermediates:
            add(name)
    for hooks in family_hooks():  # the shared steps a family's own steps read
        for name in hooks.shared_steps(binding):
            add(name)
    return ordered


def check_steps(binding: Binding) -> list[str]:
    """The CTEs whose ``failure`` must be NULL for the result to be returned: the input
    rules' (``rules/sql.py``), each family's own (``steps.Hooks.check_steps``) and the
    units' (with ``ci_unit``)."""
    return [
        "checks",
        *(name for hooks in family_hooks() for name in hooks.check_steps(binding)),
        *(["unit_checks"] if unit_rules(binding) else []),
    ]


def step(binding: Binding, name: str) -> Intermediate:
    """The step that computes intermediate ``name`` for the call: its ``distinct`` form
    when the scores are nearly all distinct (score_hist from the rows, and score_cum
    over them with the rows' positions from the sort)."""
    declared = intermediates()[name]
    if binding.distinct_scores and declared.distinct:
        return replace(declared, template=declared.distinct)
    return declared


def intermediate_sql(binding: Binding, name: str, dialect: str) -> str:
    """Intermediate ``name`` rendered for the call and ``dialect``'s engine: once, or once
    per combination of its ``each`` parameters in use, stacked."""
    chosen = step(binding, name)
    slices = (*binding.slices, *chosen.keys)
    target = dialect_named(dialect)
    template = chosen.distributed if chosen.distributed and target.distributed else chosen.template
    values = {
        "by": ", ".join(slices),
        "weight": row_weight(binding, target.portable),
        "buckets": str(SCORE_BUCKETS),
        **dict(chosen.values),
        **_collected(binding, name),
    }
    if not chosen.each:
        return templates.render(template, values, slices)
    renders = []
    for combination in combinations(binding, name, chosen.each):
        given = dict(zip(chosen.each, combination))
        rendered = {param: templates.literal(value) for param, value in given.items()}
        extra = chosen.derived(**given) if chosen.derived else {}
        renders.append(templates.render(template, values | rendered | extra, slices, not renders))
    return "\nUNION ALL\n".join(renders)


def row_weight(binding: Binding, portable: bool) -> str:
    """``{{ weight }}``, a used row's weight in score_rows: ``w`` (DOUBLE), or for an
    unweighted call on DuckDB the INTEGER 1: the running sums of auc and
    average_precision run over all rows of a slice, and DuckDB 2.0 adds integers in that
    window ~1.7x faster than DOUBLE (5M rows). (query_rows keeps ``w``: its windows, one
    partition per query, add DOUBLE ~12% faster.) DuckDB's ``/`` divides integers
    exactly, and the steps that output a sum cast it to DOUBLE. Other dialects keep
    ``w``: their ``/`` truncates integers."""
    return "w" if binding.weighted or portable else "1"


def combinations(binding: Binding, name: str, params: tuple[str, ...]) -> list[tuple]:
    """Every distinct combination of ``params`` among the metrics reading ``name``, sorted
    (a None, such as no cutoff, first)."""
    return sorted(
        {
            tuple(call.kwargs.get(param) for param in params)
            for call in binding.calls
            if reads(name, call.spec.intermediates)
        },
        key=lambda combination: [(value is not None, value) for value in combination],
    )


def each_sums(binding: Binding, name: str, sums: Callable[..., Iterable[Any]] | Iterable[Any]) -> list[Any]:
    """A step's sums of ``base`` (its ``base_aggregates``, or their polars forms
    ``polars_sums``): as declared, or, declared as a function of the step's ``each``
    parameters (sums that depend on a parameter: the off-policy family's clipped weights),
    that function's sums for every combination of them in use."""
    if not callable(sums):
        return list(sums)
    each = intermediates()[name].each
    return [
        aggregate
        for combination in combinations(binding, name, each)
        for aggregate in sums(**dict(zip(each, combination)))
    ]


def _collected(binding: Binding, name: str) -> dict[str, str]:
    """``{{ <table> }}``: every combination of the collected parameters in use, as rows."""
    declared = intermediates()[name]
    if not declared.collects:
        return {}
    rows = ", ".join(
        f"({', '.join(templates.literal(v) for v in values)})"
        for values in combinations(binding, name, declared.collects)
    )
    return {declared.table: f"(VALUES {rows}) AS t({', '.join(declared.collects)})"}
