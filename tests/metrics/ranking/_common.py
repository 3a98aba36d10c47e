"""What the ranking references share: the top k of a list, its relevant count, DCG.

A per-order reference takes ``ranked``, the labels in rank order (positions 1..n), the
``judged`` labels of the list (for the ideal ranking and R) and ``p``, the call's
parameters by name (``p.k``, ``p.min_relevance``, ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

GAINS = {"exponential": lambda rel: 2.0**rel - 1.0, "linear": lambda rel: rel}


def top(ranked: Sequence[float], p) -> Sequence[float]:
    """The top k labels (the whole list when k is None)."""
    return ranked if p.k is None else ranked[: p.k]


def num_relevant(labels: Sequence[float], p) -> int:
    """Number of relevant labels (label >= min_relevance); over the judged labels this is R."""
    return sum(label >= p.min_relevance for label in labels)


def dcg(ranked: Sequence[float], p) -> float:
    """DCG@k = sum over p <= k of gain(rel_p) / log2(p + 1)."""
    return sum(GAINS[p.gain](rel) / math.log2(pos + 1) for pos, rel in enumerate(top(ranked, p), start=1))


def hits(ranked: Sequence[float], p) -> float:
    """hits@k = number of relevant labels in the top k (the numerator the micro averages pool)."""
    return float(num_relevant(top(ranked, p), p))
