"""Confidence intervals, computed in the same query as the metrics.

``evaluate(..., ci=0.95)`` adds ``<column>_lo`` and ``<column>_hi`` after each metric's
column. A metric's spec declares its analytic interval (``ci_method="analytic"``, or
``"auto"``; docs/intervals.md lists them):

* ``delong`` (``auc``): DeLong's variance of the Mann–Whitney statistic, from the
  placements of the positives and the negatives (ties counting ½), and the Wald
  interval ``auc ± z·se`` clipped to [0, 1] (``sql/intervals/auc_delong.sql``);
* ``query_mean`` (``gauc`` and the ranking metrics, means over independent queries):
  ``se² = n/(n − 1) · Σ g_u² (x_u − m)² / (Σ g_u)²`` over the n queries used, and
  Student's t with n − 1 degrees of freedom (``sql/intervals/query_mean.sql``);
* ``proportion`` (accuracy, precision, recall, specificity): the binomial
  ``p(1 − p)/n`` of the confusion counts, clipped to [0, 1] (``proportion.sql``);
* ``row_mean`` (logloss, brier, score_mean, label_mean): the sample variance of each
  row's value over the summed weight (``row_mean.sql``);
* ``residual_mean`` (mae, mse, mean_error, mape): the same for a value of each row's
  prediction and target, and for rmse = √mse by the delta method (``residual_mean.sql``).

Every interval's bounds are clipped to the finite ends of the metric's range.

In SQL the interval's template becomes a step inside the metric's own (it reads the
metric's steps), giving ``se`` and ``df`` per slice (df NULL for the normal interval),
and the metric's step returns ``<name>_lo`` and ``<name>_hi`` = value ∓ q·se: q is z,
or Student's t tabulated exactly for 1..100 degrees of freedom (the step
``t_quantiles``) and above that its Cornish–Fisher expansion in 1/df (relative error
< 3e-11 at the 99.9% level). The polars engine computes the same ``se`` and ``df`` with
the same formulas and the bounds with the same quantiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from statistics import NormalDist

import polars as pl

from sqlmetrics.errors import InvalidParameterError, Keyword, Value
from sqlmetrics.registry import registry
from sqlmetrics.spec import Interval, MetricCall

METHODS = ("auto", "analytic", "bootstrap")
T_TABLE_DF = 100  # t quantiles tabulated for df 1..T_TABLE_DF, the expansion beyond


def check_level(ci: object) -> None:
    if isinstance(ci, bool) or not isinstance(ci, int | float) or not 0 < ci < 1:
        raise InvalidParameterError(
            Keyword("ci"), f" must be a confidence level between 0 and 1 (e.g. 0.95), got {ci!r}"
        )


def resampled(
    ci: float | None, ci_method: str, calls: Sequence[MetricCall], unit: str | None, paired: bool = False
) -> list[MetricCall]:
    """The calls whose interval is the bootstrap's (``sqlmetrics.bootstrap``): all of them
    for ``"bootstrap"`` or with a ``unit`` (a clustered interval: the analytic ones assume
    independent rows), for ``"auto"`` those without an analytic interval; none for
    ``"analytic"``. Raise for a level outside (0, 1), an unknown method, an analytic
    interval asked for a metric without one, or a bootstrap of a metric that takes no
    weights. ``paired``: the intervals of the difference of two paired scores
    (``PAIRED_TEMPLATES``) rather than of a metric."""
    if ci is None:
        return []
    check_level(ci)
    if ci_method not in METHODS:
        raise InvalidParameterError(
            Keyword("ci_method"), f" must be one of {', '.join(map(repr, METHODS))}, got {ci_method!r}"
        )
    without = [call for call in calls if (paired_template(call) if paired else interval_of(call)) is None]
    if ci_method == "analytic":
        if unit is not None:
            raise InvalidParameterError(
                Keyword("ci_unit"), " clusters the bootstrap: pass ", Keyword("ci_method", "bootstrap"), " (or ",
                Value("auto"), ")",
            )  # fmt: skip
        if without and paired:
            raise InvalidParameterError(
                f"no analytic paired comparison for {', '.join(call.column for call in without)}: they exist for auc "
                "(DeLong) and the means over queries (gauc and the ranking metrics); ",
                Keyword("ci_method", "auto"), " or ", Value("bootstrap"), " resamples the others",
            )  # fmt: skip
        if without:
            names = ", ".join(repr(c) if c.kwargs.get("average") == "micro" else c.spec.name for c in without)
            having = ", ".join(name for name, spec in registry().items() if spec.interval is not None)
            raise InvalidParameterError(
                f"no analytic interval for {names}: intervals exist for {having} (macro averages); ",
                Keyword("ci_method", "bootstrap", python="sm.evaluate's ci_method='bootstrap'"), " (or ",
                Value("auto"), ") resamples the others",
            )  # fmt: skip
        return []
    chosen = list(calls) if ci_method == "bootstrap" or unit is not None else without
    unweighted = [call.column for call in chosen if not call.spec.weighted]
    if unweighted:
        raise InvalidParameterError(
            f"no bootstrap for {', '.join(unweighted)}: it resamples by weighting rows, which these metrics do not "
            "take; their analytic interval (", Keyword("ci_method", "analytic"), ", without ", Keyword("ci_unit"),
            ") is the t over queries",
        )  # fmt: skip
    return chosen


def interval_of(call: MetricCall) -> Interval | None:
    """The call's analytic interval, if it has one (micro averages have none yet)."""
    if call.kwargs.get("average") == "micro":
        return None
    return call.spec.interval


# the spread of the difference of two scores over the same rows (sm.compare with scores=)
PAIRED_TEMPLATES = {
    "intervals/auc_delong.sql": "intervals/paired_delong.sql",
    "intervals/query_mean.sql": "intervals/paired_query_mean.sql",
}


def paired_template(call: MetricCall) -> str | None:
    """The template of the call's paired spread, if it has one."""
    interval = interval_of(call)
    return None if interval is None else PAIRED_TEMPLATES.get(interval.template)


def quantile(level: float, df: int | None) -> float:
    """The two-sided multiplier of a ``level`` interval: the normal quantile of
    (1 + level)/2 (``df`` None), or Student's t with ``df`` degrees of freedom, exact up
    to ``T_TABLE_DF`` and from the expansion beyond, as the SQL computes it."""
    if df is None:
        return _z(level)
    if df <= T_TABLE_DF:
        return t_quantile((1 + level) / 2, df)
    return _expansion(level, float(df))


def _z(level: float) -> float:
    return NormalDist().inv_cdf((1 + level) / 2)


def _coefficients(level: float) -> tuple[float, ...]:
    """z and the Cornish–Fisher terms g1..g5 of t = z + Σ g_i / df^i."""
    z = _z(level)
    return (
        z,
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
        (27 * z**11 + 339 * z**9 + 930 * z**7 - 1782 * z**5 - 765 * z**3 + 17955 * z) / 368640,
    )


def _expansion(level: float, df: float | pl.Expr) -> float | pl.Expr:
    """t ≈ z + Σ g_i / df^i, for a number or a polars expression ``df``."""
    z, *g = _coefficients(level)
    return z + sum(c / df**i for i, c in enumerate(g, start=1))


def expansion_sql(level: float, df: str) -> str:
    """``_expansion`` in SQL over the DOUBLE expression ``df``."""
    z, *g = (_double(c) for c in _coefficients(level))
    return " + ".join([z, *(f"{c} / POWER({df}, {i})" for i, c in enumerate(g, start=1))])


@cache
def t_quantile(p: float, df: int) -> float:
    """Student's t quantile at probability ``p`` > 0.5 with ``df`` degrees of freedom:
    Newton's method on the distribution function (the regularized incomplete beta
    function), started from the expansion."""
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) * math.sqrt(2 / (4 * p * (1 - p)))
    t = max(_expansion(2 * p - 1, float(df)), 1e-3)
    for _ in range(100):
        step = (_t_cdf(t, df) - p) / _t_pdf(t, df)
        t -= step
        # Newton converges quadratically: after a step of 1e-12 the error is far below
        # a double's rounding, where further steps only oscillate
        if abs(step) < 1e-12 * max(1.0, abs(t)):
            break
    return t


def _t_pdf(t: float, df: int) -> float:
    log = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log - (df + 1) / 2 * math.log1p(t * t / df))


def _t_cdf(t: float, df: int) -> float:
    tail = 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) by its continued fraction."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1) / (a + b + 2):
        return 1 - front * _beta_fraction(b, a, 1 - x) / b
    return front * _beta_fraction(a, b, x) / a


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return result


# --- SQL ------------------------------------------------------------------------------


def _double(value: float) -> str:
    """A float as a DOUBLE literal in exponent form (every engine reads ``1.5e0`` as a
    DOUBLE; ``1.5`` is a DECIMAL in Spark and Snowflake)."""
    text = repr(value)
    return text if "e" in text else f"{text}e0"


def t_table_sql(level: float) -> str:
    """The step ``t_quantiles``: Student's t multiplier of ``level`` for df 1..T_TABLE_DF."""
    p = (1 + level) / 2
    rows = [f"({df}, {_double(t_quantile(p, df))})" for df in range(1, T_TABLE_DF + 1)]
    lines = [", ".join(rows[i : i + 4]) for i in range(0, len(rows), 4)]
    return (
        f"-- t_quantiles: Student's t quantile of the {level:g} interval, exact, for 1..{T_TABLE_DF} degrees of\n"
        "-- freedom (beyond, each bound uses its Cornish–Fisher expansion in 1/df)\n"
        "SELECT df, q\nFROM (VALUES\n    " + ",\n    ".join(lines) + "\n) AS t(df, q)"
    )


def margin_sql(call: MetricCall, slices: tuple[str, ...], level: float) -> str:
    """A query over the step ``spread`` (the slices, ``se``, ``df``): per slice ``se`` and
    ``q``, the quantile of ``level`` (t from the step ``t_quantiles`` up to
    ``T_TABLE_DF`` degrees of freedom, else its expansion; z for the normal)."""
    keys = ", ".join(f"s.{column}" for column in slices)
    if not interval_of(call).student:
        return f"SELECT {keys}, s.se, s.df, {_double(_z(level))} AS q FROM spread AS s"
    q = f"COALESCE(t.q, {expansion_sql(level, 'CAST(s.df AS DOUBLE)')})"
    return f"SELECT {keys}, s.se, s.df, {q} AS q\nFROM spread AS s\nLEFT JOIN t_quantiles AS t ON t.df = s.df"


def bounds_sql(call: MetricCall, level: float) -> list[str]:
    """``<name>_lo`` and ``<name>_hi`` over ``point.<name>`` and the margin's ``se``, ``q``
    (clipped to the metric's range, ``clip_range``)."""
    name, (low, high) = call.base_name, clip_range(call)
    columns = []
    for side, sign in (("lo", "-"), ("hi", "+")):
        bound = f"point.{name} {sign} margin.q * margin.se"
        if high is not None:
            bound = f"LEAST({_double(high)}, {bound})"
        if low is not None:
            bound = f"GREATEST({_double(low)}, {bound})"
        if low is not None or high is not None:  # GREATEST and LEAST skip NULLs in some dialects
            bound = f"CASE WHEN margin.se IS NOT NULL THEN {bound} END"
        columns.append(f"{bound} AS {name}_{side}")
    return columns


def clip_range(call: MetricCall) -> tuple[float | None, float | None]:
    """The finite ends of the metric's range (``Metric.range``), which its interval's
    bounds are clipped to: an NDCG interval never leaves [0, 1], a logloss interval never
    goes below 0."""
    ends = call.spec.range or (None, None)
    return tuple(end if end is not None and math.isfinite(end) else None for end in ends)


# --- polars ---------------------------------------------------------------------------


def bounds_polars(result: pl.DataFrame, calls: Sequence[MetricCall], level: float) -> pl.DataFrame:
    """``<column>_lo`` and ``<column>_hi`` from each call's value, ``_se`` and ``_df``
    columns of ``result``, by bounds_sql's arithmetic."""
    columns = []
    for call in calls:
        name, (low, high) = call.column, clip_range(call)
        value, se = pl.col(name), pl.col(f"{name}_se")
        multiplier = multiplier_expr(level, pl.col(f"{name}_df") if interval_of(call).student else None)
        for side, sign in (("lo", -1), ("hi", 1)):
            bound = value + multiplier * se if sign > 0 else value - multiplier * se
            if low is not None or high is not None:
                bound = pl.when(se.is_not_null()).then(bound.clip(low, high))
            columns.append(bound.alias(f"{name}_{side}"))
    return result.with_columns(columns)


def multiplier_expr(level: float, df: pl.Expr | None) -> pl.Expr:
    """``quantile`` as a polars expression: z (``df`` None), or Student's t per row of
    the degrees of freedom ``df``, as bounds_sql's margin computes it."""
    if df is None:
        return pl.lit(_z(level))
    table = {d: t_quantile((1 + level) / 2, d) for d in range(1, T_TABLE_DF + 1)}
    tabulated = df.replace_strict(table, default=None, return_dtype=pl.Float64)
    return pl.coalesce(tabulated, _expansion(level, df.cast(pl.Float64)))


def two_sided_p(statistic: float, df: int | None) -> float:
    """P(|T| >= |statistic|) for a standard normal T (``df`` None) or Student's t with
    ``df`` degrees of freedom."""
    if df is None:
        return math.erfc(abs(statistic) / math.sqrt(2))
    return 2 * _t_cdf(-abs(statistic), df)


def delong_polars(hist: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """auc_delong.sql over the score histogram (``score``, ``w_pos``, ``w_neg`` per
    slice): per slice ``se`` (DeLong) and ``df`` (NULL)."""
    hist = hist.sort([*slices, "score"], descending=[*([False] * len(slices)), True], nulls_last=True)
    w_pos, w_neg = pl.col("w_pos"), pl.col("w_neg")
    cumulative = hist.with_columns(tp=w_pos.cum_sum().over(slices), fp=w_neg.cum_sum().over(slices))
    pos, neg = w_pos.sum(), w_neg.sum()
    # each weight over its class's total before any product: no overflow or underflow
    wins_minus_losses = (w_neg / neg * (pl.col("tp") / pos)).sum() - (w_pos / pos * (pl.col("fp") / neg)).sum()
    totals = cumulative.group_by(slices).agg(pos=pos, neg=neg, auc=(1 + wins_minus_losses) / 2)
    joined = cumulative.join(totals.filter((pl.col("pos") > 1) & (pl.col("neg") > 1)), on=slices, nulls_equal=True)
    t_pos, t_neg, auc = pl.col("pos").first(), pl.col("neg").first(), pl.col("auc")
    pos_placement = (pl.col("neg") - pl.col("fp") + w_neg / 2) / pl.col("neg")
    neg_placement = (pl.col("tp") - w_pos / 2) / pl.col("pos")
    variance = (w_pos / t_pos * (pos_placement - auc) ** 2).sum() / (t_pos - 1) + (
        w_neg / t_neg * (neg_placement - auc) ** 2
    ).sum() / (t_neg - 1)
    return joined.group_by(slices).agg(se=variance.sqrt(), df=pl.lit(None, pl.Int64))


def score_histogram(rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """Each slice's positive and negative weight per score (score_hist) of the used rows."""
    w, positive = pl.col("w"), pl.col("label") == 1
    return rows.group_by([*slices, "score"]).agg(w_pos=w.filter(positive).sum(), w_neg=w.filter(~positive).sum())


def _row_mean_polars(call: MetricCall, hist: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """row_mean.sql over the score histogram: each score's positive and negative weight
    with the value of a positive and of a negative row there. The row values are the
    interval's SQL, read by polars' SQL expression parser: one declaration for both
    engines."""
    values = dict(interval_of(call).values)
    weighted_values = pl.concat(
        [
            hist.select(*slices, w=pl.col(f"w_{side}"), x=pl.sql_expr(values[side_name]).cast(pl.Float64))
            for side, side_name in (("pos", "positive"), ("neg", "negative"))
        ]
    )
    return _weighted_mean_spread(weighted_values, slices, pl.lit(1.0))


def _residual_mean_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """residual_mean.sql over the used rows; the value, the rows it is taken over and the
    delta method's slope are the interval's SQL, read by polars' SQL expression parser."""
    values = dict(interval_of(call).values)
    kept = rows.filter(pl.sql_expr(values["where"]))
    weighted_values = kept.select(*slices, "w", x=pl.sql_expr(values["value"]).cast(pl.Float64))
    return _weighted_mean_spread(weighted_values, slices, pl.sql_expr(values["slope"]).cast(pl.Float64))


def _weighted_mean_spread(weighted_values: pl.LazyFrame, slices: list[str], slope: pl.Expr) -> pl.LazyFrame:
    """Per slice, ``se`` = slope(mean)·√(Σ w·(x − mean)² / ((W − 1)·W)) of the values ``x``
    of weight ``w``, in two passes (the mean, then the squares about it), NULL unless
    W > 1; ``df`` NULL (the normal interval)."""
    w, x = pl.col("w"), pl.col("x")
    means = weighted_values.group_by(slices).agg(total=w.sum(), mean=(w * x).sum() / w.sum())
    joined = weighted_values.join(means.filter(pl.col("total") > 1), on=slices, nulls_equal=True)
    n = pl.col("total").first()
    squares = (w * (x - pl.col("mean")) ** 2).sum()
    of_mean = joined.group_by(slices).agg(pl.col("mean").first(), se_of_mean=(squares / n / (n - 1)).sqrt())
    return of_mean.select(*slices, se=pl.col("se_of_mean") * slope, df=pl.lit(None, pl.Int64))


def _proportion_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """proportion.sql over the used rows, at the call's threshold (score >= threshold
    predicts positive)."""
    values = dict(interval_of(call).values)
    w, positive, predicted = pl.col("w"), pl.col("label") == 1, pl.col("score") >= call.kwargs["threshold"]
    counts = rows.group_by(slices).agg(
        tp=w.filter(positive & predicted).sum(),
        fp=w.filter(~positive & predicted).sum(),
        tn=w.filter(~positive & ~predicted).sum(),
        fn=w.filter(positive & ~predicted).sum(),
    )
    successes, trials = pl.sql_expr(values["successes"]), pl.sql_expr(values["trials"])
    se = (successes / trials * ((trials - successes) / trials) / trials).sqrt()  # no product of weights
    return counts.filter(trials > 0).select(*slices, se=se, df=pl.lit(None, pl.Int64))


# interval template -> (its spread in polars, whether it reads the score histogram rather
# than the used rows)
SPREADS_POLARS = {
    "intervals/auc_delong.sql": (lambda call, hist, slices: delong_polars(hist, slices), True),
    "intervals/row_mean.sql": (_row_mean_polars, True),
    "intervals/proportion.sql": (_proportion_polars, False),
    "intervals/residual_mean.sql": (_residual_mean_polars, False),
}


def row_spread_polars(
    call: MetricCall, rows: pl.LazyFrame, hist: Callable[[], pl.LazyFrame], slices: list[str]
) -> pl.LazyFrame | None:
    """The call's ``se`` and ``df`` per slice from the used ``rows`` or the score
    histogram (``hist()``, as the SQL templates read score_hist), for the intervals that
    read them (the query means come with their metric's per-query step instead)."""
    spread, of_histogram = SPREADS_POLARS.get(interval_of(call).template, (None, False))
    if spread is None:
        return None
    return spread(call, hist() if of_histogram else rows, slices)


def paired_row_spread_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame | None:
    """paired_delong.sql over the used rows of two paired scores (the slice ``pair`` says
    which, 1 or 2; each row of 1 carries both, ``score_1`` and ``score_2``): per slice
    ``se`` of the difference of the two AUCs, on the rows of 2. None for the metrics
    whose paired spread comes with their per-query step."""
    if paired_template(call) != "intervals/paired_delong.sql":
        return None
    groups = [column for column in slices if column != pair]
    w, positive = pl.col("w"), pl.col("label") == 1
    used = rows.filter(pl.col(pair) == 1).with_columns(
        w_pos=pl.when(positive).then(w).otherwise(0.0), w_neg=pl.when(positive).then(0.0).otherwise(w)
    )
    for k in (1, 2):
        used = used.join(_placements(used, groups, f"score_{k}", str(k)), on=[*groups, f"score_{k}"], nulls_equal=True)
    w_pos, w_neg = pl.col("w_pos"), pl.col("w_neg")
    pos, neg = w_pos.sum(), w_neg.sum()
    # placements as fractions, each division before a product of weights (paired_delong.sql)
    b, a = (pl.col("b_2") - pl.col("b_1")) / neg, (pl.col("a_2") - pl.col("a_1")) / pos
    spread_pos = ((w_pos * b * b).sum() - (w_pos * b).sum() * ((w_pos * b).sum() / pos)) / pos / (pos - 1)
    spread_neg = ((w_neg * a * a).sum() - (w_neg * a).sum() * ((w_neg * a).sum() / neg)) / neg / (neg - 1)
    se = pl.when((pos > 1) & (neg > 1)).then((spread_pos.clip(0) + spread_neg.clip(0)).sqrt())
    sums = used.group_by(groups).agg(se=se) if groups else used.select(se=se)
    return sums.filter(pl.col("se").is_not_null()).select(
        *groups, pl.lit(2, pl.Int32).alias(pair), "se", df=pl.lit(None, pl.Int64)
    )


def _placements(rows: pl.LazyFrame, groups: list[str], score: str, suffix: str) -> pl.LazyFrame:
    """Per slice and value of ``score``: ``b_<suffix>``, the negative weight below it plus
    half at it, and ``a_<suffix>``, the positive weight above it plus half at it."""
    hist = rows.group_by([*groups, score]).agg(pl.col("w_pos").sum(), pl.col("w_neg").sum()).sort(score)
    at_or_below = pl.col("w_neg").cum_sum()
    at_or_above = pl.col("w_pos").cum_sum(reverse=True)
    if groups:
        at_or_below, at_or_above = at_or_below.over(groups), at_or_above.over(groups)
    return hist.select(
        *groups,
        score,
        (at_or_below - pl.col("w_neg") / 2).alias(f"b_{suffix}"),
        (at_or_above - pl.col("w_pos") / 2).alias(f"a_{suffix}"),
    )
