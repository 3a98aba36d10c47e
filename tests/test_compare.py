"""sm.compare over arms (independent samples): the difference, its normal interval and
p-value against scipy from each arm's brute-force DeLong and per-query values; paired
(two scores of the same rows): DeLong's paired test against every positive–negative pair
and a published fast DeLong (rocauc-comparison), the paired t over queries against
scipy's ttest_rel and ranx's Student's t-test; on both engines; bad requests; the
docstring example."""

from __future__ import annotations

import doctest
import importlib
import itertools
import math
import re

import numpy as np
import polars as pl
import polars.testing
import pytest
import ranx
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st
from rocauc_comparison import delong
from scipy import stats
from sklearn.metrics import brier_score_loss, f1_score, log_loss
from test_intervals import brute_force_delong

import sqlmetrics as sm
from sqlmetrics.errors import InvalidInputError, InvalidParameterError

from strategies import AGREEMENT, examples


def _arm_rows(draw_rows):
    return st.lists(
        st.tuples(st.sampled_from(["v1", "v2", "v3"]), st.sampled_from(["x", "y"]), *draw_rows), min_size=1, max_size=60
    )


AUC_ROWS = _arm_rows([st.sampled_from([0.1, 0.3, 0.5, 0.9]), st.integers(0, 1)])


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@examples(30)
@given(rows=AUC_ROWS)
def test_auc_difference_of_independent_arms(engine, rows):
    frame = pl.DataFrame(rows, schema=["arm", "country", "score", "label"], orient="row")
    if frame["arm"].n_unique() < 2 or "v1" not in frame["arm"]:
        return
    result = sm.compare(frame, ["auc"], arm="arm", baseline="v1", score="score", by="country", ci=0.9,
                        ci_unit="rows", engine=engine)  # fmt: skip
    z = stats.norm.ppf(0.95)
    for row in result.iter_rows(named=True):
        estimates = []
        for arm in ("v1", row["candidate"]):
            part = frame.filter((pl.col("arm") == arm) & (pl.col("country") == row["country"]))
            labels = part["label"].to_numpy()
            if part.is_empty() or labels.sum() < 2 or (1 - labels).sum() < 2:
                estimates.append(None)
            else:
                estimates.append(brute_force_delong(part["score"], labels))
        if None in estimates:
            assert row["p_value"] is None and row["delta_lo"] is None
            continue
        (base, se_base), (cand, se_cand) = estimates
        delta, se = cand - base, math.hypot(se_base, se_cand)
        assert row["delta"] == pytest.approx(delta, abs=1e-12)
        assert row["delta_lo"] == pytest.approx(delta - z * se, abs=1e-9)
        assert row["delta_hi"] == pytest.approx(delta + z * se, abs=1e-9)
        if se > 0:
            assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(delta) / se), abs=1e-9)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_mean_over_queries_difference(engine):
    rng = np.random.default_rng(3)
    n = 3000
    frame = pl.DataFrame(
        {
            "arm": rng.choice(["control", "treatment"], n),
            "query": rng.integers(0, 300, n),
            "label": (rng.random(n) < 0.3).astype(int),
            "score": rng.random(n),
        }
    ).with_columns(query=pl.col("query") * 2 + (pl.col("arm") == "treatment"))  # each query in one arm
    result = sm.compare(frame, ["mrr"], arm="arm", baseline="control", score="score", query="query", ci_unit="query",
                        engine=engine)  # fmt: skip
    row = result.row(0, named=True)
    per_query = sm.evaluate(frame, ["mrr"], score="score", query="query", by=["arm", "query"]).drop_nulls("mrr")
    values = {arm: per_query.filter(pl.col("arm") == arm)["mrr"].to_numpy() for arm in ("control", "treatment")}
    delta = values["treatment"].mean() - values["control"].mean()
    se = math.hypot(stats.sem(values["control"]), stats.sem(values["treatment"]))
    assert row["delta"] == pytest.approx(delta, abs=1e-12)
    assert row["delta_hi"] - row["delta"] == pytest.approx(stats.norm.ppf(0.975) * se, abs=1e-9)
    assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(delta) / se), abs=1e-9)
    assert row["method"] == "arms by unit query, normal: mean over queries"


def test_one_row_per_slice_metric_and_candidate():
    frame = pl.DataFrame(
        {
            "arm": ["a", "b", "c"] * 8,
            "day": [1] * 12 + [2] * 12,
            "label": [0, 0, 0, 1, 1, 1] * 4,
            "score": [0.1 * i for i in range(24)],
        }
    )
    result = sm.compare(frame, ["auc", "accuracy"], arm="arm", baseline="b", score="score", by="day", ci_unit="rows")
    assert result.columns == [
        "day", "metric", "baseline", "candidate", "baseline_value", "candidate_value",
        "delta", "delta_lo", "delta_hi", "p_value", "p_bound", "method", "note",
    ]  # fmt: skip
    assert result.select("day", "metric", "candidate").rows() == [
        (1, "auc", "a"), (1, "auc", "c"), (2, "auc", "a"), (2, "auc", "c"),
        (1, "accuracy", "a"), (1, "accuracy", "c"), (2, "accuracy", "a"), (2, "accuracy", "c"),
    ]  # fmt: skip
    assert (result["baseline"] == "b").all()


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"baseline": "v9"}, InvalidInputError, "baseline 'v9' does not occur in arm column 'arm'; its values: "),
        ({"baseline": "v1", "by": "arm"}, InvalidParameterError, "is also a slice column"),
        ({"baseline": "v1", "ci": None}, InvalidParameterError, "compare needs a confidence level"),
        ({"baseline": "v1", "ci": 2}, InvalidParameterError, "between 0 and 1"),
        (
            {"baseline": "v1", "metrics": ["average_precision"], "ci_method": "analytic"},
            InvalidParameterError,
            "no analytic interval",
        ),
        ({"baseline": "v1", "resamples": 1}, InvalidParameterError, "resamples"),
        ({"baseline": "v1", "arm": ["arm"]}, InvalidParameterError, "arm must be a column name"),
    ],
)
def test_bad_comparisons_are_refused(kwargs, error, message):
    frame = pl.DataFrame({"arm": ["v1", "v2"] * 3, "label": [0, 1, 1, 0, 0, 1], "score": [0.1, 0.2] * 3})
    arguments = {"arm": "arm", "score": "score", "ci_unit": "rows", **kwargs}
    with pytest.raises(error, match=message):
        sm.compare(frame, arguments.pop("metrics", ["auc"]), **arguments)


def _identical_arms(seed: int = 5, users: int = 2000) -> pl.DataFrame:
    """Users randomized to two arms, the same model in both: heavy-tailed users (Zipf
    rows per user) whose own click rates and scores differ, so a user's rows are alike."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(rng.zipf(1.7, users), 400)
    user = np.repeat(np.arange(users), sizes)
    effect = rng.normal(-1.5, 1.0, users)
    score = 1 / (1 + np.exp(-effect[user]))
    return pl.DataFrame({
        "user": user, "arm": rng.choice(["v1", "v2"], users)[user],
        "label": (rng.random(len(user)) < score).astype(int), "score": score,
    })  # fmt: skip


ARM_UNIT_MESSAGE = (
    "comparing arms needs the unit they were randomized by: pass ci_unit=<the unit column, e.g. user_id> when each "
    "unit's rows share its arm (the intervals are clustered, the bootstrap resampled, by it), or ci_unit='rows' when "
    "each row was assigned its arm on its own"
)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_arms_are_compared_by_the_unit_they_were_randomized_by(engine, tmp_path, capsys):
    """Arms compared without their unit took every row for an independent draw: identical
    arms of users came out different. compare (to_sql, report, the command line) refuses
    an arms comparison without ci_unit, naming both choices, and ``method`` names the unit:
    a column, or the rows (ci_unit='rows')."""
    from sqlmetrics import cli

    frame = _identical_arms()
    arms = {"arm": "arm", "baseline": "v1", "engine": engine}
    with pytest.raises(InvalidParameterError, match=re.escape(ARM_UNIT_MESSAGE)):
        sm.compare(frame, ["logloss"], **arms)
    with pytest.raises(InvalidParameterError, match=re.escape(ARM_UNIT_MESSAGE)):
        sm.to_sql(["logloss"], source="t", arm="arm")
    with pytest.raises(InvalidParameterError, match=re.escape(ARM_UNIT_MESSAGE)):
        sm.report(frame, ["logloss"], **arms, output=tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()
    by_rows = sm.compare(frame, ["logloss", "brier", "average_precision"], **arms, ci_unit="rows", resamples=20)
    by_user = sm.compare(frame, ["logloss", "brier", "average_precision"], **arms, ci_unit="user", resamples=20)
    assert by_rows["method"].to_list() == ["arms by rows, normal: mean over rows"] * 2 + [
        "arms bootstrap by rows: percentile"
    ]
    assert by_user["method"].to_list() == ["arms by unit user, normal: mean over rows"] * 2 + [
        "arms bootstrap by unit user: percentile"
    ]
    # the same values, and a spread of users far wider than the rows' (which called these
    # identical arms different: each user's rows share its click rate)
    assert by_user["delta"].to_list() == pytest.approx(by_rows["delta"].to_list(), abs=1e-12)
    widths = [(frame["delta_hi"] - frame["delta_lo"])[:2].to_numpy() for frame in (by_rows, by_user)]
    assert (widths[1] > 2 * widths[0]).all()
    assert (by_user["p_value"][:2] > 0.05).all()
    html = sm.report(frame, ["logloss"], **arms, ci_unit="user", output=tmp_path / "r.html").read_text()
    assert "<dt>arms randomized by</dt><dd>unit user (ci_unit" in html and "arms by unit user, normal" in html
    frame.write_parquet(tmp_path / "arms.parquet")
    argv = ["compare", str(tmp_path / "arms.parquet"), "-m", "logloss", "--arm", "arm", "--baseline", "v1"]
    assert cli.main([*argv, "--engine", engine]) == 1
    err = capsys.readouterr().err
    assert "pass --ci-unit <the unit column, e.g. user_id> when" in err and "or --ci-unit rows when" in err
    assert cli.main(["sql", str(tmp_path / "arms.parquet"), "-m", "logloss", "--arm", "arm"]) == 1
    assert "--ci-unit rows" in capsys.readouterr().err
    assert cli.main([*argv, "--ci-unit", "user", "--format", "csv", "--engine", engine]) == 0
    assert pl.read_csv(capsys.readouterr().out.encode())["method"].item() == "arms by unit user, normal: mean over rows"


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_rows_as_the_unit_never_means_a_column_named_rows(engine, tmp_path, capsys):
    """ci_unit='rows' declares the rows independent (evaluate: as without ci_unit); with
    a source column named 'rows' it is refused on every engine and the command line,
    which could otherwise mean either."""
    from sqlmetrics import cli

    frame = pl.DataFrame({"arm": ["v1", "v2"] * 6, "label": [0, 1, 1, 0, 0, 1] * 2, "score": [0.1, 0.2, 0.3] * 4})
    assert sm.evaluate(frame, ["auc"], ci=0.9, ci_unit="rows", engine=engine).equals(
        sm.evaluate(frame, ["auc"], ci=0.9, engine=engine)
    )
    message = (
        "ci_unit='rows' declares each row its own unit (the word is reserved: it never names a column), but the "
        "source also has a column 'rows': rename that column"
    )
    with_rows = frame.with_columns(rows=pl.Series([1, 2] * 6))
    with pytest.raises(sm.SqlMetricsError, match=re.escape(message)):
        sm.compare(with_rows, ["auc"], arm="arm", baseline="v1", ci_unit="rows", engine=engine)
    with pytest.raises(sm.SqlMetricsError, match=re.escape(message)):
        sm.evaluate(with_rows, ["auc"], ci=0.9, ci_unit="rows", engine=engine)
    with_rows.write_parquet(tmp_path / "rows.parquet")
    argv = ["compare", str(tmp_path / "rows.parquet"), "-m", "auc", "--arm", "arm", "--baseline", "v1"]
    assert cli.main([*argv, "--ci-unit", "rows", "--engine", engine]) == 1
    assert "--ci-unit rows declares each row its own unit" in capsys.readouterr().err


def test_the_command_lines_table_prints_a_tiny_p_value_and_an_empty_note_as_the_report_does(tmp_path, capsys):
    """A person's table (not CSV or JSON) printed a p-value of 1e-100 as 0.000000 (the CSV
    held it), and the note of a comparison with nothing to say as null when paired and
    blank for arms. Now < 0.0001, as the report, and blank in both; the frame's note is
    NULL in both, and the CSV keeps the number."""
    from sqlmetrics import cli

    frame = _paired_frame(2, 3000).with_columns(arm=pl.Series(["v1", "v2"] * 1500))
    better = 0.6 * pl.col("label") + 0.4 * pl.col("a")  # v2's scores nearly separate the labels
    frame = frame.with_columns(c=pl.when(pl.col("arm") == "v2").then(better).otherwise(pl.col("a")))
    frame.write_parquet(tmp_path / "logs.parquet")
    argv = ["compare", str(tmp_path / "logs.parquet"), "-m", "auc"]
    for who, kwargs in ((["--scores", "a,b"], {"scores": ("a", "b")}),
                        (["--arm", "arm", "--baseline", "v1", "--score", "c", "--ci-unit", "rows"],
                         {"arm": "arm", "baseline": "v1", "score": "c", "ci_unit": "rows"})):  # fmt: skip
        expected = sm.compare(frame, ["auc"], **kwargs)
        assert expected["p_value"].item() < 1e-6 and expected["note"].item() is None  # far better: b, and c in v2
        assert cli.main([*argv, *who, "--format", "csv"]) == 0
        assert pl.read_csv(capsys.readouterr().out.encode())["p_value"].item() == pytest.approx(
            expected["p_value"].item(), rel=1e-9
        )
        assert cli.main([*argv, *who]) == 0
        header, row = [line.split("┆") for line in capsys.readouterr().out.splitlines() if "┆" in line][:2]
        cells = dict(zip((h.strip(" │") for h in header), (c.strip(" │") for c in row)))
        assert cells["p_value"] == "< 0.0001" and cells["note"] == ""


def _arms_with_gaps() -> pl.DataFrame:
    """Arms a (the baseline), b and c: day 1 holds all three and two rows with a NULL arm,
    day 2 only a, day 3 only b; c's day-1 rows all have a NULL score (excluded)."""
    day1 = {"arm": ["a"] * 4 + ["b"] * 4 + [None] * 2 + ["c"] * 3, "day": [1] * 13}
    rest = {"arm": ["a"] * 4 + ["b"] * 4, "day": [2] * 4 + [3] * 4}
    arms = pl.concat([pl.DataFrame(day1), pl.DataFrame(rest)])
    labels = [0, 1, 0, 1] * 2 + [1, 0] + [0, 1, 1] + [0, 1, 0, 1] * 2
    scores = [0.2, 0.6, 0.7, 0.5, 0.3, 0.8, 0.1, 0.9, 0.4, 0.6, None, None, None] + [0.2, 0.6, 0.7, 0.5] * 2
    return arms.with_columns(label=pl.Series(labels), score=pl.Series(scores, dtype=pl.Float64))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metrics", [["auc"], ["average_precision"]])  # analytic and bootstrap
def test_a_slice_without_an_arm_gets_a_row_saying_so(engine, metrics):
    """Every slice gets a row per candidate arm, whichever arm it lacks: the values it
    cannot have are NULL and ``note`` says why. Rows with a NULL arm are in no arm: left
    out (never a candidate named None) and counted in ``note``."""
    frame = _arms_with_gaps()
    result = sm.compare(frame, metrics, arm="arm", baseline="a", score="score", by="day", ci_unit="rows", engine=engine,
                        resamples=20)  # fmt: skip
    assert result.select("day", "candidate").rows() == [(1, "b"), (1, "c"), (2, "b"), (2, "c"), (3, "b"), (3, "c")]
    notes = dict(zip(result.select("day", "candidate").rows(), result["note"]))
    assert notes == {
        (1, "b"): "2 rows with a NULL arm excluded",
        (1, "c"): "arm 'c': no used rows in this slice (3 excluded: a NULL in a bound column); "
        "2 rows with a NULL arm excluded",
        (2, "b"): "arm 'b': no rows in this slice",
        (2, "c"): "arm 'c': no rows in this slice",
        (3, "b"): "the baseline 'a': no rows in this slice",
        (3, "c"): "the baseline 'a': no rows in this slice; arm 'c': no rows in this slice",
    }
    name = metrics[0]
    values = sm.evaluate(frame.drop_nulls("arm"), metrics, score="score", by=["day", "arm"])
    value = {(day, arm): v for day, arm, v in values.select("day", "arm", name).rows()}
    for row in result.iter_rows(named=True):
        assert row["baseline_value"] == value.get((row["day"], "a"))
        assert row["candidate_value"] == value.get((row["day"], row["candidate"]))
    without_null_arms = sm.compare(frame.drop_nulls("arm"), metrics, arm="arm", baseline="a", score="score", by="day",
                                   ci_unit="rows", engine=engine, resamples=20)  # fmt: skip
    polars.testing.assert_frame_equal(result.drop("note"), without_null_arms.drop("note"))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_null_arm_is_no_arm(engine):
    """One arm and NULLs: nothing to compare (the NULLs are no second arm)."""
    frame = pl.DataFrame({"arm": ["v1", None] * 2, "label": [0, 1, 1, 0], "score": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(InvalidInputError, match="arm column 'arm' has a single value \\('v1'\\)"):
        sm.compare(frame, ["auc"], arm="arm", baseline="v1", score="score", ci_unit="rows", engine=engine)
    with pytest.raises(InvalidInputError, match="arm column 'arm' has no value: .* every row's arm is NULL"):
        sm.compare(frame.with_columns(arm=pl.lit(None, pl.String)), ["auc"], arm="arm", baseline="v1", score="score",
                   ci_unit="rows", engine=engine)  # fmt: skip


def test_a_paired_slice_without_used_rows_says_so():
    frame = pl.DataFrame({"day": [1, 1, 1, 1, 2], "label": [0, 1, 0, 1, 1], "a": [0.1, 0.8, 0.3, 0.6, None],
                          "b": [0.2, 0.7, 0.4, 0.3, 0.5]})  # fmt: skip
    result = sm.compare(frame, ["auc"], scores=("a", "b"), by="day")
    assert result["note"].to_list() == [None, "no used rows in this slice (1 excluded: a NULL in a bound column)"]


def test_a_single_arm_is_refused():
    frame = pl.DataFrame({"arm": ["v1"] * 4, "label": [0, 1, 1, 0], "score": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(InvalidInputError, match="arm column 'arm' has a single value \\('v1'\\)"):
        sm.compare(frame, ["auc"], arm="arm", baseline="v1", score="score", ci_unit="rows")


def test_a_source_without_rows_has_no_arm_to_compare():
    frame = pl.DataFrame(schema={"arm": pl.String, "label": pl.Int64, "score": pl.Float64})
    with pytest.raises(InvalidInputError, match="arm column 'arm' has no value: the source has no rows"):
        sm.compare(frame, ["auc"], arm="arm", baseline="v1", score="score", ci_unit="rows")


def test_docstring_example_runs():
    module = importlib.import_module("sqlmetrics.compare")  # sm.compare is the function
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_command_line_compare_writes_what_compare_returns(tmp_path, capsys):
    from sqlmetrics import cli

    frame = pl.DataFrame({"v": [1, 2] * 20, "label": [0, 0, 1, 1] * 10, "score": [0.1 * (i % 9) for i in range(40)]})
    frame.write_parquet(tmp_path / "logs.parquet")
    argv = ["compare", str(tmp_path / "logs.parquet"), "-m", "auc,accuracy", "--arm", "v", "--baseline", "1"]
    assert cli.main([*argv, "--ci-unit", "rows", "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = sm.compare(frame, ["auc", "accuracy"], arm="v", baseline=1, ci_unit="rows")
    assert printed["delta"].to_list() == pytest.approx(expected["delta"].to_list(), abs=1e-9)
    assert printed["p_value"].to_list() == pytest.approx(expected["p_value"].to_list(), abs=1e-9)


def test_command_line_paired_compare_writes_what_compare_returns(tmp_path, capsys):
    from sqlmetrics import cli

    frame = _ranking_pair(3).with_columns(click=(pl.col("rel") > 0).cast(pl.Int8))
    frame.write_parquet(tmp_path / "logs.parquet")
    argv = ["compare", str(tmp_path / "logs.parquet"), "-m", "auc,gauc", "--label", "click", "--query", "q"]
    assert cli.main([*argv, "--scores", "a,b", "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = sm.compare(frame, ["auc", "gauc"], scores=("a", "b"), label="click", query="q")
    assert printed["method"].to_list() == expected["method"].to_list()
    assert printed["p_value"].to_list() == pytest.approx(expected["p_value"].to_list(), abs=1e-9)
    assert (
        cli.main([*argv, "--scores", "a,b", "-m", "f1", "--ci-unit", "q", "--resamples", "9", "--format", "csv"]) == 0
    )
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = sm.compare(frame, ["f1"], scores=("a", "b"), label="click", query="q", ci_unit="q", resamples=9)
    assert printed["delta_lo"].to_list() == pytest.approx(expected["delta_lo"].to_list(), abs=1e-9)
    for wrong, message in [
        (["--scores", "a"], "--scores takes two score columns"),
        (["--scores", "a,b", "--arm", "q"], "not both"),
        (["--scores", "a,b", "--score", "a"], "leave out --score"),
        ([], "compare needs --scores"),
    ]:
        assert cli.main([*argv, *wrong]) == 2
        assert message in capsys.readouterr().err


# --- paired: two scores of the same rows ------------------------------------------------

PAIRED_ROWS = st.lists(
    st.tuples(
        st.sampled_from(["x", "y"]),
        st.sampled_from([0.1, 0.3, 0.5, 0.9]),
        st.sampled_from([0.2, 0.3, 0.5, 0.7]),
        st.integers(0, 1),
        st.integers(1, 3),
    ),
    min_size=1,
    max_size=60,
)


def _paired_delong(score_a, score_b, labels, weights=None) -> tuple[float, float]:
    """The difference of two AUCs and DeLong's se of it from every positive–negative pair
    (integer weights repeat rows): the variance of the placement differences."""
    labels = np.asarray(labels)
    repeat = np.ones(len(labels), int) if weights is None else np.asarray(weights, int)
    a, b, labels = (np.repeat(np.asarray(x, float), repeat) for x in (score_a, score_b, labels))

    def placements(scores):
        pos, neg = scores[labels == 1], scores[labels == 0]
        wins = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
        return wins.mean(axis=1), wins.mean(axis=0)

    (pos_a, neg_a), (pos_b, neg_b) = placements(a), placements(b)
    d_pos, d_neg = pos_b - pos_a, neg_b - neg_a
    return d_pos.mean(), math.sqrt(d_pos.var(ddof=1) / len(d_pos) + d_neg.var(ddof=1) / len(d_neg))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("weighted", [False, True])
@examples(30)
@given(rows=PAIRED_ROWS)
def test_paired_auc_difference_is_delongs(engine, weighted, rows):
    """Against the placements of every positive–negative pair, with ties and weights."""
    frame = pl.DataFrame(rows, schema=["country", "a", "b", "label", "w"], orient="row")
    weight = "w" if weighted else None
    result = sm.compare(frame, ["auc"], scores=("a", "b"), weight=weight, by="country", ci=0.9, engine=engine)
    assert sorted(result["country"]) == sorted(frame["country"].unique())
    z = stats.norm.ppf(0.95)
    for row in result.iter_rows(named=True):
        part = frame.filter(pl.col("country") == row["country"])
        labels, weights = part["label"].to_numpy(), part["w"].to_numpy() if weighted else np.ones(part.height)
        if weights[labels == 1].sum() < 2 or weights[labels == 0].sum() < 2:
            assert row["p_value"] is None and row["delta_lo"] is None
            continue
        delta, se = _paired_delong(part["a"], part["b"], labels, weights)
        assert row["delta"] == pytest.approx(delta, abs=1e-12)
        assert (row["delta_lo"], row["delta_hi"]) == pytest.approx((delta - z * se, delta + z * se), abs=1e-9)
        if se > 0:
            assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(delta) / se), abs=1e-9)


def test_paired_auc_agrees_with_a_published_fast_delong():
    """rocauc-comparison's fastDeLong (Sun & Xu 2014): the covariance matrix of two AUCs
    on 20,000 rows with ties; the se of the difference is sqrt(c11 + c22 − 2·c12)."""
    rng = np.random.default_rng(5)
    labels = (rng.random(20_000) < 0.2).astype(int)
    a = np.round(rng.normal(labels, 1.5), 2)
    b = np.round(0.6 * a + rng.normal(labels, 1.5), 2)
    frame = pl.DataFrame({"label": labels, "a": a, "b": b})
    order, positives = delong.compute_ground_truth_statistics(labels)
    aucs, cov = delong.fastDeLong(np.vstack((a, b))[:, order], positives)
    se = math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    for engine in ("duckdb", "polars"):
        row = sm.compare(frame, ["auc"], scores=("a", "b"), engine=engine).row(0, named=True)
        assert (row["baseline_value"], row["candidate_value"]) == pytest.approx(tuple(aucs), abs=1e-12)
        assert row["delta_hi"] - row["delta"] == pytest.approx(stats.norm.ppf(0.975) * se, rel=1e-9)
        assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(aucs[1] - aucs[0]) / se), rel=1e-9)
    assert row["p_value"] < 0.05  # b adds signal to a: the test sees it


def _ranking_pair(seed: int, queries: int = 60) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = queries * 8
    relevance = rng.integers(0, 3, n) * (rng.random(n) < 0.4)
    a = rng.normal(relevance, 2.0)
    return pl.DataFrame(
        {
            "q": np.repeat(np.arange(queries), 8),
            "item": np.tile(np.arange(8), queries),
            "rel": relevance,
            "a": a,
            "b": 0.5 * a + rng.normal(relevance, 2.0),
        }
    )


ROW_MEANS = sorted(name for name, spec in sm.registry().items() if spec.interval and spec.interval.name == "row_mean")


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", ROW_MEANS)
@examples(20)
@given(rows=PAIRED_ROWS)
def test_paired_row_means_are_the_normal_test_of_row_differences(engine, metric, rows):
    """logloss, brier, score_mean, label_mean of two scores over the same rows: each
    row's value under each score (test_intervals' reference values), d = x_b − x_a with
    rows repeated by their weights, the normal interval mean(d) ± z·scipy's sem(d) and
    its two-sided p-value."""
    from test_intervals import ROW_VALUES

    frame = pl.DataFrame(rows, schema=["country", "a", "b", "label", "w"], orient="row")
    result = sm.compare(frame, [metric], scores=("a", "b"), weight="w", by="country", ci=0.9, engine=engine)
    for row in result.iter_rows(named=True):
        part = frame.filter(pl.col("country") == row["country"])
        repeat = part["w"].to_numpy()
        y, a, b = (np.repeat(part[c].to_numpy(), repeat) for c in ("label", "a", "b"))
        d = ROW_VALUES[metric](y, b) - ROW_VALUES[metric](y, a)
        assert row["delta"] == pytest.approx(d.mean(), abs=1e-12)
        assert row["method"] == "paired, normal: mean over rows"
        if len(d) < 2:
            assert row["delta_lo"] is None and row["p_value"] is None
            continue
        se = stats.sem(d)
        assert row["delta_lo"] == pytest.approx(d.mean() - stats.norm.ppf(0.95) * se, abs=1e-9)
        assert row["delta_hi"] == pytest.approx(d.mean() + stats.norm.ppf(0.95) * se, abs=1e-9)
        if se > 1e-12:
            assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(d.mean()) / se), abs=1e-9)


def _undefined_as_nan(metric):
    """scikit-learn's metric of (labels, predictions, weights), NaN where it is undefined
    (the metric is NULL there)."""

    def defined(y, p, w):
        predicted, positive = w[p == 1].sum(), w[y == 1].sum()
        if metric == "mcc" and min(predicted, positive, w[p == 0].sum(), w[y == 0].sum()) == 0:
            return np.nan  # scikit-learn gives 0 where the denominator is 0
        return PAIRED_CONFUSION[metric](y, p, w)

    return defined


PAIRED_CONFUSION = {
    "accuracy": lambda y, p, w: skm.accuracy_score(y, p, sample_weight=w),
    "precision": lambda y, p, w: skm.precision_score(y, p, sample_weight=w, zero_division=np.nan),
    "recall": lambda y, p, w: skm.recall_score(y, p, sample_weight=w, zero_division=np.nan),
    "specificity": lambda y, p, w: skm.recall_score(1 - y, 1 - p, sample_weight=w, zero_division=np.nan),
    "f1": lambda y, p, w: skm.f1_score(y, p, sample_weight=w, zero_division=np.nan),
    "fbeta": lambda y, p, w: skm.fbeta_score(y, p, beta=2.0, sample_weight=w, zero_division=np.nan),
    "balanced_accuracy": lambda y, p, w: skm.balanced_accuracy_score(y, p, sample_weight=w),
    "mcc": lambda y, p, w: skm.matthews_corrcoef(y, p, sample_weight=w),
}
# the joint cells of a row: its label and its prediction under each score
JOINT_LABELS, JOINT_FIRST, JOINT_SECOND = (np.array(cells) for cells in zip(*itertools.product([0, 1], repeat=3)))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning", "ignore::UserWarning")
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", sorted(PAIRED_CONFUSION))
@examples(25)
@given(rows=PAIRED_ROWS)
def test_paired_confusion_metrics_are_the_delta_method_over_joint_cells(engine, metric, rows):
    """f1, fbeta, balanced accuracy, mcc and the shares of two scores over the same rows:
    the normal interval of the difference with the multinomial delta method over the
    eight joint cells (label, prediction under each score), scikit-learn's metric of
    each score differentiated numerically in the cells' shares; weights count as
    repeated rows."""
    from test_intervals import delta_method_se

    frame = pl.DataFrame(rows, schema=["country", "a", "b", "label", "w"], orient="row")
    call = sm.metric(metric, **({"beta": 2.0} if metric == "fbeta" else {}))
    result = sm.compare(frame, [call], scores=("a", "b"), weight="w", by="country", ci=0.9, engine=engine)
    f = _undefined_as_nan(metric)

    def difference(q):
        return f(JOINT_LABELS, JOINT_SECOND, q) - f(JOINT_LABELS, JOINT_FIRST, q)

    for row in result.iter_rows(named=True):
        part = frame.filter(pl.col("country") == row["country"])
        y, a, b, w = (part[c].to_numpy() for c in ("label", "a", "b", "w"))
        cells = [(y == j) & ((a >= 0.5) == f1) & ((b >= 0.5) == f2) for j, f1, f2 in zip(JOINT_LABELS, JOINT_FIRST,
                                                                                         JOINT_SECOND)]  # fmt: skip
        counts = np.array([w[cell].sum() for cell in cells], float)
        q = counts / counts.sum()
        assert row["method"] == "paired, normal: delta method"
        if math.isnan(difference(q)):
            assert row["delta_lo"] is None and row["p_value"] is None
            continue
        se = delta_method_se(difference, q, counts.sum())
        assert row["delta"] == pytest.approx(difference(q), abs=1e-12)
        assert row["delta_lo"] == pytest.approx(difference(q) - stats.norm.ppf(0.95) * se, abs=1e-7)
        assert row["delta_hi"] == pytest.approx(difference(q) + stats.norm.ppf(0.95) * se, abs=1e-7)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@examples(25)
@given(rows=PAIRED_ROWS)
def test_paired_calibration_is_the_delta_method_over_rows(engine, rows):
    """calibration of two scores over the same rows: the normal interval of the
    difference with se² = g'·S·g / n, S numpy's sample covariance of the rows' (score a,
    score b, label), g the gradient of f(b, y) − f(a, y) at their means by central
    differences (test_intervals' HISTOGRAM_METRICS); rows repeated by their weights."""
    from test_intervals import HISTOGRAM_METRICS

    frame = pl.DataFrame(rows, schema=["country", "a", "b", "label", "w"], orient="row")
    result = sm.compare(frame, ["calibration"], scores=("a", "b"), weight="w", by="country", ci=0.9, engine=engine)
    _, f = HISTOGRAM_METRICS["calibration"]  # (its rows' values, the metric of their means)

    def difference(m):  # the means of (a, b, label)
        return f(m[[1, 2]]) - f(m[[0, 2]])

    for row in result.iter_rows(named=True):
        part = frame.filter(pl.col("country") == row["country"])
        repeat = part["w"].to_numpy()
        values = np.stack([np.repeat(part[c].to_numpy(), repeat).astype(float) for c in ("a", "b", "label")])
        assert row["method"] == "paired, normal: delta method"
        if values.shape[1] < 2 or values[2].sum() == 0:
            assert row["delta_lo"] is None and row["p_value"] is None
            continue
        means = values.mean(axis=1)
        gradient = np.array([(difference(means + step) - difference(means - step)) / 2e-6 for step in np.eye(3) * 1e-6])
        se = math.sqrt(max(gradient @ np.cov(values, ddof=1) @ gradient, 0.0) / values.shape[1])
        assert row["delta"] == pytest.approx(difference(means), abs=1e-12)
        assert row["delta_lo"] == pytest.approx(difference(means) - stats.norm.ppf(0.95) * se, abs=1e-7)
        assert row["delta_hi"] == pytest.approx(difference(means) + stats.norm.ppf(0.95) * se, abs=1e-7)


def test_every_paired_confusion_metric_has_a_reference():
    paired = [name for name, spec in sm.registry().items() if spec.interval and spec.interval.paired
              and spec.interval.paired.template == "intervals/paired_confusion_delta.sql"]  # fmt: skip
    assert sorted(paired) == sorted(PAIRED_CONFUSION)


PAIRED_CLASS_ROWS = st.lists(  # (slice, true class, first prediction, second prediction, weight)
    st.tuples(
        st.integers(0, 1),
        st.one_of(st.none(), st.integers(0, 3)),
        st.one_of(st.none(), st.integers(0, 3)),
        st.integers(0, 3),
        st.one_of(st.none(), st.integers(0, 3)),
    ),
    max_size=40,
)


def _paired_class_calls() -> list[tuple[sm.MetricCall, object]]:
    """Every multi-class metric of the delta method over the confusion matrix (every
    average, β = 2 for fbeta) and κ (every weighting), each with its scikit-learn
    reference f(y, p, sample_weight) (test_intervals': nan where undefined)."""
    from test_intervals import CLASS_METRICS, class_calls, with_interval

    def kappa(weights):
        return lambda y, p, sample_weight: skm.cohen_kappa_score(y, p, weights=weights, sample_weight=sample_weight)

    names = with_interval("class_confusion_delta")
    calls = [(call, CLASS_METRICS[name]) for name in names for call in class_calls(name)]
    modes = {"none": None, "linear": "linear", "quadratic": "quadratic"}
    return calls + [(sm.metric("cohen_kappa", weights=mode), kappa(modes[mode])) for mode in modes]


def test_every_paired_class_metric_has_a_reference():
    paired = {name for name, spec in sm.registry().items() if spec.interval and spec.interval.paired
              and spec.interval.paired.template == "intervals/paired_multinomial_delta.sql"}  # fmt: skip
    assert paired == {call.spec.name for call, _ in _paired_class_calls()}


# scikit-learn warns where a class has no value (zero_division) or κ is undefined
@pytest.mark.filterwarnings(
    "ignore::RuntimeWarning", "ignore::UserWarning", "ignore::sklearn.exceptions.UndefinedMetricWarning"
)
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@examples(25)
@given(rows=PAIRED_CLASS_ROWS)
def test_paired_class_metrics_are_the_delta_method_over_joint_cells(engine, rows):
    """Two predicted classes of the same rows (predictions=): the normal interval of the
    difference with the multinomial delta method over the joint cells (true class, first
    prediction, second prediction) that occur, scikit-learn's metric of each prediction
    (over one row per joint cell, weighted by its share: its classes are those of the
    used rows) differentiated numerically in the shares; rows with a NULL class or weight
    left out, weights 0 to 3 counting as repeated rows."""
    from test_intervals import delta_method_se

    frame = pl.DataFrame(rows, schema=dict.fromkeys(["s", "y", "a", "b", "w"], pl.Int64), orient="row")
    calls = _paired_class_calls()
    result = sm.compare(frame, [call for call, _ in calls], predictions=("a", "b"), label="y", weight="w", by="s",
                        ci=0.9, engine=engine)  # fmt: skip
    for row in result.iter_rows(named=True):
        used = [(y, a, b, w) for s, y, a, b, w in rows if s == row["s"] and None not in (y, a, w)]
        joint = sorted({(y, a, b) for y, a, b, _ in used})
        counts = np.array([sum(w for *cell, w in used if tuple(cell) == j) for j in joint], float)
        true, first, second = (np.array(side) for side in zip(*joint)) if joint else (np.array([]),) * 3
        call, reference = next((c, f) for c, f in calls if c.column == row["metric"])
        assert row["method"] == "paired, normal: delta method"

        def difference(q, reference=reference, call=call, true=true, first=first, second=second):
            kwargs = {key: value for key, value in call.kwargs.items() if key != "weights"}
            candidate = reference(true, second, sample_weight=q, **kwargs)
            return candidate - reference(true, first, sample_weight=q, **kwargs)

        value = difference(counts / counts.sum()) if counts.sum() else math.nan
        if math.isnan(value):
            assert row["delta_lo"] is None and row["p_value"] is None, row
            continue
        se = delta_method_se(difference, counts / counts.sum(), counts.sum())
        assert row["delta"] == pytest.approx(value, abs=1e-12), row
        assert row["delta_lo"] == pytest.approx(value - stats.norm.ppf(0.95) * se, abs=1e-7), row
        assert row["delta_hi"] == pytest.approx(value + stats.norm.ppf(0.95) * se, abs=1e-7), row


PAIRED_REGRESSION_ROWS = st.lists(
    st.tuples(
        st.sampled_from(["x", "y"]),
        st.sampled_from([-1.5, 0.0, 0.25, 2.0]),
        st.sampled_from([-1.0, 0.5, 3.0]),
        st.sampled_from([-1.0, 0.0, 0.5, 3.0]),
        st.integers(1, 3),
    ),
    min_size=1,
    max_size=40,
)


def _r2(m):  # R² from the means of (e², y, y²): 1 − m_e² / (m_y² − m_y²)
    return 1 - m[0] / (m[2] - m[1] ** 2)


# metric -> (each row's values under the two scores (target y, predictions a, b), and the
# difference b − a of the metric as a function of those values' means)
PAIRED_REGRESSION = {
    "mae": (lambda y, a, b: [np.abs(a - y), np.abs(b - y)], lambda m: m[1] - m[0]),
    "mse": (lambda y, a, b: [(a - y) ** 2, (b - y) ** 2], lambda m: m[1] - m[0]),
    "mean_error": (lambda y, a, b: [a - y, b - y], lambda m: m[1] - m[0]),
    "mape": (  # over the rows with a target
        lambda y, a, b: [np.abs((a - y)[y != 0] / y[y != 0]), np.abs((b - y)[y != 0] / y[y != 0])],
        lambda m: m[1] - m[0],
    ),
    "rmse": (lambda y, a, b: [(a - y) ** 2, (b - y) ** 2], lambda m: math.sqrt(m[1]) - math.sqrt(m[0])),
    "r2": (
        lambda y, a, b: [(a - y) ** 2, (b - y) ** 2, y, y**2],
        lambda m: _r2([m[1], m[2], m[3]]) - _r2([m[0], m[2], m[3]]),
    ),
}


def _delta_method(values: np.ndarray, difference) -> tuple[float, float]:
    """The difference at the values' means and its delta-method se: g'·S·g / n, g the
    gradient by central differences, S numpy's sample covariance of the rows' values."""
    means, steps = values.mean(axis=1), np.eye(len(values)) * 1e-7
    gradient = np.array([(difference(means + step) - difference(means - step)) / 2e-7 for step in steps])
    return difference(means), math.sqrt(max(gradient @ np.cov(values, ddof=1) @ gradient, 0.0) / values.shape[1])


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", sorted(PAIRED_REGRESSION))
@examples(20)
@given(rows=PAIRED_REGRESSION_ROWS)
def test_paired_regression_metrics_are_the_delta_method_of_the_difference(engine, metric, rows):
    """mae, mse, mean_error, mape, rmse and r2 of two predictions of the same targets:
    the difference b − a of the metric as a function of the means of each row's values
    under both (rows repeated by their weights), its se by numpy's delta method (the
    numerical gradient times the sample covariance over n), the normal interval and
    p-value; NULL with W ≤ 1, where a slope is undefined (rmse with no error) or r2 is
    (one target)."""
    frame = pl.DataFrame(rows, schema=["country", "a", "b", "y", "w"], orient="row")
    result = sm.compare(frame, [metric], scores=("a", "b"), label="y", weight="w", by="country", ci=0.9,
                        ci_method="analytic", engine=engine)  # fmt: skip
    values_of, difference = PAIRED_REGRESSION[metric]
    for row in result.iter_rows(named=True):
        part = frame.filter(pl.col("country") == row["country"])
        repeat = part["w"].to_numpy()
        y, a, b = (np.repeat(part[c].to_numpy().astype(float), repeat) for c in ("y", "a", "b"))
        values = np.array(values_of(y, a, b))
        undefined = (
            values.shape[1] < 2
            or (metric == "rmse" and 0 in (values[0].sum(), values[1].sum()))
            or (metric == "r2" and len(np.unique(y)) < 2)
        )
        if undefined:
            assert row["delta_lo"] is None and row["p_value"] is None
            continue
        delta, se = _delta_method(values, difference)
        assert row["delta"] == pytest.approx(delta, abs=1e-9)
        half = stats.norm.ppf(0.95) * se
        assert (row["delta_lo"], row["delta_hi"]) == pytest.approx((delta - half, delta + half), rel=1e-6, abs=1e-7)
        if se > 1e-6:
            assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(delta) / se), rel=1e-5, abs=1e-7)


def _paired_predictions(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    a = y + rng.normal(size=n)
    return pl.DataFrame({"y": y, "a": a, "b": 0.5 * a + 0.5 * y + rng.normal(scale=0.5, size=n)})


def test_paired_regression_intervals_agree_with_a_large_paired_bootstrap():
    """At 3,000 rows the delta method's interval of each difference is as wide as the
    paired bootstrap's (1,000 resamples) within 15%, on both engines."""
    frame = _paired_predictions(9, 3000)
    metrics = ["mae", "mse", "rmse", "mean_error", "r2"]
    for engine in ("duckdb", "polars"):
        analytic = sm.compare(frame, metrics, scores=("a", "b"), label="y", engine=engine)
        resampled = sm.compare(frame, metrics, scores=("a", "b"), label="y", ci_method="bootstrap", resamples=1000,
                               engine=engine)  # fmt: skip
        assert analytic["delta"].to_list() == pytest.approx(resampled["delta"].to_list(), abs=1e-12)
        widths = [(t["delta_hi"] - t["delta_lo"]) for t in (analytic, resampled)]
        assert widths[0].to_list() == pytest.approx(widths[1].to_list(), rel=0.15)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_paired_query_means_are_scipys_paired_t_test(engine):
    """Per-query values of each score from evaluate, differences by scipy.stats.ttest_rel
    (equal query weights: the ranking metrics, gauc weighting 'uniform')."""
    frame = _ranking_pair(7).with_columns(click=(pl.col("rel") > 0).cast(pl.Int8), day=pl.col("q") % 2)
    metrics = ["ndcg@5", "mrr", "map", sm.metric("gauc", weighting="uniform")]
    result = sm.compare(frame, metrics, scores=("a", "b"), label="click", query="q", by="day", ci=0.9, engine=engine)
    roles = {"label": "click", "query": "q", "by": ["day", "q"]}
    per_query = {score: sm.evaluate(frame, metrics, score=score, **roles) for score in ("a", "b")}
    assert result.height == 8
    for row in result.iter_rows(named=True):
        column = row["metric"]
        first, second = (per_query[s].filter(pl.col("day") == row["day"]).select("q", column) for s in ("a", "b"))
        pairs = first.join(second, on="q").drop_nulls()
        test = stats.ttest_rel(pairs[f"{column}_right"], pairs[column])
        delta = (pairs[f"{column}_right"] - pairs[column]).mean()
        half = stats.t.ppf(0.95, test.df) * delta / test.statistic
        assert row["delta"] == pytest.approx(delta, abs=1e-12)
        assert row["delta_hi"] - row["delta"] == pytest.approx(abs(half), rel=1e-9)
        assert row["p_value"] == pytest.approx(test.pvalue, rel=1e-9)
        assert row["method"] == "paired t over queries"


def test_paired_ranking_p_values_are_ranx_student_t_test():
    """ranx.compare's paired Student's t-test of two runs over the same qrels (continuous
    scores: no ties, where ranx's order and ties="average" agree)."""
    frame = _ranking_pair(11, queries=80).with_columns(pl.col("q").cast(pl.String), pl.col("item").cast(pl.String))
    frame = frame.filter(pl.col("rel").sum().over("q") > 0)  # ranx needs a relevant item per query
    relevant = frame.filter(pl.col("rel") > 0)
    qrels = ranx.Qrels(_nested(relevant, "rel"))
    runs = [ranx.Run(_nested(frame, score), name=score) for score in ("a", "b")]
    metrics = {"ndcg@10": sm.metric("ndcg", k=10, gain="linear"), "mrr": "mrr", "map": "map"}  # ranx: linear gain
    metrics["precision@5"] = "precision@5"
    report = ranx.compare(qrels, runs, list(metrics), stat_test="student")
    expected = report.comparisons[frozenset(("a", "b"))]
    result = sm.compare(frame, list(metrics.values()), scores=("a", "b"), label="rel", query="q", item="item")
    assert result.height == len(metrics)
    for name, row in zip(metrics, result.iter_rows(named=True)):
        assert row["p_value"] == pytest.approx(float(expected[name]["p_value"]), rel=1e-9)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_paired_judged_run_p_values_are_ranx_student_t_test(engine):
    """Two scores of one run judged by qrels that also hold unretrieved items (a
    re-ranker against the first stage): ranx.compare's paired Student's t-test."""
    frame = _ranking_pair(12, queries=70).with_columns(pl.col("q").cast(pl.String), pl.col("item").cast(pl.String))
    unretrieved = pl.DataFrame({"q": [str(q) for q in range(0, 70, 3)], "item": "new", "rel": 2}).cast(
        {"rel": frame["rel"].dtype}
    )
    judged = pl.concat([frame.filter(pl.col("rel") > 0).select("q", "item", "rel"), unretrieved])
    judged = judged.filter(pl.col("q").is_in(frame.filter(pl.col("rel") > 0)["q"].unique().implode()))
    run = frame.filter(pl.col("q").is_in(judged["q"].unique().implode())).drop("rel")  # ranx needs judgments per query
    qrels = ranx.Qrels(_nested(judged, "rel"))
    runs = [ranx.Run(_nested(run, score), name=score) for score in ("a", "b")]
    metrics = {"ndcg@5": sm.metric("ndcg", k=5, gain="linear"), "recall@3": "recall@3", "map": "map"}
    expected = ranx.compare(qrels, runs, list(metrics), stat_test="student").comparisons[frozenset(("a", "b"))]
    result = sm.compare(run, list(metrics.values()), scores=("a", "b"), label="rel", query="q", item="item",
                        judgments=judged, engine=engine)  # fmt: skip
    assert result.height == len(metrics)
    for name, row in zip(metrics, result.iter_rows(named=True)):
        assert row["p_value"] == pytest.approx(float(expected[name]["p_value"]), rel=1e-9)
        alone = [
            sm.evaluate(run, [metrics[name]], label="rel", score=s, query="q", item="item", judgments=judged)
            for s in ("a", "b")
        ]
        values = tuple(a[row["metric"]].item() for a in alone)
        assert (row["baseline_value"], row["candidate_value"]) == pytest.approx(values, abs=1e-12)


def _nested(frame: pl.DataFrame, value: str) -> dict[str, dict[str, float]]:
    """{query: {item: value}}, as ranx takes qrels and runs."""
    nested: dict[str, dict[str, float]] = {}
    for query, item, number in frame.select("q", "item", value).iter_rows():
        nested.setdefault(query, {})[item] = number
    return nested


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"arm": "day"}, "pass either scores="),
        ({"scores": ("a",)}, "scores must be two score columns"),
        ({"scores": "a"}, "scores must be two score columns"),
        ({"scores": ("a", "a")}, "two different column names"),
        ({"score": "a"}, "cannot be added to them"),
        (
            {"metrics": ["auc", "average_precision"], "ci_method": "analytic"},
            "no analytic paired comparison for average_precision: they exist for accuracy, auc, .*logloss",
        ),
        ({"metrics": ["mrr"], "query": "day", "ci_method": "bootstrap"}, "no bootstrap for mrr"),
        ({"resamples": 1, "metrics": ["f1"]}, "resamples must be an integer from 2 to 10,000"),
        ({"scores": ("a", "nope")}, "nope"),
        ({"scores": ("a", "name")}, "score column 'name' has type String; expected a number or boolean"),
        ({"by": "sqlmetrics_scores"}, "is the name compare gives its own slice"),
        ({"scores": None}, "compare needs scores="),
    ],
)
def test_bad_paired_comparisons_are_refused(kwargs, message):
    frame = pl.DataFrame({"day": [1, 2] * 3, "label": [0, 1, 1, 0, 0, 1], "a": [0.1, 0.2] * 3, "b": [0.3] * 6})
    frame = frame.with_columns(name=pl.lit("x"))
    arguments = {"scores": ("a", "b"), **kwargs}
    with pytest.raises(sm.SqlMetricsError, match=message):
        sm.compare(frame, arguments.pop("metrics", ["auc"]), **arguments)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"predictions": ("a",)}, "predictions must be two prediction columns"),
        ({"predictions": ("a", "a")}, "two different column names"),
        ({"prediction": "a"}, "predictions= names the two prediction columns: prediction='a' cannot be added"),
        ({"scores": ("a", "b")}, "pass scores= .* or predictions= .*, not both"),
        ({"predictions": None, "scores": ("a", "b"), "prediction": "a"}, r"pass predictions=\('a', <the other"),
        ({"predictions": ("a", "name")}, "label column 'label' .* and prediction column 'name' .* cannot be compared"),
        ({"predictions": ("a", "nope")}, "nope"),
        ({"arm": "day"}, "pass either scores= .*predictions= for their predicted classes"),
    ],
)
def test_bad_paired_prediction_comparisons_are_refused(kwargs, message):
    frame = pl.DataFrame({"day": [1, 2] * 3, "label": [0, 1, 2, 0, 1, 2], "a": [0, 1, 1, 0, 2, 2], "b": [0] * 6})
    frame = frame.with_columns(name=pl.lit("x"))
    arguments = {"predictions": ("a", "b"), **kwargs}
    with pytest.raises(sm.SqlMetricsError, match=message):
        sm.compare(frame, ["accuracy"], **arguments)


def test_command_line_compares_two_predicted_classes(tmp_path, capsys):
    from sqlmetrics import cli

    frame = pl.DataFrame({"y": ["a", "b", "c"] * 20, "p": ["a", "b", "b"] * 20, "q": ["a", "c", "c", "b"] * 15})
    frame.write_parquet(tmp_path / "classes.parquet")
    argv = ["compare", str(tmp_path / "classes.parquet"), "-m", "accuracy,cohen_kappa", "--label", "y"]
    assert cli.main([*argv, "--predictions", "p,q", "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = sm.compare(frame, ["accuracy", "cohen_kappa"], predictions=("p", "q"), label="y")
    assert printed["method"].to_list() == expected["method"].to_list() == ["paired, normal: delta method"] * 2
    assert printed["delta_lo"].to_list() == pytest.approx(expected["delta_lo"].to_list(), abs=1e-9)
    for wrong, message in [
        (["--predictions", "p"], "--predictions takes two prediction columns"),
        (["--predictions", "p,q", "--scores", "p,q"], "not both"),
        (["--predictions", "p,q", "--prediction", "p"], "leave out --prediction"),
    ]:
        assert cli.main([*argv, *wrong]) == 2
        assert message in capsys.readouterr().err


def test_a_row_with_either_score_null_is_left_out_of_both():
    frame = pl.DataFrame(
        {
            "label": [0, 1, 0, 1, 0, 1, 1],
            "a": [0.1, 0.8, 0.3, 0.6, 0.2, None, 0.9],
            "b": [0.2, 0.7, 0.4, 0.3, None, 0.5, 0.8],
        }
    )
    row = sm.compare(frame, ["auc"], scores=("a", "b")).row(0, named=True)
    kept = frame.drop_nulls()
    expected = [sm.evaluate(kept, ["auc"], score=s)["auc"][0] for s in ("a", "b")]
    assert [row["baseline_value"], row["candidate_value"]] == pytest.approx(expected, abs=1e-12)


# --- the paired bootstrap ---------------------------------------------------------------


def _paired_frame(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = (rng.random(n) < 0.4).astype(int)
    a = np.round(1 / (1 + np.exp(-rng.normal(label, 1.5))), 2)  # ties
    b = np.round(np.clip(a + rng.normal(0.1 * label, 0.1), 0.01, 0.99), 2)
    return pl.DataFrame({"label": label, "a": a, "b": b, "user": rng.integers(0, 15, n)})


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("clustered", [False, True])
def test_paired_bootstrap_is_the_percentile_interval_of_reweighted_differences(engine, clustered):
    """Both scores on the same resampled rows: the counts from an independent Python
    implementation (test_bootstrap.reference_count), the metrics from scikit-learn."""
    from test_bootstrap import reference_count

    frame = _paired_frame(3, 150)
    unit = "user" if clustered else None
    result = sm.compare(frame, ["f1", "logloss"], scores=("a", "b"), ci=0.9, ci_method="bootstrap", ci_unit=unit,
                        resamples=30, seed=2, engine=engine)  # fmt: skip
    if clustered:
        ids = frame["user"].rank("dense").to_numpy()
    else:  # rows numbered in the order of their columns: label, both scores, the used weight
        ids = np.empty(frame.height, int)
        ids[np.lexsort((frame["b"], frame["a"], frame["label"]))] = np.arange(1, frame.height + 1)
    references = {
        "f1": lambda s, w: f1_score(frame["label"], frame[s] >= 0.5, sample_weight=w),
        "logloss": lambda s, w: log_loss(frame["label"], frame[s], sample_weight=w),
    }
    for row in result.iter_rows(named=True):
        metric = references[row["metric"]]
        differences = []
        for r in range(1, 31):
            w = np.array([reference_count(int(i), r, 2) for i in ids], float)
            differences.append(metric("b", w) - metric("a", w))
        differences = np.array(differences)
        assert row["delta"] == pytest.approx(metric("b", None) - metric("a", None), abs=1e-12)
        assert (row["delta_lo"], row["delta_hi"]) == pytest.approx(tuple(np.quantile(differences, [0.05, 0.95])))
        extreme = min((differences <= 0).sum(), (differences >= 0).sum())
        assert row["p_value"] == pytest.approx(min(1.0, 2 * (1 + extreme) / 31), abs=1e-12)
        assert row["method"] == "paired bootstrap: percentile"


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_arms_bootstrap_is_the_percentile_interval_of_reweighted_differences(engine):
    """Arms that saw different rows, resampled (by user: the counts from an independent
    Python implementation, test_bootstrap.reference_count), each arm's metric from
    scikit-learn on its reweighted rows; a metric with an analytic interval keeps it
    under ci_method='auto'."""
    from test_bootstrap import reference_count

    frame = _paired_frame(6, 240).with_columns(arm=pl.Series(np.random.default_rng(6).choice(["v1", "v2"], 240)))
    ids = frame["user"].rank("dense").to_numpy()
    result = sm.compare(frame, ["f1", "brier", "auc"], arm="arm", baseline="v1", score="a", ci=0.9, ci_unit="user",
                        ci_method="bootstrap", resamples=30, seed=2, engine=engine)  # fmt: skip
    references = {
        "f1": lambda part, w: f1_score(part["label"], part["a"] >= 0.5, sample_weight=w),
        "brier": lambda part, w: brier_score_loss(part["label"], part["a"], sample_weight=w),
    }
    arms = {arm: (frame["arm"] == arm).to_numpy() for arm in ("v1", "v2")}
    for row in result.iter_rows(named=True):
        if row["metric"] == "auc":  # resampled too: ci_method="bootstrap"
            assert row["method"] == "arms bootstrap by unit user: percentile"
            continue
        metric = references[row["metric"]]
        differences = []
        for r in range(1, 31):
            w = np.array([reference_count(int(i), r, 2) for i in ids], float)
            v1, v2 = (metric(frame.filter(arms[a]), w[arms[a]]) for a in ("v1", "v2"))
            differences.append(v2 - v1)
        differences = np.array(differences)
        v1, v2 = (metric(frame.filter(arms[a]), None) for a in ("v1", "v2"))
        assert row["delta"] == pytest.approx(v2 - v1, abs=1e-12)
        assert (row["delta_lo"], row["delta_hi"]) == pytest.approx(tuple(np.quantile(differences, [0.05, 0.95])))
        extreme = min((differences <= 0).sum(), (differences >= 0).sum())
        assert row["p_value"] == pytest.approx(min(1.0, 2 * (1 + extreme) / 31), abs=1e-12)
        assert row["method"] == "arms bootstrap by unit user: percentile"
    automatic = sm.compare(
        frame, ["average_precision", "auc"], arm="arm", baseline="v1", score="a", ci_unit="rows", resamples=5,
        engine=engine,
    )  # fmt: skip
    assert automatic["method"].to_list() == ["arms bootstrap by rows: percentile", "arms by rows, normal: DeLong"]


def test_arms_bootstrap_and_deLong_agree_on_large_samples():
    frame = _paired_frame(7, 8000).with_columns(arm=pl.Series(np.random.default_rng(7).choice(["v1", "v2"], 8000)))
    arguments = {"arm": "arm", "baseline": "v1", "score": "a", "ci_unit": "rows"}
    delong = sm.compare(frame, ["auc"], **arguments).row(0, named=True)
    resampled = sm.compare(frame, ["auc"], **arguments, ci_method="bootstrap", resamples=1000).row(0, named=True)
    width = delong["delta_hi"] - delong["delta_lo"]
    assert resampled["delta_hi"] - resampled["delta_lo"] == pytest.approx(width, rel=0.1)
    assert resampled["delta"] == pytest.approx(delong["delta"], abs=1e-12)


def test_paired_bootstrap_and_deLong_agree_on_large_samples():
    frame = _paired_frame(4, 4000)
    delong = sm.compare(frame, ["auc"], scores=("a", "b")).row(0, named=True)
    resampled = sm.compare(frame, ["auc"], scores=("a", "b"), ci_method="bootstrap", resamples=1000).row(0, named=True)
    width = delong["delta_hi"] - delong["delta_lo"]
    assert resampled["delta_hi"] - resampled["delta_lo"] == pytest.approx(width, rel=0.1)
    # the point estimate is the same AUC difference, by the rank sum (DeLong, unweighted)
    # and by the running sums (the bootstrap weighs rows by their counts)
    assert resampled["delta"] == pytest.approx(delong["delta"], abs=1e-12)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("paired", [False, True])
def test_only_the_resampled_metrics_are_compared_per_replicate(engine, paired, monkeypatch):
    """A comparison whose bootstrap serves some of its metrics replicates only those; the
    others run once with their analytic spread, in a statement of their own (before,
    every metric ran once per replicate: a 3M-row paired compare of f1 beside auc and
    logloss took 20 GB and 56 GB of spill). The rows are the two comparisons' apart, in
    the call's metric order."""
    from test_bootstrap import recorded_bindings

    statements = recorded_bindings(monkeypatch, engine)
    frame = _paired_frame(9, 300).with_columns(arm=pl.Series(np.random.default_rng(9).choice(["v1", "v2"], 300)))
    who = {"scores": ("a", "b")} if paired else {"arm": "arm", "baseline": "v1", "score": "a", "ci_unit": "rows"}
    call = {**who, "by": "user", "ci": 0.9, "resamples": 20, "seed": 4, "engine": engine}
    metrics = ["auc", "average_precision", "logloss"]
    result = sm.compare(frame, metrics, **call)
    replicated = [binding for binding in statements if binding.bootstrap]
    assert [[c.column for c in binding.calls] for binding in replicated] == [["average_precision"]]
    apart = [sm.compare(frame, [metric], **call) for metric in metrics]
    polars.testing.assert_frame_equal(result, pl.concat(apart), abs_tol=1e-12)


def test_a_replicate_difference_of_rounding_is_a_tie_on_both_sides():
    """The engines sum in different orders: where one gets a difference of exactly 0 the
    other may get 0.30000000000000004 − 0.3. Both must count it as a tie, on both sides
    of 0, or their p-values differ (brier's 0.889 on DuckDB against 0.667 on polars, in
    test_paired_bootstrap_engines_agree)."""
    from sqlmetrics.compare import _replicate_bounds

    first = [0.3, 0.3, 0.2, 0.5, 0.1]
    exact = pl.DataFrame({"first": first, "second": [0.3, 0.4, 0.3, 0.6, 0.2]})
    rounded = exact.with_columns(second=pl.Series([0.1 + 0.2, 0.4, 0.3, 0.6, 0.2]))  # 0.30000000000000004
    assert rounded["second"][0] != rounded["first"][0]
    p_exact, p_rounded = (_replicate_bounds(frame, [], 0.9)["p_value"].item() for frame in (exact, rounded))
    # d = (0, 0.1, 0.1, 0.1, 0.1): one d ≤ 0 (the tie), five d ≥ 0: 2·(1 + 1)/(5 + 1)
    assert p_exact == p_rounded == pytest.approx(2 * (1 + 1) / 6)


@examples(20, AGREEMENT)
@given(rows=PAIRED_ROWS, clustered=st.booleans())
def test_paired_bootstrap_engines_agree(rows, clustered):
    frame = pl.DataFrame(rows, schema=["country", "a", "b", "label", "w"], orient="row")
    arguments = {"scores": ("a", "b"), "weight": "w", "by": "country", "resamples": 8, "ci_method": "bootstrap"}
    arguments["ci_unit"] = "w" if clustered else None
    metrics = ["auc", "f1", "brier"]
    polars.testing.assert_frame_equal(
        sm.compare(frame, metrics, **arguments), sm.compare(frame, metrics, **arguments, engine="polars"), abs_tol=1e-9
    )


def test_to_sql_renders_the_paired_statement_with_the_bootstrap_asked_for(tmp_path):
    """to_sql(scores=...) takes ci_method, ci_unit, resamples and seed as sm.compare does:
    its statement holds replicates 0..resamples of each score, the data itself at 0, and
    another seed draws other resamples."""
    import duckdb

    path = tmp_path / "paired.parquet"
    _paired_frame(5, 200).write_parquet(path)

    def replicates(**kwargs):
        sql = sm.to_sql(["auc", "average_precision"], source=str(path), scores=("a", "b"), ci=0.9, **kwargs)
        return pl.from_arrow(duckdb.sql(sql).arrow()).sort("sqlmetrics_scores", "sqlmetrics_replicate")

    analytic = replicates()  # auc has DeLong's paired test, average_precision the paired bootstrap (200 resamples)
    assert analytic["sqlmetrics_replicate"].max() == 200
    drawn = replicates(ci_method="bootstrap", resamples=5, seed=3)
    assert drawn["sqlmetrics_replicate"].unique().sort().to_list() == list(range(6))
    assert replicates(ci_method="bootstrap", resamples=5, seed=3).equals(drawn)
    other = replicates(ci_method="bootstrap", resamples=5, seed=4)
    data = pl.col("sqlmetrics_replicate") == 0
    assert other.filter(data).equals(drawn.filter(data)) and not other.filter(~data).equals(drawn.filter(~data))
    by_user = replicates(ci_unit="user", resamples=5)
    assert not by_user.filter(~data).equals(replicates(ci_method="bootstrap", resamples=5).filter(~data))


def test_to_sql_renders_the_statement_compare_runs_for_arms(tmp_path):
    """to_sql(arm=...) is the statement of sm.compare for arms: run in DuckDB, its rows
    (one per slice and arm: each metric and its standard error) give compare's values,
    and its standard errors combine to compare's interval."""
    import duckdb

    rng = np.random.default_rng(8)
    n = 2000
    frame = pl.DataFrame(
        {
            "arm": rng.choice(["v1", "v2"], n),
            "country": rng.choice(["x", "y"], n),
            "label": (rng.random(n) < 0.3).astype(int),
            "score": rng.random(n),
        }
    )
    path = tmp_path / "arms.parquet"
    frame.write_parquet(path)
    metrics, roles = ["auc", "logloss"], {"score": "score", "by": "country", "ci": 0.9}
    roles["ci_unit"] = "rows"
    sql = sm.to_sql(metrics, source=str(path), arm="arm", **roles)
    rows = pl.from_arrow(duckdb.sql(sql).arrow())
    compared = sm.compare(path, metrics, arm="arm", baseline="v1", **roles)
    z = stats.norm.ppf(0.95)
    for row in compared.iter_rows(named=True):
        name, country = row["metric"], row["country"]
        base = rows.filter(pl.col("country") == country, pl.col("arm") == "v1").row(0, named=True)
        cand = rows.filter(pl.col("country") == country, pl.col("arm") == "v2").row(0, named=True)
        assert (row["baseline_value"], row["candidate_value"]) == (base[name], cand[name])
        se = math.hypot(base[f"{name}_se"], cand[f"{name}_se"])
        assert row["delta_hi"] - row["delta_lo"] == pytest.approx(2 * z * se, rel=1e-12)
    with pytest.raises(InvalidParameterError, match="not both"):
        sm.to_sql(metrics, source="t", arm="arm", scores=("a", "b"))


# Query-level intervals count queries, not weight: scaling every weight by any factor
# leaves them as they are. DeLong's paired interval counts weights as frequencies: at
# 1e200 it is a point (its products of weights once overflowed to NaN), below a class
# weight of 1 it is undefined (NULL).
@pytest.mark.parametrize("scale", [1e-300, 1e-160, 1e200, 1e300])
def test_intervals_with_weights_of_any_size(engine, scale):
    rng = np.random.default_rng(5)
    n = 400
    frame = pl.DataFrame(
        {"y": rng.integers(0, 2, n), "s": rng.random(n), "s2": rng.random(n), "q": rng.integers(0, 40, n), "w": 1.0}
    )
    scaled = frame.with_columns(w=pl.lit(scale))
    roles = {"label": "y", "query": "q", "weight": "w", "engine": engine}
    columns = ["gauc", "gauc_lo", "gauc_hi"]
    polars.testing.assert_frame_equal(
        sm.evaluate(scaled, ["gauc"], score="s", ci=0.95, **roles).select(columns),
        sm.evaluate(frame, ["gauc"], score="s", ci=0.95, **roles).select(columns),
        rel_tol=1e-9,
    )
    paired = ["delta", "delta_lo", "delta_hi", "p_value"]
    compared = sm.compare(scaled, ["auc", "gauc"], scores=["s", "s2"], **roles).select(paired)
    unscaled = sm.compare(frame, ["auc", "gauc"], scores=["s", "s2"], **roles).select(paired)
    polars.testing.assert_frame_equal(compared[1], unscaled[1], rel_tol=1e-9)  # gauc: over queries
    delta, lo, hi, p_value = compared.row(0)  # auc: DeLong, weights as frequencies
    if scale < 1:
        assert (lo, hi, p_value) == (None, None, None)
    else:
        assert lo == pytest.approx(delta, abs=1e-12) and hi == pytest.approx(delta, abs=1e-12) and p_value == 0.0


# --- a bootstrap p-value at its floor is a bound ------------------------------------------


def _one_sided_pair(n: int = 60) -> pl.DataFrame:
    """Scores a and b of the same rows, b strictly nearer the label on every row (b halves
    a's error), so b's brier is below a's on every resample with a row in it: every
    replicate's difference has the same sign."""
    rng = np.random.default_rng(11)
    label = np.arange(n) % 2
    a = rng.uniform(0.2, 0.8, n)
    return pl.DataFrame({"label": label, "a": a, "b": a + 0.5 * (label - a), "noisy": a + rng.normal(0, 0.05, n)})


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_paired_bootstrap_p_value_at_its_floor_is_a_bound(engine):
    arguments = {"scores": ("a", "b"), "ci_method": "bootstrap", "resamples": 200, "engine": engine}
    row = sm.compare(_one_sided_pair(), ["brier"], **arguments).row(0, named=True)
    # every d_r < 0: min(#{d_r <= 0}, #{d_r >= 0}) = 0, so p = 2·(1 + 0)/(200 + 1), the floor
    assert row["delta_hi"] < 0
    assert row["p_value"] == pytest.approx(2 / 201, abs=1e-15) and row["p_bound"] is True
    # a candidate that is only noise: replicates of both signs, a p-value above the floor
    noisy = sm.compare(_one_sided_pair(), ["brier"], **arguments | {"scores": ("a", "noisy")}).row(0, named=True)
    assert noisy["p_value"] > 2 / 201 and noisy["p_bound"] is False
    analytic = sm.compare(_one_sided_pair(), ["brier"], scores=("a", "b"), engine=engine).row(0, named=True)
    assert analytic["method"] == "paired, normal: mean over rows" and analytic["p_bound"] is False


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_an_arms_bootstrap_p_value_at_its_floor_is_a_bound(engine):
    # the baseline's every row has squared error 0.6² = 0.36, the candidate's 0.1² = 0.01:
    # whatever the counts, each replicate's brier difference is 0.01 − 0.36 < 0
    label = [0, 1] * 20
    frame = pl.DataFrame({"arm": ["v1"] * 40 + ["v2"] * 40, "label": label * 2,
                          "score": [0.6, 0.4] * 20 + [0.1, 0.9] * 20})  # fmt: skip
    row = sm.compare(frame, ["brier"], arm="arm", baseline="v1", ci_method="bootstrap", ci_unit="rows", resamples=99,
                     engine=engine).row(0, named=True)  # fmt: skip
    assert row["delta"] == pytest.approx(0.01 - 0.36)
    assert row["p_value"] == pytest.approx(2 / 100, abs=1e-15) and row["p_bound"] is True


def test_p_bound_is_null_where_the_p_value_is():
    from sqlmetrics.compare import _replicate_bounds

    undefined = pl.DataFrame({"first": [0.1, None, 0.2], "second": [0.3, 0.4, 0.5]})
    assert _replicate_bounds(undefined, [], 0.9).select("p_value", "p_bound").row(0) == (None, None)


@pytest.mark.parametrize("resamples", [2, 9, 99, 199, 200, 999, 1000, 4321, 10_000])
def test_a_bound_is_printed_rounded_up_so_it_stays_a_bound(resamples):
    from sqlmetrics.compare import p_value_text

    floor = 2 / (resamples + 1)
    text = p_value_text(floor, True)
    assert text.startswith("< ")
    printed = float(text[2:])
    # three significant digits, never below the floor, and less than one unit of the third digit above it
    assert floor <= printed < floor + 10 ** (math.floor(math.log10(floor)) - 2) + 1e-15
    assert len(text[2:].lstrip("0.").rstrip("0")) <= 3
    assert p_value_text(0.5, False) == "0.5" and p_value_text(None, None) is None


def test_a_bound_of_200_resamples_reads_as_such():
    from sqlmetrics.compare import p_value_text

    # 2/201 = 0.0099502...: rounded up to three significant digits, 0.00996
    assert p_value_text(2 / 201, True) == "< 0.00996"


def test_command_line_compare_prints_a_p_value_at_its_floor_as_a_bound(tmp_path, capsys):
    from sqlmetrics import cli
    from sqlmetrics.html_report.numbers import p_value as p_value_text

    _one_sided_pair().write_parquet(tmp_path / "pair.parquet")
    argv = ["compare", str(tmp_path / "pair.parquet"), "-m", "brier", "--ci-method", "bootstrap"]
    assert cli.main([*argv, "--scores", "a,b"]) == 0
    table = capsys.readouterr().out
    assert "< 0.00996" in table and "0.009950" not in table and "p_bound" not in table  # the cell says it
    assert cli.main([*argv, "--scores", "a,noisy"]) == 0
    above = capsys.readouterr().out
    noisy = sm.compare(_one_sided_pair(), ["brier"], scores=("a", "noisy"), ci_method="bootstrap")
    assert "<" not in above and p_value_text(noisy["p_value"].item()) in above  # four decimals, as the report
    assert cli.main([*argv, "--scores", "a,b", "--format", "csv"]) == 0  # machines read the number and the flag
    printed = pl.read_csv(capsys.readouterr().out.encode())
    assert printed["p_value"].item() == pytest.approx(2 / 201) and printed["p_bound"].item() is True
