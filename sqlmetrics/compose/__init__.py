"""Composing many metrics into one SQL statement that scans the source once.

The statement is a chain of CTEs, each module here writing its part:

``judgments``   (a run with judgments) the judgments under canonical names;
``long_scores``, ``long_rows``, ``source_rows``
                (long class scores) the class-score table under canonical names, its
                classes and scores counted per row id, and the source's rows, which
                ``input`` joins to those counts;
``input``       the source under canonical names, ``plan.py``;
``base``        the one aggregation over the source (materialized: everything else
                reads it), ``plan.py``;
``checks``      the input rules of ``sqlmetrics/rules/``, raising ``error()`` on bad
                data (``rules/sql.py``);
``row_counts``  n_rows and n_excluded per slice, the spine of the result (``plan.py``);
a family's    own steps, placed by its ``FAMILY``'s hooks (``steps.Hooks``, read through
                ``registry.hooks``; this package imports no family): ranking's
                ``ideal_rows``, ``list_floors`` and ``run_checks`` (judgments and run
                rules, ``metrics/ranking/list_sql.py``); multiclass's
                ``class_score_rows``, then after the intermediates ``class_nan`` and
                ``class_checks`` (``metrics/multiclass/class_score_rows.py``);
``unit_checks`` with a ``ci_unit``: a unit in every used row, and with intervals
                clustered by it each query within one unit (``rules/sql.py``);
intermediates   the shared steps the families declare (``score_hist``, ``confusion``,
                ``residuals``, ``ranked``, ...): rendered once each, only if a metric
                reads them (``intermediates.py``);
``m_<label>``   one CTE per metric, its template from ``sql/`` (with ``ci``, also its
                interval: ``spread.py``, after the step ``t_quantiles``);

and a final SELECT (``select.py``) that left-joins every metric onto ``row_counts`` by
slice (NULL-safe) and sorts by the slice keys; ``statement.assemble`` writes the WITH
statement. Curves and the tables of classes (``class_tables.py``) end
the same chain with their own steps and SELECT.

User column names appear (quoted) where a step reads a user's table, ``input`` (or
``source_rows`` and ``sampled_rows``, which it then reads), ``judgments`` and
``long_scores``, each renaming them to canonical names; then only in the final SELECT
(and a table of classes' SELECT), which gives the slice columns back their user names,
and as text in the messages of ``checks``. Every other step reads canonical names. A
state (``state.py``) keeps the slices under their user names, and a roll-up
(``rollup.py``) reads them by those names.
"""

from __future__ import annotations

from sqlmetrics import intervals
from sqlmetrics.binding import Binding
from sqlmetrics.compose.intermediates import check_steps, intermediate_sql, needed, reads
from sqlmetrics.compose.plan import base_keys, base_sql, input_steps, row_counts_sql
from sqlmetrics.compose.select import final_select
from sqlmetrics.compose.spread import t_quantiles_needed, with_spread
from sqlmetrics.compose.statement import assemble
from sqlmetrics.registry import hooks as family_hooks
from sqlmetrics.rules.sql import checks_sql, unit_checks_sql
from sqlmetrics.sqltext import templates
from sqlmetrics.sqltext.dialects import dialect_named

__all__ = [
    "compose",
    "compose_curve",
    "reads",
    "shared_steps",
]


def compose(binding: Binding, source_sql: str, second_sql: str | None = None, dialect: str = "duckdb") -> str:
    """The one SQL statement computing every metric of ``binding`` over ``source_sql``
    and the second table read from ``second_sql``: the judgments of a run (ranking
    metrics), or long class scores (one-vs-rest metrics). Still in DuckDB's dialect,
    but for ``dialect``'s engine (``dialects.transpile`` then writes it in that
    dialect): without DuckDB's own aggregates for another engine, and with no window
    over a whole slice for a distributed one (``dialects.Dialect``)."""
    by = ", ".join(binding.slices)
    ctes = shared_steps(binding, source_sql, second_sql, dialect)
    if t_quantiles_needed(binding):
        ctes["t_quantiles"] = intervals.t_table_sql(binding.ci)
    for call in binding.calls:
        params = {name: templates.literal(value) for name, value in call.params}
        values = {"by": by, "weighted": templates.literal(binding.weighted), **params}
        step = templates.render(call.spec.template, values, binding.slices)
        ctes[f"m_{call.column}"] = with_spread(step, call, binding, values) if binding.analytic(call) else step
    # a bootstrap's input holds every row once per replicate: streamed into each reader, never held
    return assemble(ctes, final_select(binding), ("input",) if binding.bootstrap else ())


def compose_curve(binding: Binding, source_sql: str, steps: dict[str, str], final: str) -> str:
    """A statement that ends with its own ``steps`` and ``final`` SELECT after the
    shared steps up to the score histogram (a curve: it has rows per point, not per
    slice, so no ``row_counts``)."""
    ctes = shared_steps(binding, source_sql)
    del ctes["row_counts"]
    return assemble(ctes | steps, final)


def shared_steps(
    binding: Binding, source_sql: str, second_sql: str | None = None, dialect: str = "duckdb"
) -> dict[str, str]:
    """The CTEs before the metrics' own, by name: input, base, checks, row_counts, the
    ranking and class-score steps and the intermediates the metrics read (curves end
    with their own). ``second_sql`` reads the judgments or the long class scores."""
    ctes = input_steps(binding, source_sql, second_sql)
    ctes |= {"base": base_sql(binding), "checks": checks_sql(binding, base_keys(binding))}
    ctes["row_counts"] = row_counts_sql(binding)
    for hooks in family_hooks():  # a family's own steps (ranking's lists, multiclass's class score rows)
        ctes |= hooks.steps_before(binding, dialect_named(dialect).portable)
    for name in needed(binding):
        ctes[name] = intermediate_sql(binding, name, dialect)
    for hooks in family_hooks():
        ctes |= hooks.steps_after(binding)
    if "unit_checks" in check_steps(binding):
        ctes["unit_checks"] = unit_checks_sql(binding)
    return ctes
