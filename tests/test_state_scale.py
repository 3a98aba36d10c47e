"""The scale tier of roll-ups: three days of an impressions log (600,000 rows, continuous
and 4-decimal scores, users with shared effects), each day's Parquet file written by
another tool (polars, pyarrow, DuckDB); each day's state built on both engines from its
file; the roll-up of the three states, by country and over everything, equals
``sm.evaluate`` over the three files read together, to 1e-9, intervals included.
``evaluate`` itself is checked against scikit-learn at this size in tests/test_scale.py.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from test_state import assert_same_frame

import sqlmetrics as sm

pytestmark = pytest.mark.scale

METRICS = ["auc", "average_precision", "logloss", "calibration", "brier", "f1", "mcc", "gauc", "ndcg@10", "mrr"]
COLUMNS = {"label": "click", "score": "pctr", "query": "request"}


def day_frame(day: int, rows: int = 200_000) -> pl.DataFrame:
    """A day of impressions: users with shared effects, requests of about 10 impressions
    (a request id unique to the day) each in one of 8 countries, clicks at about 10%."""
    rng = np.random.default_rng(1000 + day)
    user = rng.integers(0, 20_000, rows)
    effect = rng.normal(0, 1, 20_000)[user]
    click = (rng.random(rows) < 1 / (1 + np.exp(-(effect - 2.3)))).astype(np.int64)
    pctr = 1 / (1 + np.exp(-(effect - 2.3 + 1.2 * (click - 0.5) + rng.normal(0, 1, rows))))
    request = np.cumsum(rng.random(rows) < 0.1)  # runs of rows: one request each
    return pl.DataFrame(
        {
            "day": np.full(rows, day, dtype=np.int64),
            "country": [f"c{r % 8}" for r in request],  # a request is in one country
            "request": [f"{day}-{r}" for r in request],
            "click": click,
            "pctr": pctr,
        }
    )


@pytest.fixture(scope="module")
def days(tmp_path_factory) -> tuple[pl.DataFrame, list[Path]]:
    """The three days in memory and as files, one written by each tool."""
    root = tmp_path_factory.mktemp("days")
    frames = [day_frame(day) for day in range(3)]
    paths = [root / f"day={day}.parquet" for day in range(3)]
    frames[0].write_parquet(paths[0])
    pq.write_table(frames[1].to_arrow(), paths[1])
    with duckdb.connect() as con:
        con.register("day_two", frames[2].to_arrow())
        con.execute(f"COPY day_two TO '{paths[2]}' (FORMAT parquet)")
    return pl.concat(frames), paths


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("digits", [None, 4])
def test_rollup_of_daily_states_equals_evaluate_at_scale(days, engine, digits, tmp_path):
    frame, paths = days
    if digits is not None:  # 4-decimal scores, as logged: the histogram is a few thousand rows per slice
        rounded = []
        for path in paths:
            target = tmp_path / path.name
            pl.read_parquet(path).with_columns(pl.col("pctr").round(digits)).write_parquet(target)
            rounded.append(target)
        paths, frame = rounded, frame.with_columns(pl.col("pctr").round(digits))
    states = [sm.state(str(path), METRICS, by=["day", "country"], engine=engine, **COLUMNS) for path in paths]
    if digits is not None:  # the histogram parts: at most 10,001 scores × 2 labels per slice
        assert all(state.filter(state_part="base").height <= 24 * 20_002 for state in states)
    directory = str(paths[0].parent)  # the three files, read together
    assert_same_frame(sm.rollup(states), sm.evaluate(directory, METRICS, **COLUMNS))
    analytic = [name for name in METRICS if name != "average_precision"]  # its interval is a bootstrap's
    expected = sm.evaluate(frame, analytic, by="country", ci=0.95, **COLUMNS)
    assert_same_frame(sm.rollup(states, by="country", metrics=analytic, ci=0.95), expected)
