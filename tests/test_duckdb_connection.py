"""The DuckDB engine's own connection: one database per process, a private cursor per call."""

from __future__ import annotations

import os
import stat
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
from sqlmetrics.engines import duckdb_engine, spill


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
# files there can hold gigabytes): the next process removes the directories whose lock
# no process holds, and only those (engines/spill.py).
HOLDING_A_SPILL_DIRECTORY = """
import sys, time
from sqlmetrics.engines.spill import spill_directory
print(spill_directory(), flush=True)
time.sleep(600)
"""


def _process_holding_a_spill_directory(parent: Path) -> tuple[subprocess.Popen, Path]:
    """A process that made its spill directory in ``parent`` and runs on."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDING_A_SPILL_DIRECTORY],
        env={**os.environ, "TMPDIR": str(parent)},
        stdout=subprocess.PIPE,
        text=True,
    )
    return process, Path(process.stdout.readline().strip())


@pytest.mark.skipif(os.name != "posix", reason="the spill directories are locked with flock, on POSIX only")
def test_a_killed_process_spill_directory_is_removed_by_the_next(tmp_path):
    killed, orphan = _process_holding_a_spill_directory(tmp_path)
    (orphan / "duckdb_temp_block-1.block").write_bytes(b"x" * 1024)
    killed.kill()
    killed.wait()
    assert orphan.is_dir()  # a killed process removes nothing
    spill.remove_orphaned_spill(tmp_path)
    assert not orphan.exists()
    assert duckdb_engine.spill_directory().startswith(
        str(Path(tempfile.gettempdir()) / f"sqlmetrics-spill-{os.getpid()}-")
    )


@pytest.mark.skipif(os.name != "posix", reason="the spill directories are locked with flock, on POSIX only")
def test_a_live_process_spill_directory_is_kept_whatever_its_name_says(tmp_path):
    """A process of another PID namespace sharing ``/tmp`` (a container) has a process id
    that names no process here: its live directory was removed with its contents. Its
    lock, held while it runs, keeps it."""
    live, directory = _process_holding_a_spill_directory(tmp_path)
    try:
        ended = subprocess.Popen([sys.executable, "-c", "pass"])
        ended.wait()
        elsewhere = directory.rename(tmp_path / f"{spill.SPILL_PREFIX}{ended.pid}-other-namespace")
        (elsewhere / "duckdb_temp_block-1.block").write_bytes(b"x")
        spill.remove_orphaned_spill(tmp_path)
        assert (elsewhere / "duckdb_temp_block-1.block").is_file()
    finally:
        live.kill()
        live.wait()
    spill.remove_orphaned_spill(tmp_path)  # now abandoned
    assert not elsewhere.exists()


def assert_a_call_runs_in(temporary: Path) -> None:
    """A whole call without ``con=`` (the private database, its spill directory and the
    cleanup of others') runs to its number in a process whose temporary directory is
    ``temporary``; the timeout ends a hang."""
    ran = subprocess.run(
        [
            sys.executable,
            "-c",
            "import polars as pl, sqlmetrics as sm; "
            "print(sm.evaluate(pl.DataFrame({'y': [0, 1], 's': [0.2, 0.7]}), ['auc'], label='y', score='s')['auc'][0])",
        ],
        env={**os.environ, "TMPDIR": str(temporary)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (ran.returncode, ran.stdout.strip()) == (0, "1.0"), ran.stderr[-2000:]


@pytest.mark.skipif(os.name != "posix", reason="the spill directories are locked with flock, on POSIX only")
def test_odd_entries_in_the_temporary_directory_are_left_alone_and_never_fail_a_call(tmp_path):
    """A directory named ``sqlmetrics-spill-99999999999-x`` (or with a non-ASCII digit) made
    every call without ``con=``, by every user, raise a raw OverflowError or ValueError;
    any ``sqlmetrics-spill-<dead pid>-anything`` was removed with its contents. Only a
    directory with the library's lock file is judged; nothing here is removed, nothing
    raised."""
    kept = [
        tmp_path / f"{spill.SPILL_PREFIX}99999999999-x",
        tmp_path / f"{spill.SPILL_PREFIX}\u0661\u0662-x",
        tmp_path / f"{spill.SPILL_PREFIX}1-no-lock-file",
        tmp_path / f"{spill.SPILL_PREFIX}ghi789",
    ]
    for directory in kept:
        directory.mkdir()
        (directory / "data").write_bytes(b"x")
    target = tmp_path / "not-a-spill-directory"
    target.mkdir()
    (target / spill.LOCK_FILE).write_bytes(b"")  # unlocked: abandoned, were it a spill directory
    (target / "data").write_bytes(b"x")
    link = tmp_path / f"{spill.SPILL_PREFIX}2-link"
    link.symlink_to(target, target_is_directory=True)
    plain_file = tmp_path / f"{spill.SPILL_PREFIX}3-file"
    plain_file.write_bytes(b"x")
    lock_is_a_link = tmp_path / f"{spill.SPILL_PREFIX}4-lock-link"
    lock_is_a_link.mkdir()
    (lock_is_a_link / spill.LOCK_FILE).symlink_to(target / spill.LOCK_FILE)
    spill.remove_orphaned_spill(tmp_path)
    for directory in [*kept, lock_is_a_link]:
        assert directory.is_dir() and any(directory.iterdir())
    assert link.is_symlink() and (target / "data").is_file() and plain_file.is_file()
    assert_a_call_runs_in(tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="the spill directories are locked with flock, on POSIX only")
def test_a_lock_file_that_is_a_fifo_is_left_alone_and_never_blocks_a_call(tmp_path):
    """A FIFO named like the lock file, in a directory named like a spill directory: opening
    it to try its lock waited for a writer, so every call without ``con=`` in that temporary
    directory hung (a shared ``/tmp``, containers all root). It is left alone, the call runs."""
    fifo_lock = tmp_path / f"{spill.SPILL_PREFIX}5-fifo-lock"
    fifo_lock.mkdir()
    os.mkfifo(fifo_lock / spill.LOCK_FILE)
    assert_a_call_runs_in(tmp_path)  # its timeout ends a hang
    assert stat.S_ISFIFO(os.lstat(fifo_lock / spill.LOCK_FILE).st_mode)  # left as it was
