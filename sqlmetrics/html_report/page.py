"""The report's HTML: one page, styles inline, every value escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

import polars as pl

from sqlmetrics.compare import p_values_as_text

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; margin: 24px auto;
       max-width: 1400px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 12px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; margin: 0; }
dt { color: #666; } dd { margin: 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th { background: #f6f6f6; position: sticky; top: 0; } td.key, th.key { text-align: left; }
td.null { color: #aaa; }
p.notice { background: #fff4e5; border-left: 4px solid #e69500; padding: 8px 12px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
svg.chart { font: 11px system-ui, sans-serif; background: #fff; border: 1px solid #eee; }
svg .title { font-size: 13px; font-weight: 600; } svg .frame { fill: none; stroke: #999; }
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
    by what each computed (collapsed)."""
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
            '<section id="sql"><h2>SQL</h2>',
            *(
                f"<details><summary>{escape(summary)}</summary><pre>{escape(sql)}</pre></details>"
                for summary, sql in statements.items()
            ),
            "</section>",
            "</body></html>",
        ]
    )


def section(title: str, charts: Sequence[str]) -> str:
    return f'<section><h2>{escape(title)}</h2><div class="charts">{"".join(charts)}</div></section>'


def metric_table(table: pl.DataFrame, slices: Sequence[str]) -> str:
    return f'<section id="metrics"><h2>Metrics</h2>{_table(table, slices)}</section>'


def comparison_table(comparison: pl.DataFrame, left_out: Sequence[str]) -> str:
    """sm.compare's table (a p-value at the bootstrap's floor as the bound it is: ``< 0.00996``),
    and which metrics it leaves out (no interval to compare by)."""
    comparison = p_values_as_text(comparison, ".6g")
    keys = [c for c in comparison.columns if c in ("metric", "baseline", "candidate", "method")]
    slices = comparison.columns[: comparison.columns.index("metric")]
    note = f"<p>Not compared (no interval to compare by): {escape(', '.join(left_out))}.</p>" if left_out else ""
    return f'<section id="comparison"><h2>Comparison</h2>{_table(comparison, [*slices, *keys])}{note}</section>'


def _table(table: pl.DataFrame, keys: Sequence[str]) -> str:
    head = "".join(f'<th class="{"key" if c in keys else ""}">{escape(c)}</th>' for c in table.columns)
    rows = []
    for row in table.iter_rows():
        cells = []
        for column, value in zip(table.columns, row):
            kind = "key" if column in keys else "null" if value is None else ""
            cells.append(f'<td class="{kind}">{escape(_shown(value))}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _shown(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
