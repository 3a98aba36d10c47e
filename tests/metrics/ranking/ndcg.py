"""ndcg: DCG@k over the DCG@k of the judged labels sorted descending (the ideal ranking)."""

from metrics.ranking._common import dcg


def PER_ORDER(ranked, judged, p):
    return dcg(ranked, p) / dcg(sorted(judged, reverse=True), p)
