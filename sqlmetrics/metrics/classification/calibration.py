"""calibration: predicted over observed positives (Σ score / Σ label)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.histogram_delta import histogram_delta
from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, ratio
from sqlmetrics.spec import Metric, SumsOfRows

# calibration = m_p / m_y, the slice's mean score over its mean label: a row's influence is
# (p − calibration·y) / m_y (the gradient (1/m_y, −m_p/m_y²) times (p − m_p, y − m_y))
_MEANS = {
    "m_p": "SUM((w_pos + w_neg) * score) / CAST(SUM(w_pos + w_neg) AS DOUBLE)",
    "m_y": "SUM(w_pos) / CAST(SUM(w_pos + w_neg) AS DOUBLE)",
}
_CALIBRATION = "m_p / CAST(NULLIF(m_y, 0) AS DOUBLE)"
INTERVAL = histogram_delta(
    _MEANS,
    positive=f"(score - {_CALIBRATION}) / CAST(NULLIF(m_y, 0) AS DOUBLE)",
    negative="score / CAST(NULLIF(m_y, 0) AS DOUBLE)",
)

SPEC = Metric(
    name="calibration",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="Σ w·p / Σ w·y: 1 is calibrated on average, above 1 over-predicts",
    template="classification/calibration.sql",
    intermediates=("score_hist",),
    score_domain="finite",
    higher_is_better=None,
    range=(0.0, float("inf")),
    reference="numpy: sum(w * score) / sum(w * label)",
    sums=SumsOfRows.ratio("score", "label"),
    interval=INTERVAL,
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """calibration from each score's positive and negative weight (rows or a histogram)."""
    return ratio(((w_pos + w_neg) * s).sum(), w_pos.sum())


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """calibration = Σ w·p / Σ w·y; NULL when the slice has no positive.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.2, 0.4], "label": [0, 1, 0, 0]})
    >>> round(df.select(smp.calibration("score", "label")).item(), 12)  # 1.0 / 1
    1.0
    """
    return from_histogram(*binary_weights(score, label, weight))
