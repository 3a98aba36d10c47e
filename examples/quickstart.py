"""A tour of sqlmetrics over a generated impressions log of an A/B test.

    python examples/quickstart.py [DATA_DIR]

Generates the log (200k rows, a few seconds) into DATA_DIR (default examples/data) if it
is not there, then shows the three faces of the library: ``sm.evaluate`` over Parquet,
polars expressions in a pipeline, ranking metrics over the requests, regression metrics
of each item's observed CTR, and the SQL an analyst can run elsewhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import polars.testing

import sqlmetrics as sm
import sqlmetrics.polars as smp

sys.path.insert(0, str(Path(__file__).parent))
from generate_impressions import generate  # noqa: E402


def main(data_dir: Path) -> None:
    if not list(data_dir.glob("*.parquet")):
        generate(data_dir)
    logs = str(data_dir / "*.parquet")
    pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4, tbl_hide_dataframe_shape=True)

    # 1. One call, one query, one scan: AUC, GAUC, logloss and calibration by day and model.
    metrics = ["auc", "gauc", "logloss", "calibration", sm.precision(threshold=0.05)]
    columns = {"label": "click", "score": "pctr", "query": "user_id", "by": ["date", "model_version"]}
    report = sm.evaluate(logs, metrics, **columns)
    print(report)

    # 2. The same numbers from the polars engine (Parquet scanned lazily).
    same = sm.evaluate(logs, metrics, **columns, engine="polars")
    pl.testing.assert_frame_equal(report, same, rel_tol=1e-9, abs_tol=1e-12)

    # 3. Polars expressions inside your own pipeline.
    by_country = (
        pl.scan_parquet(logs)
        .group_by("country", "model_version")
        .agg(auc=smp.auc("pctr", "click"), ctr=smp.label_mean("pctr", "click"))
        .sort("country", "model_version")
        .collect()
    )
    print(by_country)

    # 4. Ranking: each request is a list of shown items; NDCG@10, MRR and HR@10 of the
    #    clicks, by model, each with its 95% interval (Student's t over the requests).
    #    Tied scores count at their exact expected value.
    ranking = sm.evaluate(
        logs,
        ["ndcg@10", "mrr", "hit_rate@10"],
        label="click",
        score="pctr",
        query="request_id",
        by="model_version",
        ci=0.95,
    )
    print(ranking)
    # The polars form of the same metric, as a frame function (a LazyFrame in, a LazyFrame out):
    lazy = smp.ndcg(pl.scan_parquet(logs), score="pctr", label="click", query="request_id", k=10, by=["model_version"])
    same = lazy.collect()
    pl.testing.assert_series_equal(same["ndcg_at_10"], ranking["ndcg_at_10"], rel_tol=1e-9)

    # 5. Regression: each item's observed CTR per day against the mean predicted CTR,
    #    weighted by impressions (a positive mean_error: the model over-predicts).
    per_item = (
        pl.scan_parquet(logs)
        .group_by("item_id", "date", "model_version")
        .agg(ctr=pl.col("click").mean(), predicted_ctr=pl.col("pctr").mean(), impressions=pl.len())
        .collect()
    )
    errors = ["mae", "rmse", "r2", "mean_error", "median_absolute_error"]
    regression = sm.evaluate(
        per_item, errors, label="ctr", score="predicted_ctr", weight="impressions", by="model_version"
    )
    print(regression)
    expressions = per_item.group_by("model_version").agg(
        smp.rmse("predicted_ctr", "ctr", weight="impressions").alias("rmse")
    )
    pl.testing.assert_frame_equal(
        regression.select("model_version", "rmse"), expressions.sort("model_version"), rel_tol=1e-9
    )

    # 6. Did v2 beat v1? The A/B arms compared: the difference, its 95% interval and
    #    p-value (DeLong's for auc, the t over users for gauc), clustered by the unit the
    #    arms were randomized by (ci_unit, required: each user saw one model, and a user's
    #    rows are not independent draws). In evaluate, ci_unit clusters the intervals the
    #    same way, and resamples users (all of a user's rows together) for the metrics
    #    without a clustered formula, inside the same query.
    print(sm.compare(logs, ["auc", "gauc", "logloss"], arm="model_version", baseline="v1", ci_unit="user_id",
                     **columns | {"by": None}))
    resampled = sm.evaluate(logs, ["calibration"], **columns, ci=0.95, ci_unit="user_id", resamples=50)
    print(resampled.select("date", "model_version", "calibration", "calibration_lo", "calibration_hi"))

    # 7. The SQL behind report 1, ready for a SQL console.
    sql = sm.to_sql(["auc", "logloss"], source="logs/*.parquet", label="click", score="pctr", by="date")
    print(sql.splitlines()[0], "...", f"({len(sql.splitlines())} lines)")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "data")
