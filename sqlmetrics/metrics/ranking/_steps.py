"""Ranking's shared steps (``INTERMEDIATES``, the package's docstring says what each
computes), apart from the package so that its own statement code (``list_sql.py``)
reads them without the registry."""

from sqlmetrics.metrics.ranking._lists import first_relevant, hits_in_top, judged_labels, positions, ranked_rows
from sqlmetrics.metrics.ranking._params import peer_sql, tie_breaks_sql
from sqlmetrics.metrics.ranking._reach import floor_sql
from sqlmetrics.steps import Intermediate, cutoff_column

INTERMEDIATES = {
    "ranked": Intermediate(
        "intermediates/ranked.sql",
        each=("ties", "min_relevance"),
        derived=lambda ties, min_relevance: {"tie_breaks": tie_breaks_sql(ties)},
        floor=floor_sql,
        polars=ranked_rows,
    ),
    "first_hits": Intermediate(
        "intermediates/first_hits.sql",
        each=("ties", "min_relevance"),
        derived=lambda ties, min_relevance: peer_sql(ties),
        polars=first_relevant,
    ),
    "cutoff_hits": Intermediate(
        "intermediates/cutoff_hits.sql",
        each=("ties", "min_relevance", "k"),
        derived=lambda ties, min_relevance, k: peer_sql(ties) | {"cutoff": cutoff_column(k)},
        polars=hits_in_top,
    ),
    "judged": Intermediate("intermediates/judged.sql", polars=judged_labels),
    "positions": Intermediate("intermediates/positions.sql", after=("ranked",), each=("k",), polars=positions),
}
