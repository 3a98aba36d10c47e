"""Binary classification: threshold metrics, ranking quality of scores, probability quality.

The steps their templates read (``INTERMEDIATES``, collected by the registry): the score
histogram (or, on nearly distinct scores, the used rows), the running sums over it, the
used rows of each query (gauc), the confusion counts at every threshold in use and the
calibration bins of every (bins, strategy) in use (ece, the Brier score's and logloss's
reliability and resolution; ``calibration_bins.py``). The
polars engine builds the histogram (``score_hist``, its polars form) and computes the
other steps inside its metrics' expressions. ``ratio`` is the safe division the curves
share.
"""

from sqlmetrics.metrics.classification._binary import ratio, score_hist
from sqlmetrics.metrics.classification.calibration_bins import cuts_sql
from sqlmetrics.steps import Family, Folded, Intermediate, cumulative

FAMILY = Family("classification", summary="binary label (0/1 or boolean) and a score")

INTERMEDIATES = {
    "score_hist": Intermediate(
        "intermediates/score_hist.sql", distinct="intermediates/score_rows.sql", polars=score_hist
    ),
    "score_cum": cumulative(
        "score_hist",
        Folded(
            "histogram",
            "auc and average_precision sort their slice's histogram and take the running sums in their own "
            "from_histogram, within the one aggregation of the histogram (no table of sums to join back)",
        ),
        distinct="intermediates/score_cum_rows.sql",
    ),
    "query_rows": Intermediate(
        "intermediates/query_rows.sql",
        folded=Folded("frame", "gauc's frame function reads the used rows and sorts each query itself"),
    ),
    "confusion": Intermediate(
        "intermediates/confusion.sql",
        after=("score_hist",),
        collects=("threshold",),
        table="thresholds",
        folded=Folded(
            "histogram",
            "each threshold metric sums the histogram's weights on either side of its threshold in its own "
            "from_histogram, within the one aggregation of the histogram",
        ),
    ),
    "calibration_bins": Intermediate(
        "intermediates/calibration_bins.sql",
        after=("score_hist",),
        each=("bins", "strategy"),
        derived=cuts_sql,
        folded=Folded(
            "frame",
            "each metric of the bins cuts its slices' histogram in its own frame function "
            "(calibration_bins.bin_sums, which sm.calibration_curve reads too)",
        ),
        not_packaged="its bins and strategy are not yet written as the package's macros",
    ),
}

__all__ = ["FAMILY", "INTERMEDIATES", "ratio"]
