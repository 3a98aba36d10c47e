"""The report's HTML: one page, styles inline, every value escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from sqlmetrics.compare import p_value_text
from sqlmetrics.html_report import numbers
from sqlmetrics.html_report.text import escape

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; margin: 24px auto;
       max-width: 1400px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 12px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; }
h3 { font-size: 14px; margin: 14px 0 4px; color: #444; } p.legend { color: #555; margin: 4px 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; margin: 0; }
dt { color: #666; } dd { margin: 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th { background: #f6f6f6; position: sticky; top: 0; } td.key, th.key { text-align: left; }
td.null { color: #aaa; } td .ci { color: #777; font-size: 12px; }
p.notice { background: #fff4e5; border-left: 4px solid #e69500; padding: 8px 12px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
svg.chart { font: 11px system-ui, sans-serif; background: #fff; border: 1px solid #eee; }
svg .title { font-size: 13px; font-weight: 600; } svg .frame { fill: none; stroke: #999; }
svg .zero { stroke: #444; stroke-dasharray: 4 3; } svg .na { fill: #999; } svg .axis-name { fill: #666; }
svg .grid { stroke: #eee; } svg .axis { stroke: #999; } svg .diagonal { stroke: #aaa; stroke-dasharray: 4 3; }
details pre { background: #f8f8f8; padding: 12px; overflow-x: auto; font-size: 12px; }
@media print { body { margin: 0; max-width: none; } .scroll { overflow: visible; }
               svg.chart, tr { break-inside: avoid; } }
"""


def document(
    described: Mapping[str, str], sections: Sequence[str], statements: Mapping[str, str], notices: Sequence[str] = ()
) -> str:
    """The whole page: what was evaluated (and ``notices`` such as why every metric is
    empty, or that only the first slices are shown), the sections, the SQL ``statements``
    by what each computed (collapsed; no SQL section without them)."""
    facts = "\n".join(f"<dt>{escape(key)}</dt><dd>{escape(value)}</dd>" for key, value in described.items())
    shown_notice = "".join(f'<p class="notice">{escape(notice)}</p>' for notice in notices)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>sqlmetrics report: {escape(described['metrics'])}</title>",
            f"<style>{STYLE}</style></head><body>",
            "<h1>sqlmetrics report</h1>",
            f'<section id="evaluated"><h2>What was evaluated</h2><dl>{facts}</dl>{shown_notice}</section>',
            *sections,
            *_statements(statements),
            "</body></html>",
        ]
    )


def _statements(statements: Mapping[str, str]) -> list[str]:
    """The SQL section, each statement collapsed; none without statements."""
    if not statements:
        return []
    return [
        '<section id="sql"><h2>SQL</h2>',
        *(
            f"<details><summary>{escape(summary)}</summary><pre>{escape(sql)}</pre></details>"
            for summary, sql in statements.items()
        ),
        "</section>",
    ]


def section(title: str, charts: Sequence[str]) -> str:
    return f'<section><h2>{escape(title)}</h2><div class="charts">{"".join(charts)}</div></section>'


TABLE_WIDTH = 8  # columns of a table beside the slices' (a value with its interval counts two): fits 1400 px
COUNTS = ("n_rows", "n_excluded")
COMPARISON_KEYS = ("metric", "baseline", "candidate", "method", "note")

Column = tuple[str, str, list[str]]  # its header, its cells' class ("key": text, left-aligned), its cells


def metric_tables(table: pl.DataFrame, slices: Sequence[str], families: Sequence[tuple[str, Sequence[str]]],
                  level: float | None, scored: str | None = None) -> str:  # fmt: skip
    """evaluate's ``table``, one table per family (its title, its metrics' columns; a wide
    family in several, each at most TABLE_WIDTH columns beside the slices'), each with the
    slices and counts: a metric's value with its interval in one cell when ``level`` (the
    ``ci``) is given, then its other columns (``gauc_groups``, ``ndcg_at_10_queries``).
    ``scored``: which of two compared scores the values are of (``score a``), in the title."""
    owned = _owned_columns(table.columns, [metric for _, metrics in families for metric in metrics])
    keys = [_column(table, slice_, "key") for slice_ in slices] + [_column(table, count) for count in COUNTS]
    tables = []
    for title, metrics in families:
        widths = {m: (2 if f"{m}_lo" in table.columns else 1) + len(owned[m]) for m in metrics}
        for part, chunk in enumerate(_in_widths(metrics, widths)):
            columns = [column for metric in chunk for column in _metric_columns(table, metric, owned[metric])]
            tables.append(f"<h3>{escape(title)}{' (continued)' if part else ''}</h3>{_table([*keys, *columns])}")
    shown = {*slices, *COUNTS, *owned, *(f"{m}_{end}" for m in owned for end in ("lo", "hi")), *sum(owned.values(), [])}
    if others := [column for column in table.columns if column not in shown]:
        tables.append(f"<h3>Other columns</h3>{_table([*keys, *(_column(table, other) for other in others)])}")
    title = "Metrics" if scored is None else f"Metrics of {scored}"
    return f'<section id="metrics"><h2>{escape(title)}</h2>{_legend(level)}{"".join(tables)}</section>'


def _in_widths(metrics: Sequence[str], width: Mapping[str, int]) -> list[list[str]]:
    """``metrics`` in runs, in order, each as wide as TABLE_WIDTH at most (or a metric alone)."""
    runs: list[list[str]] = []
    for metric in metrics:
        if runs and sum(width[m] for m in runs[-1]) + width[metric] <= TABLE_WIDTH:
            runs[-1].append(metric)
        else:
            runs.append([metric])
    return runs


def _legend(level: float | None) -> str:
    """How a metric's cell reads."""
    interval = f"the value and its {level:.0%} confidence interval [low, high]" if level is not None else "the value"
    return (
        f'<p class="legend">Each metric\'s cell: {escape(interval)}, to {numbers.SIGNIFICANT} significant digits; '
        "null: the metric is undefined on the slice; n/a: no interval (too few rows).</p>"
    )


def _owned_columns(columns: Sequence[str], metrics: Sequence[str]) -> dict[str, list[str]]:
    """Each metric's other columns (``gauc_groups``): those named ``<metric>_...``, each of
    the metric with the longest such name, but for its interval's ``_lo`` and ``_hi``."""
    owned: dict[str, list[str]] = {metric: [] for metric in metrics}
    for column in columns:
        owners = [m for m in metrics if column.startswith(f"{m}_") and column not in (f"{m}_lo", f"{m}_hi")]
        if owners and column not in metrics:
            owned[max(owners, key=len)].append(column)
    return owned


def _metric_columns(table: pl.DataFrame, metric: str, others: Sequence[str]) -> list[Column]:
    first = _estimates(table, metric, metric) if f"{metric}_lo" in table.columns else _column(table, metric)
    return [first, *(_column(table, other) for other in others)]


def _estimates(table: pl.DataFrame, name: str, header: str) -> Column:
    """The column ``name`` with its interval (``<name>_lo``, ``<name>_hi``) in each cell."""
    return (
        header,
        "",
        [numbers.estimate(*values) for values in table.select(name, f"{name}_lo", f"{name}_hi").iter_rows()],
    )


def _column(table: pl.DataFrame, name: str, kind: str = "", shown=numbers.number) -> Column:
    return name, kind, [shown(value) for value in table[name].to_list()]


def comparison_table(comparison: pl.DataFrame, left_out: Sequence[str], charts: Sequence[str] = ()) -> str:
    """The ``charts`` of the comparison, sm.compare's table (each difference with its
    interval in one cell), and which metrics it leaves out (no interval to compare by)."""
    slices = comparison.columns[: comparison.columns.index("metric")]
    columns = []
    for name in comparison.columns:
        if name == "delta":
            columns.append(_estimates(comparison, "delta", "delta [interval]"))
        elif name == "p_value":  # a p-value at the bootstrap's floor as the bound it is: ``< 0.00996``
            bounds = zip(comparison["p_value"], comparison["p_bound"])
            columns.append((name, "", [p_value_text(p, True) if bound else numbers.p_value(p) for p, bound in bounds]))
        elif name == "note":  # NULL: nothing to say (paired and arms alike), blank rather than "null"
            columns.append(_column(comparison, name, "key", lambda note: "" if note is None else note))
        elif name not in ("delta_lo", "delta_hi", "p_bound"):
            kind = "key" if name in slices or name in COMPARISON_KEYS else ""
            columns.append(_column(comparison, name, kind))
    note = f"<p>Not compared (no interval to compare by): {escape(', '.join(left_out))}.</p>" if left_out else ""
    pictured = f'<div class="charts">{"".join(charts)}</div>' if charts else ""
    return f'<section id="comparison"><h2>Comparison</h2>{pictured}{_table(columns)}{note}</section>'


def _cell(text: str, kind: str) -> str:
    """A cell's text, escaped; a number's interval (numbers.estimate's ``[...]``) in grey."""
    value, bracket, interval = text.partition(" [")
    if kind == "key" or not bracket:
        return escape(text)
    return f'{escape(value)} <span class="ci">[{escape(interval)}</span>'


def _table(columns: Sequence[Column]) -> str:
    head = "".join(f'<th class="{kind}">{escape(name)}</th>' for name, kind, _ in columns)
    rows = []
    for cells in zip(*(cells for _, _, cells in columns)):
        shown = (f'<td class="{"null" if text == "null" and kind != "key" else kind}">{_cell(text, kind)}</td>'
                 for (_, kind, _), text in zip(columns, cells))  # fmt: skip
        rows.append(f"<tr>{''.join(shown)}</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
