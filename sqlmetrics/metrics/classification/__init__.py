"""Binary classification: threshold metrics, ranking quality of scores, probability quality.

The steps their templates read (``INTERMEDIATES``, collected by the registry): the score
histogram (or, on nearly distinct scores, the used rows), the running sums over it, the
used rows of each query (gauc) and the confusion counts at every threshold in use.
``ratio`` is the safe division the curves share.
"""

from sqlmetrics.metrics.classification._binary import ratio
from sqlmetrics.steps import Intermediate, cumulative

INTERMEDIATES = {
    "score_hist": Intermediate("intermediates/score_hist.sql", distinct="intermediates/score_rows.sql"),
    "score_cum": cumulative("score_hist", distinct="intermediates/score_cum_rows.sql"),
    "query_rows": Intermediate("intermediates/query_rows.sql"),
    "confusion": Intermediate(
        "intermediates/confusion.sql", after=("score_hist",), collects=("threshold",), table="thresholds"
    ),
}

__all__ = ["INTERMEDIATES", "ratio"]
