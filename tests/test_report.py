"""sm.report and 'sqlmetrics report': one self-contained HTML file whose table holds
evaluate's numbers, a chart per metric over time and per curve kind, the comparison and
the SQL; every value escaped; nothing fetched from the network. Opened in Debian's
chromium, headless: the DOM has every chart, slice and metric, no console error, and a
screenshot is written (tests/artifacts/report.png, to look at)."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import sqlmetrics as sm
from sqlmetrics import cli
from sqlmetrics.errors import InvalidParameterError, NoRowsUsedWarning
from sqlmetrics.html_report import date_column

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
from generate_impressions import generate  # noqa: E402

METRICS = ["auc", "gauc", "logloss", "calibration", "ndcg@10"]
COLUMNS = ["auc", "gauc", "logloss", "calibration", "ndcg_at_10"]
ROLES = {"label": "click", "score": "pctr", "query": "user_id", "by": ["date", "model_version", "country"]}
SCREENSHOT = Path(__file__).resolve().parent / "artifacts" / "report.png"


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("logs")
    generate(path, rows=10_000, seed=3)
    return path


@pytest.fixture(scope="module")
def written(logs, tmp_path_factory) -> tuple[Path, str]:
    output = tmp_path_factory.mktemp("report") / "report.html"
    path = sm.report(logs, METRICS, **ROLES, ci=0.95, arm="model_version", baseline="v1", output=output)
    return path, path.read_text(encoding="utf-8")


class Elements(HTMLParser):
    """The page's tags (with attributes), the text of every table cell, and every text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.cells: list[list[str]] = []
        self.texts: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            self.cells.append([])
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        self.texts.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parsed(html: str) -> Elements:
    elements = Elements()
    elements.feed(html)
    return elements


def test_the_report_holds_every_slice_metric_and_chart(written, logs):
    path, html = written
    elements = parsed(html)
    charts = [attrs for tag, attrs in elements.tags if tag == "svg"]
    slices = pl.read_parquet(logs).select(ROLES["by"]).unique()
    # one per metric over time (a line per model and country), and ROC, PR, calibration per 8 slices
    assert len(charts) == len(COLUMNS) + 3 * -(-slices.height // 8)
    for tag, attrs in elements.tags:
        if tag == "polyline":
            assert len(attrs["points"].split()) >= 2  # no empty line
    text = " ".join(elements.texts)
    for column in COLUMNS:
        assert f"{column}_lo" in text and column in text
    for value in ("v1", "v2", *slices["country"].unique().to_list(), "2026-11-01"):
        assert value in text
    assert "<h2>Comparison</h2>" in html and "arms, normal: DeLong" in html and "calibration" in html
    assert "WITH" in html and html.count("<details>") == 2  # the SQL of the metrics and of the comparison, collapsed
    assert "<summary>The statement that computed the comparison" in html and "auc_se" in html
    assert path.stat().st_size < 5_000_000  # 28 slices


def test_nothing_is_fetched_and_nothing_runs(written):
    _, html = written
    addresses = re.findall(r"https?://[^\s\"'<>]+", html)
    assert set(addresses) == {"http://www.w3.org/2000/svg"}  # the SVG namespace, a name, never fetched
    assert "<script" not in html and "<link" not in html and "src=" not in html


def test_the_table_holds_evaluates_numbers(written, logs):
    _, html = written
    rows = [row for row in parsed(html).cells if row]
    header = rows[0]
    expected = sm.evaluate(logs, METRICS, **ROLES, ci=0.95)
    assert header == expected.columns
    body = rows[1 : 1 + expected.height]
    for shown, row in zip(body, expected.iter_rows()):
        for text, value in zip(shown, row):
            if isinstance(value, float):
                assert float(text) == pytest.approx(value, rel=1e-5)
            else:
                assert text == ("null" if value is None else str(value))


def test_every_value_is_escaped(tmp_path):
    hostile = '<script>alert("x")</script>'
    frame = pl.DataFrame({hostile: [hostile, "b"] * 4, "label": [0, 1, 1, 0] * 2, "score": [0.1, 0.9, 0.4, 0.3] * 2})
    html = sm.report(frame, ["auc"], by=hostile, score="score", output=tmp_path / "r.html").read_text()
    assert "<script" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


@pytest.mark.parametrize(
    "output, message",
    [("report.pdf", "must be an .html file"), ("missing/dir/report.html", "does not exist")],
)
def test_bad_outputs_are_refused(tmp_path, output, message):
    frame = pl.DataFrame({"label": [0, 1], "score": [0.2, 0.7]})
    with pytest.raises(sm.InvalidParameterError, match=message):
        sm.report(frame, ["auc"], score="score", output=tmp_path / output)


def test_dates_are_recognized():
    frame = pl.DataFrame(
        {
            "text": ["2026-11-01", "2026-11-02", None],
            "day": pl.Series([1, 2, 3]).cast(pl.Date),
            "moment": pl.Series([0, 86_400_000_000, 0]).cast(pl.Datetime("us")),
            "word": ["a", "b", "c"],
            "number": [1, 2, 3],
        }
    )
    first = (dt.date(2026, 11, 1) - dt.date(1970, 1, 1)).days
    assert date_column(frame, "text").to_list() == [first, first + 1, None]
    assert date_column(frame, "day").to_list() == [1, 2, 3]
    assert date_column(frame, "moment").to_list() == [0, 1, 0]
    assert date_column(frame, "word") is None and date_column(frame, "number") is None


def test_paired_scores_are_compared(tmp_path):
    frame = pl.DataFrame(
        {
            "label": [0, 1, 1, 0, 1, 0] * 5,
            "a": [0.1, 0.8, 0.4, 0.3, 0.6, 0.5] * 5,
            "b": [0.2, 0.9, 0.7, 0.1] * 7 + [0.3, 0.6],
        }
    )
    html = sm.report(frame, ["auc", "f1"], scores=("a", "b"), output=tmp_path / "r.html").read_text()
    assert "paired, normal: DeLong" in html and "paired bootstrap: percentile" in html
    resampled = sm.report(frame, ["auc"], scores=("a", "b"), ci=0.9, ci_method="bootstrap", resamples=20,
                          output=tmp_path / "b.html").read_text()  # fmt: skip
    assert "paired, normal: DeLong" not in resampled and "paired bootstrap: percentile" in resampled


def test_command_line_report(tmp_path, logs, capsys):
    output = tmp_path / "cli.html"
    argv = ["report", str(logs), "-m", "auc,logloss", "--label", "click", "--score", "pctr", "--by", "date"]
    assert cli.main([*argv, "--output", str(output)]) == 0
    assert f"wrote {output}" in capsys.readouterr().err
    assert "<svg" in output.read_text()
    assert cli.main([*argv, "--arm", "model_version"]) == 2
    assert "--arm and --baseline go together" in capsys.readouterr().err


def test_a_report_without_a_used_row_says_why(tmp_path, capsys):
    """In the report, as a warning, and on the command line's stderr: for an empty
    source and when every row was excluded for a NULL."""
    empty, nulls = tmp_path / "empty.parquet", tmp_path / "nulls.parquet"
    schema = {"click": pl.Int64, "pctr": pl.Float64}
    pl.DataFrame(schema=schema).write_parquet(empty)
    pl.DataFrame({"click": [1, 0, None], "pctr": [None, None, 0.3]}, schema=schema).write_parquet(nulls)
    argv = ["-m", "auc,logloss", "--label", "click", "--score", "pctr", "--output"]
    assert cli.main(["report", str(empty), *argv, str(tmp_path / "empty.html")]) == 0
    assert "warning: the source has no rows: every metric is NULL" in capsys.readouterr().err
    assert "No row was used: the source has no rows." in (tmp_path / "empty.html").read_text()
    with pytest.warns(NoRowsUsedWarning, match="all 3 rows were excluded"):
        html = sm.report(nulls, ["auc"], label="click", score="pctr", output=tmp_path / "nulls.html").read_text()
    assert "No row was used: all 3 rows were excluded (each has a NULL in a bound column)." in html
    assert cli.main(["report", str(nulls), *argv, str(tmp_path / "nulls.html")]) == 0
    assert "warning: all 3 rows were excluded (each has a NULL in a bound column): every metric is NULL" in (
        capsys.readouterr().err
    )
    assert "No row was used" not in sm.report(
        pl.DataFrame({"click": [0, 1], "pctr": [0.2, 0.7]}), ["auc"], label="click", score="pctr",
        output=tmp_path / "some.html",
    ).read_text()  # fmt: skip


def _many_slices() -> pl.DataFrame:
    """30 slices ("slice-00" .. "slice-29", names no other text of a report holds), each
    with both arms and both classes."""
    n = 30 * 8
    return pl.DataFrame(
        {
            "s": [f"slice-{i // 8:02d}" for i in range(n)],
            "arm": ["v1", "v2"] * (n // 2),
            "click": [0, 0, 1, 1] * (n // 4),
            "pctr": [((i * 37) % 100) / 100 for i in range(n)],
        }
    )


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_report_of_many_slices_shows_the_first_and_says_where_the_rest_are(tmp_path, engine):
    """max_slices bounds what the page draws: the table, the charts and the comparison
    hold the first 10 of the 30 slices (evaluate's first 10 rows); the page and a warning
    say so and where every slice is."""
    frame = _many_slices()
    call = {"label": "click", "score": "pctr", "by": "s", "arm": "arm", "baseline": "v1", "engine": engine}
    with pytest.warns(sm.SlicesNotShownWarning, match="shows the first 10 of the 30 slices"):
        html = sm.report(frame, ["auc", "logloss"], **call, max_slices=10, output=tmp_path / "r.html").read_text()
    shown = [f"slice-{i:02d}" for i in range(10)]
    assert set(re.findall(r"slice-\d\d", html)) == set(shown)  # nowhere a slice after the tenth
    expected = sm.evaluate(frame, ["auc", "logloss"], label="click", score="pctr", by="s")
    cells = [row for row in parsed(html).cells if row]
    assert [row[0] for row in cells[1:11]] == expected["s"].head(10).to_list()
    notice = " ".join(parsed(html).texts)
    assert "This report shows the first 10 of the 30 slices" in notice
    assert "sm.evaluate" in notice and "sqlmetrics eval" in notice and "max_slices" in notice
    curves = [attrs for tag, attrs in parsed(html).tags if tag == "svg"]
    assert len(curves) == 3 * 2  # ROC, PR, calibration per 8 slices of 10 (no dates: no chart over time)


def test_a_report_within_its_bound_shows_every_slice(tmp_path):
    frame = _many_slices()
    call = {"label": "click", "score": "pctr", "by": "s"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", sm.SlicesNotShownWarning)
        html = sm.report(frame, ["auc"], **call, max_slices=30, output=tmp_path / "a.html").read_text()
        unbounded = sm.report(frame, ["auc"], **call, max_slices=None, output=tmp_path / "b.html").read_text()
    for page in (html, unbounded):
        assert len(set(re.findall(r"slice-\d\d", page))) == 30 and "This report shows the first" not in page


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "10"])
def test_a_bad_bound_on_slices_is_refused(tmp_path, bad):
    frame = pl.DataFrame({"click": [0, 1], "pctr": [0.2, 0.7]})
    with pytest.raises(InvalidParameterError, match="max_slices must be a positive integer or None"):
        sm.report(frame, ["auc"], label="click", score="pctr", max_slices=bad, output=tmp_path / "r.html")


def test_command_line_report_bounds_its_slices(tmp_path, capsys):
    source = tmp_path / "many.parquet"
    _many_slices().write_parquet(source)
    argv = ["report", str(source), "-m", "auc", "--label", "click", "--score", "pctr", "--by", "s"]
    assert cli.main([*argv, "--max-slices", "10", "--output", str(tmp_path / "r.html")]) == 0
    err = capsys.readouterr().err.splitlines()
    warned = [line for line in err if "warning" in line]
    assert len(warned) == 1 and warned[0].startswith("sqlmetrics: warning: the report shows the first 10 of the 30")
    assert "--max-slices" in warned[0] and "sqlmetrics eval" in warned[0]
    assert set(re.findall(r"slice-\d\d", (tmp_path / "r.html").read_text())) == {f"slice-{i:02d}" for i in range(10)}
    assert cli.main([*argv, "--max-slices", "0", "--output", str(tmp_path / "r.html")]) == 2


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def test_the_report_in_a_real_browser(written, logs):
    """Debian's chromium, headless: the DOM it builds from the file (offline), its console,
    and a screenshot to look at."""
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium: apt-get install chromium (.ci/run does)")
    path, html = written
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
    dom = subprocess.run([*flags, "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    built = parsed(dom.stdout)
    assert sum(tag == "svg" for tag, _ in built.tags) == sum(tag == "svg" for tag, _ in parsed(html).tags) > 0
    text = " ".join(built.texts)
    for value in (*COLUMNS, "v1", "v2", *pl.read_parquet(logs)["country"].unique().to_list()):
        assert value in text
    SCREENSHOT.parent.mkdir(exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    shot = [*flags, "--hide-scrollbars", "--window-size=1400,2400", f"--screenshot={SCREENSHOT}", path.as_uri()]
    subprocess.run(shot, capture_output=True, text=True, timeout=120, check=True)
    from PIL import Image

    with Image.open(SCREENSHOT) as image:
        assert image.size == (1400, 2400)
        assert len(image.convert("RGB").getcolors(maxcolors=1_000_000) or []) > 50  # charts, not a blank page
    pdf = path.with_suffix(".pdf")  # printed
    subprocess.run([*flags, f"--print-to-pdf={pdf}", path.as_uri()], capture_output=True, timeout=120, check=True)
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 20_000


def _table_cells(html: str) -> list[list[str]]:
    return parsed(html).cells


def test_reports_of_multiclass_one_vs_rest_and_judged_runs(tmp_path):
    """A prediction, class scores or judgments report those metrics (each value as
    evaluate gives it; no curves, which are binary); arms of predicted classes are
    compared by the delta method over the confusion matrix (their analytic interval);
    class scores are not compared yet (a clear error)."""
    rng = np.random.default_rng(5)
    n = 300
    probabilities = rng.dirichlet([1, 1, 1], n)
    frame = pl.DataFrame(
        {
            "day": rng.choice(["2026-11-01", "2026-11-02"], n),
            "arm": rng.choice(["v1", "v2"], n),
            "y": rng.choice(["a", "b", "c"], n),
            "p": rng.choice(["a", "b", "c"], n),
            **{f"p_{c}": probabilities[:, i] for i, c in enumerate("abc")},
        }
    )
    multiclass = {"label": "y", "prediction": "p", "by": "day"}
    html = sm.report(frame, ["accuracy", "f1"], **multiclass, arm="arm", baseline="v1", resamples=20,
                     output=tmp_path / "m.html").read_text()  # fmt: skip
    expected = sm.evaluate(frame, ["accuracy", "f1"], **multiclass)
    shown = [row[3:5] for row in _table_cells(html)[1:3]]  # day, n_rows, n_excluded, accuracy, f1
    assert shown == [[f"{v:g}" for v in values] for values in expected.select("accuracy", "f1").rows()]
    assert "<svg" in html and "ROC" not in html and "arms, normal: delta method" in html
    class_scores = {c: f"p_{c}" for c in "abc"}
    html = sm.report(frame, ["auc"], label="y", class_scores=class_scores, output=tmp_path / "o.html").read_text()
    auc = sm.evaluate(frame, ["auc"], label="y", class_scores=class_scores)["auc"].item()
    assert f"{auc:g}" in html and "class scores</dt><dd>a = p_a, b = p_b, c = p_c" in html
    with pytest.raises(InvalidParameterError, match="not class_scores"):
        sm.report(frame, ["auc"], label="y", class_scores=class_scores, arm="arm", baseline="v1",
                  output=tmp_path / "x.html")  # fmt: skip
    run = pl.DataFrame({"q": [1, 1, 1, 2, 2], "doc": ["a", "b", "c", "a", "d"], "s": [0.9, 0.5, 0.1, 0.8, 0.3]})
    qrels = pl.DataFrame({"q": [1, 1, 2, 2], "doc": ["b", "e", "d", "a"], "rel": [1, 2, 1, 0]})
    judged = {"label": "rel", "score": "s", "query": "q", "item": "doc", "judgments": qrels}
    html = sm.report(run, ["ndcg@3", "recall@2"], **judged, output=tmp_path / "t.html").read_text()
    expected = sm.evaluate(run, ["ndcg@3", "recall@2"], **judged).row(0, named=True)
    cells = _table_cells(html)[1]
    assert f"{expected['ndcg_at_3']:g}" in cells and f"{expected['recall_at_2']:g}" in cells
    assert "judgments</dt><dd>a DataFrame" in html


def test_command_line_reports_trec_runs_and_class_scores(tmp_path, capsys):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("1 Q0 a 1 0.9 s\n1 Q0 b 2 0.5 s\n2 Q0 a 1 0.8 s\n2 Q0 d 2 0.3 s\n")
    qrels.write_text("1 0 b 1\n1 0 e 2\n2 0 d 1\n")
    output = tmp_path / "trec.html"
    argv = ["report", str(run), "--trec", "--judgments", str(qrels), "-m", "ndcg@2,mrr", "--output", str(output)]
    assert cli.main(argv) == 0
    expected = sm.evaluate(sm.read_trec_run(run), ["ndcg@2", "mrr"], judgments=sm.read_trec_qrels(qrels),
                           label="relevance", score="score", query="query", item="item").row(0, named=True)  # fmt: skip
    html = output.read_text()
    assert f"{expected['mrr']:g}" in html and f"{expected['ndcg_at_2']:g}" in html
    frame = pl.DataFrame({"y": ["a", "b", "a", "b"], "pa": [0.8, 0.3, 0.6, 0.4], "pb": [0.2, 0.7, 0.4, 0.6]})
    frame.write_parquet(tmp_path / "classes.parquet")
    argv = ["report", str(tmp_path / "classes.parquet"), "-m", "auc", "--label", "y", "--class-scores", "a=pa,b=pb"]
    assert cli.main([*argv, "--output", str(tmp_path / "c.html")]) == 0
    assert "auc_classes" in (tmp_path / "c.html").read_text()
    assert f"wrote {tmp_path / 'c.html'}" in capsys.readouterr().err
