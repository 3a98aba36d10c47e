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
from html import escape
from typing import NamedTuple

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
