"""The engines that run the composed statement in another dialect, for the cross-engine
tests: a local Spark session, a private PostgreSQL server, an in-process DataFusion
context and a chdb session (embedded ClickHouse), each loaded with the same data sets,
and the DuckDB engine as the reference.

Each data set is a few tables: the source ``src`` and, for a run or long class scores,
``judgments`` or ``class_scores``. Every engine reads them under those names (Spark,
PostgreSQL and ClickHouse as tables of the session or database, DataFusion as registered tables), so
the statement each runs is the one ``sm.to_sql(..., source="src", dialect=...)`` prints.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import polars as pl

import sqlmetrics as sm
from sqlmetrics.api import prepare
from sqlmetrics.engines import postgres_engine, spark_engine
from sqlmetrics.engines.warehouse import composed_in_dialect, refusal
from sqlmetrics.request import Request
from sqlmetrics.sources import table_sql
from sqlmetrics.sqltext.templates import quote

Tables = Mapping[str, pl.DataFrame]

_PG_TYPES = {pl.String: "text", pl.Int64: "bigint", pl.Float64: "double precision", pl.Boolean: "boolean"}

REGISTRY = sm.registry()


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
    family_roles = {role.name: role.name for role in spec.roles}  # each a column of its name (off-policy's)
    return metric, roles | ({"query": "q"} if "query" in spec.needs else {}) | family_roles


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
    "off_policy": (
        [n for n, s in REGISTRY.items() if s.family == "off_policy"]
        + [sm.clipped_ips(cap=2), sm.switch_dr(cap=2), sm.dr_os(shrinkage=0.5)],
        {
            "label": "label",
            "propensity": "propensity",
            "target_propensity": "target_propensity",
            "reward_model": "reward_model",
            "target_reward_model": "target_reward_model",
            "weight": "w",
        },
    ),
    "one_vs_rest": (
        ["auc", "average_precision", sm.multiclass_auc(average="weighted")],
        {"label": "y", "class_scores": {"x": "p_x", "y": "p_y", "z": "p_z"}, "weight": "w"},
    ),
}


def impressions(seed: int, n: int = 400) -> pl.DataFrame:
    """An impressions log with heavy ties, NULLs in every column, zero weights, graded
    relevance, multi-class labels, predictions and class scores, and a one-class slice
    ('c': every label 0) so that undefined values (NULL) are compared too."""
    rng = np.random.default_rng(seed)

    def nulls(values: np.ndarray, share: float = 0.04) -> list:
        return [None if rng.random() < share else v.item() for v in values]

    s = rng.choice(["a", "b", "c"], n, p=[0.5, 0.4, 0.1])
    label = np.where(s == "c", 0, rng.integers(0, 2, n))
    classes = rng.choice(["x", "y", "z"], n)
    p = rng.dirichlet([1, 1, 1], n).round(1)
    return pl.DataFrame(
        {
            "s": nulls(s, 0.02),
            "q": nulls(rng.integers(0, 30, n)),
            "label": nulls(label),
            "rel": nulls(rng.choice([0, 0, 1, 2, 3], n)),
            "score": nulls(rng.choice([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0], n)),
            "target": nulls(rng.normal(2.0, 1.5, n).round(2)),
            "w": nulls(rng.choice([0.0, 0.5, 1.0, 2.5], n)),
            "item": [f"d{i}" for i in range(n)],
            "y": nulls(classes),
            "pred": nulls(np.where(rng.random(n) < 0.6, classes, rng.choice(["x", "y", "z"], n))),
            "row_id": list(range(n)),
            "p_x": p[:, 0].tolist(),
            "p_y": p[:, 1].tolist(),
            "p_z": p[:, 2].tolist(),
            # the off-policy roles: a logging and a target propensity, a reward model of each
            "propensity": nulls(rng.choice([0.1, 0.25, 0.5, 1.0], n)),
            "target_propensity": nulls(rng.choice([0.0, 0.2, 0.5, 1.0], n)),
            "reward_model": nulls(rng.choice([0.0, 0.3, 1.0], n)),
            "target_reward_model": nulls(rng.uniform(0, 1, n).round(2)),
        },
        schema_overrides={"q": pl.Int64, "label": pl.Int64, "rel": pl.Int64},
    )


def long_class_scores(frame: pl.DataFrame) -> pl.DataFrame:
    """The class scores of ``frame`` long: one row per (row_id, class)."""
    return (
        frame.select("row_id", "p_x", "p_y", "p_z")
        .unpivot(index="row_id", variable_name="class", value_name="p")
        .with_columns(pl.col("class").str.strip_prefix("p_"))
    )


def run_and_qrels(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run (s, q, item, score) with tied scores and judgments (q, item, rel) that miss
    some run items and judge some items the run lacks."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(12):
        items = rng.choice(40, rng.integers(1, 15), replace=False)
        run += [(["a", "b"][q % 2], f"q{q}", f"d{i}", float(rng.choice([0.1, 0.5, 0.9, 1.3]))) for i in items]
        judged = rng.choice(40, rng.integers(0, 12), replace=False)
        qrels += [(f"q{q}", f"d{i}", int(rng.choice([0, 1, 2, 3]))) for i in judged]
    return (
        pl.DataFrame(run, schema=["s", "q", "item", "score"], orient="row"),
        pl.DataFrame(qrels, schema=["q", "item", "rel"], orient="row"),
    )


# --- the engines: each computes sm.evaluate's result from tables by name --------------


def duckdb_result(tables: Tables, metrics, **kwargs) -> pl.DataFrame:
    return sm.evaluate(tables["src"], metrics, **kwargs, **_second(tables, by_name=False))


def _second(tables: Tables, by_name: bool = True) -> dict:
    """The call's ``judgments=`` or long ``class_scores=``, by table name or as the frame."""
    if "judgments" in tables:
        return {"judgments": "judgments" if by_name else tables["judgments"]}
    if "class_scores" in tables:
        table = "class_scores" if by_name else tables["class_scores"]
        return {"class_scores": sm.long_scores(table, row_id="row_id", class_="class", score="p")}
    return {}


class Postgres:
    """A connection to the test server, with the current data set loaded as tables."""

    def __init__(self, connection) -> None:
        self.connection = connection

    def load(self, tables: Tables) -> None:
        with self.connection.cursor() as cursor:
            for name, frame in tables.items():
                kinds = {c: _PG_TYPES[frame[c].dtype.base_type()] for c in frame.columns}
                columns = ", ".join(f"{quote(c, 'postgres')} {kind}" for c, kind in kinds.items())
                cursor.execute(f"DROP TABLE IF EXISTS {name}")
                cursor.execute(f"CREATE TABLE {name} ({columns})")
                with cursor.copy(f"COPY {name} FROM STDIN") as copy:
                    for row in frame.iter_rows():
                        copy.write_row(row)
        self.connection.commit()

    @property
    def options(self) -> dict:
        """The engine's keyword arguments to ``sm.evaluate`` and ``sm.compare``."""
        return {"engine": "postgres", "con": self.connection}

    def result(self, tables: Tables, metrics, **kwargs) -> pl.DataFrame:
        return sm.evaluate("src", metrics, **kwargs, **_second(tables), **self.options)

    def rows(self, sql: str) -> pl.DataFrame:
        """The rows of a statement written for PostgreSQL (a refusal: InvalidInputError)."""
        return postgres_engine.rows_of(self.connection, sql)

    def store(self, table: str, sql: str, append: bool, directory: Path) -> None:
        """The rows of ``sql`` INSERTed INTO ``table``, created by them unless ``append``
        (``directory``: Spark's, unused here)."""
        with self.connection.cursor() as cursor:
            if not append:
                cursor.execute(f"DROP TABLE IF EXISTS {table}")
            cursor.execute(f"{'INSERT INTO' if append else 'CREATE TABLE'} {table}{'' if append else ' AS'}\n{sql}")
        self.connection.commit()


class Spark:
    """The test run's one local Spark session, with the current data set as temporary views."""

    def __init__(self, session) -> None:
        self.session = session

    def load(self, tables: Tables) -> None:
        for name, frame in tables.items():
            self.session.createDataFrame(frame.to_arrow()).createOrReplaceTempView(name)

    @property
    def options(self) -> dict:
        return {"engine": "spark", "spark": self.session}

    def result(self, tables: Tables, metrics, **kwargs) -> pl.DataFrame:
        return sm.evaluate("src", metrics, **kwargs, **_second(tables), **self.options)

    def rows(self, sql: str) -> pl.DataFrame:
        """The rows of a statement written for Spark SQL (a refusal: InvalidInputError)."""
        return spark_engine.rows_of(self.session, sql)

    def store(self, table: str, sql: str, append: bool, directory: Path) -> None:
        """The rows of ``sql`` INSERTed INTO ``table``, created by them (a Parquet table in
        ``directory``) unless ``append``."""
        if append:
            self.session.sql(f"INSERT INTO {table}\n{sql}")
            return
        self.session.sql(f"DROP TABLE IF EXISTS {table}")
        self.session.sql(f"CREATE TABLE {table} USING parquet LOCATION '{directory}' AS\n{sql}")


class ClickHouse:
    """The test run's one chdb session, with the current data set as tables (the Memory
    engine, each column Nullable, as ClickHouse infers them from the frame's Arrow)."""

    def __init__(self, session) -> None:
        self.session = session

    def load(self, tables: Tables) -> None:
        for name, frame in tables.items():
            arrow = frame.to_arrow()  # read by chdb's Python() table function, by its name here
            self.session.query(f"DROP TABLE IF EXISTS {name}")
            self.session.query(f"CREATE TABLE {name} ENGINE = Memory AS SELECT * FROM Python(arrow)")
            del arrow

    @property
    def options(self) -> dict:
        return {"engine": "clickhouse", "con": self.session}

    def rows(self, sql: str) -> pl.DataFrame:
        """The rows of a statement written for ClickHouse (a refusal: InvalidInputError)."""
        try:
            return pl.from_arrow(self.session.query(sql, "ArrowTable"))
        except Exception as error:  # chdb's errors have no class of their own
            raise refusal(error, escaped=True) or error from None

    def store(self, table: str, sql: str, append: bool, directory: Path) -> None:
        """The rows of ``sql`` INSERTed INTO ``table``, created by them (a Memory table)
        unless ``append`` (``directory``: Spark's, unused here)."""
        if not append:
            self.session.query(f"DROP TABLE IF EXISTS {table}")
            self.session.query(f"CREATE TABLE {table} ENGINE = Memory AS\n{sql}")
            return
        self.session.query(f"INSERT INTO {table}\n{sql}")

    def result(self, tables: Tables, metrics, **kwargs) -> pl.DataFrame:
        return sm.evaluate("src", metrics, **kwargs, **_second(tables), **self.options)


class DataFusion:
    """An in-process DataFusion context running the statement DuckDB runs, as DataFusion
    reads it (``dialects``' ``datafusion`` target): its integer division is truncating,
    so a template that divides two integers gives a different number here. The statement
    refuses bad data with ``error(message)``, a function DataFusion lacks: the context has
    it as a volatile UDF (so never computed ahead of the CASE branch that calls it)."""

    def __init__(self) -> None:
        import datafusion
        import pyarrow as pa
        from datafusion.user_defined import ScalarUDF

        self.context = datafusion.SessionContext()
        self.raised: str | None = None

        def error(messages: pa.Array) -> pa.Array:
            for message in messages:
                if message.is_valid:
                    self.raised = message.as_py()
                    raise RuntimeError(self.raised)
            return pa.nulls(len(messages), pa.int32())

        self.context.register_udf(ScalarUDF.udf(error, [pa.string()], pa.int32(), "volatile", "error"))

    def load(self, tables: Tables) -> None:
        for name, frame in tables.items():
            if self.context.table_exist(name):
                self.context.deregister_table(name)
            self.context.register_record_batches(name, [frame.to_arrow().to_batches()])

    def result(self, tables: Tables, metrics, **kwargs) -> pl.DataFrame:
        second = _second(tables)
        class_scores = kwargs.pop("class_scores", None) or second.get("class_scores")
        request = Request(**kwargs, judgments=second.get("judgments"), class_scores=class_scores)
        binding, second_table = prepare(metrics, request)
        sql = composed_in_dialect(
            binding, "src", None if second_table is None else table_sql(second_table), "datafusion"
        )
        self.raised = None
        try:
            return pl.from_arrow(self.context.sql(sql).to_arrow_table())
        except Exception as error:  # the message the UDF raised, rather than its Python repr
            raise (refusal(Exception(self.raised) if self.raised else error) or error) from None


def java_available() -> bool:
    return shutil.which("java") is not None


def _kind(dtype: pl.DataType) -> str:
    return "integer" if dtype.is_integer() else "float" if dtype.is_float() else str(dtype.base_type())


def assert_same_numbers(result: pl.DataFrame, expected: pl.DataFrame, engine: str) -> None:
    """Same columns of the same kinds (integer, float, ...), rows and values: numbers to
    1e-9 (relative above 1), NULL where NULL."""
    assert result.columns == expected.columns, f"{engine}: columns {result.columns} != {expected.columns}"
    kinds = {name: _kind(dtype) for name, dtype in result.schema.items()}
    expected_kinds = {name: _kind(dtype) for name, dtype in expected.schema.items()}
    assert kinds == expected_kinds, f"{engine}: column types {kinds} != DuckDB's {expected_kinds}"
    assert result.height == expected.height, f"{engine}: {result.height} rows, DuckDB {expected.height}"
    for column in expected.columns:
        for i, (got, want) in enumerate(zip(result[column].to_list(), expected[column].to_list())):
            if isinstance(want, float) or isinstance(got, float):
                same = (got is None and want is None) or (
                    got is not None
                    and want is not None
                    and (math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9) or (math.isnan(got) and math.isnan(want)))
                )
            else:
                same = got == want
            assert same, f"{engine}: {column}[{i}] = {got!r}, DuckDB {want!r}\n{result}\n{expected}"
