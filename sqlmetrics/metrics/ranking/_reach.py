"""How deep into each list a ranking metric reads, so that rows no metric can reach are
dropped before the one sort (``ranked``).

A metric's ``reach`` says which rows below its cutoff it still needs:

* ``cutoff``    none: only the top k (the k-th highest score is also what
                ``cutoff_hits`` reads, for precision@k, recall@k and hit_rate's
                micro form);
* ``gain``      down to the last row with a positive gain (ndcg, dcg, cg, err);
* ``relevant``  down to the last relevant row (map).

(mrr, hit_rate, precision@k and recall@k rank no rows: ``first_hits`` and
``cutoff_hits`` count them.)

Per list this is a score floor: a row is kept when its score is >= the floor, so a tie
group is always kept or dropped whole, and every kept row has all rows ranked above it:
its positions are exact. The floor is the larger of the k-th highest score (with a
cutoff) and the score the reach needs; with no such row, the list's top score (every
metric needs the list's first row to know it exists). A call keeps the smallest floor
of its metrics, per tie policy and relevance threshold.
"""

from __future__ import annotations

import polars as pl

from sqlmetrics import templates


def floor_sql(reach: str, k: int | None, min_relevance: float, portable: bool = False) -> str:
    """The floor as a SQL aggregate over a list's rows (columns ``score``, ``label`` and,
    ``portable``, ``score_rank``: the RANK of the row's score in its list, descending).
    DuckDB takes the k-th highest score with its top-k aggregate; other engines as the
    lowest score ranked within the top k, which is the same value (a tie group ranks at
    its first position, so the group holding position k is the last one counted, and a
    list shorter than k gives its lowest score either way)."""
    if k is None:
        top_k = None
    else:
        top_k = f"MIN(CASE WHEN score_rank <= {k} THEN score END)" if portable else f"list_min(max(score, {k}))"
    if reach == "cutoff":
        return top_k
    relevant = f"label >= {templates.literal(min_relevance)}"
    needed = {
        "gain": "MIN(CASE WHEN label > 0 THEN score END)",
        "relevant": f"MIN(CASE WHEN {relevant} THEN score END)",
    }[reach]
    floor = f"COALESCE({needed}, MAX(score))"
    return floor if top_k is None else f"GREATEST({top_k}, {floor})"


def floor_plan(reaches: set[tuple[str, int | None]], min_relevance: float) -> tuple[dict[str, pl.Expr], pl.Expr]:
    """The polars form of ``floor_sql`` for every (reach, k) in ``reaches`` at once, in two
    steps: the per-list aggregates they need, by name (``list_floors`` computes each once
    for all the steps that read it: the top-k sort of ndcg@10 and hit_rate@10 is one
    sort), and the smallest floor over those columns."""
    aggregates: dict[str, pl.Expr] = {}
    floors = []
    for reach, k in sorted(reaches, key=str):
        floor = None
        if k is not None:
            floor = _add(aggregates, *kth_highest(k))
        if reach != "cutoff":
            needed = _add(aggregates, *(lowest_gain() if reach == "gain" else lowest_relevant(min_relevance)))
            need = pl.coalesce(needed, _add(aggregates, "top_score", pl.col("score").max()))
            floor = need if floor is None else pl.max_horizontal(floor, need)
        floors.append(floor)
    return aggregates, pl.min_horizontal(floors)


def kth_highest(k: int) -> tuple[str, pl.Expr]:
    """A list's k-th highest score (its lowest, when it is shorter): the last of the sorted
    top k. Not .min(): polars (2.1) takes the min of a group of exactly k rows given in
    ascending order as the largest. Not top_k(k): ~15% slower here."""
    return f"top_{k}", pl.col("score").sort(descending=True).head(k).last()


def lowest_gain() -> tuple[str, pl.Expr]:
    """A list's lowest score with a positive gain (label > 0)."""
    return "lowest_gain", pl.col("score").filter(pl.col("label") > 0).min()


def lowest_relevant(min_relevance: float) -> tuple[str, pl.Expr]:
    """A list's lowest relevant score (label >= min_relevance)."""
    return f"lowest_relevant_{min_relevance!r}", pl.col("score").filter(pl.col("label") >= min_relevance).min()


def _add(aggregates: dict[str, pl.Expr], name: str, aggregate: pl.Expr) -> pl.Expr:
    """Add ``aggregate`` to ``aggregates`` under ``name``; the column it gives."""
    aggregates[name] = aggregate
    return pl.col(name)
