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


def test_plot_without_matplotlib_is_a_clear_error(capsys, logs, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code, _, err = run(capsys, "curve", "roc", logs, *BINDING, "--plot", tmp_path / "roc.png")
    assert_one_line_error(code, err, 1, "pip install 'sqlmetrics[plot]'")


def test_plot_to_an_unknown_image_format_is_a_clear_error_before_computing(capsys, logs, tmp_path):
    target = tmp_path / "roc.xyz"
    code, out, err = run(capsys, "curve", "roc", logs, *BINDING, "--plot", target, "-o", tmp_path / "roc.csv")
    assert_one_line_error(code, err, 1, f"cannot plot to '{target}': the file name must end with an image format")
    assert ".png" in err and ".svg" in err
    assert not (tmp_path / "roc.csv").exists() and not target.exists()


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
