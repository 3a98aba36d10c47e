"""Every registered metric, alone and composed, sliced and weighted, run on Spark,
PostgreSQL and DataFusion from the statement ``sm.to_sql`` writes for them, equals the
DuckDB engine's result to 1e-9 (numbers), including NULLs for undefined values."""

from __future__ import annotations

import polars as pl
import pytest

import sqlmetrics as sm

from sql_engines import (
    DataFusion,
    Postgres,
    Spark,
    assert_same_numbers,
    duckdb_result,
    impressions,
    long_class_scores,
    run_and_qrels,
)

REGISTRY = sm.registry()
ENGINES = ("spark", "postgres", "datafusion")


def call_for(name: str):
    """The metric's call with its defaults (``@k`` metrics at k=3) and the roles it reads."""
    spec = REGISTRY[name]
    metric = sm.metric(name.replace("@k", "@3"))
    if spec.family == "multiclass" and "class_scores" in spec.needs:
        return metric, {"label": "y", "class_scores": {"x": "p_x", "y": "p_y", "z": "p_z"}, "weight": "w"}
    if spec.family == "multiclass":
        return metric, {"label": "y", "prediction": "pred", "weight": "w"}
    if spec.family == "ranking":
        return metric, {"label": "rel", "score": "score", "query": "q", "item": "item"}
    label = "target" if spec.family == "regression" else "label"
    roles = {"label": label, "score": "score", "weight": "w"}
    return metric, roles | ({"query": "q"} if "query" in spec.needs else {})


# Calls composed in one statement, each with every role its metrics read.
COMPOSED = {
    "binary": (
        [n for n, s in REGISTRY.items() if s.family == "classification"]
        + [sm.precision(threshold=0.3), sm.fbeta(beta=2), sm.gauc(weighting="uniform")],
        {"label": "label", "score": "score", "query": "q", "weight": "w"},
    ),
    "regression": (
        [n for n, s in REGISTRY.items() if s.family == "regression"],
        {"label": "target", "score": "score", "weight": "w"},
    ),
    "ranking": (
        [
            "ndcg@3",
            "ndcg",
            "dcg@5",
            "cg@2",
            "mrr",
            "map@3",
            "map",
            "hit_rate@2",
            "precision@2",
            "recall@3",
            "rank_corr",
            sm.metric("ndcg@3", gain="linear", ties="pessimistic"),
            sm.metric("mrr", ties="item"),
            sm.metric("map", ties="optimistic", min_relevance=2, empty="zero"),
        ],
        {"label": "rel", "score": "score", "query": "q", "item": "item"},
    ),
    "multiclass": (
        [
            "accuracy",
            "precision",
            "recall",
            "f1",
            "mcc",
            "cohen_kappa",
            sm.multiclass_f1(average="weighted"),
            sm.multiclass_fbeta(beta=2, average="micro"),
            sm.cohen_kappa(weights="quadratic"),
        ],
        {"label": "y", "prediction": "pred", "weight": "w"},
    ),
    "one_vs_rest": (
        ["auc", "average_precision", sm.multiclass_auc(average="weighted")],
        {"label": "y", "class_scores": {"x": "p_x", "y": "p_y", "z": "p_z"}, "weight": "w"},
    ),
}


@pytest.fixture(scope="module")
def datafusion_engine():
    pytest.importorskip("datafusion")
    return DataFusion()


@pytest.fixture(params=ENGINES, scope="module")
def engine(request):
    return request.getfixturevalue(f"{request.param}_engine")


@pytest.fixture(scope="module")
def spark_engine(spark_session):
    return Spark(spark_session)


@pytest.fixture(scope="module")
def postgres_engine(postgres_connection):
    return Postgres(postgres_connection)


def check(engine, tables, metrics, **roles):
    engine.load(tables)
    expected = duckdb_result(tables, metrics, **roles)
    result = engine.result(tables, metrics, **roles)
    assert_same_numbers(result, expected, type(engine).__name__)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_metric_sliced_and_weighted(engine, name):
    metric, roles = call_for(name)
    if not REGISTRY[name].weighted:
        roles.pop("weight", None)
    check(engine, {"src": impressions(1)}, [metric], **roles, by="s")


@pytest.mark.parametrize("group", sorted(COMPOSED))
def test_composed_and_sliced(engine, group):
    metrics, roles = COMPOSED[group]
    check(engine, {"src": impressions(2)}, metrics, **roles, by="s")


@pytest.mark.parametrize("group", sorted(COMPOSED))
def test_composed_without_slices(engine, group):
    metrics, roles = COMPOSED[group]
    check(engine, {"src": impressions(3)}, metrics, **roles)


def test_ranking_run_with_judgments(engine):
    run, qrels = run_and_qrels(4)
    metrics = ["ndcg@5", "map", "mrr", "recall@5", sm.metric("ndcg@5", gain="linear", ties="item", empty="zero")]
    check(engine, {"src": run, "judgments": qrels}, metrics, label="rel", score="score", query="q", item="item", by="s")


def test_long_class_scores(engine):
    frame = impressions(5)
    tables = {"src": frame, "class_scores": long_class_scores(frame)}
    check(engine, tables, ["auc", "average_precision"], label="y", by="s")


def test_bad_data_is_refused_with_duckdbs_message(engine):
    """The statement itself refuses a label outside {0, 1}: each engine raises the
    message DuckDB raises (the example value is written as each engine writes a double)."""
    frame = impressions(6).with_columns(label=pl.when(pl.col("row_id") < 3).then(2).otherwise(pl.col("label")))
    tables = {"src": frame}
    engine.load(tables)
    with pytest.raises(sm.InvalidInputError) as duckdb_error:
        duckdb_result(tables, ["auc"], label="label", score="score", by="s")
    with pytest.raises(sm.InvalidInputError) as error:
        engine.result(tables, ["auc"], label="label", score="score", by="s")
    expected = str(duckdb_error.value)
    assert str(error.value).removesuffix(".0") == expected.removesuffix(".0")
    assert "label column 'label' must be 0 or 1" in expected and "3 rows are not" in expected


def test_postgres_leaves_the_callers_transaction_as_it_was(postgres_engine):
    """A refused statement rolls back to its savepoint only: the caller's uncommitted
    work in the same transaction is still there, and the transaction still usable."""
    connection = postgres_engine.connection
    frame = impressions(7).with_columns(label=pl.lit(2, dtype=pl.Int64))
    postgres_engine.load({"src": frame})
    connection.execute("CREATE TEMP TABLE pending (x int)")
    connection.execute("INSERT INTO pending VALUES (1)")
    with pytest.raises(sm.InvalidInputError, match="must be 0 or 1"):
        sm.evaluate("src", ["auc"], label="label", score="score", engine="postgres", con=connection)
    assert connection.execute("SELECT x FROM pending").fetchall() == [(1,)]
    connection.rollback()
