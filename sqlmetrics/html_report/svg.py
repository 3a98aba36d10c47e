"""Line charts as static SVG: axes with round ticks, one polyline per series, a legend.

No JavaScript and nothing fetched: the report that embeds them opens offline and prints.
Every text is escaped.

>>> svg = line_chart([("v1", [0, 1], [0.2, 0.4])], title="auc", x_label="day", y_label="auc")
>>> svg.startswith("<svg") and "<polyline" in svg
True
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import NamedTuple

from sqlmetrics.html_report.text import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
WIDTH, HEIGHT = 430, 290
MARGIN = {"left": 58, "right": 16, "top": 30, "bottom": 44}
LEGEND_ROW = 16

BAND_OPACITY = 0.15


class Line(NamedTuple):
    """A series of a line chart: its name, its points, and optionally its interval at each
    point (drawn as a translucent band) and its colour (else the palette's next)."""

    name: str
    xs: Sequence[float | None]
    ys: Sequence[float | None]
    lows: Sequence[float | None] | None = None
    highs: Sequence[float | None] | None = None
    color: str | None = None


Series = Line | tuple[str, Sequence[float], Sequence[float]]


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
    diagonal: bool = False,
    dates: bool = False,
    markers: bool = False,
) -> str:
    """An SVG line chart of ``series`` (``Line``s or (name, xs, ys); None values break
    nothing: their points are left out, a series of one point is a dot, one of none says
    so in the legend). A Line's ``lows`` and ``highs`` are drawn as a translucent band of
    its colour (a bar at a point without neighbours in the band). The axes fit the data
    and the bands unless ``x_range``/``y_range`` fix them;
    ``diagonal`` draws y = x (a calibration chart's reference), ``dates`` reads x as days
    since 1970-01-01 and labels the ticks as dates, ``markers`` marks every point."""
    series = [Line(*line) for line in series]
    points = [[(x, y) for x, y in zip(line.xs, line.ys) if x is not None and y is not None] for line in series]
    bands = [_band_runs(line) for line in series]
    xs = [x for line in points for x, _ in line]
    ys = [y for line in points for _, y in line] + [
        y for runs in bands for run in runs for _, *ends in run for y in ends
    ]
    x_low, x_high = x_range or _padded(xs)
    y_low, y_high = y_range or _padded(ys)
    if diagonal:  # the reference line stays in view
        x_low = y_low = min(x_low, y_low)
        x_high = y_high = max(x_high, y_high)
    legend_height = LEGEND_ROW * len(series)
    height = HEIGHT + legend_height
    plot = (MARGIN["left"], MARGIN["top"], WIDTH - MARGIN["right"], HEIGHT - MARGIN["bottom"])

    def sx(x: float) -> float:
        return plot[0] + (x - x_low) / (x_high - x_low) * (plot[2] - plot[0])

    def sy(y: float) -> float:
        return plot[3] - (y - y_low) / (y_high - y_low) * (plot[3] - plot[1])

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
        f'height="{height}" role="img" aria-label="{escape(title)}" class="chart">',
        f'<text x="{WIDTH / 2}" y="18" text-anchor="middle" class="title">{escape(title)}</text>',
        *_axes(plot, (x_low, x_high), (y_low, y_high), sx, sy, dates),
        f'<text x="{(plot[0] + plot[2]) / 2}" y="{HEIGHT - 8}" text-anchor="middle">{escape(x_label)}</text>',
        f'<text transform="translate(14,{(plot[1] + plot[3]) / 2}) rotate(-90)" text-anchor="middle">'
        f"{escape(y_label)}</text>",
    ]
    if diagonal:
        low, high = max(x_low, y_low), min(x_high, y_high)
        parts.append(
            f'<line x1="{sx(low):.1f}" y1="{sy(low):.1f}" x2="{sx(high):.1f}" y2="{sy(high):.1f}" class="diagonal"/>'
        )
    for i, (name, line, runs) in enumerate(zip((line.name for line in series), points, bands)):
        color = series[i].color or PALETTE[i % len(PALETTE)]
        parts += [_band(run, color, sx, sy) for run in runs]
        if len(line) > 1:
            coordinates = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in line)
            parts.append(f'<polyline points="{coordinates}" fill="none" stroke="{color}" stroke-width="1.8"/>')
        if markers or len(line) == 1:
            parts += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.6" fill="{color}"/>' for x, y in line]
        y = HEIGHT + LEGEND_ROW * i + 4
        parts.append(f'<rect x="{plot[0]}" y="{y}" width="14" height="4" fill="{color}"/>')
        shown = name if line else f"{name}: no values"
        parts.append(f'<text x="{plot[0] + 20}" y="{y + 6}">{escape(shown)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _band_runs(line: Line) -> list[list[tuple[float, float, float]]]:
    """The line's interval as runs of consecutive points (x, low, high) with both bounds."""
    if line.lows is None or line.highs is None:
        return []
    runs: list[list[tuple[float, float, float]]] = [[]]
    for x, low, high in zip(line.xs, line.lows, line.highs):
        if x is None or low is None or high is None:
            runs.append([])
        else:
            runs[-1].append((x, low, high))
    return [run for run in runs if run]


def _band(run: list[tuple[float, float, float]], color: str, sx, sy) -> str:
    """A run of an interval: the area between its highs and its lows, or a bar at one point."""
    style = f'fill="{color}" fill-opacity="{BAND_OPACITY}" class="band"'
    if len(run) == 1:
        x, low, high = run[0]
        return f'<rect x="{sx(x) - 3:.1f}" y="{sy(high):.1f}" width="6" height="{sy(low) - sy(high):.1f}" {style}/>'
    upper = [f"{sx(x):.1f},{sy(high):.1f}" for x, _, high in run]
    lower = [f"{sx(x):.1f},{sy(low):.1f}" for x, low, _ in reversed(run)]
    return f'<path d="M{" L".join(upper + lower)} Z" {style}/>'


def _padded(values: list[float]) -> tuple[float, float]:
    """The data's range with 5% room on each side (a unit range around a single value)."""
    if not values:
        return 0.0, 1.0
    low, high = min(values), max(values)
    if low == high:
        return low - 0.5, high + 0.5
    room = (high - low) * 0.05
    return low - room, high + room


def ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values in [low, high], about ``count`` of them (steps of 1, 2 or 5 × 10^k)."""
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(power * m for m in (1, 2, 5, 10) if power * m >= raw)
    first = math.ceil(low / step) * step
    return [round(first + i * step, 12) for i in range(int((high - first) / step) + 1)]


def _axes(plot, x_domain, y_domain, sx, sy, dates: bool) -> list[str]:
    left, top, right, bottom = plot
    parts = [f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" class="frame"/>']
    for y in ticks(*y_domain):
        parts.append(f'<line x1="{left}" y1="{sy(y):.1f}" x2="{right}" y2="{sy(y):.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 5}" y="{sy(y) + 4:.1f}" text-anchor="end">{_number(y)}</text>')
    x_ticks = ticks(*x_domain, count=4 if dates else 5)
    if dates:
        x_ticks = sorted({round(x) for x in x_ticks if x_domain[0] <= round(x) <= x_domain[1]})
    for x in x_ticks:
        label = dt.date.fromordinal(int(x) + dt.date(1970, 1, 1).toordinal()).isoformat() if dates else _number(x)
        parts.append(f'<line x1="{sx(x):.1f}" y1="{bottom}" x2="{sx(x):.1f}" y2="{bottom + 4}" class="axis"/>')
        parts.append(f'<text x="{sx(x):.1f}" y="{bottom + 16}" text-anchor="middle">{label}</text>')
    return parts


def _number(value: float) -> str:
    return f"{value:.6g}"


class Difference(NamedTuple):
    """A row of a forest plot: what it is of (a slice), the difference and its interval."""

    label: str
    delta: float | None
    low: float | None
    high: float | None


FOREST_ROW = 18
FOREST_PLOT_WIDTH = 300
FOREST_LABEL_CHARS = 32  # longer slice names are cut (the whole name is the row's tooltip)
CHAR_WIDTH = 6.2  # an 11 px character, about
SIGNIFICANT_COLORS = {True: "#2ca02c", False: "#d62728", None: "#1f77b4"}  # better, worse, direction unknown
INSIGNIFICANT_COLOR = "#888"


def forest_plot(
    rows: Sequence[Difference], *, title: str, x_label: str, y_label: str, higher_is_better: bool | None
) -> str:
    """An SVG forest plot: a row per difference, its interval as a horizontal bar and the
    difference as a dot, against a dashed line at zero, ``y_label`` (what the rows are)
    above the labels. An interval that excludes 0 is
    drawn in colour (green where the candidate is better by ``higher_is_better``, red
    where worse, blue when the metric has no better direction) with a filled dot, one
    that includes 0 in grey with a hollow dot; a row without a difference says n/a."""
    labels = [_cut(row.label) for row in rows]
    label_width = max(60, CHAR_WIDTH * max((len(label) for label in labels), default=0) + 12)
    width = label_width + FOREST_PLOT_WIDTH + MARGIN["right"]
    plot = (label_width, MARGIN["top"], label_width + FOREST_PLOT_WIDTH, MARGIN["top"] + FOREST_ROW * max(len(rows), 1))
    legend, legend_bottom = _forest_legend(width, plot[3] + MARGIN["bottom"], higher_is_better)
    height = legend_bottom + 8
    values = [v for row in rows for v in (row.delta, row.low, row.high) if v is not None and math.isfinite(v)]
    low, high = _padded([*values, 0.0])

    def sx(x: float) -> float:
        return plot[0] + (x - low) / (high - low) * (plot[2] - plot[0])

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height}" width="{width:.0f}" '
        f'height="{height}" role="img" aria-label="{escape(title)}" class="chart forest">',
        f'<text x="{width / 2:.1f}" y="18" text-anchor="middle" class="title">{escape(title)}</text>',
        f'<rect x="{plot[0]}" y="{plot[1]}" width="{plot[2] - plot[0]}" height="{plot[3] - plot[1]}" class="frame"/>',
    ]
    for x in ticks(low, high):
        parts.append(f'<line x1="{sx(x):.1f}" y1="{plot[1]}" x2="{sx(x):.1f}" y2="{plot[3]}" class="grid"/>')
        parts.append(f'<text x="{sx(x):.1f}" y="{plot[3] + 16}" text-anchor="middle">{_number(x)}</text>')
    parts.append(f'<line x1="{sx(0):.1f}" y1="{plot[1]}" x2="{sx(0):.1f}" y2="{plot[3]}" class="zero"/>')
    parts.append(
        f'<text x="{(plot[0] + plot[2]) / 2}" y="{plot[3] + 34}" text-anchor="middle">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text x="{plot[0] - 6}" y="{plot[1] - 6}" text-anchor="end" class="axis-name">{escape(y_label)}</text>'
    )
    for i, (row, label) in enumerate(zip(rows, labels)):
        parts.append(_forest_row(row, label, plot[1] + FOREST_ROW * (i + 0.5), plot[0], sx, higher_is_better))
    parts += legend
    parts.append("</svg>")
    return "\n".join(parts)


def _forest_row(row: Difference, label: str, y: float, left: float, sx, higher_is_better: bool | None) -> str:
    """A row's label, interval bar and dot (or n/a), its whole label as a tooltip."""
    parts = [f"<g><title>{escape(row.label)}</title>",
             f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(label)}</text>']  # fmt: skip
    if row.delta is None or not math.isfinite(row.delta):
        parts.append(f'<text x="{sx(0) + 6:.1f}" y="{y + 4:.1f}" class="na">n/a</text>')
        return "".join([*parts, "</g>"])
    bounded = row.low is not None and row.high is not None
    significant = bounded and (row.low > 0 or row.high < 0)
    better = None if higher_is_better is None else (row.delta > 0) == higher_is_better
    color = SIGNIFICANT_COLORS[better] if significant else INSIGNIFICANT_COLOR
    kind = "interval significant" if significant else "interval"
    if bounded:
        parts.append(f'<line x1="{sx(row.low):.1f}" y1="{y:.1f}" x2="{sx(row.high):.1f}" y2="{y:.1f}" '
                     f'stroke="{color}" stroke-width="2.2" class="{kind}"/>')  # fmt: skip
    fill = color if significant else "#fff"
    parts.append(f'<circle cx="{sx(row.delta):.1f}" cy="{y:.1f}" r="3.6" fill="{fill}" stroke="{color}" '
                 'stroke-width="1.6" class="delta"/>')  # fmt: skip
    return "".join([*parts, "</g>"])


def _forest_legend(width: float, top: float, higher_is_better: bool | None) -> tuple[list[str], float]:
    """The legend's keys from ``top`` down, as many a row as the chart's width holds, and
    the baseline of its last row."""
    keys = (
        [("interval excludes 0", SIGNIFICANT_COLORS[None], True)]
        if higher_is_better is None
        else [
            ("significantly better", SIGNIFICANT_COLORS[True], True),
            ("significantly worse", SIGNIFICANT_COLORS[False], True),
        ]
    ) + [("not significant", INSIGNIFICANT_COLOR, False)]
    parts, x, y = [], 8.0, top + LEGEND_ROW - 4
    for text, color, filled in keys:
        key_width = 12 + CHAR_WIDTH * len(text) + 14
        if x > 8 and x + key_width > width:
            x, y = 8.0, y + LEGEND_ROW
        parts.append(
            f'<circle cx="{x + 4}" cy="{y - 4}" r="3.6" fill="{color if filled else "#fff"}" stroke="{color}"/>'
        )
        parts.append(f'<text x="{x + 12}" y="{y}">{escape(text)}</text>')
        x += key_width
    return parts, y


def _cut(label: str) -> str:
    return label if len(label) <= FOREST_LABEL_CHARS else label[: FOREST_LABEL_CHARS - 1] + "…"
