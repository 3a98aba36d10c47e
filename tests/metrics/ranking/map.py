"""map: the sum over relevant positions p <= k of (relevant in the top p) / p, over R."""

from metrics.ranking._common import num_relevant, top


def PER_ORDER(ranked, judged, p):
    ranked = top(ranked, p)
    precisions = [
        num_relevant(ranked[:pos], p) / pos for pos, rel in enumerate(ranked, start=1) if rel >= p.min_relevance
    ]
    return sum(precisions) / num_relevant(judged, p)
