"""The binomial interval of a share of the confusion counts (accuracy, precision, recall,
specificity; ``sql/intervals/proportion.sql``): se = √(p(1 − p)/n), weights counting as
frequencies, the normal interval clipped to [0, 1]. Two scores of the same rows are
compared by ``confusion_delta``'s paired form, with the share's gradient in the cells."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.confusion_delta import (
    CELLS,
    CLUSTERED,
    PAIRED_METHOD,
    confusion_counts,
    paired_confusion_delta_polars,
)
from sqlmetrics.spec import Interval, MetricCall, PairedInterval


def proportion(successes: str, trials: str) -> Interval:
    """The binomial interval of a share of the confusion counts, given as sums of the
    cells ``tp``, ``fp``, ``tn`` and ``fn`` (``"tp + fp"``; SQL, read by polars through
    ``pl.sql_expr``)."""
    return Interval(
        "proportion",
        "intervals/proportion.sql",
        "binomial",
        comparison="binomial",
        values=(("successes", successes), ("trials", trials), *share_gradient(successes, trials)),
        polars=proportion_polars,
        paired=PairedInterval(
            "intervals/paired_confusion_delta.sql", PAIRED_METHOD, over_rows=True, polars=paired_confusion_delta_polars
        ),
        clustered=CLUSTERED,
    )


def share_gradient(successes: str, trials: str) -> tuple[tuple[str, str], ...]:
    """The gradient of p = s / n in the cells' shares (``g_tp``, ...: SQL over the shares),
    s and n sums of cells: ∂p/∂c = (n − s)/n² for a cell of both, −s/n² for a cell of n
    only, 0 for the others."""
    summed = {cell.strip() for cell in successes.split("+")}, {cell.strip() for cell in trials.split("+")}
    if not summed[0] <= summed[1] <= set(CELLS):
        raise ValueError(f"a share's successes ({successes}) must be cells of its trials ({trials})")
    squared = f"CAST(NULLIF(({trials}) * ({trials}), 0) AS DOUBLE)"
    of_both, of_trials = f"(({trials}) - ({successes})) / {squared}", f"-({successes}) / {squared}"
    return tuple(
        (f"g_{cell}", of_both if cell in summed[0] else of_trials if cell in summed[1] else "0") for cell in CELLS
    )


def proportion_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """proportion.sql over the used rows, at the call's threshold (score >= threshold
    predicts positive)."""
    values = dict(call.spec.interval.values)
    counts = confusion_counts(rows, slices, call.kwargs["threshold"])
    successes, trials = pl.sql_expr(values["successes"]), pl.sql_expr(values["trials"])
    se = (successes / trials * ((trials - successes) / trials) / trials).sqrt()  # no product of weights
    return counts.filter(trials > 0).select(*slices, se=se, df=pl.lit(None, pl.Int64))
