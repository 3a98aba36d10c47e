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
from sqlmetrics.html_report import date_column, svg
from sqlmetrics.html_report.numbers import estimate, number, p_value
from sqlmetrics.html_report.svg import Difference, Line, forest_plot, line_chart

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
    path = sm.report(logs, METRICS, **ROLES, ci=0.95, arm="model_version", baseline="v1", ci_unit="rows",
                     output=output)  # fmt: skip
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
    # one per metric and country over time (a line per model), ROC, PR, calibration per 8 slices, and
    # one forest plot per metric (each is compared)
    countries = slices["country"].n_unique()
    assert len(charts) == len(COLUMNS) * countries + 3 * -(-slices.height // 8) + len(COLUMNS)
    for tag, attrs in elements.tags:
        if tag == "polyline":
            assert len(attrs["points"].split()) >= 2  # no empty line
    text = " ".join(elements.texts)
    for column in COLUMNS:
        assert f"{column}_lo" in text and column in text
    for value in ("v1", "v2", *slices["country"].unique().to_list(), "2026-11-01"):
        assert value in text
    assert "<h2>Comparison</h2>" in html and "arms by rows, normal: DeLong" in html and "calibration" in html
    assert "WITH" in html and html.count("<details>") == 2  # the SQL of the metrics and of the comparison, collapsed
    assert "<summary>The statement that computed the comparison" in html and "auc_se" in html
    assert path.stat().st_size < 5_000_000  # 28 slices


def test_nothing_is_fetched_and_nothing_runs(written):
    _, html = written
    addresses = re.findall(r"https?://[^\s\"'<>]+", html)
    assert set(addresses) == {"http://www.w3.org/2000/svg"}  # the SVG namespace, a name, never fetched
    assert "<script" not in html and "<link" not in html and "src=" not in html


def _section_tables(html: str, section: str) -> list[list[list[str]]]:
    """The cells (the header first) of each table in the page's section ``section``."""
    body = html.split(f'<section id="{section}">')[1].split("</section>")[0]
    return [[row for row in parsed(table).cells if row] for table in body.split("<table>")[1:]]


def _shown_value(text: str) -> tuple[float | None, float | None, float | None]:
    """A cell's number and its interval's bounds: "0.7123 [0.700, 0.724]", "0.7123 [n/a]",
    "12,345", "null"."""
    match = re.fullmatch(r"(\S+)(?: \[(?:n/a|(\S+), (\S+))\])?", text)
    assert match, text
    return tuple(None if part in (None, "null") else float(part.replace(",", "")) for part in match.groups())


def _approx(value: float | None, relative: float):
    return None if value is None else pytest.approx(value, rel=relative, abs=1e-12)


def test_the_tables_hold_evaluates_numbers(written, logs):
    """The metric tables (one per family, a wide one split) hold each slice's counts and
    every metric's value and interval as evaluate gives them: values to 4 significant
    digits (relative error at most 5e-4), bounds to 3 (5e-3), counts in full."""
    _, html = written
    expected = sm.evaluate(logs, METRICS, **ROLES, ci=0.95)
    tables = _section_tables(html, "metrics")
    assert len(tables) == 3  # classification: auc, gauc (and its 2 counts), logloss; calibration; ranking: ndcg@10
    assert re.findall(r"<h3>([^<]*)</h3>", html) == ["Classification", "Classification (continued)", "Ranking"]
    seen = set()
    for table in tables:
        header, body = table[0], table[1:]
        assert header[: len(ROLES["by"]) + 2] == [*ROLES["by"], "n_rows", "n_excluded"]
        assert len(body) == expected.height
        for shown_row, row in zip(body, expected.iter_rows(named=True)):
            for column, shown in zip(header, shown_row):
                seen.add(column)
                if column in ROLES["by"]:
                    assert shown == str(row[column])
                    continue
                value, low, high = _shown_value(shown)
                assert value == _approx(row[column], 5e-4)
                if f"{column}_lo" in expected.columns and value is not None:
                    assert (low, high) == (_approx(row[f"{column}_lo"], 5e-3), _approx(row[f"{column}_hi"], 5e-3))
    assert seen == {c for c in expected.columns if not c.endswith(("_lo", "_hi"))}


def test_every_value_is_escaped(tmp_path):
    hostile = '<script>alert("x")</script>'
    frame = pl.DataFrame({hostile: [hostile, "b"] * 4, "label": [0, 1, 1, 0] * 2, "score": [0.1, 0.9, 0.4, 0.3] * 2})
    html = sm.report(frame, ["auc"], by=hostile, score="score", output=tmp_path / "r.html").read_text()
    assert "<script" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_bidirectional_text_keeps_its_reading_order(tmp_path):
    """A slice value with a right-to-left override (U+202E) was shown reversed, and the
    text after it with it: the controls are shown as code points, and right-to-left text
    is isolated (U+2068 ... U+2069) so that it cannot reorder its neighbours."""
    override, hebrew = "gnp.\u202etxt", "\u05e9\u05dc\u05d5\u05dd"
    frame = pl.DataFrame(
        {"slice": [override, hebrew] * 4, "label": [0, 1, 1, 0] * 2, "score": [0.1, 0.9, 0.4, 0.3] * 2}
    )
    html = sm.report(frame, ["auc"], by="slice", score="score", output=tmp_path / "r.html").read_text()
    assert "\u202e" not in html and "gnp.&lt;U+202E&gt;txt" in html
    isolated = re.findall("\u2068[^\u2068\u2069]*\u2069", html)  # slice=..., the cells, the legends
    assert f"\u2068{hebrew}\u2069" in isolated
    assert sum(text.count(hebrew) for text in isolated) == html.count(hebrew) > 1


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
    html = sm.report(frame, ["auc", "average_precision"], scores=("a", "b"), output=tmp_path / "r.html").read_text()
    assert "paired, normal: DeLong" in html and "paired bootstrap: percentile" in html
    forests = [chart for chart in _charts(html) if "−" in _title(chart)]
    assert [_title(chart) for chart in forests] == ["auc: b − a", "average_precision: b − a"]
    assert all(
        len(_tagged(chart, "circle", **{"class": "delta"})) == 1 and "all rows" in chart.texts for chart in forests
    )
    resampled = sm.report(frame, ["auc"], scores=("a", "b"), ci=0.9, ci_method="bootstrap", resamples=20,
                          output=tmp_path / "b.html").read_text()  # fmt: skip
    assert "paired, normal: DeLong" not in resampled and "paired bootstrap: percentile" in resampled


def test_a_paired_report_says_which_score_its_tables_and_charts_show(tmp_path):
    """With scores=(a, b) the metric tables, the charts over time and the curves are the
    first score's: their titles say so (they did not say which score they were), and the
    values are a's, not b's."""
    frame = _dated_arms().with_columns(other=1 - pl.col("pctr"))
    html = sm.report(frame, ["auc"], label="click", scores=("pctr", "other"), by="day", ci=0.9,
                     output=tmp_path / "r.html").read_text()  # fmt: skip
    first = "score pctr (the first of pctr, other; the comparison compares both)"
    headings = re.findall(r"<h2>([^<]*)</h2>", html)
    assert [f"Metrics of {first}", f"Over time (day), {first}", f"Curves of {first}"] == headings[1:4]
    titles = [_title(chart) for chart in _charts(html) if _title(chart).startswith("auc")]
    assert titles == ["auc of pctr", "auc: other − pctr"]  # the first's over time, then the comparison's
    expected = sm.evaluate(frame, ["auc"], label="click", score="pctr", by="day")
    (table,) = _section_tables(html, "metrics")
    assert [row[3].split(" ")[0] for row in table[1:]] == [number(value) for value in expected["auc"]]


def test_paired_predicted_classes_are_compared(tmp_path):
    """Two predicted classes of the same rows: the multi-class metrics of the first in the
    tables, the comparison's forest plot and rows by the joint cells' delta method."""
    frame = pl.DataFrame({"y": ["a", "b", "c"] * 10, "p": ["a", "b", "b"] * 10, "q": ["a", "c", "c", "b", "b"] * 6})
    html = sm.report(frame, ["accuracy", "cohen_kappa"], label="y", predictions=("p", "q"),
                     output=tmp_path / "r.html").read_text()  # fmt: skip
    forests = [_title(chart) for chart in _charts(html) if "−" in _title(chart)]
    assert forests == ["accuracy: q − p", "cohen_kappa: q − p"]
    assert html.count("paired, normal: delta method") == 2
    assert "label = y, predictions = p, q" in html
    accuracy = sm.evaluate(frame, ["accuracy"], label="y", prediction="p")["accuracy"].item()  # the first's, 20/30
    assert f"{accuracy:.4f}" in html


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
    hold the first 10 of the 60 slices (evaluate's first 10 rows: the report adds the
    arm to the slices, so 5 values of s by 2 arms); the page and a warning say so and
    where every slice is."""
    frame = _many_slices()
    call = {"label": "click", "score": "pctr", "by": "s", "arm": "arm", "baseline": "v1", "ci_unit": "rows",
            "engine": engine}
    with pytest.warns(sm.SlicesNotShownWarning, match="shows the first 10 of the 60 slices"):
        html = sm.report(frame, ["auc", "logloss"], **call, max_slices=10, output=tmp_path / "r.html").read_text()
    shown = [f"slice-{i:02d}" for i in range(5)]
    assert set(re.findall(r"slice-\d\d", html)) == set(shown)  # nowhere a slice after the fifth
    expected = sm.evaluate(frame, ["auc", "logloss"], label="click", score="pctr", by=["s", "arm"])
    cells = [row for row in parsed(html).cells if row]
    assert [row[:2] for row in cells[1:11]] == [list(key) for key in expected.select("s", "arm").head(10).rows()]
    (comparison,) = _section_tables(html, "comparison")
    assert sorted({row[0] for row in comparison[1:]}) == shown
    notice = " ".join(parsed(html).texts)
    assert "This report shows the first 10 of the 60 slices" in notice
    assert "sm.evaluate" in notice and "sqlmetrics eval" in notice and "max_slices" in notice
    curves = [attrs for tag, attrs in parsed(html).tags if tag == "svg"]
    assert len(curves) == 3 * 2 + 2  # ROC, PR, calibration per 8 slices of 10, a forest plot per metric (no dates)


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
    html = sm.report(frame, ["accuracy", "f1"], **multiclass, arm="arm", baseline="v1", ci_unit="rows", resamples=20,
                     output=tmp_path / "m.html").read_text()  # fmt: skip
    expected = sm.evaluate(frame, ["accuracy", "f1"], label="y", prediction="p", by=["day", "arm"])
    shown = [row[4:6] for row in _table_cells(html)[1:5]]  # day, arm, n_rows, n_excluded, accuracy, f1
    assert shown == [[number(v) for v in values] for values in expected.select("accuracy", "f1").rows()]
    assert "<svg" in html and "ROC" not in html and "arms by rows, normal: delta method" in html
    class_scores = {c: f"p_{c}" for c in "abc"}
    html = sm.report(frame, ["auc"], label="y", class_scores=class_scores, output=tmp_path / "o.html").read_text()
    auc = sm.evaluate(frame, ["auc"], label="y", class_scores=class_scores)["auc"].item()
    assert f">{number(auc)}<" in html and "class scores</dt><dd>a = p_a, b = p_b, c = p_c" in html
    with pytest.raises(InvalidParameterError, match="not class_scores"):
        sm.report(frame, ["auc"], label="y", class_scores=class_scores, arm="arm", baseline="v1",
                  output=tmp_path / "x.html")  # fmt: skip
    run = pl.DataFrame({"q": [1, 1, 1, 2, 2], "doc": ["a", "b", "c", "a", "d"], "s": [0.9, 0.5, 0.1, 0.8, 0.3]})
    qrels = pl.DataFrame({"q": [1, 1, 2, 2], "doc": ["b", "e", "d", "a"], "rel": [1, 2, 1, 0]})
    judged = {"label": "rel", "score": "s", "query": "q", "item": "doc", "judgments": qrels}
    html = sm.report(run, ["ndcg@3", "recall@2"], **judged, output=tmp_path / "t.html").read_text()
    expected = sm.evaluate(run, ["ndcg@3", "recall@2"], **judged).row(0, named=True)
    cells = _table_cells(html)[1]
    assert number(expected["ndcg_at_3"]) in cells and number(expected["recall_at_2"]) in cells
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
    assert f">{number(expected['mrr'])}<" in html and f">{number(expected['ndcg_at_2'])}<" in html
    frame = pl.DataFrame({"y": ["a", "b", "a", "b"], "pa": [0.8, 0.3, 0.6, 0.4], "pb": [0.2, 0.7, 0.4, 0.6]})
    frame.write_parquet(tmp_path / "classes.parquet")
    argv = ["report", str(tmp_path / "classes.parquet"), "-m", "auc", "--label", "y", "--class-scores", "a=pa,b=pb"]
    assert cli.main([*argv, "--output", str(tmp_path / "c.html")]) == 0
    assert "auc_classes" in (tmp_path / "c.html").read_text()
    assert f"wrote {tmp_path / 'c.html'}" in capsys.readouterr().err


def test_a_p_value_at_the_bootstrap_floor_reads_as_a_bound(tmp_path):
    # b halves a's error on every row: every replicate's brier difference is negative,
    # so the Monte Carlo p-value is its floor 2/(20 + 1) = 0.0952..., shown rounded up
    rng = np.random.default_rng(5)
    label = np.arange(40) % 2
    a = rng.uniform(0.2, 0.8, 40)
    frame = pl.DataFrame({"label": label, "a": a, "b": a + 0.5 * (label - a)})
    html = sm.report(frame, ["brier"], scores=("a", "b"), ci=0.9, ci_method="bootstrap", resamples=20,
                     output=tmp_path / "floor.html").read_text()  # fmt: skip
    rows = parsed(html).cells
    header = next(row for row in rows if "p_value" in row)
    compared = next(row for row in rows if row[: len(header)] and row[0] == "brier" and len(row) == len(header))
    assert compared[header.index("p_value")] == "< 0.0953" and "p_bound" not in header
    assert "0.0952381" not in html


@pytest.mark.parametrize(
    "value, shown",
    [
        (None, "null"),
        (float("nan"), "NaN"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        (0.0, "0"),
        (-0.0, "0"),
        (0, "0"),
        (0.5, "0.5000"),  # trailing zeros kept: every value of a column has 4 significant digits
        (0.712345, "0.7123"),
        (-0.0462719, "-0.04627"),
        (1.0, "1.000"),
        (9.99996, "10.00"),  # rounds up to the next power of ten: still 4 significant digits
        (0.000123456, "0.0001235"),  # plain notation down to 1e-4
        (1e-12, "1.000e-12"),  # below 1e-4 in scientific notation, not 0.000000000001000
        (-3.14159e-7, "-3.142e-07"),
        (1234.56, "1,235"),
        (123456.7, "123,457"),  # from 10**4 up a float is rounded to an integer, never to 123,500
        (12_345_678, "12,345,678"),  # a count in full, with separators
        (-5, "-5"),
        (True, "True"),
        ("v1", "v1"),
        (dt.date(2026, 11, 1), "2026-11-01"),
    ],
)
def test_numbers_have_four_significant_digits(value, shown):
    assert number(value) == shown


@pytest.mark.parametrize(
    "value, shown",
    [
        (None, "null"),
        (float("nan"), "NaN"),
        (0.0, "< 0.0001"),
        (1e-12, "< 0.0001"),
        (0.0001, "0.0001"),
        (0.00009999, "< 0.0001"),
        (0.0123, "0.0123"),
        (0.470032, "0.4700"),
        (1.0, "1.0000"),
        ("< 0.0099", "< 0.0099"),  # a bound as the comparison gives it, kept
    ],
)
def test_p_values_have_four_decimals_and_a_floor(value, shown):
    assert p_value(value) == shown


def test_an_estimate_holds_its_interval():
    assert estimate(0.712345, 0.69991, 0.72449) == "0.7123 [0.700, 0.724]"  # bounds to 3 significant digits
    assert estimate(-0.0462719, -0.0792651, 1e-12) == "-0.04627 [-0.0793, 1.00e-12]"
    assert number(123456.7, significant=3) == "123,457" and number(0.5, significant=3) == "0.500"
    assert estimate(0.712345, None, None) == "0.7123 [n/a]"
    assert estimate(None, None, None) == "null"


def _charts(html: str) -> list[Elements]:
    """Each SVG chart of the page, parsed."""
    return [parsed("<svg" + chart.split("</svg>")[0] + "</svg>") for chart in html.split("<svg")[1:]]


def _title(chart: Elements) -> str:
    return next(text for text in chart.texts if text.strip())


def _titled(charts: list[Elements], title: str) -> list[Elements]:
    return [chart for chart in charts if _title(chart) == title]


def _tagged(chart: Elements, tag: str, **wanted: str) -> list[dict]:
    return [attrs for t, attrs in chart.tags if t == tag and all(attrs.get(k) == v for k, v in wanted.items())]


def _dated_arms(rows_per_slice: int = 120, seed: int = 11) -> pl.DataFrame:
    """Three days, two arms, two countries, both classes in each slice; v2's scores
    separate the classes better."""
    rng = np.random.default_rng(seed)
    keys = [(day, arm, country) for day in ("2026-11-01", "2026-11-02", "2026-11-03")
            for arm in ("v1", "v2") for country in ("BR", "US")]  # fmt: skip
    n = len(keys) * rows_per_slice
    day, arm, country = (np.repeat(np.array(column), rows_per_slice) for column in zip(*keys))
    click = rng.integers(0, 2, n)
    signal = np.where(arm == "v2", 1.5, 0.5)
    pctr = 1 / (1 + np.exp(-(signal * (2 * click - 1) + rng.normal(0, 1, n))))
    return pl.DataFrame({"day": day, "arm": arm, "country": country, "click": click, "pctr": pctr})


def test_a_band_per_line_only_with_intervals(tmp_path):
    """With ci, every line over time has its interval as a band of its colour; without,
    there is no band."""
    frame = _dated_arms()
    call = {"label": "click", "score": "pctr", "by": ["day", "country"]}
    with_ci = sm.report(frame, ["auc", "logloss"], **call, ci=0.9, output=tmp_path / "ci.html").read_text()
    without = sm.report(frame, ["auc", "logloss"], **call, output=tmp_path / "no.html").read_text()
    for metric in ("auc", "logloss"):
        (chart,) = _titled(_charts(with_ci), metric)
        lines, bands = _tagged(chart, "polyline"), _tagged(chart, "path", **{"class": "band"})
        assert len(lines) == len(bands) == 2  # BR and US, over three days
        assert [band["fill"] for band in bands] == [line["stroke"] for line in lines]
        (plain,) = _titled(_charts(without), metric)
        assert len(_tagged(plain, "polyline")) == 2 and not _tagged(plain, "path") and 'class="band"' not in without


def test_a_band_runs_between_its_bounds():
    """A band's upper edge is the line through the highs, its lower edge the line through
    the lows (back): with both equal to the values it is the line there and back; a
    missing bound breaks the band, a lone point gets a bar."""
    xs, ys = [0, 1, 2, 3, 4], [0.5, 0.6, 0.7, 0.6, 0.5]
    chart = parsed(line_chart([Line("a", xs, ys, ys, ys)], title="t", x_label="x", y_label="y"))
    (line,) = _tagged(chart, "polyline")
    (band,) = _tagged(chart, "path")
    there = line["points"].split()
    assert band["d"] == "M" + " L".join(there + there[::-1]) + " Z"
    lows, highs = [0.4, 0.5, None, 0.5, 0.45], [0.6, 0.7, None, 0.7, 0.55]
    broken = parsed(line_chart([Line("a", xs, ys, lows, highs)], title="t", x_label="x", y_label="y"))
    assert len(_tagged(broken, "path", **{"class": "band"})) == 2  # days 0-1 and 3-4
    lone = parsed(line_chart([Line("a", xs, ys, [None, 0.5, None, None, None], [None, 0.7, None, None, None])],
                             title="t", x_label="x", y_label="y"))  # fmt: skip
    assert len(_tagged(lone, "rect", **{"class": "band"})) == 1 and not _tagged(lone, "path")


def test_with_arms_each_arm_is_a_line_over_time(tmp_path):
    """With arm= (here not among the slices), the metric table has a row per arm and each
    chart over time a line per arm (the same colour in every chart), with its band when ci."""
    frame = _dated_arms()
    call = {"label": "click", "score": "pctr", "by": ["day", "country"], "arm": "arm", "baseline": "v1",
            "ci_unit": "rows"}
    html = sm.report(frame, ["auc"], **call, ci=0.9, output=tmp_path / "r.html").read_text()
    expected = sm.evaluate(frame, ["auc"], label="click", score="pctr", by=["day", "country", "arm"])
    (metrics_table,) = _section_tables(html, "metrics")
    assert metrics_table[0][:3] == ["day", "country", "arm"] and len(metrics_table) == 1 + expected.height
    charts = [chart for chart in _charts(html) if _title(chart).startswith("auc ·")]
    assert [_title(chart) for chart in charts] == ["auc · country=BR", "auc · country=US"]
    for chart, country in zip(charts, ("BR", "US")):
        lines = _tagged(chart, "polyline")
        assert [t for t in chart.texts if t.startswith("arm=")] == ["arm=v1", "arm=v2"]
        assert [line["stroke"] for line in lines] == list(svg.PALETTE[:2])
        assert len(_tagged(chart, "path", **{"class": "band"})) == 2
        for line, arm in zip(lines, ("v1", "v2")):
            values = expected.filter(pl.col("country") == country, pl.col("arm") == arm).sort("day")["auc"]
            heights = [float(point.split(",")[1]) for point in line["points"].split()]
            assert len(heights) == 3 and np.argsort(heights).tolist() == np.argsort(-values.to_numpy()).tolist()


def _forest_rows(chart: str) -> list[dict]:
    """A forest plot's rows (each an SVG group): its label, its interval bar's attributes
    (None without an interval), its dot's."""
    rows = []
    for group in chart.split("<g>")[1:]:
        row = parsed(group.split("</g>")[0])
        bars = [attrs for tag, attrs in row.tags if tag == "line" and "interval" in attrs["class"]]
        (dot,) = _tagged(row, "circle", **{"class": "delta"})
        rows.append({"label": row.texts[0], "bar": bars[0] if bars else None, "dot": dot})
    return rows


def test_the_comparison_is_drawn_as_a_forest_plot(tmp_path):
    """A forest plot per metric: one bar per slice from delta_lo to delta_hi and a dot at
    delta, on one linear scale whose 0 is the dashed line; the bars whose interval
    excludes 0 are coloured and their dots filled, the others grey and hollow."""
    frame = _dated_arms()
    call = {"label": "click", "score": "pctr", "by": ["day", "country"], "arm": "arm", "baseline": "v1",
            "ci_unit": "rows"}
    html = sm.report(frame, ["auc", "logloss"], **call, ci=0.9, output=tmp_path / "r.html").read_text()
    expected = sm.compare(frame, ["auc", "logloss"], **call, ci=0.9)
    comparison = html.split('<section id="comparison">')[1]
    pictured = comparison.split("<table>")[0]
    forests = _charts(pictured)
    assert [_title(chart) for chart in forests] == ["auc: v2 − v1", "logloss: v2 − v1"]
    significant_anywhere = 0
    for chart, text, metric in zip(forests, pictured.split("<svg")[1:], ("auc", "logloss")):
        rows, want = _forest_rows(text), expected.filter(pl.col("metric") == metric)
        assert [row["label"] for row in rows] == [
            f"{day} · {country}" for day, country in want.select("day", "country").rows()
        ]
        lows, highs, deltas = (want[c].to_numpy() for c in ("delta_lo", "delta_hi", "delta"))
        starts = np.array([float(row["bar"]["x1"]) for row in rows])
        ends = np.array([float(row["bar"]["x2"]) for row in rows])
        dots = np.array([float(row["dot"]["cx"]) for row in rows])
        slope, zero = np.polyfit(np.concatenate([lows, highs]), np.concatenate([starts, ends]), 1)
        assert slope > 0
        for value, x in [*zip(lows, starts), *zip(highs, ends), *zip(deltas, dots)]:
            assert x == pytest.approx(slope * value + zero, abs=0.1)  # coordinates are rounded to 0.1 px
        (zero_line,) = _tagged(chart, "line", **{"class": "zero"})
        assert float(zero_line["x1"]) == pytest.approx(zero, abs=0.1)
        for row, low, high in zip(rows, lows, highs):
            significant = low > 0 or high < 0
            significant_anywhere += significant
            assert ("significant" in row["bar"]["class"]) == significant
            assert (row["dot"]["fill"] == "#fff") == (not significant)
    assert significant_anywhere > 0  # v2's scores separate the classes better (signal 1.5 against 0.5)
    assert "<table>" in comparison  # and the table is still there


def test_a_forest_plot_without_a_difference_or_a_direction():
    """A row without an interval is a dot alone, one without a difference says n/a; a
    metric without a better direction colours what excludes 0 blue, never green or red."""
    rows = [Difference("a", 0.2, 0.1, 0.3), Difference("b", -0.1, None, None), Difference("c", None, None, None)]
    chart = forest_plot(rows, title="t", x_label="x", y_label="slice", higher_is_better=None)
    groups = [parsed(group.split("</g>")[0]) for group in chart.split("<g>")[1:]]
    assert [len(_tagged(g, "line")) for g in groups] == [1, 0, 0]
    assert [len(_tagged(g, "circle", **{"class": "delta"})) for g in groups] == [1, 1, 0]
    assert "n/a" in groups[2].texts
    (bar,) = _tagged(groups[0], "line")
    assert bar["stroke"] == "#1f77b4" and "#2ca02c" not in chart and "#d62728" not in chart
    worse = forest_plot(rows[:1], title="t", x_label="x", y_label="slice", higher_is_better=False)
    (bar,) = _tagged(parsed(worse), "line", **{"class": "interval significant"})
    assert bar["stroke"] == "#d62728"  # a higher value of a lower-is-better metric (logloss) is worse


# --- a report of states (sm.state) -------------------------------------------------------

STATE_CALL = {"label": "click", "score": "pctr"}


def _day_states(folder: Path | None = None) -> list[pl.DataFrame]:
    """The states of ``_dated_arms``' days, by day and country (written to ``folder``, one
    file a day, when given)."""
    frame = _dated_arms()
    states = []
    for day in frame["day"].unique(maintain_order=True):
        states.append(sm.state(frame.filter(day=day), ["auc", "logloss"], **STATE_CALL, by=["day", "country"]))
        if folder is not None:
            states[-1].write_parquet(folder / f"day={day}.parquet")
    return states


def test_a_report_of_states_shows_the_rollup_over_time_and_leaves_out_what_reads_rows(tmp_path):
    """The tables hold the roll-up's numbers, which are evaluate's over the union of the
    days; the charts over time have a band per line; no curve, comparison or SQL, and the
    page says why."""
    path = sm.report(_day_states(), ["auc", "logloss"], by=["day", "country"], ci=0.9, output=tmp_path / "s.html")
    html = path.read_text(encoding="utf-8")
    expected = sm.evaluate(_dated_arms(), ["auc", "logloss"], **STATE_CALL, by=["day", "country"], ci=0.9)
    (table,) = _section_tables(html, "metrics")
    assert table[0] == ["day", "country", "n_rows", "n_excluded", "auc", "logloss"]
    for shown_row, row in zip(table[1:], expected.iter_rows(named=True), strict=True):
        assert shown_row[:2] == [row["day"], row["country"]]
        for column, shown in zip(table[0][2:], shown_row[2:]):
            value, low, high = _shown_value(shown)
            assert value == _approx(row[column], 5e-4)  # 4 significant digits
            if column in ("auc", "logloss"):
                assert (low, high) == (_approx(row[f"{column}_lo"], 5e-3), _approx(row[f"{column}_hi"], 5e-3))
    for metric in ("auc", "logloss"):
        (chart,) = _titled(_charts(html), metric)
        assert len(_tagged(chart, "polyline")) == len(_tagged(chart, "path", **{"class": "band"})) == 2  # BR, US
    assert len(_charts(html)) == 2  # no curve, no forest plot
    assert 'id="sql"' not in html and 'id="comparison"' not in html and "<h2>Curves</h2>" not in html
    assert "<dt>left out</dt><dd>the curves, the comparisons and the SQL: they need the rows" in html
    assert "the states of 3 parts, sliced by day, country" in html


def test_a_report_of_state_files_from_the_command_line(tmp_path, capsys):
    folder = tmp_path / "states"
    folder.mkdir()
    _day_states(folder)
    output = tmp_path / "cli.html"
    assert cli.main(["report", str(folder), "-m", "auc", "--by", "country", "--output", str(output)]) == 0
    assert capsys.readouterr().err == f"wrote {output}\n"
    (table,) = _section_tables(output.read_text(encoding="utf-8"), "metrics")
    expected = sm.evaluate(_dated_arms(), "auc", **STATE_CALL, by="country")
    assert [row[:3] for row in table[1:]] == [[c, f"{n:,}", str(x)] for c, n, x in expected.select(
        "country", "n_rows", "n_excluded").iter_rows()]  # fmt: skip
    assert [_shown_value(row[3])[0] for row in table[1:]] == [_approx(v, 5e-4) for v in expected["auc"]]


@pytest.mark.parametrize(
    ("kwargs", "argv", "message"),
    [
        ({"score": "arm"}, ["--score", "arm"], "the states were built with score 'pctr'"),
        ({"arm": "day", "baseline": "2026-11-01"}, ["--arm", "day", "--baseline", "2026-11-01"],
         "reads the rows, which states do not keep"),
        ({"ci": 0.9, "ci_method": "bootstrap"}, ["--ci", "0.9", "--ci-method", "bootstrap"],
         "reads the rows, which states do not keep"),
        ({"by": "arm"}, ["--by", "arm"], "'arm' not among the states' slices ['day', 'country']"),
        ({"metrics": ["auc", "brier"]}, ["-m", "auc,brier"], "brier not in the states"),
    ],
)  # fmt: skip
def test_a_report_of_states_refuses_what_needs_the_rows(tmp_path, capsys, kwargs, argv, message):
    folder = tmp_path / "states"
    folder.mkdir()
    _day_states(folder)
    with pytest.raises(sm.SqlMetricsError, match=re.escape(message)):
        sm.report(folder, **({"metrics": ["auc"]} | kwargs), output=tmp_path / "r.html")
    metrics = [] if "-m" in argv else ["-m", "auc"]
    assert cli.main(["report", str(folder), *metrics, *argv, "--output", str(tmp_path / "c.html")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sqlmetrics: error: ") and message in err and not (tmp_path / "r.html").exists()
