"""Daily states and their roll-ups: evaluate each day once, then the last 7 and 28 days by
country from the days' states, without reading a row again.

    python examples/rollup.py [DATA_DIR]

Writes 28 days of a generated impressions log (20k rows a day, a few seconds) to
DATA_DIR/log/, each day's state (``sm.state``) to DATA_DIR/states/<day>.parquet, then
rolls up the last 7 days and all 28 by country (``sm.rollup``), prints both, and checks
each against ``sm.evaluate`` over the same rows.

The query of gauc and ndcg@10 is ``user_day``: a user's impressions of one day. A mean
over queries merges only when each query lies within one state; with ``user_id`` as the
query a user seen on two days would be one list split over two states, which a roll-up
refuses.
"""

from __future__ import annotations

import datetime as dt
import shutil
import sys
import tempfile
from pathlib import Path

import polars as pl
import polars.testing

import sqlmetrics as sm

sys.path.insert(0, str(Path(__file__).parent))
from generate_impressions import generate  # noqa: E402

DAYS = 28
ROWS_PER_DAY = 20_000
FIRST_DAY = dt.date(2026, 11, 1)
METRICS = ["auc", "gauc", "logloss", "calibration", "ndcg@10"]
COLUMNS = {"label": "click", "score": "pctr", "query": "user_day", "by": "country"}


def write_day(path: Path, rows: int, seed: int, day: dt.date) -> None:
    """One day's log: the generator's rows (seed ``seed``) dated ``day``, scores rounded
    to 4 decimals, and the query ``user_day`` (the user id and the day together)."""
    scratch = path.parent / f".scratch-{path.stem}"
    files = generate(scratch, rows=rows, seed=seed)
    pl.read_parquet(files).with_columns(
        date=pl.lit(day),
        pctr=pl.col("pctr").round(4).clip(1e-4, 1 - 1e-4),
        user_day=pl.col("user_id") * 100_000 + (day - dt.date(1970, 1, 1)).days,
    ).write_parquet(path)
    shutil.rmtree(scratch)


def write_log(folder: Path) -> list[Path]:
    """The 28 days' Parquet files, one per day."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in range(DAYS):
        day = FIRST_DAY + dt.timedelta(days=seed)
        paths.append(folder / f"{day}.parquet")
        write_day(paths[-1], ROWS_PER_DAY, seed, day)
    return paths


def write_states(days: list[Path], folder: Path) -> list[Path]:
    """Each day's state, as a daily job would write it: one Parquet file per day."""
    folder.mkdir(parents=True, exist_ok=True)
    states = []
    for day in days:
        states.append(folder / day.name)
        sm.state(day, METRICS, **COLUMNS).write_parquet(states[-1])
    return states


def rolled_up(states: list[Path], days: list[Path]) -> pl.DataFrame:
    """The metrics of these days by country from their states, checked against
    ``sm.evaluate`` over the days' rows."""
    rolled = sm.rollup(states, by="country")
    direct = sm.evaluate(pl.read_parquet(days), METRICS, **COLUMNS)
    polars.testing.assert_frame_equal(rolled, direct, rel_tol=1e-9, abs_tol=1e-12)
    return rolled


def main(data_dir: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    days = write_log(data_dir / "log")
    states = write_states(days, data_dir / "states")
    pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4, tbl_hide_dataframe_shape=True)
    shown = ["country", "n_rows", "auc", "gauc", "logloss", "calibration", "ndcg_at_10"]
    week = rolled_up(states[-7:], days[-7:])
    print(f"last 7 days ({days[-7].stem} to {days[-1].stem}), from 7 states:\n{week.select(shown)}")
    month = rolled_up(states, days)
    print(f"all {DAYS} days, from {DAYS} states:\n{month.select(shown)}")
    print("both equal sm.evaluate over the same rows (to 1e-9)")
    return week, month


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp))
