"""precision@k: hits@k / k (k even when the list is shorter); micro: pooled hits over k per list."""

from metrics.ranking._common import hits


def PER_ORDER(ranked, judged, p):
    return hits(ranked, p) / p.k


HITS = hits


def MICRO_DENOMINATOR(judged, p):
    return p.k
