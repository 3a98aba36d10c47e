"""How often sqlmetrics' 95% intervals cover a known population value.

    python benchmarks/interval_coverage.py [--runs 1000] [--engine duckdb]

Each study draws ``runs`` data sets (seeds 0..runs-1) whose population value is known
and counts the intervals that contain it; a correct 95% interval covers it about 95% of
the time (with 1,000 runs, 93.6–96.4% is within two binomial standard errors). The
result is the table in docs/intervals.md. Never part of the test suite (the fast tier
runs a 300-run version of two studies in tests/test_intervals.py).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from statistics import NormalDist

import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this work tree's sqlmetrics, not an installed one
import sqlmetrics as sm  # noqa: E402

Draw = Callable[[np.random.Generator], pl.DataFrame]


def binormal(rows: int, share: float, mu: float, decimals: int | None = None) -> Draw:
    """Negatives' scores N(0, 1), positives' N(mu, 1): AUC = Φ(mu/√2); rounded scores tie."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        labels = rng.random(rows) < share
        scores = rng.normal(labels * mu, 1.0)
        if decimals is not None:
            scores = np.round(scores, decimals)
        return pl.DataFrame({"label": labels.astype(int), "score": scores})

    return draw


def grouped_binormal(queries: int, rows: int, mu: float) -> Draw:
    """``queries`` users of ``rows`` impressions each, binormal within each: every
    user's AUC, so GAUC under any weighting, is Φ(mu/√2)."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        labels = rng.random(queries * rows) < 0.3
        query = np.repeat(np.arange(queries), rows)
        return pl.DataFrame({"query": query, "label": labels.astype(int), "score": rng.normal(labels * mu)})

    return draw


def one_relevant(queries: int, length: int) -> Draw:
    """Each list holds one relevant item at a uniformly random position of ``length``:
    MRR = H(length)/length, NDCG = mean of 1/log2(p + 1)."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        positions = rng.integers(0, length, queries)
        labels = np.zeros((queries, length), int)
        labels[np.arange(queries), positions] = 1
        scores = np.tile(np.arange(length, 0, -1, dtype=float), queries)
        return pl.DataFrame({"query": np.repeat(np.arange(queries), length), "label": labels.ravel(), "score": scores})

    return draw


def regression(rows: int, error_sd: float = 1.0) -> Draw:
    """Targets N(0, 1) predicted with an error e ~ N(0, σ²), σ = ``error_sd``: MAE = E|e| =
    σ·√(2/π), MSE = σ², mean error 0, R² = 1 − E[e²]/Var(y) = 1 − σ²."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        target = rng.normal(size=rows)
        return pl.DataFrame({"label": target, "score": target + rng.normal(scale=error_sd, size=rows)})

    return draw


def arms(rows: int, share: float, mus: tuple[float, float]) -> Draw:
    """Two arms of ``rows`` rows each (arm 1 the baseline), binormal with μ = mus[0] and
    mus[1]: the AUC difference Φ(μ₂/√2) − Φ(μ₁/√2)."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        frames = [binormal(rows, share, mu)(rng).with_columns(arm=pl.lit(arm)) for arm, mu in enumerate(mus, 1)]
        return pl.concat(frames)

    return draw


def paired_binormal(rows: int, share: float) -> Draw:
    """Score ``a`` binormal with μ = 1 (AUC Φ(1/√2)); score ``b`` = a/2 + e, e ~ N(0.8·label,
    0.8): binormal with δ = 1.3 and sd √0.89, so AUC_b = Φ(1.3/√(2·0.89)); the two are
    correlated through a, as two versions of a model are."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        labels = rng.random(rows) < share
        a = rng.normal(labels * 1.0, 1.0)
        b = a / 2 + rng.normal(labels * 0.8, 0.8)
        return pl.DataFrame({"label": labels.astype(int), "a": a, "b": b})

    return draw


def paired_one_relevant(queries: int, length: int) -> Draw:
    """Each list's one relevant item at a uniform position p of ``length`` under ``a``, and
    under ``b`` one place higher (when p > 1) with probability 1/2: the MRR difference is
    E[1/(p − 1) − 1/p; p > 1] / 2."""

    def positions_to_scores(relevant: np.ndarray) -> np.ndarray:
        """Scores putting item 0 of each list at position ``relevant`` (1-based), the others in order."""
        scores = np.empty((queries, length))
        for q, p in enumerate(relevant):
            order = [i for i in range(1, length)]
            order.insert(p - 1, 0)
            scores[q, order] = np.arange(length, 0, -1)
        return scores.ravel()

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        p_a = rng.integers(1, length + 1, queries)
        p_b = np.where((p_a > 1) & (rng.random(queries) < 0.5), p_a - 1, p_a)
        labels = np.zeros((queries, length), int)
        labels[:, 0] = 1
        return pl.DataFrame(
            {
                "query": np.repeat(np.arange(queries), length),
                "label": labels.ravel(),
                "a": positions_to_scores(p_a),
                "b": positions_to_scores(p_b),
            }
        )

    return draw


def paired_probabilities(rows: int) -> Draw:
    """Labels Bernoulli(0.4); score ``a`` = 0.4 + e, ``b`` = (0.6 for a positive, 0.3 for a
    negative) + e', e and e' ~ U(−0.1, 0.1): brier_a = 0.24 + 1/300, brier_b = 0.4·0.16
    + 0.6·0.09 + 1/300, so brier_b − brier_a = −0.122."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        labels = (rng.random(rows) < 0.4).astype(int)
        a = 0.4 + rng.uniform(-0.1, 0.1, rows)
        b = np.where(labels == 1, 0.6, 0.3) + rng.uniform(-0.1, 0.1, rows)
        return pl.DataFrame({"label": labels, "a": a, "b": b})

    return draw


def paired_regression(rows: int) -> Draw:
    """Targets N(0, 1) predicted by ``a`` with an error N(0, 1) and by ``b`` with an
    independent error N(0, 0.5²): MSE_b − MSE_a = 0.25 − 1 = −0.75, R²_b − R²_a = 0.75."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        target = rng.normal(size=rows)
        a, b = target + rng.normal(size=rows), target + rng.normal(scale=0.5, size=rows)
        return pl.DataFrame({"label": target, "a": a, "b": b})

    return draw


def users(count: int, rows: int, mu: float = 1.0) -> Draw:
    """``count`` users of ``rows`` impressions each: every user has an effect b ~ N(0, 1)
    on its scores, s = b + mu·y + e (e ~ N(0, 1), labels 40% positive), and its own
    click rate p ~ Beta(2, 3) (mean 0.4) with ``probability``, a score p whose labels are
    Bernoulli(p): rows of a user are correlated, users independent. AUC = Φ(mu/2) (a
    positive and a negative of any users: N(mu, 4)); E[probability]/E[label] = 1."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        user = np.repeat(np.arange(count), rows)
        effect, rate = rng.normal(0, 1, count)[user], rng.beta(2, 3, count)[user]
        labels = rng.random(count * rows) < 0.4
        return pl.DataFrame(
            {
                "user": user,
                "label": labels.astype(int),
                "score": effect + mu * labels + rng.normal(0, 1, count * rows),
                "clicked": (rng.random(count * rows) < rate).astype(int),
                "probability": rate,
            }
        )

    return draw


def user_classes(count: int, rows: int) -> Draw:
    """``count`` users of ``rows`` rows: labels uniform over three classes, each user's
    rows predicted right with its own probability p ~ Beta(6, 4) (else one of the two
    other classes at random), and regression targets N(0, 1) predicted with the user's
    own bias b ~ N(0, 0.3²) plus an error N(0, 0.4²): accuracy E[p] = 0.6, R² = 1 −
    (0.3² + 0.4²) = 0.75; the rows of a user are correlated through p and b."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        user = np.repeat(np.arange(count), rows)
        right, bias = rng.beta(6, 4, count)[user], rng.normal(0, 0.3, count)[user]
        label = rng.integers(0, 3, count * rows)
        wrong = (label + rng.integers(1, 3, count * rows)) % 3
        target = rng.normal(0, 1, count * rows)
        return pl.DataFrame(
            {
                "user": user,
                "label": label,
                "prediction": np.where(rng.random(count * rows) < right, label, wrong),
                "target": target,
                "estimate": target + bias + rng.normal(0, 0.4, count * rows),
            }
        )

    return draw


def confusion_at_half(share: float, mu: float) -> tuple[float, float, float, float]:
    """The population shares (tp, fp, tn, fn) of binormal scores cut at 0.5: a positive,
    N(mu, 1), is predicted positive with probability Φ(mu − 0.5), a negative, N(0, 1),
    with 1 − Φ(0.5)."""
    phi = NormalDist().cdf
    tpr, fpr = phi(mu - 0.5), 1 - phi(0.5)
    return share * tpr, (1 - share) * fpr, (1 - share) * (1 - fpr), share * (1 - tpr)


def three_classes(rows: int) -> Draw:
    """Labels uniform over three classes, each predicted right with probability 0.6 and
    otherwise uniformly at random: p_o = 0.6 + 0.4/3, p_e = 1/3, so κ = 0.6."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        label = rng.integers(0, 3, rows)
        prediction = np.where(rng.random(rows) < 0.6, label, rng.integers(0, 3, rows))
        return pl.DataFrame({"label": label, "prediction": prediction})

    return draw


PRIORS = (0.5, 0.3, 0.2)  # the three classes' shares in class_studies


def skewed_classes(rows: int) -> Draw:
    """Labels 0, 1, 2 with the shares ``PRIORS``, each predicted right with probability 0.6
    and otherwise uniformly at random: the confusion matrix's cell probabilities are
    P_ij = π_i·(0.6·[i = j] + 0.4/3)."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        label = rng.choice(3, rows, p=PRIORS)
        prediction = np.where(rng.random(rows) < 0.6, label, rng.integers(0, 3, rows))
        return pl.DataFrame({"label": label, "prediction": prediction})

    return draw


def class_population_value(call: sm.MetricCall) -> float:
    """The metric's population value under ``skewed_classes``: the metric of the nine
    cells weighted by their probabilities P_ij (every metric here is a function of the
    cells' shares), scikit-learn's metric as the reference tests take it."""
    from sklearn import metrics as skm

    truth, predicted = np.divmod(np.arange(9), 3)
    cells = np.array([PRIORS[i] * (0.6 * (i == j) + 0.4 / 3) for i, j in zip(truth, predicted)])
    kwargs = call.kwargs
    sklearn_metrics = {
        "multiclass_accuracy": skm.accuracy_score,
        "multiclass_precision": skm.precision_score,
        "multiclass_recall": skm.recall_score,
        "multiclass_f1": skm.f1_score,
        "multiclass_fbeta": skm.fbeta_score,
        "multiclass_balanced_accuracy": skm.balanced_accuracy_score,
        "multiclass_mcc": skm.matthews_corrcoef,
    }
    return float(sklearn_metrics[call.spec.name](truth, predicted, sample_weight=cells, **kwargs))


def class_studies() -> list[tuple[str, sm.MetricCall, float, Draw, dict]]:
    """The delta method over the confusion matrix, one study per multi-class metric
    family (and average), 300 rows of three classes of shares 0.5, 0.3, 0.2 (the same
    data sets for all: ``joint_coverage`` evaluates them in one call per run)."""
    calls = [
        sm.metric("multiclass_accuracy"),
        sm.metric("multiclass_precision", average="macro"),
        sm.metric("multiclass_precision", average="weighted"),
        sm.metric("multiclass_balanced_accuracy"),
        sm.metric("multiclass_f1", average="macro"),
        sm.metric("multiclass_fbeta", beta=2.0, average="weighted"),
        sm.metric("multiclass_mcc"),
    ]
    draw, roles = skewed_classes(300), {"prediction": "prediction"}
    return [
        (f"{call!r}, 300 rows, 3 classes of 50/30/20%", call, class_population_value(call), draw, roles)
        for call in calls
    ]


def delta_studies() -> list[tuple[str, str, float, Draw, dict]]:
    """The delta method's intervals: metrics of the confusion counts, calibration
    (E[score] / E[label] = 0.4·μ / 0.4 = μ for binormal scores), κ and r2."""
    tp, fp, tn, fn = confusion_at_half(0.4, 1.0)
    f1 = 2 * tp / (2 * tp + fp + fn)
    f2 = 5 * tp / (5 * tp + 4 * fn + fp)
    mcc = (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    balanced = (tp / (tp + fn) + tn / (tn + fp)) / 2
    draw = binormal(300, 0.4, 1.0)
    return [
        ("f1, 300 rows, μ = 1, threshold 0.5", "f1", f1, draw, {}),
        ("fbeta (β = 2), 300 rows, μ = 1, threshold 0.5", sm.metric("fbeta", beta=2.0), f2, draw, {}),
        ("mcc, 300 rows, μ = 1, threshold 0.5", "mcc", mcc, draw, {}),
        ("balanced_accuracy, 300 rows, μ = 1, threshold 0.5", "balanced_accuracy", balanced, draw, {}),
        ("calibration, 300 rows, μ = 1", "calibration", 1.0, draw, {}),
        ("calibration, 60 rows, 20% positives, μ = 1", "calibration", 1.0, binormal(60, 0.2, 1.0), {}),
        ("cohen_kappa, 200 rows, 3 classes", "cohen_kappa", 0.6, three_classes(200), {"prediction": "prediction"}),
        ("r2, 200 rows, errors N(0, 0.5²)", "r2", 0.75, regression(200, 0.5), {}),
    ]


def bootstrap_studies() -> list[tuple[str, str, float, Draw, dict]]:
    """The bootstrap's percentile interval of metrics with a known population value."""
    auc = NormalDist().cdf(1 / math.sqrt(2))
    return [
        ("auc, 300 rows, 40% positives, μ = 1: bootstrap of rows", "auc", auc, binormal(300, 0.4, 1.0), {}),
        (
            "gauc, 50 users × 20 rows, μ = 1: bootstrap of users",
            "gauc",
            auc,
            grouped_binormal(50, 20, 1.0),
            {"query": "query", "ci_unit": "query"},
        ),
    ]


def paired_studies() -> list[tuple[str, str, float, Draw, dict]]:
    auc_a, auc_b = NormalDist().cdf(1 / math.sqrt(2)), NormalDist().cdf(1.3 / math.sqrt(2 * 0.89))
    mrr = sum(1 / (p - 1) - 1 / p for p in range(2, 6)) / 5 / 2
    return [
        ("paired auc, 300 rows, 40% positives", "auc", auc_b - auc_a, paired_binormal(300, 0.4), {}),
        ("paired auc, 80 rows, 20% positives", "auc", auc_b - auc_a, paired_binormal(80, 0.2), {}),
        ("paired mrr, 40 lists of 5", "mrr", mrr, paired_one_relevant(40, 5), {"query": "query"}),
        ("paired brier, 300 rows", "brier", -0.122, paired_probabilities(300), {}),
        ("paired mse, 200 rows, errors N(0, 1) and N(0, 0.5²)", "mse", -0.75, paired_regression(200), {}),
        ("paired r2, 200 rows, errors N(0, 1) and N(0, 0.5²)", "r2", 0.75, paired_regression(200), {}),
    ]


def user_requests(count: int, requests: int, rows: int) -> Draw:
    """``count`` users of ``requests`` requests of ``rows`` impressions each: every user
    separates its clicks by its own μ_u ~ N(1, 0.5²), s = μ_u·y + e (e ~ N(0, 1), labels
    30% positive), so a user's requests have correlated AUCs. A request's AUC has mean
    Φ(μ_u/√2) whatever its composition, so GAUC (equal requests) is
    E[Φ(μ_u/√2)] = Φ((1/√2)/√(1 + 0.5²/2))."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        n = count * requests * rows
        user = np.repeat(np.arange(count), requests * rows)
        labels = rng.random(n) < 0.3
        separation = rng.normal(1.0, 0.5, count)[user]
        return pl.DataFrame(
            {
                "user": user,
                "request": np.repeat(np.arange(count * requests), rows),
                "label": labels.astype(int),
                "score": separation * labels + rng.normal(0, 1, n),
            }
        )

    return draw


def clustered_studies() -> list[tuple[str, str, float, Draw, dict]]:
    """Intervals clustered by user (``ci_unit``) on users whose rows are correlated; each
    also without ``ci_unit``, whose interval takes the rows as independent."""
    draw, phi = users(60, 10), NormalDist().cdf
    # at threshold 0.5 a positive (s ~ N(1, 2)) is predicted 1 with probability Φ(0.5/√2),
    # a negative (N(0, 2)) with Φ(−0.5/√2)
    recall, fallout = phi(0.5 / math.sqrt(2)), phi(-0.5 / math.sqrt(2))
    tp, fp, fn = 0.4 * recall, 0.6 * fallout, 0.4 * (1 - recall)
    clicks = {"label": "clicked", "score": "probability"}
    classes, regression = {"prediction": "prediction"}, {"label": "target", "score": "estimate"}
    grouped = [
        (f"{name}, 60 users × 10 rows{how}", metric, truth, user_classes(60, 10), {**roles, **unit})
        for name, metric, truth, roles in (
            ("multiclass accuracy (each user right with p ~ Beta(6, 4))", "multiclass_accuracy", 0.6, classes),
            ("r2 (each user's bias N(0, 0.3²))", "r2", 0.75, regression),
        )
        for how, unit in ((": clustered by user", {"ci_unit": "user"}), (": rows as independent", {}))
    ]
    gauc = phi((1 / math.sqrt(2)) / math.sqrt(1 + 0.25 / 2))
    requests = [
        (f"gauc of requests, 60 users × 5 requests × 6 rows{how}", "gauc", gauc, user_requests(60, 5, 6), roles)
        for how, roles in (
            (": clustered by user", {"query": "request", "ci_unit": "user"}),
            (": requests as independent (t)", {"query": "request"}),
        )
    ]
    correlated = [
        (f"{name}, 60 users × 10 rows{how}", metric, truth, draw, {**roles, **unit})
        for name, metric, truth, roles in (
            ("auc", "auc", phi(0.5), {}),
            ("f1", "f1", 2 * tp / (2 * tp + fp + fn), {}),
            ("label_mean (click rate Beta(2, 3))", "label_mean", 0.4, clicks),
            ("calibration (click rate Beta(2, 3))", "calibration", 1.0, clicks),
        )
        for how, unit in ((": clustered by user", {"ci_unit": "user"}), (": rows as independent", {}))
    ]
    return grouped + correlated + requests


def paired_users(count: int, rows: int) -> Draw:
    """``count`` users of ``rows`` rows, two scores of each row correlated within a user:
    labels 40% positive; ``a`` = μ_u·y + e (μ_u ~ N(1, 0.5²), e ~ N(0, 1)) and
    ``b`` = a/2 + 0.8·y + e' (e' ~ N(0, 0.8²)), so a positive's margin over a negative is
    N(1, 2.25) under a and N(1.3, 1.78 + 0.0625) under b: AUC_b − AUC_a =
    Φ(1.3/√1.8425) − Φ(1/1.5); and ``c`` = b + d_u + e'' (d_u ~ N(0.1, 0.1²), e'' ~ N(0,
    0.05²)), whose mean exceeds b's by 0.1, the difference shared within a user."""

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        n = count * rows
        user = np.repeat(np.arange(count), rows)
        labels = rng.random(n) < 0.4
        a = rng.normal(1.0, 0.5, count)[user] * labels + rng.normal(0, 1, n)
        b = a / 2 + rng.normal(labels * 0.8, 0.8)
        c = b + rng.normal(0.1, 0.1, count)[user] + rng.normal(0, 0.05, n)
        return pl.DataFrame({"user": user, "label": labels.astype(int), "a": a, "b": b, "c": c})

    return draw


def clustered_paired_studies() -> list[tuple[str, str, float, Draw, dict]]:
    """Paired comparisons clustered by user (``ci_unit``) on users whose differences are
    correlated; each also without ``ci_unit`` (the rows as independent)."""
    phi, draw = NormalDist().cdf, paired_users(60, 10)
    auc = phi(1.3 / math.sqrt(1.8425)) - phi(1 / 1.5)
    return [
        (f"paired {metric}, 60 users × 10 rows{how}", metric, truth, draw, {**roles, **unit})
        for metric, truth, roles in (("auc", auc, {}), ("score_mean", 0.1, {"scores": ("b", "c")}))
        for how, unit in ((": clustered by user", {"ci_unit": "user"}), (": rows as independent", {}))
    ]


def studies() -> list[tuple[str, str, float, Draw, dict]]:
    auc = NormalDist().cdf(1 / math.sqrt(2))
    mrr = sum(1 / p for p in range(1, 6)) / 5
    ndcg = sum(1 / math.log2(p + 1) for p in range(1, 6)) / 5
    return [
        ("auc, 300 rows, 40% positives, μ = 1", "auc", auc, binormal(300, 0.4, 1.0), {}),
        ("auc, 60 rows, 20% positives, μ = 1", "auc", auc, binormal(60, 0.2, 1.0), {}),
        ("auc, 300 rows, scores rounded to 1 decimal (ties)", "auc", auc, binormal(300, 0.4, 1.0, 1), {}),
        ("gauc, 50 users × 20 rows, μ = 1", "gauc", auc, grouped_binormal(50, 20, 1.0), {"query": "query"}),
        ("mrr, 40 lists of 5, one relevant item", "mrr", mrr, one_relevant(40, 5), {"query": "query"}),
        ("ndcg, 15 lists of 5, one relevant item", "ndcg", ndcg, one_relevant(15, 5), {"query": "query"}),
        # N(1, 1) against N(0, 1) cut at 0.5: each class is right with probability Φ(0.5)
        ("accuracy, 300 rows, μ = 1, threshold 0.5", "accuracy", NormalDist().cdf(0.5), binormal(300, 0.4, 1.0), {}),
        ("label_mean, 300 rows, 40% positives", "label_mean", 0.4, binormal(300, 0.4, 1.0), {}),
        ("mae, 200 rows, errors N(0, 1)", "mae", math.sqrt(2 / math.pi), regression(200), {}),
        ("mse, 200 rows, errors N(0, 1)", "mse", 1.0, regression(200), {}),
    ]


def arms_studies() -> list[tuple[str, str, float, Draw, dict]]:
    """sm.compare of independent arms: the difference of the two estimates, se² = se₁² + se₂²."""
    phi = NormalDist().cdf
    truth = phi(1.3 / math.sqrt(2)) - phi(1 / math.sqrt(2))
    return [
        ("auc of two arms of 300 rows, μ = 1 and 1.3", "auc", truth, arms(300, 0.4, (1.0, 1.3)), {}),
        (
            "auc of two arms of 300 rows, μ = 1 and 1.3: bootstrap of rows",
            "auc",
            truth,
            arms(300, 0.4, (1.0, 1.3)),
            {"ci_method": "bootstrap"},
        ),
    ]


def coverage(metric, truth: float, draw: Draw, runs: int, engine: str, **roles) -> tuple[float, float]:
    covered, widths, column = 0, [], sm.metric(metric).column if isinstance(metric, str) else metric.column
    for seed in range(runs):
        frame = draw(np.random.default_rng(seed))
        # the bootstrap's own seed per run: one seed for all would share its Monte Carlo error
        scored = {} if "prediction" in roles or "score" in roles else {"score": "score"}
        row = sm.evaluate(frame, [metric], **scored, ci=0.95, engine=engine, seed=seed, **roles)
        lo, hi = row.row(0, named=True)[f"{column}_lo"], row.row(0, named=True)[f"{column}_hi"]
        covered += lo <= truth <= hi
        widths.append(hi - lo)
    return covered / runs, float(np.mean(widths))


def joint_coverage(studies: list[tuple[str, sm.MetricCall, float, Draw, dict]], runs: int, engine: str) -> list[str]:
    """``coverage`` of studies that share their data sets and roles, all their metrics in
    one call per run: the table's rows."""
    draw, roles, calls = studies[0][3], studies[0][4], [study[1] for study in studies]
    covered, widths = np.zeros(len(calls)), [[] for _ in calls]
    for seed in range(runs):
        row = sm.evaluate(draw(np.random.default_rng(seed)), calls, ci=0.95, engine=engine, **roles).row(0, named=True)
        for index, (_, call, truth, _, _) in enumerate(studies):
            lo, hi = row[f"{call.column}_lo"], row[f"{call.column}_hi"]
            covered[index] += lo <= truth <= hi
            widths[index].append(hi - lo)
    return [
        f"| {name} | {truth:.4f} | {covered[i] / runs:.1%} | {np.mean(widths[i]):.4f} |"
        for i, (name, _, truth, _, _) in enumerate(studies)
    ]


def paired_coverage(metric: str, truth: float, draw: Draw, runs: int, engine: str, **roles) -> tuple[float, float]:
    covered, widths = 0, []
    scores = roles.pop("scores", ("a", "b"))
    for seed in range(runs):
        frame = draw(np.random.default_rng(seed))
        row = sm.compare(frame, [metric], scores=scores, ci=0.95, engine=engine, **roles).row(0, named=True)
        covered += row["delta_lo"] <= truth <= row["delta_hi"]
        widths.append(row["delta_hi"] - row["delta_lo"])
    return covered / runs, float(np.mean(widths))


def arms_coverage(metric: str, truth: float, draw: Draw, runs: int, engine: str, **roles) -> tuple[float, float]:
    covered, widths = 0, []
    for seed in range(runs):
        frame = draw(np.random.default_rng(seed))
        # the bootstrap's own seed per run, as in coverage()
        row = sm.compare(frame, [metric], arm="arm", baseline=1, ci=0.95, ci_unit="rows", engine=engine, seed=seed,
                         **roles)  # each row drawn on its own: the rows are the arms' units
        row = row.row(0, named=True)
        covered += row["delta_lo"] <= truth <= row["delta_hi"]
        widths.append(row["delta_hi"] - row["delta_lo"])
    return covered / runs, float(np.mean(widths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--engine", default="duckdb", choices=("duckdb", "polars"))
    parser.add_argument("--only", default="", help="run only the studies whose name contains this text")
    args = parser.parse_args()
    study = f"study ({args.runs} runs, {args.engine} engine, 95% intervals)"
    print(f"| {study} | population value | coverage | mean width |")
    print("|---|---:|---:|---:|")
    started = time.perf_counter()
    for name, metric, truth, draw, roles in [*studies(), *delta_studies(), *clustered_studies()]:
        if args.only not in name:
            continue
        share, width = coverage(metric, truth, draw, args.runs, args.engine, **roles)
        print(f"| {name} | {truth:.4f} | {share:.1%} | {width:.4f} |", flush=True)
    classes = [study for study in class_studies() if args.only in study[0]]
    if classes:
        print("\n".join(joint_coverage(classes, args.runs, args.engine)), flush=True)
    for name, metric, truth, draw, roles in bootstrap_studies():
        if args.only not in name:
            continue
        share, width = coverage(metric, truth, draw, args.runs, args.engine, ci_method="bootstrap", **roles)
        print(f"| {name} | {truth:.4f} | {share:.1%} | {width:.4f} |", flush=True)
    for name, metric, truth, draw, roles in [*paired_studies(), *clustered_paired_studies()]:
        if args.only not in name:
            continue
        baseline, candidate = roles.get("scores", ("a", "b"))
        share, width = paired_coverage(metric, truth, draw, args.runs, args.engine, **roles)
        difference = f"{name}: the difference {candidate} − {baseline}"
        print(f"| {difference} | {truth:.4f} | {share:.1%} | {width:.4f} |", flush=True)
    for name, metric, truth, draw, roles in arms_studies():
        if args.only not in name:
            continue
        share, width = arms_coverage(metric, truth, draw, args.runs, args.engine, **roles)
        print(f"| {name}: the difference | {truth:.4f} | {share:.1%} | {width:.4f} |", flush=True)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
