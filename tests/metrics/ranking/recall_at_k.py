"""recall@k: hits@k / R; micro: pooled hits over pooled R."""

from metrics.ranking._common import hits, num_relevant


def PER_ORDER(ranked, judged, p):
    return hits(ranked, p) / num_relevant(judged, p)


HITS = hits


def MICRO_DENOMINATOR(judged, p):
    return num_relevant(judged, p)
