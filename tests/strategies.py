"""Hypothesis strategies for impressions-like frames: heavy ties, NULLs, weights, slices."""

from __future__ import annotations

import polars as pl
from hypothesis import strategies as st

# Few distinct scores so that ties are the rule, including the probability bounds.
TIED_SCORES = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


@st.composite
def impressions(draw, *, max_rows: int = 40, weighted: bool | None = None, nulls: bool = True) -> pl.DataFrame:
    """A frame with columns slice, query, label, score, weight (weight may be all 1).

    Scores come either from a small tied set or from a continuous range; weights from a
    small set including 0; each column may have NULLs; slices and queries are skewed so
    that some are one-class or empty after NULLs are dropped.
    """
    n = draw(st.integers(0, max_rows))
    tied = draw(st.booleans())
    score = st.sampled_from(TIED_SCORES) if tied else st.floats(0.0, 1.0, allow_nan=False)
    if weighted is None:
        weighted = draw(st.booleans())
    weight = st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0]) if weighted else st.just(1.0)

    def maybe_null(strategy):
        return st.one_of(st.none(), strategy) if nulls and draw(st.booleans()) else strategy

    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["a", "a", "b", "c", None]),
                maybe_null(st.integers(0, 5)),
                maybe_null(st.integers(0, 1)),
                maybe_null(score),
                maybe_null(weight),
            ),
            min_size=n,
            max_size=n,
        )
    )
    schema = {"slice": pl.String, "query": pl.Int64, "label": pl.Int64, "score": pl.Float64, "weight": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")
