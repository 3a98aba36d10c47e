"""Lake tables as sources (``sqlmetrics/sources/table_formats.py``): a Delta Lake table (its
folder's path) and an Iceberg table (a pyiceberg Table of a SQLite catalog), each read
as its current snapshot on both engines, partition columns usable in ``by``: the same
numbers as the snapshot's rows given as a frame (which every other test checks against
the references). Written offline with deltalake and pyiceberg."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.transforms import IdentityTransform
from test_state import assert_same_frame

import sqlmetrics as sm
from sqlmetrics.errors import ColumnNotFoundError
from sqlmetrics.sources.table_formats import delta_files

METRICS = ["auc", "logloss", "gauc", "f1"]
COLUMNS = {"label": "click", "score": "pctr", "query": "user"}


def impressions(rows: int = 3000, seed: int = 7) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "day": rng.choice(["2026-11-01", "2026-11-02", "2026-11-03"], rows),
            "user": rng.integers(0, 80, rows),
            "click": rng.integers(0, 2, rows),
            "pctr": rng.random(rows).round(3),
        }
    )


@pytest.fixture
def delta_table(tmp_path) -> tuple[str, pl.DataFrame]:
    """A Delta table partitioned by day, whose last day was overwritten with fewer rows:
    the folder still holds the removed files (until vacuumed), the snapshot does not."""
    frame, path = impressions(), str(tmp_path / "impressions")
    frame.write_delta(path, delta_write_options={"partition_by": ["day"]})
    last = frame.filter(day="2026-11-03").head(200).with_columns(pctr=1 - pl.col("pctr"))
    options = {"partition_by": ["day"], "predicate": "day = '2026-11-03'"}
    last.write_delta(path, mode="overwrite", delta_write_options=options)
    return path, pl.concat([frame.filter(pl.col("day") != "2026-11-03"), last])


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_delta_table_reads_as_its_snapshot(delta_table, engine):
    path, snapshot = delta_table
    expected = sm.evaluate(snapshot, METRICS, by="day", **COLUMNS)
    assert_same_frame(sm.evaluate(path, METRICS, by="day", engine=engine, **COLUMNS), expected)
    state = sm.state(path, METRICS, by="day", engine=engine, **COLUMNS)
    assert_same_frame(sm.rollup(state, by="day"), expected)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_delta_table_under_a_path_with_a_space_and_an_apostrophe(tmp_path, engine):
    """deltalake names such a table's files percent-encoded (``it's%20a%20lake/part-...``):
    polars' scan_delta opened those names as they are and said a file was removed while
    it was read; the footers read as evidence of the scores were missing too."""
    frame, path = impressions(), str(tmp_path / "it's a lake")  # deltalake cannot write under brackets
    frame.write_delta(path, delta_write_options={"partition_by": ["day"]})
    expected = sm.evaluate(frame, METRICS, by="day", **COLUMNS)
    assert_same_frame(sm.evaluate(path, METRICS, by="day", engine=engine, **COLUMNS), expected)
    assert all(Path(file).is_file() for file in delta_files(path))


def test_a_delta_table_in_sql_and_its_missing_column(delta_table):
    path, _ = delta_table
    assert f"delta_scan('{path}')" in sm.to_sql(["auc"], source=path, label="click", score="pctr")
    with pytest.raises(ColumnNotFoundError, match=r"'ctr'.*click"):
        sm.evaluate(path, ["auc"], label="click", score="ctr")


@pytest.fixture
def iceberg_table(tmp_path):
    """An Iceberg table partitioned by day in a SQLite catalog, written in two appends."""
    catalog = SqlCatalog("local", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{tmp_path}")
    catalog.create_namespace("logs")
    frame = impressions(seed=11)
    schema = frame.to_arrow().schema
    table = catalog.create_table("logs.impressions", schema=schema)
    with table.update_spec() as spec:
        spec.add_field("day", IdentityTransform(), "day")
    table.append(frame.head(1000).to_arrow())
    table.append(frame.slice(1000).to_arrow())
    assert [field.name for field in table.spec().fields] == ["day"]
    return table, frame


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_an_iceberg_table_reads_as_its_snapshot(iceberg_table, engine):
    table, frame = iceberg_table
    expected = sm.evaluate(frame, METRICS, by="day", **COLUMNS)
    assert_same_frame(sm.evaluate(table, METRICS, by="day", engine=engine, **COLUMNS), expected)
    with pytest.raises(ColumnNotFoundError, match=r"'ctr'.*click"):
        sm.evaluate(table, ["auc"], label="click", score="ctr", engine=engine)
