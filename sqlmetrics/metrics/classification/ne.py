"""ne: normalized entropy, torchrec's: the cross-entropy over the entropy of the base rate."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.histogram_delta import histogram_delta
from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights
from sqlmetrics.spec import Interval, Metric

ETA = 1e-12  # torchrec's clamp (NEMetricComputation.eta): scores and the base rate within [eta, 1 - eta]

# NE = m_ce / H(m_y): m_ce the slice's mean cross-entropy (nats, each score clamped), m_y
# its mean label, H(r) = −r·ln r − (1 − r)·ln(1 − r), H'(r) = ln((1 − r)/r). A row's
# influence (the gradient times the row's values less their means) is
#   u = (ce − m_ce)/H − m_ce·H'(m_y)·(y − m_y)/H²,
# NULL for a one-class slice (H = 0). The clamp of the base rate, which binds only when
# it is within 1e-12 of 0 or 1, is left out of the gradient.
_ETA = "CAST(0.000000000001 AS DOUBLE)"  # 1e-12 (polars' SQL reads no exponent literal)
_CLAMPED = f"LEAST(GREATEST(score, {_ETA}), 1 - {_ETA})"
_MEANS = {
    "m_ce": f"-SUM(w_pos * LN({_CLAMPED}) + w_neg * LN(1 - {_CLAMPED})) / CAST(SUM(w_pos + w_neg) AS DOUBLE)",
    "m_y": "SUM(w_pos) / CAST(SUM(w_pos + w_neg) AS DOUBLE)",
}
_ENTROPY = "(CASE WHEN m_y > 0 AND m_y < 1 THEN -m_y * LN(m_y) - (1 - m_y) * LN(1 - m_y) END)"
_LOG_ODDS = "(CASE WHEN m_y > 0 AND m_y < 1 THEN LN((1 - m_y) / CAST(m_y AS DOUBLE)) END)"  # H'(m_y)
_SLOPE = f"m_ce * {_LOG_ODDS} / CAST({_ENTROPY} * {_ENTROPY} AS DOUBLE)"


def influence_interval(sign: str = "") -> Interval:
    """The delta method's interval of NE (``sign`` "-": of 1 − NE, rig) from the score
    histogram: a positive row's and a negative row's influence u (see above)."""
    positive = f"{sign}((-LN({_CLAMPED}) - m_ce) / CAST({_ENTROPY} AS DOUBLE) - {_SLOPE} * (1 - m_y))"
    negative = f"{sign}((-LN(1 - {_CLAMPED}) - m_ce) / CAST({_ENTROPY} AS DOUBLE) + {_SLOPE} * m_y)"
    return histogram_delta(_MEANS, positive, negative)


SPEC = Metric(
    name="ne",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="−Σ w·(y·ln p + (1−y)·ln(1−p)) / (−P·ln p̄ − N·ln(1−p̄)), torchrec's clamp",
    template="classification/ne.sql",
    intermediates=("score_hist",),
    score_domain="probability",
    higher_is_better=False,
    range=(0.0, float("inf")),
    # the clamp keeps a perfect score's cross-entropy at −ln(1 − 1e-12) a row: NE ≈ 1.4e-12, not 0
    best_reached=False,
    reference="torchrec.metrics.ne (compute_ne, written out in tests/metrics/classification/ne.py)",
    interval=influence_interval(),
)


def normalized_entropy(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """NE from each score's positive and negative weight, NULL for a one-class slice."""
    p = s.clip(ETA, 1 - ETA)
    cross_entropy = -(w_pos * p.log() + w_neg * (1 - p).log()).sum()
    pos, neg = w_pos.sum(), w_neg.sum()
    rate, rest = (pos / (pos + neg)).clip(ETA, 1 - ETA), (neg / (pos + neg)).clip(ETA, 1 - ETA)
    return pl.when((pos > 0) & (neg > 0)).then(cross_entropy / (-pos * rate.log() - neg * rest.log()))


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """ne from each score's positive and negative weight (rows or a histogram)."""
    return normalized_entropy(s, w_pos, w_neg)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """ne = −Σ w·(y·ln p + (1 − y)·ln(1 − p)) / (−P·ln p̄ − N·ln(1 − p̄)), torchrec's
    normalized entropy (``torchrec/metrics/ne.py``): the cross-entropy over that of
    predicting the slice's base rate p̄ = P / (P + N), P = Σ w·y, N = Σ w·(1 − y).

    As torchrec, each score p and p̄ are held within [1e-12, 1 − 1e-12] (its ``eta``; so
    ``ne`` times ``logloss_uncertainty`` is ``logloss`` but for scores within 1e-12 of 0
    or 1, which logloss clips at 2⁻⁵²). 1 is no better than the base rate; lower is
    better. NULL for a one-class slice (its base rate has no entropy) or no weight.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.8, 0.4, 0.3, 0.1], "label": [1, 1, 0, 0]})
    >>> round(df.select(smp.ne("score", "label")).item(), 12)  # −(ln .8 + ln .4 + ln .7 + ln .9) / (4·ln 2)
    0.577608114012
    """
    return from_histogram(*binary_weights(score, label, weight))
