"""median_absolute_error: the weighted median of the absolute errors."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.regression._residuals import residual_weights
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="median_absolute_error",
    family="regression",
    polars_form="rows",
    summary="weighted median of |ŷ − y|",
    template="regression/median_absolute_error.sql",
    intermediates=("error_cum",),
    label_domain="real",
    score_domain="finite",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="sklearn.metrics.median_absolute_error",
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """The weighted median of |ŷ − y| over the rows of weight > 0.

    With the absolute errors sorted, e₁ <= e₂ <= …, and W(i) the weight of the first i:
    the mean of the first eᵢ with W(i) >= W / 2 and the first with W(i) > W / 2. They
    are the same error unless W(i) = W / 2, so without weights this is the ordinary
    median (the mean of the two middle values of an even count), and with weights
    scikit-learn's "averaged inverted CDF" weighted percentile. W(i) = W / 2 is taken up
    to the rounding of the sums (n·2⁻⁵²·W for n rows): equal weights of any size (0.1,
    1e-300) give the unweighted median, where scikit-learn's sums of 0.1 land on either
    side of the half (9.0 or 8.0 for 8.5). NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"prediction": [1.0, 2.0, 4.0, 8.0], "target": [1.5, 3.0, 1.0, 0.0]})
    >>> df.select(smp.median_absolute_error("prediction", "target")).item()  # errors 0.5 1 3 8
    2.0
    """
    e, _, w = residual_weights(score, label, weight)
    if weight is None:  # every row weighs 1: the ordinary median, without a sort
        return e.abs().median()
    kept = w > 0
    errors, weights = e.abs().filter(kept), w.filter(kept)
    # tied errors are equal, so any order of their weights pairs each position right
    w_through = weights.sort_by(errors).cum_sum()
    half = weights.sum() / 2
    # W(i) = W / 2 up to the rounding of the sums (one unit in the last place per term),
    # so that equal weights such as 0.1 give the unweighted median
    rounding = weights.sum() * weights.len().cast(pl.Float64) * ROUNDING_PER_TERM
    first_at_half = errors.sort().filter(w_through >= half - rounding).first()
    first_past_half = errors.sort().filter(w_through > half + rounding).first()
    return (first_at_half + first_past_half) / 2


# The relative rounding of one addition to a running sum of doubles (2⁻⁵²): W(i) and W / 2
# within n times it of each other are equal (sql/regression/median_absolute_error.sql too).
ROUNDING_PER_TERM = 2.0**-52
