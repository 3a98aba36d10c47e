"""The delta method's interval of a smooth function of the K×K confusion matrix (the
multi-class accuracy, precision, recall, F-scores, balanced accuracy and MCC;
``sql/intervals/class_confusion_delta.sql``, the gradient cell by cell, read by
``multinomial_delta.sql``): the cells' shares q_ij are multinomial, and
se² = Σ q·(g − ḡ)² / n with g the metric's gradient in the shares; clustered by a unit
(``clustered_multinomial_delta.sql``), each unit's part Σ_ij n_k,ij·(g_ij − ḡ) / n from
its cells' weights n_k,ij (the form κ's interval shares). Every such
gradient here is g_ij = [i = j]·diagonal_i + true_i + predicted_j: each metric declares
the three terms of a class as SQL over the class's shares ``tp``, ``support`` and
``predicted``, its value ``class_value`` (declared too) and the slice's sums over its
classes (``classes``, ``covered``, ``covered_mean``, ``correct``, ``agreement``,
``support_squares``, ``predicted_squares``: see the template), read by polars through
``pl.sql_expr``."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from sqlmetrics.intervals.confusion_delta import PAIRED_METHOD
from sqlmetrics.spec import ClusteredInterval, Interval, MetricCall, PairedInterval
from sqlmetrics.sqltext import templates

TERMS = ("g_diagonal", "g_true", "g_predicted")


Tables = Callable[[pl.LazyFrame, list[str]], tuple[pl.LazyFrame, pl.LazyFrame]]
Spread = Callable[[MetricCall, pl.LazyFrame, list[str]], pl.LazyFrame]


def class_confusion_delta(class_value: str, g_diagonal: str, g_true: str, g_predicted: str, tables: Tables) -> Interval:
    """The delta method's interval of a metric of the confusion matrix whose gradient in
    the cells' shares has the class terms ``g_*`` (SQL, with the metric's parameters as
    ``{{ name }}``); ``class_value`` is the per-class value the slice's sums read (SQL
    NULL for a metric without one). Its polars form reads ``tables(rows, slices)``: the
    used rows' ``class_confusion`` and ``class_counts``, as the metrics build them."""

    def gradients(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
        return class_cell_gradients(call, *tables(rows, slices), slices)

    def spread(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
        return multinomial_se(gradients(call, rows, slices), slices, pl.lit(True))

    return multinomial_delta(
        "class_confusion_delta",
        (
            ("class_value", class_value),
            ("g_diagonal", g_diagonal),
            ("g_true", g_true),
            ("g_predicted", g_predicted),
        ),
        spread,
        gradients,
        micro=True,
    )


def multinomial_delta(
    name: str, values: tuple[tuple[str, str], ...], spread: Spread, gradients: Spread, micro: bool = False
) -> Interval:
    """The delta method's interval of a metric of the confusion matrix whose gradient in
    the cells' shares, cell by cell, is ``sql/intervals/<name>.sql`` (filled with
    ``values``; in polars ``gradients(call, used rows, slices)``: each cell's share ``q``,
    gradient ``g`` and the slice's weight ``n``): its se by ``multinomial_delta.sql`` (in
    polars ``spread``), clustered by a unit its units' parts by
    ``clustered_multinomial_delta.sql``, and the difference under two paired predicted
    classes by ``paired_multinomial_delta.sql``."""

    def parts(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
        used = rows.filter(pl.col("w").is_not_null())
        return unit_parts(gradients(call, used, slices), used, slices)

    def paired(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
        return paired_multinomial_se(gradients(call, rows, slices), rows, slices, pair)

    return Interval(
        name,
        "intervals/multinomial_delta.sql",
        "delta method",
        comparison="delta method",
        values=values,
        steps=(("cells", f"intervals/{name}.sql"),),
        polars=spread,
        micro=micro,
        paired=PairedInterval("intervals/paired_multinomial_delta.sql", PAIRED_METHOD, over_rows=True, polars=paired),
        clustered=ClusteredInterval("intervals/clustered_multinomial_delta.sql", parts),
    )


def class_terms(call: MetricCall, counts: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """Per slice and class (``class_counts``' rows) the gradient's terms, as the template's
    subquery ``terms``: the shares, the class's value, the slice's sums, the terms."""
    parameters = {name: templates.literal(value) for name, value in call.kwargs.items()}
    declared = {key: pl.sql_expr(templates.fill(sql, parameters)) for key, sql in call.spec.interval.values}

    def over(expr: pl.Expr) -> pl.Expr:
        return expr.over(slices) if slices else expr

    n = over(pl.col("support").sum())
    shares = counts.with_columns(n=n).filter(pl.col("n") > 0)
    shares = shares.with_columns(pl.col(c) / pl.col("n") for c in ("tp", "support", "predicted"))
    valued = shares.with_columns(class_value=declared["class_value"].cast(pl.Float64))
    value, support, predicted = pl.col("class_value"), pl.col("support"), pl.col("predicted")
    covered = over(support.filter(value.is_not_null()).sum())
    summed = valued.with_columns(
        classes=over(value.count()),
        covered=covered,
        covered_mean=pl.when(covered != 0).then(over((support * value).sum()) / covered),
        correct=over(pl.col("tp").sum()),
        agreement=over((support * predicted).sum()),
        support_squares=over((support * support).sum()),
        predicted_squares=over((predicted * predicted).sum()),
    )
    return summed.select(*slices, "class", *(declared[term].cast(pl.Float64).alias(term) for term in TERMS))


def class_cell_gradients(
    call: MetricCall, confusion: pl.LazyFrame, counts: pl.LazyFrame, slices: list[str]
) -> pl.LazyFrame:
    """class_confusion_delta.sql over a confusion matrix (slices, ``true_class``,
    ``predicted_class``, ``w``) and its class counts: each cell's share ``q``, gradient
    ``g`` and the slice's weight ``n``."""
    terms = class_terms(call, counts, slices)
    class_type = counts.collect_schema()["class"]
    by = slices or None
    cells = confusion.with_columns(
        pl.col("true_class", "predicted_class").cast(class_type),
        n=pl.col("w").sum().over(by) if by else pl.col("w").sum(),
    )
    cells = cells.filter(pl.col("n") > 0).with_columns(q=pl.col("w") / pl.col("n"))
    true_side = terms.select(*slices, "g_true", "g_diagonal", true_class="class")
    predicted_side = terms.select(*slices, "g_predicted", predicted_class="class")
    for side, key in ((true_side, "true_class"), (predicted_side, "predicted_class")):
        cells = cells.join(side, on=[*slices, key], how="inner", nulls_equal=True)
    own = pl.when(pl.col("true_class") == pl.col("predicted_class"))
    g = own.then(pl.col("g_true") + pl.col("g_diagonal")).otherwise(pl.col("g_true")) + pl.col("g_predicted")
    return cells.with_columns(g=g)


def multinomial_se(cells: pl.LazyFrame, slices: list[str], defined: pl.Expr) -> pl.LazyFrame:
    """Per slice of ``cells`` (each with its share ``q``, gradient ``g`` and the slice's
    weight ``n``) the delta method's se = √(Σ q·(g − ḡ)² / n), ḡ = Σ q·g, NULL where
    ``defined`` (an aggregation) is not or an occurring cell's gradient is NULL; and
    ``df`` NULL (the normal interval)."""
    q, g = pl.col("q"), pl.col("g")
    spread = (q * (g - (q * g).sum()) ** 2).sum() / pl.col("n").first()
    undefined = (q > 0) & g.is_null()
    se = pl.when(defined & ~undefined.any()).then(spread.sqrt())
    used = cells.filter(pl.col("n") > 0)
    aggregated = used.group_by(slices).agg(se=se) if slices else used.select(se=se)
    return aggregated.with_columns(df=pl.lit(None, pl.Int64))


def unit_parts(cells: pl.LazyFrame, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """clustered_multinomial_delta.sql: each unit's part Σ_ij n_k,ij·(g_ij − ḡ) / n, from
    the ``cells`` (slices, ``true_class``, ``predicted_class``, share ``q``, gradient
    ``g``, the slice's weight ``n``) and the used rows (with ``unit_id``); NULL where a
    cell the unit weighs has no gradient."""
    q, g = pl.col("q"), pl.col("g")
    keys = [*slices, "true_class", "predicted_class"]
    centred = cells.filter(pl.col("n") > 0).with_columns(g_mean=(q * g).sum().over(slices))
    class_type = centred.collect_schema()["true_class"]
    units = rows.group_by(*keys, "unit_id").agg(pl.col("w").sum())
    units = units.with_columns(pl.col("true_class", "predicted_class").cast(class_type))
    joined = units.join(centred.select(*keys, "n", "g", "g_mean"), on=keys, nulls_equal=True)
    weighed = pl.col("w") != 0
    part = (pl.col("w") * (g - pl.col("g_mean"))).filter(weighed).sum() / pl.col("n").first()
    undefined = (weighed & g.is_null()).any()
    return joined.group_by(*slices, "unit_id").agg(part=pl.when(~undefined).then(part))


def paired_multinomial_se(cells: pl.LazyFrame, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
    """paired_multinomial_delta.sql: per slice (on the rows of ``pair`` = 2) the se of the
    difference of the metric under two predicted classes of the same used ``rows`` (each
    row of ``pair`` = 1 carries both, ``prediction_1`` and ``prediction_2``), from the
    ``cells`` of each prediction (``pair`` among ``slices``: share ``q``, gradient ``g``,
    the slice's weight ``n``): h_j = (g₂ − ḡ₂) − (g₁ − ḡ₁) at the joint cell j's cells,
    se = √(Σ q_j·(h_j − h̄)² / n)."""
    q, g = pl.col("q"), pl.col("g")
    groups = [column for column in slices if column != pair] or ["sqlmetrics_all"]
    centred = cells.filter(pl.col("n") > 0).with_columns(g=g - (q * g).sum().over(slices))
    class_type = centred.collect_schema()["predicted_class"]
    used = rows.filter(pl.col(pair) == 1).with_columns(sqlmetrics_all=pl.lit(0))
    joint = used.group_by(*groups, "true_class", "prediction_1", "prediction_2").agg(n_joint=pl.col("w").sum())
    joint = joint.with_columns(n=pl.col("n_joint").sum().over(groups)).filter(pl.col("n") > 0)
    joint = joint.with_columns(pl.col("true_class", "prediction_1", "prediction_2").cast(class_type))
    for k in (1, 2):
        side = centred.filter(pl.col(pair) == k).with_columns(sqlmetrics_all=pl.lit(0))
        side = side.select(*groups, "true_class", pl.col("predicted_class").alias(f"prediction_{k}"), g_k=g)
        joint = joint.join(side.rename({"g_k": f"g_{k}"}), on=[*groups, "true_class", f"prediction_{k}"], how="left",
                           nulls_equal=True)  # fmt: skip
    differences = joint.with_columns(q=pl.col("n_joint") / pl.col("n"), h=pl.col("g_2") - pl.col("g_1"))
    h = pl.col("h")
    spread = (q * (h - (q * h).sum()) ** 2).sum() / pl.col("n").first()
    undefined = ((q > 0) & h.is_null()).any()
    out = differences.group_by(groups).agg(se=pl.when(~undefined).then(spread.sqrt()), df=pl.lit(None, pl.Int64))
    out = out.drop("sqlmetrics_all") if groups == ["sqlmetrics_all"] else out
    return out.with_columns(pl.lit(2, pl.Int32).alias(pair)).select(*slices, "se", "df")
