"""mrr: 1/p for the first relevant label at p <= k, else 0."""

from metrics.ranking._common import top


def PER_ORDER(ranked, judged, p):
    return next((1.0 / pos for pos, rel in enumerate(top(ranked, p), start=1) if rel >= p.min_relevance), 0.0)
