"""``sm.compare``: does the candidate arm beat the baseline, by how much, how surely?

Arms that saw different rows (an A/B test's logged traffic: ``arm="model_version"``,
``baseline="v1"``) are independent samples: each metric and its standard error are
computed per arm in one query (the intervals of ``sqlmetrics.intervals``), and

    delta = candidate − baseline,   se² = se_baseline² + se_candidate²,
    delta ± z·se,   p = 2·(1 − Φ(|delta| / se))   (two-sided, normal),

or, for a metric without a formula, the bootstrap's percentile interval of the
differences of the arms' values on the same replicates.

Two models that scored the same rows (``scores=("score_a", "score_b")``) are compared
paired: every row is evaluated with each score in one query, and the spread of the
difference comes from the rows (DeLong's covariance of the two AUCs; the rows'
differences for a mean over rows) or the queries (the paired t-test over the per-query
differences, Student's t with n − 1 degrees of freedom) or the paired bootstrap (both
scores on the same resampled rows), so a difference both models share on the same rows
cancels.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from decimal import ROUND_CEILING, Decimal
from typing import Any

import polars as pl

from sqlmetrics import intervals
from sqlmetrics.api import Metrics, prepare_arms, prepare_paired, run
from sqlmetrics.binding import PAIRED_SLICE, Binding
from sqlmetrics.binding.bootstrap import REPLICATE_SLICE
from sqlmetrics.errors import Counted, InvalidInputError, InvalidParameterError
from sqlmetrics.request import ROWS, Request
from sqlmetrics.rules.columns import counted_polars
from sqlmetrics.spec import MetricCall

TIE_TOLERANCE = 1e-12  # a replicate's difference this small relative to its values is 0
PAIRED_BOOTSTRAP = "paired bootstrap: percentile"
COLUMNS = (
    "metric",
    "baseline",
    "candidate",
    "baseline_value",
    "candidate_value",
    "delta",
    "delta_lo",
    "delta_hi",
    "p_value",
    "p_bound",
    "method",
    "note",
)
SPREAD = ("delta_lo", "delta_hi", "p_value", "p_bound")  # the bootstrap's columns of the difference
EXCLUDED = "excluded: a NULL in a bound column"  # why a row is not used, as evaluate's n_excluded counts it
NULL_ARM_ROWS = Counted("row with a NULL arm", "rows with a NULL arm")  # an arm comparison's note


def compare(
    source: Any,
    metrics: Metrics,
    *,
    scores: Sequence[str] | None = None,
    predictions: Sequence[str] | None = None,
    arm: str | None = None,
    baseline: Any = None,
    # <roles>: written by `python -m sqlmetrics.docs --write`, without class_scores
    label: str = "label",
    score: str | None = None,
    prediction: str | None = None,
    query: str | None = None,
    item: str | None = None,
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    judgments: Any = None,
    propensity: str | None = None,
    target_propensity: str | None = None,
    reward_model: str | None = None,
    target_reward_model: str | None = None,
    # </roles>
    ci: float = 0.95,
    ci_method: str = "auto",
    ci_unit: str | None = None,
    resamples: int = 200,
    seed: int = 0,
    engine: str = "duckdb",
    con: Any = None,
    spark: Any = None,
) -> pl.DataFrame:
    """Compare two scores of the same rows (``scores=(baseline, candidate)``, paired; two
    predicted classes with ``predictions=``, for the multi-class metrics), or each arm of
    column ``arm`` with the arm ``baseline`` (independent), on ``metrics``.

    Returns one row per slice of ``by``, metric and candidate: the slice columns,
    ``metric`` (the result column ``evaluate`` would name), ``baseline``, ``candidate``
    (score column names, or arm values), ``baseline_value``, ``candidate_value``,
    ``delta`` (candidate − baseline), ``delta_lo`` and ``delta_hi`` (the ``ci`` interval
    of the difference), ``p_value`` (two-sided, for no difference), ``p_bound`` (True
    when ``p_value`` is a bootstrap's floor 2/(R + 1), an upper bound: no replicate's
    difference crossed 0, and R resamples cannot tell a smaller p-value; print it as
    ``p_value_text`` does, ``< 0.00996`` for 200 resamples; False for a p-value that is
    a value; NULL with it), ``method`` and
    ``note`` (NULL, or why a value is missing: a slice without used rows, or without
    rows of an arm; and how many rows with a NULL arm were excluded).

    * Paired (``scores``): every row is evaluated with both scores in one query. AUC's
      difference has DeLong's variance var₁ + var₂ − 2·cov (the placements of each row
      under both scores), normal; a mean over queries (gauc, ndcg, mrr, ...) the paired
      t-test over the queries both use (``scipy.stats.ttest_rel`` with equal query
      weights), Student's t; a mean over rows (logloss, brier, ...) the normal test of
      the rows' differences; a metric of the confusion counts (f1, mcc, precision, ...)
      the delta method over the joint cells of the label and both predictions (and
      of two predicted classes, ``predictions=``, for the multi-class metrics and κ);
      calibration and the regression metrics the delta method over the rows'
      influences; with a ``ci_unit``, each of those clustered by it (each unit's part of
      the difference: its parts under the two scores' metrics, subtracted; normal), but
      a mean over queries whose queries are its units (the paired t); the other metrics
      (or all, with ``ci_method="bootstrap"``) the paired bootstrap: both scores on the
      same resampled rows (``resamples``, ``seed``; units of ``ci_unit``), the
      percentile interval of the differences and a Monte Carlo p-value. A row with
      either score NULL is excluded. A run with
      ``judgments`` (two scores of its rows: a re-ranker against the first stage) is
      compared by its queries' values, each list's ideal ranking from its judgments.
    * Arms (``arm``, ``baseline``, and ``ci_unit``: the unit the arms were randomized
      by, required: a column such as the user, or ``"rows"`` for rows assigned their arm
      one by one; ``method`` names it): the arms saw different rows, so the difference's
      variance is the sum of the arms' variances, from each metric's analytic interval
      (``docs/intervals.md``; clustered by ``ci_unit``: the arms as independent samples
      of units, a unit with rows in two arms of a slice refused), normal; the other
      metrics (or all, with ``ci_method="bootstrap"``) by the bootstrap: every row (or
      unit) resampled independently, each arm's metric per replicate, the percentile
      interval of the differences and a Monte Carlo p-value. A ``baseline`` given as text also
      names the value of a numeric arm column that prints as it (``"2"`` for the arm 2).
      Every slice has a row per candidate arm (every arm but the baseline), even one
      where the baseline or the candidate has no rows (NULL values, and ``note`` says
      which). A row whose arm is NULL is in no arm: it is excluded, and counted in
      ``note``.

    A slice where an interval is undefined gets NULL bounds and p-value. The other
    arguments are ``evaluate``'s.

    >>> import polars as pl, sqlmetrics as sm
    >>> logs = pl.DataFrame({"arm": ["a"] * 6 + ["b"] * 6, "click": [0, 1, 0, 1, 0, 1] * 2,
    ...                      "pctr": [.2, .6, .7, .5, .1, .9, .3, .8, .1, .9, .2, .7]})
    >>> row = sm.compare(logs, ["auc"], arm="arm", baseline="a", label="click", score="pctr",
    ...                  ci_unit="rows").row(0, named=True)  # each row assigned its arm on its own
    >>> round(row["baseline_value"], 4), round(row["candidate_value"], 4), round(row["delta"], 4)
    (0.7778, 1.0, 0.2222)
    >>> round(row["p_value"], 3), row["method"]  # six rows per arm cannot tell
    (0.371, 'arms by rows, normal: DeLong')
    >>> logs = logs.with_columns(v2=pl.col("pctr") + pl.col("click") * 0.3)
    >>> row = sm.compare(logs, ["auc"], scores=("pctr", "v2"), label="click").row(0, named=True)
    >>> row["baseline"], row["candidate"], round(row["delta"], 4), row["method"]
    ('pctr', 'v2', 0.0694, 'paired, normal: DeLong')
    """
    return compare_request(source, metrics, Request.of(locals()), baseline, engine, con, spark)


def compare_request(
    source: Any,
    metrics: Metrics,
    request: Request,
    baseline: Any = None,
    engine: str = "duckdb",
    con: Any = None,
    spark: Any = None,
) -> pl.DataFrame:
    """``compare`` of a request built already (``report``'s)."""
    slices = request.slices
    if request.ci is None:
        raise InvalidParameterError("compare needs a confidence level: ci=0.95, for example")
    if request.paired:
        if request.arm is not None or baseline is not None:
            raise InvalidParameterError(
                "pass either scores= (two models that scored the same rows; predictions= for their predicted "
                "classes) or arm= and baseline= (arms that saw different rows), not both"
            )
        binding, second = prepare_paired(metrics, request)

        def paired_differences(part: Binding) -> pl.DataFrame:
            return _paired_differences(run(part, source, second, engine, con, spark), part, slices)

        return _apart(binding, paired_differences)
    if request.arm is None or baseline is None:
        raise InvalidParameterError(
            "compare needs scores=(baseline score, candidate score) for two models that scored the same rows "
            "(predictions=(baseline, candidate) for their predicted classes), or arm=<the arm column> and "
            "baseline=<the baseline arm> for arms that saw different rows"
        )
    binding, second = prepare_arms(metrics, request)

    def differences(part: Binding) -> pl.DataFrame:
        result = run(part, source, second, engine, con, spark)
        return _differences(result, part, slices, request.arm, _baseline_value(result, request.arm, baseline))

    return _apart(binding, differences)


def _apart(binding: Binding, compared: Callable[[Binding], pl.DataFrame]) -> pl.DataFrame:
    """``compared(binding)``, or for a bootstrap serving only some of the calls, the
    comparison of those (once per replicate) and of the others (once, with their analytic
    spread) in statements of their own, in the calls' order: one statement would compute
    every metric once per replicate (R times the work, and R times the rows in flight)."""
    boot = binding.bootstrap
    if boot is None or len(boot.columns) == len(binding.calls):
        return compared(binding)
    once = tuple(call for call in binding.calls if call.column not in boot.columns)
    replicated = tuple(call for call in binding.calls if call.column in boot.columns)
    unresampled = tuple(name for name in binding.by if name != REPLICATE_SLICE)
    parts = [
        compared(dataclasses.replace(binding, calls=once, by=unresampled, bootstrap=None)),
        compared(dataclasses.replace(binding, calls=replicated)),
    ]
    order = {call.column: position for position, call in enumerate(binding.calls)}
    position = pl.col("metric").replace_strict(order, return_dtype=pl.Int64)
    return pl.concat(parts).sort(position, maintain_order=True)


def _paired_differences(result: pl.DataFrame, binding: Binding, slices: list[str]) -> pl.DataFrame:
    """One row per slice and call from the result of both scores (the slice PAIRED_SLICE
    says which): the analytic calls' rows of the second score carry the spread of the
    difference; the bootstrap's come per replicate (REPLICATE_SLICE, 0 the data as it is)."""
    scores, ci = binding.paired_scores, binding.ci
    original = result.filter(pl.col(REPLICATE_SLICE) == 0) if binding.bootstrap else result
    frames = []
    for call in binding.calls:
        name = call.column
        first = original.filter(pl.col(PAIRED_SLICE) == 1).select(*slices, pl.col(name).alias("baseline_value"))
        second = original.filter(pl.col(PAIRED_SLICE) == 2)
        pairs = second.join(first, on=slices, how="left", nulls_equal=True) if slices else second.hstack(first)
        delta = pl.col(name) - pl.col("baseline_value")
        if binding.analytic(call):
            df = pl.col(f"{name}_df") if intervals.interval_of(call).student else None
            spread, method = _interval_and_p(delta, pl.col(f"{name}_se"), df, ci), _paired_method(call, binding)
        else:
            bounds = _bootstrap_bounds(result, slices, name, ci)
            pairs = pairs.join(bounds, on=slices, how="left", nulls_equal=True) if slices else pairs.hstack(bounds)
            spread, method = (
                {column: pl.col(column) for column in SPREAD},
                PAIRED_BOOTSTRAP,
            )
        frames.append(
            pairs.select(
                *slices,
                metric=pl.lit(name),
                baseline=pl.lit(scores[0]),
                candidate=pl.lit(scores[1]),
                baseline_value="baseline_value",
                candidate_value=pl.col(name),
                delta=delta,
                **spread,
                method=pl.lit(method),
                note=_no_rows(pl.col("n_rows"), pl.col("n_excluded")),
            )
        )
    return pl.concat(frames).select(*slices, *COLUMNS)


def _paired_method(call: MetricCall, binding: Binding) -> str:
    """What the ``method`` column calls the analytic spread of a paired difference: its
    paired form's name, or clustered by a unit its clustered form's."""
    clustered = binding.clustered(call)
    if clustered is None:
        return intervals.paired_of(call).method
    return f"paired, clustered by unit: {clustered.method or intervals.interval_of(call).method}"


def _no_rows(used: pl.Expr, excluded: pl.Expr, who: pl.Expr | None = None) -> pl.Expr:
    """That the slice has no rows (``used`` NULL: the slice has none of ``who``'s, an arm)
    or none used (0: the ``excluded`` rows had a NULL in a bound column); else NULL."""
    said = pl.when(used.is_null()).then(pl.lit("no rows in this slice"))
    said = said.when(used == 0).then(pl.format(f"no used rows in this slice ({{}} {EXCLUDED})", excluded))
    return said if who is None else pl.format("{}: {}", who, said)


def _bootstrap_bounds(result: pl.DataFrame, slices: list[str], name: str, ci: float) -> pl.DataFrame:
    """Per slice, the percentile interval and p-value (``_replicate_bounds``) of the
    paired scores' differences: candidate − baseline on the same resampled rows."""
    keys = [*slices, REPLICATE_SLICE]
    replicates = result.filter(pl.col(REPLICATE_SLICE) > 0)
    first = replicates.filter(pl.col(PAIRED_SLICE) == 1).select(*keys, first=pl.col(name))
    second = replicates.filter(pl.col(PAIRED_SLICE) == 2).select(*keys, second=pl.col(name))
    return _replicate_bounds(second.join(first, on=keys, nulls_equal=True), slices, ci)


def _replicate_bounds(differences: pl.DataFrame, groups: list[str], ci: float) -> pl.DataFrame:
    """Per group of ``differences`` (one row per replicate r: ``first`` and ``second``, the
    baseline's and the candidate's value), the percentile interval of d_r = second −
    first over the R replicates and the two-sided Monte Carlo p-value
    2·(1 + min(#{d_r <= 0}, #{d_r >= 0})) / (R + 1), capped at 1 (never 0: R replicates
    cannot tell a p-value below about 2/R), a d_r within TIE_TOLERANCE of 0 relative to
    the values counting on both sides, and ``p_bound``: whether it is at its floor
    2/(R + 1) (no d_r on one side: a bound); NULL when any replicate is undefined."""
    d = pl.col("second") - pl.col("first")
    defined = d.null_count() == 0
    # a difference within rounding of the values (1e-12 of their size) is a tie, on both
    # sides: the engines sum in different orders, and an exact 0 must not become ±1e-17
    tie = d.abs() <= TIE_TOLERANCE * pl.max_horizontal(pl.col("first").abs(), pl.col("second").abs())
    crossing = pl.min_horizontal(((d <= 0) | tie).sum(), ((d >= 0) | tie).sum())
    side = (1 + crossing) / (d.count() + 1)
    bounds = [
        pl.when(defined).then(d.quantile((1 - ci) / 2, "linear")).alias("delta_lo"),
        pl.when(defined).then(d.quantile((1 + ci) / 2, "linear")).alias("delta_hi"),
        pl.when(defined).then(pl.min_horizontal(2 * side, pl.lit(1.0))).alias("p_value"),
        pl.when(defined).then(crossing == 0).alias("p_bound"),
    ]
    return differences.group_by(groups).agg(bounds) if groups else differences.select(bounds)


def _baseline_value(result: pl.DataFrame, arm: str, baseline: Any) -> Any:
    """The arm value ``baseline`` names: itself, or for a baseline given as text (the
    command line's) the one value of a non-text arm column printed as that text."""
    arms = result[arm].drop_nulls().unique(maintain_order=True).to_list()
    if not arms:
        raise InvalidInputError(
            f"arm column {arm!r} has no value: the source has no rows, or every row's arm is NULL; there is nothing "
            "to compare"
        )
    if baseline not in arms and isinstance(baseline, str) and result.schema[arm] != pl.String:
        baseline = next((value for value in arms if str(value) == baseline), baseline)
    if baseline not in arms:
        shown = ", ".join(map(repr, arms[:10])) + (", ..." if len(arms) > 10 else "")
        raise InvalidInputError(f"baseline {baseline!r} does not occur in arm column {arm!r}; its values: {shown}")
    if len(arms) < 2:
        raise InvalidInputError(f"arm column {arm!r} has a single value ({baseline!r}): there is nothing to compare")
    return baseline


def _differences(result: pl.DataFrame, binding: Binding, slices: list[str], arm: str, baseline: Any) -> pl.DataFrame:
    """One row per slice, call and candidate arm (every slice, every candidate): from the
    arms' analytic standard errors, or from their bootstrap replicates (REPLICATE_SLICE,
    0 the data as it is). The rows of a NULL arm are in no arm."""
    original = result.filter(pl.col(REPLICATE_SLICE) == 0) if binding.bootstrap else result
    is_baseline = pl.col(arm) == pl.lit(baseline)
    keys = slices or ["slice_0"]  # a constant key when there are no slices
    original = original.with_columns(slice_0=pl.lit(0)) if not slices else original
    grid = _slices_and_candidates(original, keys, arm, is_baseline)
    armed = original.filter(pl.col(arm).is_not_null())
    base, candidates = armed.filter(is_baseline), armed.filter(~is_baseline)
    frames = []
    for call in binding.calls:
        name = call.column
        analytic = binding.analytic(call)
        values = [name, f"{name}_se"] if analytic else [name]
        pairs = grid.join(
            candidates.select(*keys, pl.col(arm).alias("candidate"), *values),
            on=[*keys, "candidate"],
            how="left",
            nulls_equal=True,
        ).join(base.select(*keys, *values), on=keys, how="left", nulls_equal=True, suffix="_baseline")
        delta = pl.col(name) - pl.col(f"{name}_baseline")
        if analytic:
            se = (pl.col(f"{name}_se") ** 2 + pl.col(f"{name}_se_baseline") ** 2).sqrt()
            spread, method = (
                _interval_and_p(delta, se, None, binding.ci),
                f"arms by {_arm_unit(binding)}, normal: {intervals.interval_of(call).comparison}",
            )
        else:
            bounds = _arm_bootstrap_bounds(result, keys, arm, is_baseline, name, binding.ci)
            pairs = pairs.join(bounds, on=[*keys, "candidate"], how="left", nulls_equal=True)
            spread = {column: pl.col(column) for column in SPREAD}
            method = f"arms bootstrap by {_arm_unit(binding)}: percentile"
        frames.append(
            pairs.select(
                *slices,
                metric=pl.lit(name),
                baseline=pl.lit(baseline).cast(result.schema[arm]),
                candidate="candidate",
                baseline_value=pl.col(f"{name}_baseline"),
                candidate_value=pl.col(name),
                delta=delta,
                **spread,
                method=pl.lit(method),
                note="note",
            )
        )
    return pl.concat(frames).select(*slices, *COLUMNS)


def _arm_unit(binding: Binding) -> str:
    """The unit the arms were randomized by, as ``method`` names it: ``unit user_id`` (the
    intervals clustered, or the bootstrap resampled, by it) or ``rows`` (``ci_unit="rows"``)."""
    return f"unit {binding.unit}" if binding.unit is not None else ROWS


def _slices_and_candidates(original: pl.DataFrame, keys: list[str], arm: str, is_baseline: pl.Expr) -> pl.DataFrame:
    """Every slice of ``original`` (its ``keys``, in its order) with every candidate arm
    (``candidate``, sorted) and its ``note``: which of the baseline and the candidate has
    no used rows in the slice, and how many rows with a NULL arm it excluded."""
    rows = original.select(*keys, arm, "n_rows", "n_excluded")
    armed = rows.filter(pl.col(arm).is_not_null())
    arms = armed.filter(~is_baseline).select(candidate=pl.col(arm)).unique().sort("candidate")
    grid = rows.select(keys).unique(maintain_order=True).join(arms, how="cross")
    counts = [pl.col("n_rows"), pl.col("n_excluded")]
    baseline = armed.filter(is_baseline).select(*keys, base_rows=counts[0], base_excluded=counts[1])
    candidate = armed.filter(~is_baseline).select(*keys, candidate=pl.col(arm), rows=counts[0], excluded=counts[1])
    no_arm = rows.filter(pl.col(arm).is_null()).select(*keys, no_arm=sum(counts))
    grid = (
        grid.join(baseline, on=keys, how="left", nulls_equal=True)
        .join(candidate, on=[*keys, "candidate"], how="left", nulls_equal=True)
        .join(no_arm, on=keys, how="left", nulls_equal=True)
    )
    baseline_name = original.select(pl.col(arm).filter(is_baseline).first()).item()
    quoted = "'{}'" if original.schema[arm] == pl.String else "{}"  # as repr shows the arm
    notes = [
        _no_rows(pl.col("base_rows"), pl.col("base_excluded"), pl.lit(f"the baseline {baseline_name!r}")),
        _no_rows(pl.col("rows"), pl.col("excluded"), pl.format(f"arm {quoted}", pl.col("candidate"))),
        pl.when(pl.col("no_arm") > 0).then(pl.format("{} excluded", counted_polars(NULL_ARM_ROWS, pl.col("no_arm")))),
    ]
    said = pl.concat_str(notes, separator="; ", ignore_nulls=True)
    return grid.select(*keys, "candidate", note=pl.when(said != "").then(said))  # NULL: nothing to say, as paired


def _arm_bootstrap_bounds(
    result: pl.DataFrame, keys: list[str], arm: str, is_baseline: pl.Expr, name: str, ci: float
) -> pl.DataFrame:
    """Per slice and candidate arm, the percentile interval and p-value
    (``_replicate_bounds``) of candidate − baseline over the replicates: every row is
    resampled independently, so each arm's rows are."""
    replicates = result.filter(pl.col(REPLICATE_SLICE) > 0)
    if "slice_0" in keys:
        replicates = replicates.with_columns(slice_0=pl.lit(0))
    by_replicate = [*keys, REPLICATE_SLICE]
    first = replicates.filter(is_baseline).select(*by_replicate, first=pl.col(name))
    candidates = replicates.filter(~is_baseline & pl.col(arm).is_not_null())
    second = candidates.select(*by_replicate, pl.col(arm).alias("candidate"), second=pl.col(name))
    differences = second.join(first, on=by_replicate, how="left", nulls_equal=True)
    return _replicate_bounds(differences, [*keys, "candidate"], ci)


def _interval_and_p(delta: pl.Expr, se: pl.Expr, df: pl.Expr | None, ci: float) -> dict[str, pl.Expr]:
    """``delta_lo``, ``delta_hi`` and the two-sided ``p_value`` of ``delta`` with standard
    error ``se``: normal, or Student's t with ``df`` degrees of freedom. NULL without
    ``se``, and p NULL for no difference with no spread (0/0)."""
    margin = intervals.multiplier_expr(ci, df) * se
    statistic = pl.struct(delta=delta, se=se, df=pl.lit(None, pl.Int64) if df is None else df)
    p_value = statistic.map_elements(_p_value, pl.Float64)
    p_bound = pl.when(p_value.is_not_null()).then(pl.lit(False))
    return {"delta_lo": delta - margin, "delta_hi": delta + margin, "p_value": p_value, "p_bound": p_bound}


def _p_value(row: dict) -> float | None:
    delta, se = row["delta"], row["se"]
    if delta is None or se is None:
        return None
    if se == 0:
        return None if delta == 0 else 0.0
    return intervals.two_sided_p(delta / se, row["df"])


def p_value_text(p_value: float | None, bound: bool | None, value_format: str = "g") -> str | None:
    """A p-value as a table prints it: a bound (``p_bound``) as ``< 0.00996`` (the floor
    2/201 rounded up to three significant digits, so that it stays a bound), a value in
    ``value_format``; None for None."""
    if p_value is None:
        return None
    if not bound:
        return format(p_value, value_format)
    floor = Decimal(repr(p_value))
    third_digit = Decimal(1).scaleb(floor.adjusted() - 2)  # the unit of the third significant digit
    return f"< {floor.quantize(third_digit, rounding=ROUND_CEILING).normalize():f}"


def p_values_as_text(comparison: pl.DataFrame, value_text: Callable[[float], str] = str) -> pl.DataFrame:
    """``comparison`` (``compare``'s frame) for a person to read: ``p_value`` as text, a
    bound by ``p_value_text`` (``< 0.00996``) and a value by ``value_text`` (the report's
    ``< 0.0001`` for 1.9e-175, not ``0.000000``), without ``p_bound``, which the text says;
    ``note`` empty where it is NULL (nothing to say)."""
    texts = [
        None if p is None else p_value_text(p, True) if bound else value_text(p)
        for p, bound in zip(comparison["p_value"], comparison["p_bound"])
    ]
    shown = comparison.with_columns(p_value=pl.Series(texts, dtype=pl.String), note=pl.col("note").fill_null(""))
    return shown.drop("p_bound")
