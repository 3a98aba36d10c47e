"""The binomial interval of a share of the confusion counts (accuracy, precision, recall,
specificity; ``sql/intervals/proportion.sql``): se = √(p(1 − p)/n), weights counting as
frequencies, the normal interval clipped to [0, 1]."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.confusion_delta import confusion_counts
from sqlmetrics.spec import Interval, MetricCall


def proportion(successes: str, trials: str) -> Interval:
    """The binomial interval of a share of the confusion counts, given as SQL over
    ``tp``, ``fp``, ``tn`` and ``fn`` (read by polars through ``pl.sql_expr``)."""
    return Interval(
        "proportion",
        "intervals/proportion.sql",
        "binomial",
        comparison="binomial",
        values=(("successes", successes), ("trials", trials)),
        polars=proportion_polars,
    )


def proportion_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """proportion.sql over the used rows, at the call's threshold (score >= threshold
    predicts positive)."""
    values = dict(call.spec.interval.values)
    counts = confusion_counts(rows, slices, call.kwargs["threshold"])
    successes, trials = pl.sql_expr(values["successes"]), pl.sql_expr(values["trials"])
    se = (successes / trials * ((trials - successes) / trials) / trials).sqrt()  # no product of weights
    return counts.filter(trials > 0).select(*slices, se=se, df=pl.lit(None, pl.Int64))
