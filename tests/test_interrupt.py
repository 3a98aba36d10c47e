"""Ctrl-C: through the API it raises KeyboardInterrupt (not DuckDB's "RuntimeError: Query
interrupted") and returns at once, and a DuckDB connection of the caller's is left
usable; on the command line it prints one line and exits with 130, promptly. Each run
in a subprocess on an input whose uninterrupted run takes far longer than the bound on
waiting (a bootstrap of 5,000 resamples over 200,000 rows), on both engines."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60  # seconds: the bound on waiting for the interrupted run to end (it would run minutes)
BUSY = 5  # seconds of CPU after which the command is in its query (importing takes under 1)
LONG_CALL = {"label": "y", "score": "s", "ci": 0.9, "ci_method": "bootstrap", "resamples": 5000}


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def long_input(tmp_path_factory) -> Path:
    """200,000 rows: f1's bootstrap with 5,000 resamples reads 10⁹ weighted rows (DuckDB
    takes about 30 s on two cores, polars more)."""
    rng = np.random.default_rng(1)
    n = 200_000
    path = tmp_path_factory.mktemp("interrupt") / "rows.parquet"
    pl.DataFrame({"y": rng.integers(0, 2, n), "s": np.round(rng.random(n), 2)}).write_parquet(path)
    return path


API_RUN = """
import _thread, sys, threading, duckdb, polars as pl, sqlmetrics as sm
source, engine, call = sys.argv[1], sys.argv[2], eval(sys.argv[3])
con = duckdb.connect() if engine == "duckdb" else None
if con is not None:
    con.execute("SET enable_progress_bar = false")  # DuckDB draws its bar on stdout after 2 s
started = threading.Event()
def interrupt():
    started.wait()
    threading.Timer(1.5, _thread.interrupt_main).start()  # the call reads and checks in well under 1.5 s
threading.Thread(target=interrupt, daemon=True).start()
try:
    started.set()
    sm.evaluate(pl.read_parquet(source), ["f1"], **call, engine=engine, **({"con": con} if con else {}))
    print("finished")
except KeyboardInterrupt:
    print("KeyboardInterrupt")
except BaseException as error:
    print(f"{type(error).__name__}: {error}")
if con is not None:  # the caller's connection still works
    print(con.execute("SELECT 41 + 1").fetchone()[0])
"""


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_ctrl_c_through_the_api_is_a_keyboard_interrupt(long_input, engine):
    script = textwrap.dedent(API_RUN)
    done = subprocess.run(
        [sys.executable, "-c", script, str(long_input), engine, repr(LONG_CALL)],
        capture_output=True, text=True, timeout=WAIT, env=_environment(),
    )  # fmt: skip
    printed = done.stdout.split()
    assert printed[:1] == ["KeyboardInterrupt"], done.stdout + done.stderr
    if engine == "duckdb":
        assert printed[1:] == ["42"]


def _wait_until_it_computes(process: subprocess.Popen) -> None:
    """Until ``process`` has used BUSY seconds of CPU: more than starting Python, importing
    the modules and reading the input take, so its query runs (a Ctrl-C while Python
    imports the modules is Python's own traceback)."""
    stat = Path(f"/proc/{process.pid}/stat")
    if not stat.parent.is_dir():
        pytest.skip("needs /proc to see when the command computes")
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        fields = stat.read_text().rsplit(")", 1)[1].split()  # after the command's name
        if (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") > BUSY:  # utime + stime
            return
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"the command did not use {BUSY} s of CPU within {WAIT} s")


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_ctrl_c_on_the_command_line_is_one_line_and_status_130(long_input, engine):
    argv = [sys.executable, "-m", "sqlmetrics", "eval", str(long_input), "-m", "f1", "--label", "y", "--score", "s"]
    argv += ["--ci", "0.9", "--ci-method", "bootstrap", "--resamples", "5000", "--engine", engine]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_environment())
    _wait_until_it_computes(process)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    # 200,000 rows × 5,000 resamples: the long bootstrap says so first (test_long_bootstrap)
    said = err.splitlines()
    assert (process.returncode, out, said[-1]) == (130, "", "sqlmetrics: interrupted")
    assert len(said) == 2 and said[0].startswith("sqlmetrics: warning: a long bootstrap: 200,000 rows × 5,000")
