"""rank_corr: the mean over unordered pairs of rows of (1 + sign(s_u − s_v)·sign(l_u − l_v)) / 2,
1 concordant, 1/2 if score or label tie, 0 discordant; a list needs two rows. Not a
per-order metric: it reads the rows (score, label) themselves."""

import itertools
from statistics import fmean

MIN_ROWS = 2


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def PER_LIST(rows):
    pairs = itertools.combinations(rows, 2)
    return fmean((1 + _sign(u.score - v.score) * _sign(u.label - v.label)) / 2 for u, v in pairs)
