"""The running sums the distributed engines compute from score buckets
(``sql/intermediates/score_cum_distributed.sql``) give the numbers of the one window
DuckDB runs (``score_cum.sql``), for every metric that reads them: auc (weighted and,
by its rank sum, unweighted) and average_precision (both score plans), their one-vs-rest forms, median_absolute_error.

Both forms run here on DuckDB: the statement composed for Spark (before sqlglot writes
it in Spark's dialect) is DuckDB SQL too. With few buckets (1 to 5), buckets hold many
scores and ties; extreme scores (beyond ±1e300, infinities) fill the end buckets. The
one-window form is checked against scikit-learn elsewhere; Spark and DataFusion run the
bucketed form in ``tests/test_sql_engines.py``.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sqlmetrics as sm
from sqlmetrics import compose
from sqlmetrics.api import prepare
from sqlmetrics.compose import intermediates
from sqlmetrics.engines import duckdb_engine
from sqlmetrics.request import Request

from strategies import AGREEMENT, class_score_rows, examples, impressions, ovr_score_column, regression_rows

EXTREME_SCORES = [-float("inf"), -1e305, -1e300, 1e300, 1e305, float("inf")]


def _both_forms(frame: pl.DataFrame, metrics, buckets: int, distinct_scores: bool = False, **roles):
    binding, _ = prepare(metrics, Request(**roles))
    binding = dataclasses.replace(binding, distinct_scores=distinct_scores)
    one_window = duckdb_engine.run(binding, frame, None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(intermediates, "SCORE_BUCKETS", buckets)
        bucketed = duckdb_engine.run(binding, frame, None, composer=partial(compose.compose, dialect="spark"))
    assert "bucket" in compose.compose(binding, "t", None, "spark")  # the form under test is the bucketed one
    polars.testing.assert_frame_equal(bucketed, one_window, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


@examples(60, AGREEMENT)
@given(
    frame=impressions(max_rows=60),
    extremes=st.lists(st.tuples(st.sampled_from(EXTREME_SCORES), st.integers(0, 1)), max_size=4),
    buckets=st.integers(1, 5),
    distinct_scores=st.booleans(),
    weighted=st.booleans(),
)
def test_auc_and_average_precision(frame, extremes, buckets, distinct_scores, weighted):
    """Weighted, auc reads the running sums; unweighted, the rows' positions (its rank sum)."""
    columns = {name: frame.schema[name] for name in ("slice", "query", "label", "score", "weight")}
    extra = pl.DataFrame([("a", 0, label, score, 1.0) for score, label in extremes], schema=columns, orient="row")
    frame = pl.concat([frame, extra], how="diagonal")  # the families' other columns NULL: auc reads none of them
    _both_forms(
        frame,
        ["auc", "average_precision"],
        buckets,
        distinct_scores,
        label="label",
        score="score",
        weight="weight" if weighted else None,
        by="slice",
    )


@examples(60, AGREEMENT)
@given(frame=regression_rows(max_rows=60), buckets=st.integers(1, 5))
def test_median_absolute_error(frame, buckets):
    _both_forms(frame, ["median_absolute_error", "mae"], buckets, label="label", score="score", weight="weight")
    _both_forms(frame, ["median_absolute_error"], buckets, label="label", score="score", by="slice")


@examples(60, AGREEMENT)
@given(drawn=class_score_rows(max_rows=60), buckets=st.integers(1, 5))
def test_one_vs_rest(drawn, buckets):
    frame, classes = drawn
    metrics = ["auc", "average_precision", sm.multiclass_auc(average="weighted")]
    scores = {cls: ovr_score_column(cls) for cls in classes}
    _both_forms(frame, metrics, buckets, label="label", class_scores=scores, weight="weight", by="slice")
