"""The parameters the ranking metrics share, declared once."""

from __future__ import annotations

from dataclasses import replace

from sqlmetrics.spec import Param

K = Param(
    "k",
    int,
    None,
    "cutoff: only the top k positions count (None: the whole list)",
    low=1,
)
K_REQUIRED = replace(K, doc="cutoff: only the top k positions count", required=True)
GAIN = Param(
    "gain",
    str,
    "exponential",
    "gain of a relevance: exponential (2^rel - 1) or linear (rel)",
    choices=("exponential", "linear"),
)
TIES = Param(
    "ties",
    str,
    "average",
    "tied scores: average (exact mean over their orders), pessimistic, optimistic, item (item id descending)",
    choices=("average", "pessimistic", "optimistic", "item"),
)
MIN_RELEVANCE = Param(
    "min_relevance",
    float,
    1.0,
    "an item is relevant when its label is >= this",
    low=0,
    low_open=True,
)
# How each tie policy orders rows of equal score: (column, descending) after the score.
# Rows still tied after these ("peers") share their positions. Nothing else is sorted
# on: every extra sort key costs time, even a constant one.
TIE_BREAKS: dict[str, tuple[tuple[str, bool], ...]] = {
    "average": (),
    "pessimistic": (("label", False),),
    "optimistic": (("label", True),),
    "item": (("item", True), ("label", False)),
}


def tie_breaks_sql(ties: str) -> str:
    """The ORDER BY tail after ``score DESC`` for a tie policy (``ranked.sql``)."""
    return "".join(f", {column} {_direction(descending)}" for column, descending in TIE_BREAKS[ties])


def peer_sql(ties: str) -> dict[str, str]:
    """The SQL of a tie policy's peer columns for ``first_hits.sql`` and
    ``cutoff_hits.sql``: each the row's value at the list's threshold score and NULL
    above it (``peer_columns``), their names (``peer_keys``) and the ORDER BY tail that
    puts the peer groups in the policy's order (``peer_order``)."""
    breaks = TIE_BREAKS[ties]
    return {
        "peer_columns": "".join(
            f", CASE WHEN i.score = f.threshold THEN i.{column} END AS peer_{column}" for column, _ in breaks
        ),
        "peer_keys": "".join(f", peer_{column}" for column, _ in breaks),
        "peer_order": "".join(f", peer_{column} {_direction(descending)}" for column, descending in breaks),
    }


def _direction(descending: bool) -> str:
    """An ORDER BY item's direction, spelled out (a connection may change the defaults)."""
    return "DESC NULLS LAST" if descending else "ASC NULLS LAST"


EMPTY = Param(
    "empty",
    str,
    "skip",
    "lists without a relevant item: skip (leave out and count) or zero (score 0)",
    choices=("skip", "zero"),
)
AVERAGE = Param(
    "average",
    str,
    "macro",
    "macro (mean over lists) or micro (pooled over lists)",
    choices=("macro", "micro"),
)

# What each ranking metric's result columns add: lists used and lists skipped.
OUTPUTS = ("queries", "skipped")
