"""``sm.compare``: does the candidate arm beat the baseline, by how much, how surely?

Arms that saw different rows (an A/B test's logged traffic: ``arm="model_version"``,
``baseline="v1"``) are independent samples: each metric and its standard error are
computed per arm in one query (the intervals of ``sqlmetrics.intervals``), and

    delta = candidate − baseline,   se² = se_baseline² + se_candidate²,
    delta ± z·se,   p = 2·(1 − Φ(|delta| / se))   (two-sided, normal).

Paired comparisons of two models that scored the same rows (``scores=``) are not built
yet.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import polars as pl

from sqlmetrics import intervals
from sqlmetrics.api import Metrics, prepare, run
from sqlmetrics.errors import InvalidInputError, InvalidParameterError
from sqlmetrics.spec import MetricCall

METHODS = {
    "intervals/auc_delong.sql": "arms, normal: DeLong",
    "intervals/query_mean.sql": "arms, normal: mean over queries",
    "intervals/proportion.sql": "arms, normal: binomial",
    "intervals/row_mean.sql": "arms, normal: mean over rows",
}
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
    "method",
)


def compare(
    source: Any,
    metrics: Metrics,
    *,
    arm: str,
    baseline: Any,
    label: str = "label",
    score: str | None = None,
    prediction: str | None = None,
    query: str | None = None,
    item: str | None = None,
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    judgments: Any = None,
    ci: float = 0.95,
    ci_method: str = "auto",
    engine: str = "duckdb",
    con: Any = None,
    spark: Any = None,
) -> pl.DataFrame:
    """Compare each arm of column ``arm`` with the arm ``baseline`` on ``metrics``.

    Returns one row per slice of ``by``, metric and candidate arm: the slice columns,
    ``metric`` (the result column ``evaluate`` would name), ``baseline``, ``candidate``,
    ``baseline_value``, ``candidate_value``, ``delta`` (candidate − baseline),
    ``delta_lo`` and ``delta_hi`` (the ``ci`` interval of the difference), ``p_value``
    (two-sided, for no difference) and ``method``. The arms are independent samples
    (different rows): the difference's variance is the sum of the arms' variances, from
    each metric's analytic interval (``docs/intervals.md``), and the interval and
    p-value are normal. A ``baseline`` given as text also names the value of a numeric
    arm column that prints as it (``"2"`` for the arm 2). A metric without an interval is refused by name; a slice where
    either arm has no interval gets NULL bounds and p-value. The other arguments are
    ``evaluate``'s.

    >>> import polars as pl, sqlmetrics as sm
    >>> logs = pl.DataFrame({"arm": ["a"] * 6 + ["b"] * 6, "click": [0, 1, 0, 1, 0, 1] * 2,
    ...                      "pctr": [.2, .6, .7, .5, .1, .9, .3, .8, .1, .9, .2, .7]})
    >>> row = sm.compare(logs, ["auc"], arm="arm", baseline="a", label="click", score="pctr").row(0, named=True)
    >>> round(row["baseline_value"], 4), round(row["candidate_value"], 4), round(row["delta"], 4)
    (0.7778, 1.0, 0.2222)
    >>> round(row["p_value"], 3)  # six rows per arm cannot tell
    0.371
    """
    slices = [by] if isinstance(by, str) else list(by or [])
    if not isinstance(arm, str):
        raise InvalidParameterError(f"arm must be a column name (a string), got {arm!r}")
    if arm in slices:
        raise InvalidParameterError(f"arm column {arm!r} is also a slice column (by): compare arms within slices")
    if ci is None:
        raise InvalidParameterError("compare needs a confidence level: ci=0.95, for example")
    binding, second = prepare(
        metrics, label, score, prediction, query, item, weight, [*slices, arm], judgments, None, ci, ci_method
    )
    binding = dataclasses.replace(binding, spread_columns=True)
    result = run(binding, source, second, engine, con, spark)
    return _differences(result, binding.calls, slices, arm, _baseline_value(result, arm, baseline), ci)


def _baseline_value(result: pl.DataFrame, arm: str, baseline: Any) -> Any:
    """The arm value ``baseline`` names: itself, or for a baseline given as text (the
    command line's) the one value of a non-text arm column printed as that text."""
    arms = result[arm].unique(maintain_order=True).to_list()
    if baseline not in arms and isinstance(baseline, str) and result.schema[arm] != pl.String:
        baseline = next((value for value in arms if str(value) == baseline), baseline)
    if baseline not in arms:
        shown = ", ".join(map(repr, arms[:10])) + (", ..." if len(arms) > 10 else "")
        raise InvalidInputError(f"baseline {baseline!r} does not occur in arm column {arm!r}; its values: {shown}")
    if len(arms) < 2:
        raise InvalidInputError(f"arm column {arm!r} has a single value ({baseline!r}): there is nothing to compare")
    return baseline


def _differences(
    result: pl.DataFrame, calls: Sequence[MetricCall], slices: list[str], arm: str, baseline: Any, ci: float
) -> pl.DataFrame:
    """One row per slice, call and candidate arm."""
    base = result.filter(pl.col(arm).eq_missing(pl.lit(baseline)))
    candidates = result.filter(~pl.col(arm).eq_missing(pl.lit(baseline)))
    z = NormalDist().inv_cdf((1 + ci) / 2)
    frames = []
    keys = slices or ["slice_0"]  # a constant key when there are no slices
    if not slices:
        base, candidates = base.with_columns(slice_0=pl.lit(0)), candidates.with_columns(slice_0=pl.lit(0))
    for call in calls:
        label = call.label
        values = [label, f"{label}_se"]
        pairs = candidates.select(*keys, pl.col(arm).alias("candidate"), *values).join(
            base.select(*keys, *values), on=keys, how="left", nulls_equal=True, suffix="_baseline"
        )
        delta = pl.col(label) - pl.col(f"{label}_baseline")
        se = (pl.col(f"{label}_se") ** 2 + pl.col(f"{label}_se_baseline") ** 2).sqrt()
        p_value = pl.when((se > 0) | (delta != 0)).then((delta.abs() / se).map_elements(_two_sided_p, pl.Float64))
        frames.append(
            pairs.select(
                *slices,
                metric=pl.lit(label),
                baseline=pl.lit(baseline).cast(result.schema[arm]),
                candidate="candidate",
                baseline_value=pl.col(f"{label}_baseline"),
                candidate_value=pl.col(label),
                delta=delta,
                delta_lo=delta - z * se,
                delta_hi=delta + z * se,
                p_value=p_value,
                method=pl.lit(METHODS[intervals.interval_of(call).template]),
            )
        )
    return pl.concat(frames).select(*slices, *COLUMNS)


def _two_sided_p(z: float) -> float:
    """P(|Z| >= z) for a standard normal Z."""
    return math.erfc(z / math.sqrt(2))
