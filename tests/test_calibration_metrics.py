"""The calibration metrics (issue 45) against the formulas of the libraries their users
compare with, on both engines: ece against torchmetrics' BinaryCalibrationError (l1, l2,
max) and netcal's ECE and MCE off the bin edges, and on the edges the documented rule
(scikit-learn's: a score equal to an edge is in the lower bin) with the curve's bins; ne
against torchrec's metrics/ne.py; the Brier and logloss decompositions adding up to the
binned score. (tests/test_classification_reference.py compares every one of them with
its reference in tests/metrics/classification/ on hypothesis data: ties, NULLs, weights,
one-class slices, drawn parameters.)

torchmetrics 1.9 and netcal 1.4 both require torch (netcal also pyro-ppl, gpytorch and
tensorboard), which the test environment does not install: their formulas are written
out below from their source, with the lines cited, and run with numpy.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import brier_score_loss, log_loss

import sqlmetrics as sm
from sqlmetrics.errors import InvalidInputError, InvalidParameterError

from metrics.classification._calibration import edges
from metrics.classification.ne import torchrec_ne
from strategies import examples

NEW_METRICS = [
    "ece",
    "ne",
    "rig",
    "brier_reliability",
    "brier_resolution",
    "brier_uncertainty",
    "logloss_reliability",
    "logloss_resolution",
    "logloss_uncertainty",
]


SCHEMA = {"slice": pl.String, "score": pl.Float64, "label": pl.Int64, "weight": pl.Float64}


def torchmetrics_calibration_error(preds: np.ndarray, target: np.ndarray, n_bins: int, norm: str) -> float:
    """torchmetrics 1.9, ``functional/classification/calibration_error.py``: binary
    confidences are the scores and accuracies the labels (``_binary_calibration_error_update``,
    l. 137-139); ``_ce_compute`` (l. 63-110) takes ``bin_boundaries = linspace(0, 1,
    n_bins + 1)`` and ``_binning_bucketize`` (l. 30-60) ``indices = bucketize(confidences,
    bin_boundaries, right=True) - 1``, a bin [b_i, b_i+1) (numpy's ``searchsorted(...,
    side="right") - 1``), over len(bin_boundaries) bins, per bin the mean confidence and
    accuracy (0 when empty) and the share of rows; l1 Σ |acc − conf|·prop, max
    max |acc − conf|, l2 √(Σ (acc − conf)²·prop)."""
    boundaries = np.linspace(0, 1, n_bins + 1)
    indices = np.searchsorted(boundaries, preds, side="right") - 1
    count = np.bincount(indices, minlength=len(boundaries)).astype(float)
    with np.errstate(invalid="ignore"):
        conf = np.nan_to_num(np.bincount(indices, weights=preds, minlength=len(boundaries)) / count)
        acc = np.nan_to_num(np.bincount(indices, weights=target, minlength=len(boundaries)) / count)
    prop = count / count.sum()
    if norm == "l1":
        return float(np.sum(np.abs(acc - conf) * prop))
    if norm == "max":
        return float(np.max(np.abs(acc - conf)))
    return float(np.sqrt(np.sum((acc - conf) ** 2 * prop)))


def netcal_miscalibration(x: np.ndarray, y: np.ndarray, bins: int, metric: str) -> float:
    """netcal 1.4, ``metrics/Miscalibration.py``: a binary problem's X is the positive
    class's confidence, clipped to [eps, 1 − eps], and its accuracy the labels
    (``_prepare_input``, l. 443-458); bounds ``linspace(0, 1, bins + 1)`` (``_prepare_bins``,
    l. 379); ``np.histogramdd`` and ``binned_statistic_dd`` bin them (``binning``, l. 236-242:
    [a, b), the last [a, b]); ``process`` (l. 319-336): 'ece' Σ |acc − conf|·n_b / N, 'mce'
    the largest |acc − conf| (empty bins 0)."""
    eps = np.finfo(x.dtype).eps
    x = np.clip(x, eps, 1.0 - eps)
    bounds = np.linspace(0.0, 1.0, bins + 1)
    counts, _ = np.histogram(x, bins=bounds)
    with np.errstate(invalid="ignore"):
        conf = np.nan_to_num(np.histogram(x, bins=bounds, weights=x)[0] / counts)
        acc = np.nan_to_num(np.histogram(x, bins=bounds, weights=y)[0] / counts)
    deviation = np.abs(acc - conf)
    return float(np.sum(deviation * counts / counts.sum()) if metric == "ece" else np.max(deviation))


def off_edge_scores(rng: np.random.Generator, n: int, bins: int) -> np.ndarray:
    """Scores in (0, 1) none of which is within 1e-9 of an edge j / bins: every rule of
    which side an edge falls on bins them alike."""
    scores = rng.uniform(0.001, 0.999, n)
    near = np.abs(scores * bins - np.round(scores * bins)) < 1e-9 * bins
    return np.where(near, scores + 0.5 / bins, scores).clip(0.001, 0.999)


@pytest.mark.parametrize("bins", [5, 10, 15, 20])
@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_ece_is_torchmetrics_and_netcal_off_the_edges(engine, bins, norm):
    rng = np.random.default_rng(bins)
    scores = off_edge_scores(rng, 500, bins)
    labels = (rng.uniform(size=500) < scores**1.5).astype(int)  # over-confident: ECE well above 0
    frame = pl.DataFrame({"score": scores, "label": labels})
    result = sm.evaluate(frame, [sm.metric("ece", bins=bins, norm=norm)], engine=engine)
    value = result.drop("n_rows", "n_excluded").item()
    assert value == pytest.approx(torchmetrics_calibration_error(scores, labels, bins, norm), rel=1e-9, abs=1e-12)
    if norm != "l2":  # netcal has no l2 norm
        expected = netcal_miscalibration(scores, labels, bins, "ece" if norm == "l1" else "mce")
        assert value == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert value > 0.01  # not a trivially calibrated case


def test_a_score_on_an_edge_falls_in_the_lower_bin(engine):
    # 4-decimal scores on the edges 0.6 and 0.7 of 10 bins. numpy's edges (scikit-learn's,
    # the curve's) are j · 0.1: 0.6000000000000001 and 0.7000000000000001, above 0.6 and 0.7,
    # so both fall in the lower bin, as a score equal to an edge does:
    #   bin 5 (0.5 .. 0.6]: 0.55, 0.6, 0.6 with labels 0, 1, 0: ō = 1/3, f̄ = 1.75/3, gap 0.25
    #   bin 6 (0.6 .. 0.7]: 0.65, 0.7 with labels 1, 1: ō = 1, f̄ = 0.675, gap 0.325
    #   ECE = (3·0.25 + 2·0.325) / 5 = 0.28, MCE = 0.325.
    # torchmetrics' and netcal's bins are [a, b): with edges exactly 0.6 and 0.7 (as
    # torch.linspace gives them) 0.6 and 0.7 would go up, to an ECE of
    # (0.55 + 3·|2/3 − 1.85/3| + 0.3) / 5 = 0.2: the documented rule wins.
    frame = pl.DataFrame({"score": [0.55, 0.6, 0.6, 0.65, 0.7], "label": [0, 1, 0, 1, 1]})
    calls = [sm.metric("ece", bins=10), sm.metric("ece", bins=10, norm="max")]
    result = sm.evaluate(frame, calls, engine=engine)
    assert result["ece_bins_10"].item() == pytest.approx(0.28, abs=1e-12)
    assert result["ece_bins_10_max"].item() == pytest.approx(0.325, abs=1e-12)
    curve = sm.calibration_curve(frame, bins=10, engine=engine)
    assert curve["bin"].to_list() == [5, 6] and curve["count"].to_list() == [3, 2]


@pytest.mark.parametrize("bins", [10, 15])
def test_scores_on_every_edge_are_binned_as_scikit_learn_bins_them(engine, bins):
    # every 4-decimal score from 0 to 1 (10,001 of them, each edge of 10 and 15 bins among
    # them): the bins are numpy.searchsorted(edges[1:-1], p), scikit-learn's calibration_curve
    scores = np.round(np.arange(10_001) / 10_000, 4)
    labels = (np.arange(10_001) % 3 == 0).astype(int)
    frame = pl.DataFrame({"score": scores, "label": labels})
    ids = np.searchsorted(edges(scores, bins, "uniform")[1:-1], scores)
    weight = np.bincount(ids, minlength=bins)
    gaps = np.abs(np.bincount(ids, labels, bins) - np.bincount(ids, scores, bins)) / weight
    result = sm.evaluate(frame, [sm.metric("ece", bins=bins), sm.metric("ece", bins=bins, norm="max")], engine=engine)
    assert result.row(0)[2] == pytest.approx(float((weight * gaps).sum() / weight.sum()), rel=1e-9, abs=1e-12)
    assert result.row(0)[3] == pytest.approx(float(gaps.max()), rel=1e-9, abs=1e-12)


def curve_ece(curve: pl.DataFrame, slices: list[str], weight: str) -> pl.DataFrame:
    """ECE (l1) of each slice from ``sm.calibration_curve``'s rows: Σ W_b·|ō_b − f̄_b| / W."""
    gap = (pl.col("observed_rate") - pl.col("mean_score")).abs()
    return curve.group_by(slices).agg(
        ece=(pl.col(weight) * gap).filter(pl.col(weight) > 0).sum() / pl.col(weight).sum()
    )


four_decimal_scores = st.integers(0, 10_000).map(lambda i: i / 10_000)
edge_scores = st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.9, 1.0, 0.0667, 0.6])


@examples(30)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["a", "b"]),
            st.one_of(four_decimal_scores, edge_scores),
            st.integers(0, 1),
            st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        ),
        min_size=1,
        max_size=40,
    ),
    bins=st.sampled_from([1, 2, 5, 10, 15]),
    strategy=st.sampled_from(["uniform", "quantile"]),
    engine=st.sampled_from(["duckdb", "polars"]),
)
def test_ece_is_the_curves_gap_weighted_by_its_bins(rows, bins, strategy, engine):
    """The ECE of a slice is its calibration curve's gaps, bin by bin: the same edges,
    with scores on them and weights of 0."""
    frame = pl.DataFrame(rows, schema=SCHEMA, orient="row")
    curve = sm.calibration_curve(frame, weight="weight", by="slice", bins=bins, strategy=strategy, engine=engine)
    expected = curve_ece(curve, ["slice"], "weight").sort("slice")
    call = sm.metric("ece", bins=bins, strategy=strategy)
    result = sm.evaluate(frame, [call], weight="weight", by="slice", engine=engine)
    for row in result.iter_rows(named=True):
        found = expected.filter(pl.col("slice") == row["slice"])["ece"]
        if found.is_empty() or found.item() is None or math.isnan(found.item()):  # every weight 0
            assert row[call.column] is None
        else:
            assert row[call.column] == pytest.approx(found.item(), rel=1e-9, abs=1e-12)


def binned_scores(y: np.ndarray, s: np.ndarray, w: np.ndarray, bins: int, strategy: str) -> np.ndarray:
    """Each row's score replaced by its bin's weighted mean score (scikit-learn's bins;
    a bin of weight 0 keeps its rows' scores, which then count for nothing)."""
    ids = np.searchsorted(edges(s, bins, strategy)[1:-1], s)
    total = np.bincount(ids, weights=w, minlength=bins)
    means = np.bincount(ids, weights=w * s, minlength=bins) / np.where(total > 0, total, 1)
    return np.where(total[ids] > 0, means[ids], s)


@examples(30)
@given(
    rows=st.lists(
        st.tuples(st.one_of(four_decimal_scores, edge_scores), st.integers(0, 1), st.sampled_from([0.0, 0.5, 1.0, 2.0])),
        min_size=1,
        max_size=40,
    ),
    bins=st.sampled_from([1, 3, 10, 15]),
    strategy=st.sampled_from(["uniform", "quantile"]),
    engine=st.sampled_from(["duckdb", "polars"]),
)
def test_reliability_minus_resolution_plus_uncertainty_is_the_binned_score(rows, bins, strategy, engine):
    """Murphy's decomposition over the bins: reliability − resolution + uncertainty is
    the score of each row's bin mean, the Brier score (and logloss) of the binned scores."""
    frame = pl.DataFrame(rows, schema={c: t for c, t in SCHEMA.items() if c != "slice"}, orient="row")
    y, s, w = (frame[c].to_numpy() for c in ("label", "score", "weight"))
    params = {"bins": bins, "strategy": strategy}
    calls = {
        f"{score}_{term}": sm.metric(f"{score}_{term}", **params)
        for score in ("brier", "logloss")
        for term in ("reliability", "resolution")
    }
    calls |= {name: sm.metric(name) for name in ("brier_uncertainty", "logloss_uncertainty")}
    row = sm.evaluate(frame, list(calls.values()), weight="weight", engine=engine).row(0, named=True)
    value = {name: row[call.column] for name, call in calls.items()}
    if w.sum() == 0:
        assert all(v is None for v in value.values())
        return
    binned = binned_scores(y, s, w, bins, strategy)
    brier = value["brier_reliability"] - value["brier_resolution"] + value["brier_uncertainty"]
    assert brier == pytest.approx(brier_score_loss(y, binned, sample_weight=w, pos_label=1), rel=1e-9, abs=1e-12)
    logloss = value["logloss_reliability"] - value["logloss_resolution"] + value["logloss_uncertainty"]
    eps = np.finfo(float).eps
    expected = log_loss(y, np.clip(binned, eps, 1 - eps), sample_weight=w, labels=[0, 1])
    assert logloss == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_with_one_score_a_bin_the_binned_score_is_the_score(engine):
    # 20 bins, one distinct score in each: each bin's mean is its score, so the three
    # terms add up to brier and logloss themselves
    scores = (np.arange(20) + 0.5) / 20
    labels = np.array([1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1])
    frame = pl.DataFrame({"score": np.repeat(scores, 2), "label": np.concatenate([labels, 1 - labels[::-1]])})
    calls = {
        f"{score}_{term}": sm.metric(f"{score}_{term}", **({} if term == "uncertainty" else {"bins": 20}))
        for score in ("brier", "logloss")
        for term in ("reliability", "resolution", "uncertainty")
    }
    row = sm.evaluate(frame, [*calls.values(), "brier", "logloss"], engine=engine).row(0, named=True)
    for score in ("brier", "logloss"):
        terms = [row[calls[f"{score}_{term}"].column] for term in ("reliability", "resolution", "uncertainty")]
        total = terms[0] - terms[1] + terms[2]
        assert total == pytest.approx(row[score], rel=1e-12)


@examples(30)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["a", "b", None]),
            st.one_of(four_decimal_scores, st.sampled_from([0.0, 1.0, 1e-13, 1 - 1e-13, 5e-13]), st.none()),
            st.integers(0, 1),
            st.one_of(st.sampled_from([0.0, 0.5, 1.0, 1e6]), st.none()),
        ),
        min_size=1,
        max_size=40,
    ),
    engine=st.sampled_from(["duckdb", "polars"]),
)
def test_ne_is_torchrecs_and_rig_one_minus_it(rows, engine):
    """torchrec's formula, with its clamp where scores are within 1e-12 of 0 or 1, weights
    (0 and large) and NULLs; NULL for a one-class slice, where torchrec divides by its
    clamped norm instead."""
    frame = pl.DataFrame(rows, schema=SCHEMA, orient="row")
    result = sm.evaluate(frame, ["ne", "rig"], weight="weight", by="slice", engine=engine)
    for row in result.iter_rows(named=True):
        used = frame.filter(pl.col("slice").eq_missing(row["slice"])).drop_nulls(["score", "weight"])
        y, s, w = (used[c].to_numpy().astype(float) for c in ("label", "score", "weight"))
        if (w * y).sum() == 0 or (w * (1 - y)).sum() == 0:
            assert row["ne"] is None and row["rig"] is None
            continue
        expected = torchrec_ne(y, s, w)
        assert row["ne"] == pytest.approx(expected, rel=1e-9)
        assert row["rig"] == pytest.approx(1 - expected, rel=1e-9, abs=1e-9)


def test_ne_is_logloss_over_the_base_rates_entropy(engine):
    # scores away from 0 and 1 (the clamps differ there): ne · logloss_uncertainty = logloss
    rng = np.random.default_rng(5)
    frame = pl.DataFrame({"score": rng.uniform(0.01, 0.99, 300), "label": rng.integers(0, 2, 300)})
    result = sm.evaluate(frame, ["ne", "logloss", "logloss_uncertainty"], engine=engine).row(0, named=True)
    assert result["ne"] * result["logloss_uncertainty"] == pytest.approx(result["logloss"], rel=1e-12)


def test_ne_of_a_hand_worked_slice(engine):
    # labels 1, 1, 0, 0 scored .8, .4, .3, .1: cross-entropy −(ln .8 + ln .4 + ln .7 + ln .9)
    # = 2.31043 nats over the base rate ½'s 4 · ln 2 = 2.77259: 0.833302
    frame = pl.DataFrame({"score": [0.8, 0.4, 0.3, 0.1], "label": [1, 1, 0, 0]})
    expected = -(math.log(0.8) + math.log(0.4) + math.log(0.7) + math.log(0.9)) / (4 * math.log(2))
    result = sm.evaluate(frame, ["ne", "rig"], engine=engine)
    assert result["ne"].item() == pytest.approx(expected, rel=1e-12)
    assert result["rig"].item() == pytest.approx(1 - expected, rel=1e-12)


@pytest.mark.parametrize("name", NEW_METRICS)
def test_scores_outside_zero_one_are_refused(name, engine):
    frame = pl.DataFrame({"score": [0.2, 1.5, 0.5, -0.25], "label": [0, 1, 1, 0]})
    with pytest.raises(InvalidInputError) as caught:
        sm.evaluate(frame, [name], engine=engine)
    message = str(caught.value)
    assert "score column 'score' must be a probability in [0, 1]" in message
    assert "2 rows are not" in message and ("1.5" in message or "-0.25" in message)


@pytest.mark.parametrize(
    ("params", "rule"),
    [
        ({"bins": 0}, "parameter 'bins' must be an integer from 1 to 1,000,000, got 0"),
        ({"bins": -3}, "parameter 'bins' must be an integer from 1 to 1,000,000, got -3"),
        ({"bins": 1_000_001}, "parameter 'bins' must be an integer from 1 to 1,000,000, got 1000001"),
        ({"bins": 2.5}, "parameter 'bins' must be an integer from 1 to 1,000,000, got 2.5"),
        ({"strategy": "equal"}, "parameter 'strategy' must be one of 'uniform', 'quantile', got 'equal'"),
        ({"norm": "L1"}, "parameter 'norm' must be one of 'l1', 'l2', 'max', got 'L1'"),
    ],
)
def test_bad_parameters_are_refused(params, rule):
    name = "brier_reliability" if "norm" not in params else "ece"
    with pytest.raises(InvalidParameterError, match="^" + name + ": " + rule.replace("(", r"\(").replace(")", r"\)")):
        sm.evaluate(pl.DataFrame({"score": [0.5], "label": [1]}), [sm.metric(name, **params)])


def test_the_command_line_refuses_bad_scores_and_bins(tmp_path, capsys):
    from sqlmetrics.cli import main

    path = tmp_path / "scores.parquet"
    pl.DataFrame({"score": [0.2, 1.5, 0.5], "label": [0, 1, 1]}).write_parquet(path)
    assert main(["eval", str(path), "-m", "ece"]) != 0
    assert "score column 'score' must be a probability in [0, 1] (for ece): 1 row is not, e.g. 1.5" in (
        capsys.readouterr().err
    )
    assert main(["eval", str(path), "-m", "ece:bins=0"]) != 0
    assert "ece: parameter 'bins' must be an integer from 1 to 1,000,000, got 0" in capsys.readouterr().err


def test_the_command_line_evaluates_them(tmp_path, capsys):
    from sqlmetrics.cli import main

    path = tmp_path / "scores.parquet"
    frame = pl.DataFrame({"score": [0.55, 0.6, 0.6, 0.65, 0.7], "label": [0, 1, 0, 1, 1]})
    frame.write_parquet(path)
    assert main(["eval", str(path), "-m", "ece:bins=10,ne", "--format", "csv"]) == 0
    header, values = capsys.readouterr().out.strip().splitlines()
    row = dict(zip(header.split(","), values.split(",")))
    assert float(row["ece_bins_10"]) == pytest.approx(0.28)  # test_a_score_on_an_edge_falls_in_the_lower_bin
    assert float(row["ne"]) == pytest.approx(sm.evaluate(frame, ["ne"])["ne"].item(), rel=1e-12)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_states_roll_up_to_the_union(engine, strategy):
    """Every one is a function of the score histogram's sums (the bins cut again from the
    merged histogram): the roll-up of daily states is the metric of their union."""
    rng = np.random.default_rng(11)
    n = 400
    frame = pl.DataFrame(
        {
            "day": rng.integers(0, 3, n),
            "country": rng.choice(["de", "fr"], n),
            "score": np.round(rng.uniform(0, 1, n), 2),
            "label": rng.integers(0, 2, n),
            "weight": rng.choice([0.0, 0.5, 2.0], n),
        }
    )
    binned = {"bins": 7, "strategy": strategy}
    calls = [sm.metric(name, **(binned if sm.registry()[name].params else {})) for name in NEW_METRICS]
    days = [frame.filter(pl.col("day") == day) for day in range(3)]
    states = [sm.state(part, calls, weight="weight", by="country", engine=engine) for part in days]
    rolled = sm.rollup(states, by="country")
    whole = sm.evaluate(frame, calls, weight="weight", by="country", engine=engine)
    pl.testing.assert_frame_equal(rolled, whole, rel_tol=1e-9, abs_tol=1e-12)
