"""Drawing a curve table with matplotlib (the optional ``plot`` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from sqlmetrics.curves._curve import CurveKind
from sqlmetrics.errors import SqlMetricsError

TITLES = {"roc_curve": "ROC curve", "pr_curve": "Precision–recall curve", "calibration_curve": "Calibration curve"}
DIAGONAL = {"roc_curve": "chance", "calibration_curve": "perfectly calibrated"}


def check_path(path: str | Path) -> None:
    """Raise unless matplotlib is installed and can write an image named ``path``: its
    extension is one of matplotlib's formats (png, svg, pdf, ...)."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise SqlMetricsError("plotting needs matplotlib: pip install 'sqlmetrics[plot]'") from None
    formats = FigureCanvasBase.get_supported_filetypes()
    extension = Path(path).suffix.lstrip(".").lower()
    if extension not in formats:
        raise SqlMetricsError(
            f"cannot plot to {str(path)!r}: the file name must end with an image format matplotlib writes "
            f"({', '.join('.' + name for name in sorted(formats))})"
        )


def plot(table: pl.DataFrame, kind: CurveKind, by: Sequence[str], path: str | Path) -> None:
    """Write ``table`` (a curve of ``kind``) to ``path`` (.png, .svg, ...): one line per
    slice with a legend, labelled axes, a title, and the diagonal for ROC (chance) and
    calibration (perfect calibration)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise SqlMetricsError("plotting needs matplotlib: pip install 'sqlmetrics[plot]'") from None
    figure = Figure(figsize=(6, 6))
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
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(TITLES[kind.name] + (f" by {', '.join(by)}" if by else ""))
    if by or kind.name in DIAGONAL:
        axes.legend(loc="best")
    figure.savefig(path)
