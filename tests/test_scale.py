"""The scale tier (small cases prove the formulas, not the program at scale): every
classification, regression, multi-class and off-policy metric and every curve at the sizes users
run, read from Parquet files written by polars, pyarrow and DuckDB, through
``sm.evaluate`` on both engines and through the ``sqlmetrics.polars`` functions, against
independent references to 1e-9.

Two datasets, generated once per session with numpy (nothing is committed):

* ``single``: one slice of 300,000 rows, 150,000 positives and 150,000 negatives
  (P·N = 2.25·10¹⁰ > 2³²), four classes of 75,000 rows, continuous float64 scores;
* ``zipf``: 2,000,000 rows over Zipf-distributed users (the head user has about
  460,000 rows in slice 0, over 200,000 of each class), three slices, once unweighted
  and once with continuous weights.

Products of counts past 2³² are where 32-bit counts (polars ``len()``, boolean
``sum()``) wrapped; both datasets pass that line in one slice. No NaN is written (NaN
in Parquet is another test's business). The metrics are discovered from the registry:
a metric without a reference here fails ``test_every_metric_is_covered``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from sklearn import metrics as skm

import sqlmetrics as sm
import sqlmetrics.polars as smp
from sqlmetrics.registry import resolve

import metric_tests
from test_curves import calibration_reference
from test_multiclass_reference import sklearn_value
from test_one_vs_rest import per_class_reference

pytestmark = pytest.mark.scale

REGISTRY = sm.registry()
FAMILIES = ("classification", "regression", "multiclass")
CLASSES = [0, 1, 2, 3]
CLASS_SCORES = {cls: f"p_{cls}" for cls in CLASSES}
REL = 1e-9

CLASSIFICATION_REFERENCES = metric_tests.references("classification")
REGRESSION_REFERENCES = metric_tests.references("regression")
# gauc (a metric that needs a query) is checked by its own vectorised reference below.
GROUPED = {name for name, spec in REGISTRY.items() if spec.family == "classification" and "query" in spec.needs}
ONE_VS_REST = {name for name, spec in REGISTRY.items() if "class_scores" in spec.needs}
# Every metric of the three families runs in the tier, its reference found by
# tests/metric_tests.py (which fails on a metric without one); a name here needs its reason.
EXCLUDED: dict[str, str] = {}


def family_names(family: str) -> list[str]:
    return sorted(name for name, spec in REGISTRY.items() if spec.family == family)


def with_averages(name: str) -> list[sm.MetricCall]:
    """The metric at its defaults, and at every other average it accepts."""
    averages = next((p.choices for p in REGISTRY[name].params if p.name == "average"), ())
    default = sm.metric(name)
    return [default, *(sm.metric(name, average=a) for a in averages if a != default.kwargs["average"])]


BINARY_CALLS = resolve([n for n in family_names("classification") if n not in EXCLUDED])
REGRESSION_CALLS = resolve([n for n in family_names("regression") if n not in EXCLUDED])
OFF_POLICY_CALLS = [
    *resolve([n for n in family_names("off_policy") if n not in EXCLUDED]),
    sm.clipped_ips(cap=3), sm.switch_dr(cap=3), sm.dr_os(shrinkage=5),
]  # fmt: skip
OFF_POLICY_ROLES = dict(
    label="label", propensity="p_logged", target_propensity="p_target",
    reward_model="q_logged", target_reward_model="q_target",
)  # fmt: skip
CLASS_CALLS = resolve(
    [c for n in family_names("multiclass") if n not in ONE_VS_REST | EXCLUDED.keys() for c in with_averages(n)]
)
OVR_CALLS = resolve([c for n in sorted(ONE_VS_REST - EXCLUDED.keys()) for c in with_averages(n)])


# --- data -----------------------------------------------------------------------------


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def frame_columns(rng: np.random.Generator, label: np.ndarray, user_effect: np.ndarray, true_class: np.ndarray):
    """Scores, regression columns, classes and class scores of n rows (all float64 or int64)."""
    n = len(label)
    score = sigmoid(user_effect + 1.4 * (label - 0.5) + rng.normal(0, 1, n))
    target = rng.normal(5, 3, n)
    target[rng.random(n) < 0.01] = 0.0  # zero targets: mape leaves them out and counts them
    estimate = target + rng.normal(0, 1, n)
    predicted = np.where(rng.random(n) < 0.6, true_class, rng.integers(0, len(CLASSES), n))
    logits = rng.normal(0, 1, (n, len(CLASSES)))
    logits[np.arange(n), true_class] += 1.0
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return {
        "label": label.astype(np.int64),
        "score": score,
        "target": target,
        "estimate": estimate,
        "true_class": true_class.astype(np.int64),
        "predicted_class": predicted.astype(np.int64),
        **{column: probabilities[:, cls] for cls, column in CLASS_SCORES.items()},
        "weight": rng.uniform(0.5, 2.0, n),
        **off_policy_columns(rng, score),
    }


def off_policy_columns(rng: np.random.Generator, score: np.ndarray) -> dict[str, np.ndarray]:
    """A logged policy's propensity of each row's action (round values and continuous ones,
    1 included), a target policy's (an eighth exactly 0), and the reward models' values: the
    label is the reward; importance weights run from 0 to 50, past the caps and on them.
    Drawn after the other columns, so that they are the same rows as before."""
    n = len(score)
    logged = np.where(rng.random(n) < 0.5, rng.choice([0.02, 0.1, 0.25, 0.5, 1.0], n), rng.uniform(0.02, 1.0, n))
    # round target propensities put weights exactly on the caps (0.75 / 0.25 = 3, 1 / 0.1 = 10)
    target = np.where(rng.random(n) < 0.5, rng.choice([0.0, 0.5, 0.75, 1.0], n), rng.uniform(0.0, 1.0, n))
    return {
        "p_logged": logged,
        "p_target": target,
        "q_logged": np.clip(score + rng.normal(0, 0.1, n), 0.0, 1.0),
        "q_target": rng.uniform(0.0, 1.0, n),
    }


def single_frame() -> pl.DataFrame:
    """300,000 rows of one query: exactly 150,000 of each label, 75,000 of each class."""
    rng = np.random.default_rng(20261123)
    n = 300_000
    label = rng.permutation(np.repeat([0, 1], n // 2))
    true_class = rng.permutation(np.repeat(CLASSES, n // len(CLASSES)))
    columns = frame_columns(rng, label, np.zeros(n), true_class)
    return pl.DataFrame({"user": np.zeros(n, dtype=np.int64), **columns})


def zipf_frame() -> pl.DataFrame:
    """2,000,000 rows over Zipf(1.5) users (user 1 holds about 38% of them), in three
    slices of 60%, 30% and 10% of the rows."""
    rng = np.random.default_rng(5)
    n = 2_000_000
    user = np.minimum(rng.zipf(1.5, n), 10**9).astype(np.int64)
    effects = rng.normal(0, 1, 4096)
    label = (rng.random(n) < 0.45).astype(np.int64)
    true_class = rng.choice(CLASSES, n, p=[0.4, 0.3, 0.2, 0.1])
    columns = frame_columns(rng, label, effects[user % 4096], true_class)
    return pl.DataFrame({"slice": rng.choice([0, 1, 2], n, p=[0.6, 0.3, 0.1]), "user": user, **columns})


def write_parquet_directory(frame: pl.DataFrame, directory: Path) -> str:
    """The frame in three files, written by polars, pyarrow and DuckDB: the directory."""
    directory.mkdir()
    third = frame.height // 3
    first, second, last = frame.slice(0, third), frame.slice(third, third), frame.slice(2 * third)
    first.write_parquet(directory / "polars.parquet")
    pq.write_table(second.to_arrow(), directory / "pyarrow.parquet")
    with duckdb.connect() as con:
        con.register("last_part", last.to_arrow())
        con.execute(f"COPY last_part TO '{directory / 'duckdb.parquet'}' (FORMAT parquet)")
    return str(directory)


def write_partitioned_directory(frame: pl.DataFrame, directory: Path) -> str:
    """The frame partitioned by ``slice`` as impressions logs are stored (``slice=0/``
    written by polars, ``slice=1/`` by pyarrow, ``slice=2/`` by DuckDB), with a failed
    attempt's leftovers that a reader must skip (a ``_temporary`` copy, a hidden part)."""
    parts = {value: frame.filter(pl.col("slice") == value) for value in (0, 1, 2)}
    parts[0].write_parquet(directory, partition_by="slice")  # polars keeps the key in its files too
    pq.write_to_dataset(parts[1].to_arrow(), directory, partition_cols=["slice"])
    staging = directory.with_name(f"{directory.name}_duckdb")
    with duckdb.connect() as con:
        con.register("last_part", parts[2].to_arrow())
        con.execute(f"COPY last_part TO '{staging}' (FORMAT parquet, PARTITION_BY (slice))")
    (staging / "slice=2").rename(directory / "slice=2")
    leftover = directory / "_temporary" / "0" / "_temporary" / "attempt_1"
    leftover.mkdir(parents=True)
    parts[1].write_parquet(leftover / "part-00000.parquet")
    parts[2].write_parquet(directory / "slice=2" / ".part-00001.parquet")
    return str(directory)


@dataclass
class Case:
    """A dataset on disk and in memory, how it is sliced, and whether it is weighted."""

    name: str
    frame: pl.DataFrame
    path: str
    by: str | None
    weighted: bool

    @property
    def weight(self) -> str | None:
        return "weight" if self.weighted else None

    @property
    def slices(self) -> list:
        return [None] if self.by is None else sorted(self.frame[self.by].unique().to_list())

    def rows(self, value) -> pl.DataFrame:
        return self.frame if self.by is None else self.frame.filter(pl.col(self.by) == value)

    def w(self, rows: pl.DataFrame) -> np.ndarray:
        return rows["weight"].to_numpy() if self.weighted else np.ones(rows.height)

    def scan(self) -> pl.LazyFrame:
        """The files as ``sqlmetrics.polars`` users read them (partition folders as columns)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sm.SkippedFilesWarning)  # the partitioned case's leftovers
            return smp.scan_parquet(self.path)


CASES = {
    "single": ("single", None, False),
    "zipf": ("zipf", "slice", False),
    "zipf_weighted": ("zipf", "slice", True),
    "zipf_partitioned": ("zipf_partitioned", "slice", False),
}
ALL = ("classification", "regression", "multiclass", "one_vs_rest", "curves", "off_policy")
# What each case runs. The tier's budget (3–4 minutes on a 2-core machine) does not
# hold every family three times over 2M rows, so:
# * unweighted zipf is there for the unweighted (rank-sum) gauc and auc over Zipf users, a
#   head user with >100k rows of each class; it runs classification and regression only;
# * one_vs_rest runs on single only: over zipf it reads 8M class rows (2M rows × 4 classes),
#   about a minute per engine; single already has 75,000 positives × 225,000 negatives
#   per class (past 2³²), and the one-vs-rest weights are Float64 whether weighted or not.
# * zipf_partitioned is zipf in slice=<value>/ folders written by three writers (the slice
#   a partition column on every engine and in smp.scan_parquet), with leftovers to skip;
#   it runs classification (its references are zipf's: the same rows, computed once).
# * off_policy runs on single (propensity 1 and round weights over one slice) and on
#   weighted zipf (2M rows in three slices, row weights); its references are numpy's.
PLAN = {
    "single": ALL,
    "zipf": ("classification", "regression"),
    "zipf_weighted": ("classification", "regression", "multiclass", "curves", "off_policy"),
    "zipf_partitioned": ("classification",),
}


def cases_running(family: str) -> list[str]:
    return [case for case, families in PLAN.items() if family in families]


@pytest.fixture(scope="session")
def datasets(tmp_path_factory) -> dict[str, tuple[pl.DataFrame, str]]:
    root = tmp_path_factory.mktemp("scale")
    frames = {"single": single_frame(), "zipf": zipf_frame()}
    written = {name: (frame, write_parquet_directory(frame, root / name)) for name, frame in frames.items()}
    return written | {"zipf_partitioned": (frames["zipf"], write_partitioned_directory(frames["zipf"], root / "hive"))}


@pytest.fixture(scope="session")
def cases(datasets) -> dict[str, Case]:
    return {case: Case(case, *datasets[data], by=by, weighted=weighted) for case, (data, by, weighted) in CASES.items()}


@pytest.fixture
def case(request, cases) -> Case:
    return cases[request.param]


def test_datasets_pass_the_32_bit_line(cases):
    """The tier tests what it claims: one slice has P·N > 2³², the head user of zipf has
    over 100,000 rows of each class, and scores are almost all distinct."""
    single = cases["single"].frame
    positives = int(single["label"].sum())
    assert positives * (single.height - positives) > 2**32
    per_user = cases["zipf"].frame.group_by("slice", "user").agg(pos=pl.col("label").sum(), n=pl.len())
    head = per_user.sort("n", descending=True).row(0, named=True)
    assert head["pos"] >= 100_000 and head["n"] - head["pos"] >= 100_000
    for case in ("single", "zipf"):
        frame = cases[case].frame
        assert frame["score"].n_unique() > 0.999 * frame.height


# --- references -----------------------------------------------------------------------


def close(actual, expected, what: str) -> None:
    if expected is None:
        assert actual is None, f"{what}: {actual}, expected NULL"
    else:
        assert actual is not None and math.isclose(actual, expected, rel_tol=REL, abs_tol=REL), (
            f"{what}: {actual}, expected {expected}"
        )


def grouped_auc(group: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray) -> tuple[dict[int, tuple], int]:
    """Per group with both classes, its tie-correct weighted AUC and weight W⁺ + W⁻; and
    the number of groups. AUC_g =
    Σ over its tie blocks b of W⁺_b·(W⁻ below b + W⁻_b/2) / (W⁺·W⁻), vectorised: one
    sort by (group, score), running sums in long double, each group's start subtracted."""
    order = np.lexsort((s, group))
    g, s, y, w = group[order], s[order], y[order], w[order]
    new_block = np.ones(len(g), dtype=bool)
    new_block[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    block = np.cumsum(new_block) - 1
    block_group = g[new_block]
    pos = np.bincount(block, weights=w * y).astype(np.longdouble)  # bincount sums in float64: exact for w = 1
    neg = np.bincount(block, weights=w * (1 - y)).astype(np.longdouble)
    below = np.cumsum(neg) - neg
    first_of_group = np.ones(len(block_group), dtype=bool)
    first_of_group[1:] = block_group[1:] != block_group[:-1]
    below -= np.repeat(below[first_of_group], np.diff(np.append(np.flatnonzero(first_of_group), len(block_group))))
    credit = pos * (below + neg / 2)
    groups, index = np.unique(block_group, return_inverse=True)
    sums = [np.zeros(len(groups), dtype=np.longdouble) for _ in range(3)]
    for total, values in zip(sums, (credit, pos, neg)):
        np.add.at(total, index, values)
    credit_sum, w_pos, w_neg = sums
    result = {}
    for i in np.flatnonzero((w_pos > 0) & (w_neg > 0)):
        result[int(groups[i])] = (float(credit_sum[i] / (w_pos[i] * w_neg[i])), float(w_pos[i] + w_neg[i]))
    return result, len(groups)


def gauc_reference(user: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray) -> tuple:
    """(gauc, groups, skipped) with impressions weighting; the three largest users' AUCs
    are also checked against scikit-learn's roc_auc_score."""
    aucs, n_groups = grouped_auc(user, y, s, w)
    sizes = np.bincount(np.unique(user, return_inverse=True)[1])
    for head in np.unique(user)[np.argsort(sizes)[::-1][:3]]:
        rows = user == head
        if int(head) in aucs:
            direct = skm.roc_auc_score(y[rows], s[rows], sample_weight=w[rows])
            assert math.isclose(aucs[int(head)][0], direct, rel_tol=1e-12), (head, aucs[int(head)][0], direct)
    total = sum(g * auc for auc, g in aucs.values())
    weights = sum(g for _, g in aucs.values())
    return (total / weights if weights else None), len(aucs), n_groups - len(aucs)


def classification_expected(case: Case) -> list[dict]:
    rows = []
    for value in case.slices:
        part = case.rows(value)
        y, s, w = part["label"].to_numpy(), part["score"].to_numpy(), case.w(part)
        row = {
            c.column: CLASSIFICATION_REFERENCES[c.spec.name](y, s, w, **c.kwargs)
            for c in BINARY_CALLS
            if c.spec.name not in GROUPED
        }
        gauc, groups, skipped = gauc_reference(part["user"].to_numpy(), y, s, w)
        rows.append(row | {"gauc": gauc, "gauc_groups": groups, "gauc_skipped": skipped})
    return rows


def regression_expected(case: Case) -> list[dict]:
    rows = []
    for value in case.slices:
        part = case.rows(value)
        y, p, w = part["target"].to_numpy(), part["estimate"].to_numpy(), case.w(part)
        row = {c.column: REGRESSION_REFERENCES[c.spec.name](y, p, w) for c in REGRESSION_CALLS}
        rows.append(row | {"mape_skipped": int((y == 0).sum())})
    return rows


def off_policy_reference(call, r, w, qa, qe, k) -> float:
    """An off-policy metric of (reward, importance weight, q̂ₐ, q̂ₑ, row weight) written out
    in numpy from obp 0.5.7's estimators (docs/metrics.md), the row weight a frequency."""
    name, params, total = call.spec.name, call.kwargs, k.sum()

    def mean(x):
        return (k * x).sum() / total

    if name == "ips":
        return mean(w * r)
    if name == "snips":
        return (k * w * r).sum() / (k * w).sum()
    if name == "clipped_ips":
        return mean(np.minimum(w, params["cap"]) * r)
    if name == "dm":
        return mean(qe)
    if name == "dr":
        return mean(qe + w * (r - qa))
    if name == "sndr":
        return mean(qe) + (k * w * (r - qa)).sum() / (k * w).sum()
    if name == "switch_dr":
        return mean(qe + (w <= params["cap"]) * w * (r - qa))
    if name == "dr_os":
        shrinkage = params["shrinkage"]
        return mean(qe + shrinkage * w / (w * w + shrinkage) * (r - qa))
    if name == "ess":
        return (k * w).sum() ** 2 / (k * w * w).sum()
    if name == "max_weight":
        return w[k > 0].max()
    assert name == "mean_weight", name
    return mean(w)


def off_policy_expected(case: Case) -> list[dict]:
    rows = []
    for value in case.slices:
        part = case.rows(value)
        r, p0, pe, qa, qe = (part[c].to_numpy().astype(float) for c in ("label", *list(OFF_POLICY_ROLES.values())[1:]))
        k = case.w(part)
        rows.append({c.column: off_policy_reference(c, r, pe / p0, qa, qe, k) for c in OFF_POLICY_CALLS})
    return rows


def class_expected(case: Case) -> list[dict]:
    rows = []
    for value in case.slices:
        part = case.rows(value)
        y, p, w = part["true_class"].to_numpy(), part["predicted_class"].to_numpy(), case.w(part)
        rows.append({c.column: sklearn_value(c, y, p, w) for c in CLASS_CALLS})
    return rows


def ovr_expected(case: Case) -> list[dict]:
    """Per slice, each class's scikit-learn value (computed once per metric) averaged as
    each call asks: macro, or weighted by the class's true weight; degenerate classes
    (no positive or no negative weight) are left out and counted."""
    rows = []
    for value in case.slices:
        part = case.rows(value)
        y, w = part["true_class"].to_numpy(), case.w(part)
        scores = part.select(CLASS_SCORES.values()).to_numpy()
        per_class = {name: per_class_reference(name, y, scores, w, CLASSES) for name in sorted(ONE_VS_REST)}
        row = {}
        for call in OVR_CALLS:
            defined = [(v, support) for v, support in per_class[call.spec.name] if v is not None]
            if call.kwargs["average"] == "macro":
                mean = sum(v for v, _ in defined) / len(defined)
            else:
                mean = sum(v * s for v, s in defined) / sum(s for _, s in defined)
            skipped = len(CLASSES) - len(defined)
            row |= {call.column: mean, f"{call.column}_classes": len(defined), f"{call.column}_skipped": skipped}
        rows.append(row)
    return rows


@dataclass(frozen=True)
class Family:
    """How one family is called and what its reference is."""

    calls: list
    roles: dict
    reference: object


FAMILY_FACES = {
    "classification": Family(
        BINARY_CALLS, {"label": "label", "score": "score", "query": "user"}, classification_expected
    ),
    "regression": Family(REGRESSION_CALLS, {"label": "target", "score": "estimate"}, regression_expected),
    "multiclass": Family(CLASS_CALLS, {"label": "true_class", "prediction": "predicted_class"}, class_expected),
    "one_vs_rest": Family(OVR_CALLS, {"label": "true_class", "class_scores": CLASS_SCORES}, ovr_expected),
    "off_policy": Family(OFF_POLICY_CALLS, OFF_POLICY_ROLES, off_policy_expected),
}


def test_every_metric_is_covered():
    """Every registered metric but the ranking ones (tests/test_ranking_scale.py) is called
    by a family's face here, so a new metric fails until it has a reference at scale."""
    covered = {call.spec.name for face in FAMILY_FACES.values() for call in face.calls}
    ranking = {name for name, spec in REGISTRY.items() if spec.family == "ranking"}
    assert "auc" in covered and "ips" in covered  # the walk sees the families' calls
    assert set(REGISTRY) - covered - ranking - EXCLUDED.keys() == set()


@pytest.fixture(scope="session")
def references() -> dict:
    """Reference rows per (case, family), each computed once on first use."""
    return {}


def expected_rows(references: dict, case: Case, family: str) -> list[dict]:
    key = (id(case.frame), case.by, case.weighted, family)  # cases of the same rows share them
    if key not in references:
        references[key] = FAMILY_FACES[family].reference(case)
    return references[key]


def assert_matches(result: pl.DataFrame, expected: list[dict], case: Case, what: str) -> None:
    if case.by is not None:
        assert result[case.by].to_list() == case.slices, what
    assert result.height == len(expected), what
    for slice_value, got, want in zip(case.slices, result.iter_rows(named=True), expected):
        for column, value in want.items():
            close(got[column], value, f"{what}, slice {slice_value}, {column}")


# --- sm.evaluate on both engines --------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "family"),
    [(case, family) for family in FAMILY_FACES for case in cases_running(family)],
    indirect=["case"],
)
def test_evaluate_matches_references(family, case, engine, references):
    face = FAMILY_FACES[family]
    result = sm.evaluate(case.path, face.calls, **face.roles, weight=case.weight, by=case.by, engine=engine)
    used = case.frame.height
    assert result["n_rows"].sum() == used and result["n_excluded"].sum() == 0
    assert_matches(result, expected_rows(references, case, family), case, f"{family} on {engine}")


# --- sqlmetrics.polars ------------------------------------------------------------------


def grouped(lf: pl.LazyFrame, case: Case, exprs: list[pl.Expr]) -> pl.DataFrame:
    query = lf.select(exprs) if case.by is None else lf.group_by(case.by).agg(exprs).sort(case.by)
    return query.collect()


@pytest.mark.parametrize("case", cases_running("classification"), indirect=True)
def test_polars_expressions_match_references(case, references):
    lf, w = case.scan(), case.weight
    expressions = [
        getattr(smp, c.spec.name)("score", "label", w, **c.kwargs).alias(c.column)
        for c in BINARY_CALLS
        if c.spec.is_expression
    ]
    expected = expected_rows(references, case, "classification")
    by = [case.by] if case.by else []
    frames = [grouped(lf, case, expressions)]
    for call in (c for c in BINARY_CALLS if not c.spec.is_expression):  # gauc and the calibration bins' metrics
        roles = {"query": "user"} if call.spec.name in GROUPED else {}
        frame = getattr(smp, call.spec.name)(lf, score="score", label="label", weight=w, by=by, **roles, **call.kwargs)
        frame = frame.collect().sort(by) if by else frame.collect()
        names = [call.column, *(f"{call.column}_{output}" for output in call.spec.outputs)]
        frames.append(value_columns(frame, by, names).drop(by))
    assert_matches(pl.concat(frames, how="horizontal"), expected, case, "classification expressions")
    regression = [
        getattr(smp, c.spec.name)("estimate", "target", w, **c.kwargs).alias(c.column) for c in REGRESSION_CALLS
    ]
    wanted = [
        {c.column: row[c.column] for c in REGRESSION_CALLS} for row in expected_rows(references, case, "regression")
    ]
    assert_matches(grouped(lf, case, regression), wanted, case, "regression expressions")


@pytest.mark.parametrize("case", cases_running("off_policy"), indirect=True)
def test_polars_off_policy_expressions_match_references(case, references):
    roles = {role: column for role, column in OFF_POLICY_ROLES.items() if role != "label"}
    expressions = [
        getattr(smp, c.spec.name)(
            None, "label", case.weight, **{role: roles[role] for role in c.spec.needs if role != "label"}, **c.kwargs
        ).alias(c.column)
        for c in OFF_POLICY_CALLS
    ]
    assert_matches(grouped(case.scan(), case, expressions), expected_rows(references, case, "off_policy"), case,
                   "off-policy expressions")  # fmt: skip


def value_columns(frame: pl.DataFrame, by: list[str], names: list[str]) -> pl.DataFrame:
    """A frame function's result with its value columns (in order) renamed to ``names``."""
    columns = [c for c in frame.columns if c not in by]
    assert len(columns) == len(names), columns
    return frame.rename(dict(zip(columns, names)))


CLASS_FRAME_ROLES = {
    "multiclass": (CLASS_CALLS, {"prediction": "predicted_class"}),
    "one_vs_rest": (OVR_CALLS, {"class_scores": CLASS_SCORES}),
}


@pytest.mark.parametrize(
    ("case", "family"),
    [(case, family) for family in CLASS_FRAME_ROLES for case in cases_running(family)],
    indirect=["case"],
)
def test_polars_class_frame_functions_match_references(case, family, references):
    lf, by = case.scan(), [case.by] if case.by else []
    calls, role = CLASS_FRAME_ROLES[family]
    expected = expected_rows(references, case, family)
    for call in calls:
        names = [call.column, *(f"{call.column}_{out}" for out in call.spec.outputs)]
        frame = getattr(smp, call.spec.name)(lf, label="true_class", weight=case.weight, by=by, **role, **call.kwargs)
        wanted = [{name: row[name] for name in names} for row in expected]
        result = value_columns(frame.collect(), by, names)
        assert_matches(result, wanted, case, f"smp.{call.spec.name} {call.kwargs}")


# --- curves -----------------------------------------------------------------------------


def curve_slices(result: pl.DataFrame, case: Case):
    """(used rows, the result's rows) of each slice, in slice order."""
    if case.by is not None:
        assert result[case.by].unique(maintain_order=True).to_list() == case.slices
    for value in case.slices:
        part = case.rows(value)
        rows = result if case.by is None else result.filter(pl.col(case.by) == value)
        yield part, rows


def assert_arrays(actual: pl.Series, expected: np.ndarray, what: str) -> None:
    assert actual.len() == len(expected), f"{what}: {actual.len()} points, expected {len(expected)}"
    np.testing.assert_allclose(actual.to_numpy(), expected, rtol=REL, atol=REL, err_msg=what)


@pytest.mark.parametrize("case", cases_running("curves"), indirect=True)
def test_roc_and_pr_curves_match_sklearn(case, engine):
    """Every threshold of every slice (zipf: scikit-learn's drop_intermediate points)."""
    drop = case.by is not None
    roles = {"label": "label", "score": "score", "weight": case.weight, "by": case.by, "engine": engine}
    roc = sm.roc_curve(case.path, drop_intermediate=drop, **roles)
    pr = sm.pr_curve(case.path, drop_intermediate=drop, **roles)
    for (part, roc_rows), (_, pr_rows) in zip(curve_slices(roc, case), curve_slices(pr, case)):
        y, s, w = part["label"].to_numpy(), part["score"].to_numpy(), case.w(part)
        fpr, tpr, thresholds = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=drop)
        assert_arrays(roc_rows["threshold"], thresholds, "roc threshold")
        assert_arrays(roc_rows["fpr"], fpr, "fpr")
        assert_arrays(roc_rows["tpr"], tpr, "tpr")
        precision, recall, thresholds = skm.precision_recall_curve(y, s, sample_weight=w, drop_intermediate=drop)
        # scikit-learn ends with the thresholdless point (precision 1, recall 0): first here, at +inf
        assert_arrays(pr_rows["threshold"], np.append(thresholds, np.inf)[::-1], "pr threshold")
        assert_arrays(pr_rows["precision"], precision[::-1], "precision")
        assert_arrays(pr_rows["recall"], recall[::-1], "recall")


@pytest.mark.parametrize("case", cases_running("curves"), indirect=True)
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_curve_matches_sklearn(case, engine, strategy):
    """scikit-learn's calibration_curve (weighted: the same bins' weighted means, numpy)."""
    roles = {"label": "label", "score": "score", "weight": case.weight, "by": case.by, "engine": engine}
    curve = sm.calibration_curve(case.path, bins=10, strategy=strategy, **roles)
    for part, rows in curve_slices(curve, case):
        y, s = part["label"].to_numpy(), part["score"].to_numpy()
        expected = calibration_reference(y, s, case.w(part) if case.weighted else None, 10, strategy)
        columns = ["bin", "mean_score", "observed_rate", "count", *(["weight"] if case.weighted else [])]
        assert rows.height == len(expected)
        for got, want in zip(rows.select(columns).rows(), expected):
            assert got[0] == want[0] and got[3] == want[3], (got, want)
            for a, b in zip(got[1:3] + got[4:], want[1:3] + want[4:]):
                close(a, b, f"calibration {strategy} bin {got[0]}")


# --- intervals ---------------------------------------------------------------------------


def _mean_se(x: np.ndarray) -> float:
    """The standard error of a mean of rows: scipy's sem, written out."""
    return float(np.sqrt(((x - x.mean()) ** 2).sum() / ((len(x) - 1) * len(x))))


@pytest.mark.parametrize("case", ["single"], indirect=True)
def test_intervals_match_references(case, engine):
    """The analytic intervals at scale, from Parquet on disk: DeLong's over one slice of
    75,000 × 225,000 distinct scores (P·N past 2³²) against Sun & Xu's fast DeLong
    (midranks, tests/test_intervals.py), the binomial interval, the means over rows
    of logloss and of the regression errors (rmse through the delta method), and the
    delta method's for f1, mcc (scikit-learn differentiated numerically) and calibration
    (numpy's covariance of the rows)."""
    from scipy import stats
    from test_intervals import fast_delong

    frame = case.frame
    y, s = frame["label"].to_numpy(), frame["score"].to_numpy()
    target, estimate = frame["target"].to_numpy(), frame["estimate"].to_numpy()
    z = stats.norm.ppf(0.975)
    auc, auc_se = fast_delong(s, y)
    eps = np.finfo(float).eps
    p = np.clip(s, eps, 1 - eps)
    logloss = -np.where(y == 1, np.log(p), np.log(1 - p))
    correct = (y == (s >= 0.5)).astype(float)
    error = estimate - target
    mse = (error**2).mean()
    expected = {
        "auc": (auc, auc_se),
        "logloss": (logloss.mean(), _mean_se(logloss)),
        "accuracy": (correct.mean(), math.sqrt(correct.mean() * (1 - correct.mean()) / len(correct))),
        "mae": (np.abs(error).mean(), _mean_se(np.abs(error))),
        "rmse": (math.sqrt(mse), _mean_se(error**2) / (2 * math.sqrt(mse))),
    }
    from test_intervals import CONFUSION_METRICS, delta_method_se

    predicted = (s >= 0.5).astype(int)
    shares = np.array([((y == 1) & (predicted == 1)).mean(), ((y == 0) & (predicted == 1)).mean(),
                       ((y == 0) & (predicted == 0)).mean(), ((y == 1) & (predicted == 0)).mean()])  # fmt: skip
    for metric in ("f1", "mcc"):  # the delta method over the confusion cells, scikit-learn's metric
        expected[metric] = (
            CONFUSION_METRICS[metric](shares),
            delta_method_se(CONFUSION_METRICS[metric], shares, len(y)),
        )
    rows = np.stack([s, y.astype(float)])  # calibration: mean score / mean label, the delta method over rows
    gradient = np.array([1 / rows[1].mean(), -rows[0].mean() / rows[1].mean() ** 2])
    expected["calibration"] = (rows[0].mean() / rows[1].mean(), math.sqrt(gradient @ np.cov(rows) @ gradient / len(y)))
    binary = sm.evaluate(
        case.path, ["auc", "logloss", "accuracy", "f1", "mcc", "calibration"], label="label", score="score", ci=0.95,
        engine=engine,
    )  # fmt: skip
    regression = sm.evaluate(case.path, ["mae", "rmse"], label="target", score="estimate", ci=0.95, engine=engine)
    got = binary.row(0, named=True) | regression.row(0, named=True)
    for metric, (value, se) in expected.items():
        close(got[f"{metric}_lo"], value - z * se, f"{metric}_lo on {engine}")
        close(got[f"{metric}_hi"], value + z * se, f"{metric}_hi on {engine}")


# --- comparisons -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def compared(cases, tmp_path_factory) -> tuple[pl.DataFrame, str]:
    """The single case with a second continuous score, two arms and 300 units, as Parquet
    written by three tools."""
    frame = cases["single"].frame
    rng = np.random.default_rng(11)
    n = frame.height
    frame = frame.select("label", "score").with_columns(
        score_b=(pl.col("score") * 0.5 + pl.Series(rng.random(n)) * 0.5),
        arm=pl.Series(np.where(rng.random(n) < 0.5, "v1", "v2")),
        unit=pl.int_range(n, dtype=pl.Int64) // 1000,
    )
    return frame, write_parquet_directory(frame, tmp_path_factory.mktemp("compared") / "rows")


def _placements(scores: np.ndarray, labels: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """AUC and the placements of fast DeLong (test_intervals.fast_delong's midranks)."""
    from scipy import stats

    pos, neg = scores[labels == 1], scores[labels == 0]
    m, n = len(pos), len(neg)
    tz = stats.rankdata(np.concatenate([pos, neg]))
    auc = tz[:m].sum() / (m * n) - (m + 1) / (2 * n)
    return auc, (tz[:m] - stats.rankdata(pos)) / n, 1 - (tz[m:] - stats.rankdata(neg)) / m


def test_comparisons_match_references(compared, engine):
    """sm.compare at scale, from Parquet on disk, over 300,000 continuous scores (each
    arm's P·N and the paired P·N past 2³²): the paired AUC difference against DeLong's
    paired variance from fast-DeLong placements, the paired logloss against scipy's sem of
    the rows' differences, the arms' against two fast DeLongs, and
    the arms' bootstrap of 300 units against scikit-learn on each arm's reweighted rows
    (the counts from test_bootstrap.reference_count)."""
    from scipy import stats
    from test_bootstrap import reference_count
    from test_intervals import fast_delong

    frame, path = compared
    y = frame["label"].to_numpy()
    z = stats.norm.ppf(0.975)
    auc_a, v01_a, v10_a = _placements(frame["score"].to_numpy(), y)
    auc_b, v01_b, v10_b = _placements(frame["score_b"].to_numpy(), y)
    se = math.sqrt(np.var(v01_b - v01_a, ddof=1) / len(v01_a) + np.var(v10_b - v10_a, ddof=1) / len(v10_a))
    paired = sm.compare(path, ["auc"], scores=("score", "score_b"), label="label", engine=engine).row(0, named=True)
    close(paired["delta"], auc_b - auc_a, f"paired delta on {engine}")
    close(paired["delta_lo"], auc_b - auc_a - z * se, f"paired delta_lo on {engine}")
    close(paired["p_value"], 2 * stats.norm.sf(abs(auc_b - auc_a) / se), f"paired p on {engine}")

    eps = np.finfo(float).eps  # paired logloss: the rows' differences, scipy's sem
    p_a, p_b = (np.clip(frame[c].to_numpy(), eps, 1 - eps) for c in ("score", "score_b"))
    losses = [-np.where(y == 1, np.log(p), np.log(1 - p)) for p in (p_a, p_b)]
    d = losses[1] - losses[0]
    paired = sm.compare(path, ["logloss"], scores=("score", "score_b"), label="label", engine=engine).row(0, named=True)
    close(paired["delta"], d.mean(), f"paired logloss delta on {engine}")
    close(paired["delta_hi"], d.mean() + z * stats.sem(d), f"paired logloss delta_hi on {engine}")
    assert paired["method"] == "paired, normal: mean over rows"

    arms = {arm: frame.filter(pl.col("arm") == arm) for arm in ("v1", "v2")}
    (base, se_base), (cand, se_cand) = (fast_delong(part["score"], part["label"]) for part in arms.values())
    arm_auc = sm.compare(path, ["auc"], arm="arm", baseline="v1", label="label", score="score", ci_unit="rows",
                         engine=engine)  # fmt: skip
    row = arm_auc.row(0, named=True)
    close(row["delta"], cand - base, f"arms delta on {engine}")
    close(row["delta_hi"], cand - base + z * math.hypot(se_base, se_cand), f"arms delta_hi on {engine}")

    resampled = sm.compare(path, ["brier"], arm="arm", baseline="v1", label="label", score="score", ci=0.9,
                           ci_unit="unit", ci_method="bootstrap", resamples=3, seed=5,
                           engine=engine).row(0, named=True)  # fmt: skip
    differences = []
    for r in range(1, 4):
        counts = {unit: reference_count(unit + 1, r, 5) for unit in range(300)}  # DENSE_RANK of unit
        values = [
            skm.brier_score_loss(part["label"], part["score"], sample_weight=part["unit"].replace_strict(counts))
            for part in arms.values()
        ]
        differences.append(values[1] - values[0])
    close(resampled["delta_lo"], float(np.quantile(differences, 0.05)), f"arms bootstrap delta_lo on {engine}")
    close(resampled["delta_hi"], float(np.quantile(differences, 0.95)), f"arms bootstrap delta_hi on {engine}")


def _gradient(metric, q: np.ndarray) -> np.ndarray:
    """The metric's gradient in the cells' shares ``q``, by central differences."""
    steps = np.eye(len(q)) * 1e-7
    return np.array([(metric(q + step) - metric(q - step)) / 2e-7 for step in steps])


def test_clustered_and_paired_delta_intervals_match_references(compared, engine):
    """At scale, from Parquet on disk, over 300,000 continuous scores: the intervals
    clustered by 300 units of 1,000 rows (DeLong's placements from fast DeLong's midranks,
    logloss's values and f1's gradient by scikit-learn, each summed by unit: se² =
    C/(C − 1)·Σ s_k²), and the paired f1 over the eight joint cells and the paired
    calibration over the rows' influences (numpy)."""
    from scipy import stats
    from test_intervals import CONFUSION_METRICS

    frame, path = compared
    y, s, units = frame["label"].to_numpy(), frame["score"].to_numpy(), frame["unit"].to_numpy()
    n, z = len(y), stats.norm.ppf(0.975)

    def clustered_se(influence: np.ndarray) -> float:  # each row's w·u / W, summed by unit
        parts = np.bincount(units, weights=influence)
        return math.sqrt(len(parts) / (len(parts) - 1) * (parts**2).sum())

    auc, positives, negatives = _placements(s, y)
    placement = np.empty(n)
    placement[y == 1], placement[y == 0] = positives, negatives
    auc_influence = np.where(y == 1, (placement - auc) / (y == 1).sum(), (placement - auc) / (y == 0).sum())
    eps = np.finfo(float).eps
    loss = -np.where(y == 1, np.log(np.clip(s, eps, 1 - eps)), np.log(1 - np.clip(s, eps, 1 - eps)))
    cell = np.where(y == 1, np.where(s >= 0.5, 0, 3), np.where(s >= 0.5, 1, 2))  # tp, fp, tn, fn
    shares = np.bincount(cell, minlength=4) / n
    g = _gradient(CONFUSION_METRICS["f1"], shares)
    expected = {
        "auc": (auc, clustered_se(auc_influence)),
        "logloss": (loss.mean(), clustered_se((loss - loss.mean()) / n)),
        "f1": (CONFUSION_METRICS["f1"](shares), clustered_se((g[cell] - shares @ g) / n)),
    }
    got = sm.evaluate(path, list(expected), label="label", score="score", ci=0.95, ci_unit="unit", engine=engine)
    for metric, (value, se) in expected.items():
        close(got[f"{metric}_lo"].item(), value - z * se, f"clustered {metric}_lo on {engine}")
        close(got[f"{metric}_hi"].item(), value + z * se, f"clustered {metric}_hi on {engine}")

    b = frame["score_b"].to_numpy()
    joint = (y == 1) * 4 + (s >= 0.5) * 2 + (b >= 0.5)  # label, first and second prediction
    labels, first, second = np.array([(j >= 4, (j // 2) % 2, j % 2) for j in range(8)], int).T

    def f1_difference(q):
        cells = [skm.f1_score(labels, predicted, sample_weight=q) for predicted in (first, second)]
        return cells[1] - cells[0]

    q = np.bincount(joint, minlength=8) / n
    h = _gradient(f1_difference, q)
    f1 = sm.compare(path, ["f1"], scores=("score", "score_b"), label="label", engine=engine).row(0, named=True)
    se = math.sqrt((q @ h**2 - (q @ h) ** 2) / n)
    close(f1["delta"], f1_difference(q), f"paired f1 delta on {engine}")
    close(f1["delta_lo"], f1_difference(q) - z * se, f"paired f1 delta_lo on {engine}")
    mean_label = y.mean()
    influence = [(score - score.mean() / mean_label * y) / mean_label for score in (s, b)]
    d = influence[1] - influence[0]
    calibration = sm.compare(path, ["calibration"], scores=("score", "score_b"), label="label", engine=engine)
    row = calibration.row(0, named=True)
    close(row["delta"], (b.mean() - s.mean()) / mean_label, f"paired calibration delta on {engine}")
    se = math.sqrt((d**2).sum() / (n * (n - 1)))
    close(row["delta_hi"], row["delta"] + z * se, f"paired calibration delta_hi on {engine}")


def test_paired_predicted_classes_match_references(compared, engine):
    """At scale, from Parquet on disk, over 300,000 rows: two predicted classes of three
    (each score cut in thirds) against a true class, compared by accuracy and macro F1
    over the 27 joint cells, scikit-learn's metric of each prediction (one row per joint
    cell, weighted by its share) differentiated numerically (the delta method's se)."""
    from scipy import stats

    frame, path = compared
    classes = frame.select(
        truth=(pl.col("label") + (pl.col("score_b") * 2).floor().cast(pl.Int64)) % 3,
        first=(pl.col("score") * 3).floor().clip(0, 2).cast(pl.Int64),
        second=(pl.col("score_b") * 3).floor().clip(0, 2).cast(pl.Int64),
    )
    written = Path(path).parent / "classes"  # by the first engine's run
    directory = str(written) if written.exists() else write_parquet_directory(classes, written)
    joint = (classes["truth"] * 9 + classes["first"] * 3 + classes["second"]).to_numpy()
    truth, first, second = np.divmod(np.arange(27), 9)[0], np.arange(27) // 3 % 3, np.arange(27) % 3
    q = np.bincount(joint, minlength=27) / classes.height
    z = stats.norm.ppf(0.975)
    references = {
        "accuracy": lambda y, p, w: skm.accuracy_score(y, p, sample_weight=w),
        "f1": lambda y, p, w: skm.f1_score(y, p, average="macro", sample_weight=w),
    }
    result = sm.compare(directory, list(references), predictions=("first", "second"), label="truth", engine=engine)
    for row in result.iter_rows(named=True):
        metric = references[row["metric"]]

        def difference(shares, metric=metric):
            return metric(truth, second, shares) - metric(truth, first, shares)

        h = _gradient(difference, q)
        se = math.sqrt((q @ h**2 - (q @ h) ** 2) / classes.height)
        close(row["delta"], difference(q), f"paired {row['metric']} delta on {engine}")
        close(row["delta_lo"], difference(q) - z * se, f"paired {row['metric']} delta_lo on {engine}")
