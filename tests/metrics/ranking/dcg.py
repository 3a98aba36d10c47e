"""dcg: DCG@k = sum over p <= k of gain(rel_p) / log2(p + 1)."""

from metrics.ranking._common import dcg


def PER_ORDER(ranked, judged, p):
    return dcg(ranked, p)
