"""The Spark engine: runs the composed statement, written in Spark SQL, on a Spark
session (local or a cluster's) and returns a polars frame.

``source`` (and the judgments or long class scores) is a pyspark DataFrame, the name of
a table or view in the session's catalog (``"catalog.schema.table"``), or a polars or
pyarrow frame, which is sent to Spark through Arrow. pyspark is an optional dependency
(``pip install 'sqlmetrics[spark]'``); nothing here imports it: the session passed in
brings it.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.engines.record import Engine
from sqlmetrics.engines.warehouse import Warehouse, frame_schema, read_columns, refusal, relation, run_on
from sqlmetrics.errors import InvalidParameterError, SourceError
from sqlmetrics.sources import is_frame, is_path, table_sql


def run(binding: Binding, source: Any, second: Any = None, *, con: Any = None, spark: Any = None) -> pl.DataFrame:
    """Compute every metric of ``binding`` over ``source`` with one Spark SQL statement, on
    the session ``spark`` (``record.Run``)."""
    return run_on(_connected(spark), binding, source, second)


@contextlib.contextmanager
def _connected(spark: Any) -> Iterator[_Spark]:
    """The call on the session ``spark``; the temporary views it made dropped after it."""
    if spark is None:
        raise InvalidParameterError("engine='spark' runs on a Spark session: pass spark=<SparkSession>")
    call = _Spark(spark)
    try:
        yield call
    finally:
        for view in call.temporaries:
            spark.catalog.dropTempView(view)


class _Spark(Warehouse):
    """A call on a Spark session: a source by name, a Spark DataFrame or a frame sent
    through Arrow (``_relation``)."""

    dialect = "spark"

    def relation(
        self, source: Any, view: str, columns: tuple[str, ...], check: Callable[[dict[str, str]], None]
    ) -> tuple[str, dict[str, str]]:
        from_sql, schema = _relation(self.connection, source, view, columns, self.temporaries)
        check(schema)
        return from_sql, schema

    def rows(self, sql: str) -> pl.DataFrame:
        return rows_of(self.connection, sql)


ENGINE = Engine("spark", run)


def rows_of(spark: Any, sql: str) -> pl.DataFrame:
    """The rows of the statement ``sql`` (written for Spark SQL) on the session ``spark``;
    its refusal of bad data raised as InvalidInputError."""
    try:
        table = spark.sql(sql).toArrow()
    except Exception as error:  # pyspark's errors share no base class worth naming
        raise (refusal(error) or error) from None
    return pl.from_arrow(table)


def _relation(
    spark: Any, source: Any, view: str, columns: tuple[str, ...], views: list[str]
) -> tuple[str, dict[str, str]]:
    """How the statement reads ``source`` (a frame's or Spark DataFrame's temporary view
    named ``view`` and a suffix no user has: a user's own views are left alone) and its
    schema as {column: Spark type name}. Only a frame's columns the call reads
    (``columns``) are sent to Spark; its other columns are named in the schema only."""
    if isinstance(source, str) and not is_path(source):
        try:
            frame = spark.sql(relation(source, "spark"))
        except Exception as error:
            raise SourceError(f"cannot read the table {source!r} in the Spark session: {error}") from None
        return table_sql(source), _schema(frame)
    named: dict[str, str] = {}  # a frame's columns, read or not
    if is_frame(source):
        named = frame_schema(source)
        source = spark.createDataFrame(read_columns(source, columns, "spark"))
    if not hasattr(source, "createOrReplaceTempView"):
        raise SourceError(
            f"engine='spark' reads a Spark DataFrame, a table name or a polars or pyarrow frame, "
            f"not a {type(source).__name__} (a Parquet path: spark.read.parquet(path))"
        )
    view = f"{view}_{uuid.uuid4().hex}"
    source.createOrReplaceTempView(view)
    views.append(view)
    return view, named | _schema(source)


def _schema(frame: Any) -> dict[str, str]:
    return {field.name: field.dataType.simpleString() for field in frame.schema.fields}
