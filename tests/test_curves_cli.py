"""``sqlmetrics curve``: each curve's table equals the Python function's, options reach
it, plots are written, and mistakes are one-line errors.

Numbers are never hard-coded: each command's result is compared with ``sm.<kind>_curve``
on the same Parquet file.
"""

from __future__ import annotations

import builtins
import io
import json
import random
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import sqlmetrics as sm
from sqlmetrics import cli

BINDING = ["--label", "click", "--score", "pctr"]
KWARGS = {"label": "click", "score": "pctr"}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 rows: tied probability scores, two dates, weights."""
    rng = random.Random(11)
    rows = [
        {
            "click": (click := int(rng.random() < 0.4)),
            "pctr": round(min(1.0, 0.3 * click + 0.7 * rng.random()), 2),
            "date": rng.choice(["2024-05-01", "2024-05-02"]),
            "w": rng.choice([0.5, 1.0, 2.0]),
        }
        for _ in range(300)
    ]
    path = tmp_path_factory.mktemp("curves") / "logs.parquet"
    pl.DataFrame(rows).write_parquet(path)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = cli.main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code: int, err: str, status: int, fragment: str) -> None:
    assert code == status
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sqlmetrics: error: ") and fragment in lines[0], err


@pytest.mark.parametrize(
    ("argv", "function", "params"),
    [
        (["roc", "--drop-intermediate"], sm.roc_curve, {"drop_intermediate": True}),
        (["roc", "--max-points", "7", "--weight", "w"], sm.roc_curve, {"max_points": 7, "weight": "w"}),
        (["pr", "--by", "date"], sm.pr_curve, {"by": ["date"]}),
        (
            ["calibration", "--bins", "4", "--strategy", "quantile", "--engine", "polars"],
            sm.calibration_curve,
            {"bins": 4, "strategy": "quantile", "engine": "polars"},
        ),
    ],
)
def test_curve_csv_equals_the_function(capsys, logs, argv, function, params):
    kind, *options = argv
    code, out, err = run(capsys, "curve", kind, logs, *BINDING, *options, "--format", "csv")
    assert (code, err) == (0, "")
    assert_frame_equal(pl.read_csv(io.StringIO(out)), function(logs, **KWARGS, **params), check_dtypes=False)


def test_curve_json_and_parquet_outputs(capsys, logs, tmp_path):
    expected = sm.calibration_curve(logs, **KWARGS, weight="w", by="date")
    code, out, _ = run(
        capsys, "curve", "calibration", logs, *BINDING, "--weight", "w", "--by", "date", "--format", "json"
    )
    assert code == 0
    assert_frame_equal(pl.DataFrame(json.loads(out)), expected, check_dtypes=False)
    target = tmp_path / "roc.parquet"
    code, out, _ = run(capsys, "curve", "roc", logs, *BINDING, "--format", "parquet", "-o", target)
    assert (code, out) == (0, "")
    assert_frame_equal(pl.read_parquet(target), sm.roc_curve(logs, **KWARGS))


@pytest.mark.parametrize(("kind", "suffix"), [("roc", "png"), ("pr", "svg"), ("calibration", "png")])
def test_plot_is_written(capsys, logs, tmp_path, kind, suffix):
    target = tmp_path / f"{kind}.{suffix}"
    code, out, err = run(capsys, "curve", kind, logs, *BINDING, "--by", "date", "--plot", target)
    assert (code, err) == (0, "")
    data = target.read_bytes()
    assert len(data) > 5000  # axes, two slices, a legend: far more than an empty canvas header
    if suffix == "png":
        assert data.startswith(b"\x89PNG")
    else:
        text = data.decode()
        assert "<svg" in text and "date=2024-05-01" in text and "recall" in text


def test_calibration_plot_fits_the_data_and_keeps_the_diagonal():
    from sqlmetrics.curves import calibration, roc
    from sqlmetrics.curves.plot import draw

    # a click-through rate: mean scores 0.01–0.28, observed rates 0.02–0.30
    table = pl.DataFrame({"mean_score": [0.01, 0.12, 0.28], "observed_rate": [0.02, 0.10, 0.30]})
    axes = draw(table, calibration.KIND, []).axes[0]
    assert axes.get_xlim() == axes.get_ylim()  # equal axes: the diagonal is still y = x
    low, high = axes.get_xlim()
    assert low < 0.01 and 0.30 < high < 0.32  # the points fill the plot, 2% margin around them
    roc_points = pl.DataFrame({"fpr": [0.0, 0.5, 1.0], "tpr": [0.0, 0.8, 1.0]})
    assert draw(roc_points, roc.KIND, []).axes[0].get_xlim() == (-0.02, 1.02)


def test_plot_to_an_unknown_image_format_is_refused_before_any_work(capsys, logs, tmp_path, monkeypatch):
    monkeypatch.setattr(sm, "roc_curve", lambda *args, **kwargs: pytest.fail("computed before the check"))
    code, out, err = run(capsys, "curve", "roc", logs, *BINDING, "--plot", tmp_path / "roc.xyz")
    assert_one_line_error(code, err, 1, "cannot plot to")
    assert ".png" in err and ".svg" in err and out == ""
    assert not (tmp_path / "roc.xyz").exists()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _table_rows(text: str) -> list[list[str]]:
    """The cells of each data row of a box-drawn table."""
    return [[cell.strip() for cell in line.strip("│").split("┆")] for line in text.splitlines() if line.startswith("│")]


@pytest.mark.parametrize("by", [[], ["date"]])
def test_a_terminal_gets_a_screenful_and_a_note_a_pipe_every_point(capsys, logs, monkeypatch, by):
    full = sm.roc_curve(logs, **KWARGS, by=by)
    monkeypatch.setenv("LINES", "40")  # 40 - 12 = 28 rows: fewer than the curve's points
    assert full.height > 28
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    slicing = ["--by", ",".join(by)] if by else []
    assert cli.main(["curve", "roc", str(logs), *BINDING, *slicing]) == 0
    table = _table_rows(terminal.getvalue())[1:]  # after the header
    err = capsys.readouterr().err
    assert len(table) <= 28 and f"showing {len(table)} of the curve's {full.height:,} points" in err
    assert "--output FILE (or a pipe) gets every point" in err
    # the rule of max_points, with the screen's 28 rows shared among the slices
    thinned = sm.roc_curve(logs, **KWARGS, by=by, max_points=28 // (2 if by else 1))
    expected = [[*map(str, row[: len(by)]), *(f"{value:.6f}" for value in row[len(by) :])] for row in thinned.rows()]
    assert table == expected
    monkeypatch.undo()
    code, out, err = run(capsys, "curve", "roc", logs, *BINDING, *slicing, "--format", "csv")
    assert (code, err) == (0, "")
    assert_frame_equal(pl.read_csv(io.StringIO(out)), full, check_dtypes=False)


def test_plot_without_matplotlib_is_a_clear_error(capsys, logs, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code, _, err = run(capsys, "curve", "roc", logs, *BINDING, "--plot", tmp_path / "roc.png")
    assert_one_line_error(code, err, 1, "pip install 'sqlmetrics[plot]'")


@pytest.mark.parametrize(
    ("argv", "status", "fragment"),
    [
        (["roc", "{logs}", "--bins", "5"], 2, "--bins applies to calibration curves only, not roc"),
        (["calibration", "{logs}", "--max-points", "5"], 2, "--max-points applies to roc and pr curves only"),
        (["det", "{logs}"], 2, "invalid choice: 'det'"),
        (["roc", "{logs}", "--format", "parquet"], 2, "pass --output PATH"),
        (["roc", "{logs}", "--max-points", "1"], 1, "parameter 'max_points' must be an integer >= 2"),
        (["calibration", "{logs}", "--bins", "0"], 1, "parameter 'bins' must be an integer from 1 to 1,000,000"),
        (["roc", "{logs}", "--score", "p"], 1, "score column 'p' not found; the source has: click, pctr, date, w"),
        (["roc", "{missing}"], 1, "file not found"),
    ],
)
def test_mistakes_are_one_line_errors(capsys, logs, tmp_path, argv, status, fragment):
    paths = {"logs": logs, "missing": tmp_path / "missing.parquet"}
    kind, source, *options = argv
    code, _, err = run(capsys, "curve", kind, source.format(**paths), *BINDING, *options)  # a later --score wins
    assert_one_line_error(code, err, status, fragment)
