"""cohen_kappa: agreement of predicted and true classes beyond chance, optionally weighted
by how far apart two ordinal classes are."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.intervals.kappa_delta import kappa_delta
from sqlmetrics.metrics.multiclass._classes import Frame, class_confusion, class_counts, class_rows, used_tables
from sqlmetrics.sources import in_kind, slice_names
from sqlmetrics.spec import Metric, MetricCall, Param

WEIGHTS = Param(
    "weights",
    str,
    "none",
    "disagreement of classes i and j at sorted positions r_i, r_j: none (1 if i != j), linear (|r_i - r_j|), "
    "quadratic ((r_i - r_j)^2)",
    choices=("none", "linear", "quadratic"),
)

SPEC = Metric(
    name="cohen_kappa",
    family="multiclass",
    polars_form="class_confusion",
    summary="1 − Σ d·observed / Σ d·chance: agreement beyond chance (weights: none, linear, quadratic)",
    template="multiclass/cohen_kappa.sql",
    intermediates=("class_confusion", "class_counts"),
    needs=("label", "prediction"),
    params=(WEIGHTS,),
    label_domain="class",
    range=(-1.0, 1.0),
    reference="sklearn.metrics.cohen_kappa_score",
    interval=kappa_delta(lambda call, rows, slices: _interval_cells(call, rows, slices)),
)


def disagreement(r_i: pl.Expr, r_j: pl.Expr, weights: str) -> pl.Expr:
    """d_ij of two classes at sorted positions r_i and r_j."""
    if weights == "linear":
        return (r_i - r_j).abs()
    if weights == "quadratic":
        return (r_i - r_j) * (r_i - r_j)
    return (r_i != r_j).cast(pl.Float64)


def from_class_confusion(confusion: pl.LazyFrame, by: Sequence[str], *, weights: str = "none") -> pl.LazyFrame:
    """κ per slice of a confusion matrix (``class_confusion``: slices, true_class,
    predicted_class, w), as the column ``value``: the SQL ``sql/multiclass/cohen_kappa.sql``."""
    by = list(by)
    joined = cells(confusion, by, weights)
    d = pl.col("d")
    sums = [
        (d * pl.col("w").fill_null(0.0)).sum().alias("observed"),
        (d * pl.col("t") * pl.col("p")).sum().alias("chance"),
    ]
    n = pl.col("n").first()
    totals = joined.group_by(by).agg(*sums, n) if by else joined.select(*sums, n)
    chance = pl.col("chance")
    value = pl.when(chance != 0).then(1 - pl.col("observed") / pl.col("n") / chance)
    return totals.select(*by, value.alias("value"))


def cells(confusion: pl.LazyFrame, by: Sequence[str], weights: str) -> pl.LazyFrame:
    """Every ordered pair (i, j) of each slice's classes: its disagreement ``d``, the true
    class's share ``t`` and the predicted class's share ``p`` of the slice's weight ``n``,
    and the pair's weight ``w`` in the confusion matrix (NULL where no row has it)."""
    by = list(by)
    counts = class_counts(confusion, by)
    position = pl.col("class").cast(pl.Int8) if counts.collect_schema()["class"] == pl.Boolean else pl.col("class")
    rank = position.rank("dense").cast(pl.Float64)
    total = pl.col("support").sum()
    total = pl.when(total != 0).then(total)  # an empty slice (weights 0) has no shares
    # t_i / n and p_j / n: the products are taken over shares, exact for weights of any size
    ranked = counts.with_columns(r=rank.over(by) if by else rank, n=total.over(by) if by else total)
    true_side = ranked.select(*by, "n", true_class="class", r_i="r", t=pl.col("support") / pl.col("n"))
    predicted_side = ranked.select(*by, predicted_class="class", r_j="r", p=pl.col("predicted") / pl.col("n"))
    pairs = (
        true_side.join(predicted_side, on=by, how="inner", nulls_equal=True)
        if by
        else true_side.join(predicted_side, how="cross")
    )
    class_type = counts.collect_schema()["class"]
    observed = confusion.select(
        *by,
        pl.col("true_class").cast(class_type),
        pl.col("predicted_class").cast(class_type),
        "w",
    )
    keys = [*by, "true_class", "predicted_class"]
    joined = pairs.join(observed, on=keys, how="left", nulls_equal=True)
    return joined.with_columns(d=disagreement(pl.col("r_i"), pl.col("r_j"), weights))


def _interval_cells(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """``cells`` of the used rows' confusion matrix, for κ's interval (kappa_delta)."""
    confusion, _ = used_tables(rows, slices)
    return cells(confusion, slices, call.kwargs["weights"])


def frame(
    data: Frame,
    *,
    label: str,
    prediction: str,
    weight: str | None = None,
    by: Sequence[str] = (),
    weights: str = "none",
) -> Frame:
    """κ = 1 − Σ_ij d_ij·C_ij / Σ_ij d_ij·E_ij, E_ij = t_i·p_j / n: scikit-learn's
    ``cohen_kappa_score(label, prediction, weights=..., sample_weight=w)`` (κ is symmetric).

    C_ij is the weight of rows of true class i predicted as j, t_i and p_j the true and
    predicted weight of a class, n the total weight; the disagreement d_ij of classes at
    positions r_i, r_j among the slice's classes in sorted order (those present as a
    label or a prediction) is, by ``weights``: ``"none"`` 1 unless i = j (then κ =
    (p_o − p_e) / (1 − p_e), the observed agreement beyond the agreement expected from
    the class frequencies alone), ``"linear"`` |r_i − r_j|, ``"quadratic"`` (r_i − r_j)²
    (for ordinal classes: numbers sort by value, strings as text). NULL when the expected
    disagreement is 0 (all the weight on one class on both sides; scikit-learn returns
    nan there) and on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["a", "a", "b", "b", "c", "c"],
    ...                    "y_hat": ["a", "a", "b", "c", "c", "c"]})
    >>> # n 6, c 5, Σ t·p = 2·2 + 2·1 + 2·3 = 12: (30 − 12) / (36 − 12)
    >>> smp.cohen_kappa(df, label="y", prediction="y_hat").item()
    0.75
    >>> # quadratic, r = 1, 2, 3 for a, b, c: one b read as c (d = 1); by chance
    >>> # Σ (r_i − r_j)²·t_i·p_j = 2·(1·1 + 4·3) + 2·(1·2 + 1·3) + 2·(4·2 + 1·1) = 54
    >>> smp.cohen_kappa(df, label="y", prediction="y_hat", weights="quadratic").item()  # 1 − 6·1/54
    0.8888888888888888
    """
    weights = WEIGHTS.validate(SPEC.name, weights)
    rows, slices = class_rows(data.lazy(), label=label, prediction=prediction, weight=weight, by=by), slice_names(by)
    result = from_class_confusion(class_confusion(rows, slices), slices, weights=weights)
    result = result.rename({"value": "cohen_kappa", **dict(zip(slices, by))})
    result = result.sort(list(by), nulls_last=True) if by else result
    return in_kind(result, data)
