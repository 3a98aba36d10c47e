"""Ranking metrics: lists (queries) ordered by score, judged by graded relevance.

The steps their templates read (``INTERMEDIATES``, collected by the registry): ``ranked``
(every kept row with its tie group's positions, rendered once per tie policy and
relevance threshold in use, sorting by the keys its policy needs; its ``floor`` says how
deep each metric reads, for ``list_floors``), ``first_hits`` (each list's first peer
group holding a relevant row, from the rows at or above its top relevant score, without
ranking them: mrr, hit_rate), ``cutoff_hits`` (each list's expected relevant rows in
the top k, from the rows at or above its k-th highest score, without ranking them:
precision@k, recall@k, hit_rate's micro form), ``judged`` (each list's histogram of
the labels that earn gain, for the ideal DCG) and ``positions`` (running sums of the
discounts, once per cutoff in use: a metric with a cutoff reads none past it). Every
ranking metric reads each list's relevant and judged items from ``list_floors``. Each
step declares its polars form beside its template, a function of the call's ``Lists``
(``_lists.py``), which the polars engine builds with ``Lists`` or ``run_lists`` and the
ranking metrics read.
"""

from sqlmetrics.metrics.ranking._lists import (
    Lists,
    first_relevant,
    hits_in_top,
    judged_labels,
    positions,
    ranked_rows,
    run_lists,
)
from sqlmetrics.metrics.ranking._params import peer_sql, tie_breaks_sql
from sqlmetrics.metrics.ranking._reach import floor_sql
from sqlmetrics.spec import Family, Role
from sqlmetrics.steps import Intermediate, cutoff_column

INTERMEDIATES = {
    "ranked": Intermediate(
        "intermediates/ranked.sql",
        each=("ties", "min_relevance"),
        derived=lambda ties, min_relevance: {"tie_breaks": tie_breaks_sql(ties)},
        floor=floor_sql,
        polars=ranked_rows,
    ),
    "first_hits": Intermediate(
        "intermediates/first_hits.sql",
        each=("ties", "min_relevance"),
        derived=lambda ties, min_relevance: peer_sql(ties),
        polars=first_relevant,
    ),
    "cutoff_hits": Intermediate(
        "intermediates/cutoff_hits.sql",
        each=("ties", "min_relevance", "k"),
        derived=lambda ties, min_relevance, k: peer_sql(ties) | {"cutoff": cutoff_column(k)},
        polars=hits_in_top,
    ),
    "judged": Intermediate("intermediates/judged.sql", polars=judged_labels),
    "positions": Intermediate("intermediates/positions.sql", after=("ranked",), each=("k",), polars=positions),
}

# The role ranking adds: relevance judgments of a run, a second table joined by (query, item).
FAMILY = Family(
    "ranking",
    roles=(
        Role("judgments", "a table of query, item and label (the relevance) for a run's lists", option="--judgments",
             metavar="PATH", annotation="Any", after="weight"),
    ),
)  # fmt: skip

__all__ = ["FAMILY", "INTERMEDIATES", "Lists", "run_lists"]
