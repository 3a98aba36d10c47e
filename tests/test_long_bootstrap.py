"""A call whose bootstrap will be long says so before it starts (``LongBootstrapWarning``:
its rows × resamples, the metrics resampled and why, how to make it cheaper), and the
command line prints it on stderr; on a terminal a long bootstrap shows a progress line
(DuckDB's share done; polars, which reports none, its elapsed time), and when stderr is
not a terminal nothing is printed but the warning. The threshold is patched small:
nothing here is timed."""

from __future__ import annotations

import io
import sys
import warnings

import duckdb
import polars as pl
import pytest

import sqlmetrics as sm
from sqlmetrics import cli
from sqlmetrics.engines import duckdb_engine, long_bootstrap
from sqlmetrics.errors import LongBootstrapWarning
from sqlmetrics.running import progress

ROWS = 50


@pytest.fixture
def threshold(monkeypatch):
    """1,000 row-replicates: 50 rows × 20 resamples is at it, × 21 above it."""
    monkeypatch.setattr(long_bootstrap, "LONG_BOOTSTRAP", 1_000)


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {"label": [i % 2 for i in range(ROWS)], "score": [(i * 7 % 13) / 13 for i in range(ROWS)],
         "b": [(i * 5 % 11) / 11 for i in range(ROWS)], "user": [i % 6 for i in range(ROWS)]}
    )  # fmt: skip


def _warned(call) -> list[LongBootstrapWarning]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [warning.message for warning in caught if isinstance(warning.message, LongBootstrapWarning)]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_the_warning_fires_above_the_threshold_and_not_at_it(threshold, engine):
    def evaluate(resamples: int) -> None:
        sm.evaluate(_frame(), ["average_precision", "auc"], ci=0.95, resamples=resamples, engine=engine)

    assert _warned(lambda: evaluate(20)) == []  # 50 × 20 = 1,000: not above
    (warning,) = _warned(lambda: evaluate(21))  # 50 × 21 = 1,050
    assert (warning.rows, warning.resamples, warning.metrics) == (ROWS, 21, ("average_precision",))
    text = str(warning)
    assert "50 rows × 21 resamples" in text and "1,050 row-replicates" in text
    assert "average_precision (no analytic interval)" in text and "auc" not in text  # auc's is DeLong: not resampled
    assert "fewer resamples" in text


def test_the_warning_says_why_each_metric_is_resampled(threshold):
    metrics = ["auc", "max_error"]  # max_error has no analytic interval
    (explicit,) = _warned(lambda: sm.evaluate(_frame(), metrics, ci=0.9, ci_method="bootstrap", resamples=30))
    assert "auc (ci_method 'bootstrap'" in str(explicit) and "max_error (no analytic interval)" in str(explicit)
    by_user = {"ci": 0.9, "ci_unit": "user", "resamples": 30}
    assert _warned(lambda: sm.evaluate(_frame(), ["auc"], **by_user)) == []  # DeLong's clustered by user
    assert _warned(lambda: sm.compare(_frame(), ["auc"], scores=("score", "b"), **by_user)) == []  # paired too
    (clustered,) = _warned(lambda: sm.evaluate(_frame(), ["auc", "average_precision"], **by_user))
    assert clustered.metrics == ("average_precision",) and "average_precision (no analytic interval)" in str(clustered)
    (asked,) = _warned(lambda: sm.compare(_frame(), ["auc"], scores=("score", "b"), ci_method="bootstrap", **by_user))
    assert "auc (ci_method 'bootstrap'; it has an analytic interval)" in str(asked)
    (paired,) = _warned(
        lambda: sm.compare(_frame(), ["average_precision", "auc"], scores=("score", "b"), resamples=30)
    )  # paired auc is DeLong's, average_precision resampled
    assert paired.metrics == ("average_precision",) and "50 rows × 30 resamples" in str(paired)


def test_no_warning_without_a_bootstrap_or_a_cheap_row_count(threshold):
    assert _warned(lambda: sm.evaluate(_frame(), ["auc", "logloss"], ci=0.95, resamples=10_000)) == []
    lazy = _frame().lazy()  # its rows are not known without running it: no estimate
    assert _warned(lambda: sm.evaluate(lazy, ["average_precision"], ci=0.95, resamples=10_000)) == []


def test_the_rows_of_parquet_come_from_its_footers(threshold, tmp_path):
    _frame().write_parquet(tmp_path / "a.parquet")
    _frame().write_parquet(tmp_path / "b.parquet")
    (warning,) = _warned(lambda: sm.evaluate(tmp_path, ["average_precision"], ci=0.95, resamples=11))
    assert warning.rows == 2 * ROWS and "100 rows × 11 resamples" in str(warning)


def test_the_warning_comes_before_the_statement_runs(threshold, monkeypatch):
    ran = []
    monkeypatch.setattr(duckdb_engine, "run", lambda *args, **kwargs: ran.append(args))
    with warnings.catch_warnings():
        warnings.simplefilter("error", LongBootstrapWarning)
        with pytest.raises(LongBootstrapWarning):
            sm.evaluate(_frame(), ["average_precision"], ci=0.95, resamples=21)
    assert ran == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _recorded(monkeypatch) -> list[progress.Progress]:
    shown: list[progress.Progress] = []

    class Recorder(progress.Progress):
        def __enter__(self):
            shown.append(self)
            return super().__enter__()

    monkeypatch.setattr(progress, "Progress", Recorder)
    return shown


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_long_bootstrap_shows_progress_on_a_terminal(threshold, monkeypatch, engine):
    shown = _recorded(monkeypatch)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LongBootstrapWarning)
        sm.evaluate(_frame(), ["average_precision"], ci=0.95, resamples=21, engine=engine)
        sm.evaluate(_frame(), ["average_precision"], ci=0.95, resamples=20, engine=engine)  # not long: no line
    (line,) = shown
    assert line.what.startswith("bootstrap of 50 rows × 21 resamples")
    # DuckDB reports the share of the statement done; polars reports none, and the line says so
    assert (line.percent is not None) == (engine == "duckdb")
    assert ("polars reports no share done" in line.what) == (engine == "polars")


def test_nothing_but_the_warning_when_stderr_is_not_a_terminal(threshold, monkeypatch, capsys):
    shown = _recorded(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LongBootstrapWarning)
        sm.evaluate(_frame(), ["average_precision"], ci=0.95, resamples=21)
    assert shown == [] and capsys.readouterr().err == ""


def test_the_command_line_prints_the_warning_on_stderr(threshold, tmp_path, capsys):
    _frame().write_parquet(tmp_path / "logs.parquet")
    argv = ["eval", str(tmp_path / "logs.parquet"), "-m", "average_precision", "--ci", "0.95"]
    assert cli.main([*argv, "--resamples", "21", "--format", "csv"]) == 0
    err = capsys.readouterr().err.splitlines()
    warned = [line for line in err if line.startswith("sqlmetrics: warning: ")]
    assert len(warned) == 1 and "50 rows × 21 resamples" in warned[0]
    assert [line for line in err if line not in warned] == [
        line for line in err if line.startswith("sqlmetrics: intervals at 95%")
    ]  # nothing else: stderr is not a terminal
    assert cli.main([*argv, "--resamples", "20", "--format", "csv"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_the_report_prints_the_warning_once_as_it_starts(threshold, tmp_path, capsys):
    _frame().write_parquet(tmp_path / "logs.parquet")
    argv = ["report", str(tmp_path / "logs.parquet"), "-m", "average_precision,auc", "--ci", "0.95"]
    assert cli.main([*argv, "--resamples", "21", "--scores", "score,b", "--output", str(tmp_path / "r.html")]) == 0
    err = capsys.readouterr().err.splitlines()
    warned = [line for line in err if "× 21 resamples" in line]
    assert len(warned) == 1 and warned[0].startswith("sqlmetrics: warning: ")
    assert err.index(warned[0]) < len(err) - 1 and err[-1].startswith("wrote ")


def _shares_read(monkeypatch, shown: list[progress.Progress]) -> list[bool | None]:
    """Whether the progress line showing (the last of ``shown`` still open) reads its
    share done from the cursor that ran each statement (True), from another (False: the
    bare connection, which always reads -1), or shows none (None), as each statement's
    rows are fetched. Which cursor, not the value it reads then: a statement that has
    just ended reads -1 or its share depending on DuckDB's timing (a loaded machine
    read -1 one run in two)."""
    read, fetched = [], duckdb_engine._fetched

    def reading(result):
        line = next((line for line in reversed(shown) if not line._done.is_set()), None)
        percent = line.percent if line is not None else None
        cells = [cell.cell_contents for cell in getattr(percent, "__closure__", None) or ()]
        read.append(None if percent is None else any(cell is result for cell in cells))
        return fetched(result)

    monkeypatch.setattr(duckdb_engine, "_fetched", reading)
    return read


def test_on_a_terminal_the_command_lines_line_follows_duckdbs_share(threshold, monkeypatch, tmp_path, capsys):
    """One progress line, the command line's: the long bootstrap adds none of its own,
    and the engine lets the line read the share done of the statement it runs."""
    _frame().write_parquet(tmp_path / "logs.parquet")
    shown = _recorded(monkeypatch)
    read = _shares_read(monkeypatch, shown)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    argv = ["eval", str(tmp_path / "logs.parquet"), "-m", "average_precision", "--ci", "0.95", "--resamples", "21"]
    assert cli.main([*argv, "--format", "csv"]) == 0
    (line,) = shown
    assert line.what.startswith("computing over") and read == [True]


def test_a_long_bootstraps_line_reads_duckdbs_share(threshold, monkeypatch):
    read = _shares_read(monkeypatch, _recorded(monkeypatch))
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LongBootstrapWarning)
        sm.evaluate(_frame(), ["average_precision"], ci=0.95, resamples=21)
        sm.evaluate(_frame(), ["average_precision"], ci=0.95, resamples=20)  # no line: nothing tracked
    assert read == [True, None]


def test_a_users_connection_keeps_its_settings(threshold, monkeypatch):
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LongBootstrapWarning)
        sm.evaluate(_frame(), ["average_precision"], ci=0.95, resamples=21, con=con)  # tracked on a cursor of its own
    assert con.sql("SELECT current_setting('enable_progress_bar')").fetchall() == [(False,)]


def test_a_warning_is_written_above_a_progress_line():
    stream = io.StringIO()
    line = progress.Progress(stream, "computing", after=60.0)
    line._width = 12  # as if a line of 12 characters were drawn
    line.interject("sqlmetrics: warning: long\n")
    assert stream.getvalue() == "\r" + " " * 12 + "\r" + "sqlmetrics: warning: long\n"
