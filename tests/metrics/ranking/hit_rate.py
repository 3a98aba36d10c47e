"""hit_rate: 1 if a relevant label is in the top k, else 0; micro: pooled hits over pooled R."""

from metrics.ranking._common import hits, num_relevant


def PER_ORDER(ranked, judged, p):
    return float(hits(ranked, p) > 0)


HITS = hits  # what the micro average pools over the lists, over MICRO_DENOMINATOR


def MICRO_DENOMINATOR(judged, p):
    return num_relevant(judged, p)
