"""cg: CG@k = sum over p <= k of gain(rel_p)."""

from metrics.ranking._common import GAINS, top


def PER_ORDER(ranked, judged, p):
    return sum(GAINS[p.gain](rel) for rel in top(ranked, p))
