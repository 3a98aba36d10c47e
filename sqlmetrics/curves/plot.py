"""Drawing a curve table with matplotlib (the optional ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from sqlmetrics.curves._curve import CurveKind
from sqlmetrics.errors import SqlMetricsError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TITLES = {"roc_curve": "ROC curve", "pr_curve": "Precision–recall curve", "calibration_curve": "Calibration curve"}
DIAGONAL = {"roc_curve": "chance", "calibration_curve": "perfectly calibrated"}


def check_target(path: str | Path) -> None:
    """Refuse, before any work, a plot that cannot be written: matplotlib missing, or an
    extension that is no image format matplotlib writes."""
    canvas = _matplotlib().backend_bases.FigureCanvasBase
    formats = canvas.get_supported_filetypes()
    extension = Path(path).suffix.lower().removeprefix(".")
    if extension not in formats:
        raise SqlMetricsError(
            f"cannot plot to {str(path)!r}: the file name must end in one of "
            f"{', '.join('.' + name for name in sorted(formats))}"
        )


def plot(table: pl.DataFrame, kind: CurveKind, by: Sequence[str], path: str | Path) -> None:
    """Write ``table`` (a curve of ``kind``) to ``path`` (.png, .svg, ...), drawn by ``draw``."""
    draw(table, kind, by).savefig(path)


def draw(table: pl.DataFrame, kind: CurveKind, by: Sequence[str]) -> Figure:
    """``table`` (a curve of ``kind``) as a figure: one line per slice with a legend,
    labelled axes, a title, and the diagonal for ROC (chance) and calibration (perfect
    calibration)."""
    figure = _matplotlib().figure.Figure(figsize=(6, 6))
    axes = figure.subplots()
    x, y = kind.axes
    if kind.name in DIAGONAL:
        axes.plot([0, 1], [0, 1], linestyle="--", color="grey", label=DIAGONAL[kind.name])
    marker = "o" if kind.name == "calibration_curve" else None
    slices = table.partition_by(list(by), maintain_order=True) if by else [table]
    for part in slices:
        name = ", ".join(f"{column}={part[column][0]}" for column in by) or None
        axes.plot(part[x].to_numpy(), part[y].to_numpy(), marker=marker, label=name)
    axes.set_xlabel(kind.axis_titles[0])
    axes.set_ylabel(kind.axis_titles[1])
    low, high = _limits(table, kind)
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_title(TITLES[kind.name] + (f" by {', '.join(by)}" if by else ""))
    if by or kind.name in DIAGONAL:
        axes.legend(loc="best")
    return figure


def _matplotlib() -> Any:
    """matplotlib, or a clear error saying how to install it."""
    try:
        import matplotlib.backend_bases
        import matplotlib.figure
    except ImportError:
        raise SqlMetricsError("plotting needs matplotlib: pip install 'sqlmetrics[plot]'") from None
    return matplotlib


def _limits(table: pl.DataFrame, kind: CurveKind) -> tuple[float, float]:
    """The range of both axes: [0, 1] for ROC and precision–recall; for calibration, the
    range of the points (mean score and observed rate: a 0–0.3 CTR is not squeezed into a
    corner), the same on both axes so that the diagonal stays the diagonal. A 2% margin."""
    if kind.name != "calibration_curve" or table.is_empty():
        low, high = 0.0, 1.0
    else:
        values = pl.concat([table[axis].drop_nulls() for axis in kind.axes])
        low, high = float(values.min()), float(values.max())
        if high - low < 1e-3:  # one point, or all alike: a small window around it
            low, high = max(0.0, low - 0.05), min(1.0, high + 0.05)
    margin = 0.02 * (high - low)
    return low - margin, high + margin
