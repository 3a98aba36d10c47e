"""The DuckDB engine's own connection: one database per process, a private cursor per call."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from sklearn.metrics import roc_auc_score

import sqlmetrics as sm
from sqlmetrics.engines import duckdb_engine


def test_concurrent_calls_each_read_their_own_frame():
    # every call registers its frame under the same view name: on a shared connection the
    # calls would read each other's frames; each cursor has its own views
    rng = np.random.default_rng(7)
    cases = []
    for shift in range(12):
        y = rng.integers(0, 2, 3000)
        s = rng.random(3000) + y * shift / 10  # a different AUC per frame
        cases.append((pl.DataFrame({"y": y, "s": s}), roc_auc_score(y, s)))

    def error(case):
        frame, expected = case
        return abs(sm.evaluate(frame, ["auc"], label="y", score="s")["auc"].item() - expected)

    with ThreadPoolExecutor(6) as pool:
        assert max(pool.map(error, cases * 3)) < 1e-12


def test_running_out_of_memory_says_which_limits_and_leaves_the_connection_usable():
    rng = np.random.default_rng(3)
    n = 300_000
    frame = pl.DataFrame({"y": rng.integers(0, 2, n), "s": rng.random(n), "q": rng.integers(0, 50_000, n)})
    con = duckdb.connect()
    con.execute("SET memory_limit = '20MB'")
    con.execute("SET max_temp_directory_size = '0KB'")  # nowhere to spill
    with pytest.raises(sm.EngineOutOfMemoryError, match=r"memory_limit 19.0 MiB, \d+ threads.*SET memory_limit"):
        sm.evaluate(frame, ["auc", "gauc"], label="y", score="s", query="q", con=con)
    con.execute("SET memory_limit = '2GB'")
    auc = sm.evaluate(frame, ["auc"], label="y", score="s", con=con)["auc"].item()
    assert abs(auc - roc_auc_score(frame["y"], frame["s"])) < 1e-12


def test_a_refused_statement_leaves_the_connection_usable():
    con = duckdb.connect()
    bad = pl.DataFrame({"y": [0, 2, 1], "s": [0.1, 0.2, 0.3]})
    with pytest.raises(sm.InvalidInputError, match="must be 0 or 1"):
        sm.evaluate(bad, ["auc"], label="y", score="s", con=con)
    good = pl.DataFrame({"y": [0, 1, 1], "s": [0.1, 0.2, 0.3]})
    assert sm.evaluate(good, ["auc"], label="y", score="s", con=con)["auc"].item() == 1.0


SPILLING_CALL = """
import os, sys, duckdb, numpy as np, polars as pl, sqlmetrics as sm
from sqlmetrics.engines import duckdb_engine
rng = np.random.default_rng(0)
n = 2_000_000
frame = pl.DataFrame({"y": rng.integers(0, 2, n), "s": rng.random(n), "q": rng.integers(0, 400_000, n)})
database = duckdb_engine._database()
# the windows of gauc over 2M rows cannot stay in memory: DuckDB 2 spills under 60 MB,
# DuckDB 1 needs about 200 MB to make progress at all (and spills there)
limit = "60MB" if int(duckdb.__version__.split(".")[0]) >= 2 else "200MB"
database.execute(f"SET memory_limit = '{limit}'")
sm.evaluate(frame, ["gauc"], label="y", score="s", query="q")
spilled = database.execute("SELECT current_setting('temp_directory')").fetchall()[0][0]
print(spilled, os.path.isdir(spilled))
"""


def test_calls_without_a_connection_spill_to_a_private_directory_removed_at_exit(tmp_path):
    """DuckDB's default spill directory is ``.tmp`` in the working directory, where a call
    killed mid-spill once left 38 GB: calls without ``con`` spill under the system's
    temporary directory instead, in a directory of their own that the process removes
    when it exits."""
    ran = subprocess.run(
        [sys.executable, "-c", SPILLING_CALL], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    directory, existed = ran.stdout.split()
    assert existed == "True" and Path(directory).parent == Path(tempfile.gettempdir())
    assert not Path(directory).exists()  # removed at exit
    assert not (tmp_path / ".tmp").exists()  # nothing in the working directory


def test_a_full_disk_while_spilling_is_a_clear_error(monkeypatch):
    """DuckDB reports a full disk as an IOException naming the spill file; the call says
    which directory filled up and how to point DuckDB at another."""
    from sqlmetrics.engines import duckdb_engine

    def full(*args, **kwargs):
        raise duckdb.IOException(
            'IO Error: Could not write file "/tmp/x/duckdb_temp_storage-0.tmp": No space left on device'
        )

    monkeypatch.setattr(duckdb_engine, "_fetched", full)
    frame = pl.DataFrame({"y": [0, 1], "s": [0.1, 0.9]})
    with pytest.raises(
        sm.EngineOutOfMemoryError, match=r"disk filled up while spilling to '.*sqlmetrics-spill-.*No space"
    ):
        sm.evaluate(frame, ["auc"], label="y", score="s")


def test_the_command_line_runs_on_the_private_database(tmp_path, monkeypatch, capsys):
    """The command line passes no connection: it spills where calls without ``con`` do,
    not to ``.tmp`` in the working directory (a killed compare once left 56 GB there)."""
    from sqlmetrics import cli
    from sqlmetrics.engines import duckdb_engine

    given = []
    run = duckdb_engine.run
    def recorded(binding, source, con, *more):
        given.append(con)
        return run(binding, source, con, *more)

    monkeypatch.setattr(duckdb_engine, "run", recorded)
    pl.DataFrame({"label": [0, 1], "score": [0.2, 0.7]}).write_parquet(tmp_path / "logs.parquet")
    assert cli.main(["eval", str(tmp_path / "logs.parquet"), "-m", "auc", "--format", "csv"]) == 0
    assert given == [None]
    directory = duckdb_engine._quiet_connection().execute("SELECT current_setting('temp_directory')").fetchall()[0][0]
    assert directory == duckdb_engine.spill_directory() and Path(directory).parent == Path(tempfile.gettempdir())


# A process killed while spilling cannot remove its spill directory (DuckDB's spill
# files there can hold gigabytes): the next process's database removes the directories
# of processes that no longer run, and leaves a running process's alone.
@pytest.mark.skipif(os.name != "posix", reason="process ids are checked with os.kill(pid, 0) on POSIX only")
def test_a_killed_process_spill_directory_is_removed_by_the_next(tmp_path):
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    orphan = tmp_path / f"{duckdb_engine.SPILL_PREFIX}{ended.pid}-abc123"
    (orphan / "spilled").mkdir(parents=True)
    (orphan / "spilled" / "duckdb_temp_block-1.block").write_bytes(b"x" * 1024)
    running = tmp_path / f"{duckdb_engine.SPILL_PREFIX}{os.getpid()}-def456"
    running.mkdir()
    unnamed = tmp_path / f"{duckdb_engine.SPILL_PREFIX}ghi789"  # an older name, without a process id
    unnamed.mkdir()
    duckdb_engine.remove_orphaned_spill(tmp_path)
    assert not orphan.exists()
    assert running.is_dir() and unnamed.is_dir()
    assert duckdb_engine.spill_directory().startswith(str(Path(tempfile.gettempdir()) / f"sqlmetrics-spill-{os.getpid()}-"))
