"""Hypothesis strategies for impressions-like frames: heavy ties, NULLs, weights, slices."""

from __future__ import annotations

import os

import polars as pl
from hypothesis import settings
from hypothesis import strategies as st

from sqlmetrics.registry import roles


def family_roles() -> tuple:
    """The roles the families add (``spec.Role.generic``), each read as a number under its
    name: the registry-driven tests give every frame a column per role, named as the role,
    drawn from the role's ``valid_values`` (a role without them is named: the tests cannot
    draw its column)."""
    declared = tuple(role for role in roles() if role.generic)
    silent = [role.name for role in declared if not role.valid_values]
    if silent:
        raise LookupError(f"role {silent[0]!r} declares no valid_values: the registry-driven tests cannot draw it")
    return declared


def role_keywords(spec=None) -> dict[str, str]:
    """The keywords binding the families' roles to their columns (``exposure="exposure"``):
    those ``spec`` needs (its ``Metric.roles``), or every one when no spec is given."""
    return {role.name: role.name for role in (family_roles() if spec is None else spec.roles)}


def with_role_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with a column per family role, its ``valid_values`` in turn down the rows."""
    return frame.with_columns(
        pl.Series(role.name, [role.valid_values[i % len(role.valid_values)] for i in range(frame.height)])
        for role in family_roles()
    )


# Few distinct scores so that ties are the rule, including the probability bounds.
TIED_SCORES = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


@st.composite
def impressions(draw, *, max_rows: int = 40, weighted: bool | None = None, nulls: bool = True) -> pl.DataFrame:
    """A frame with columns slice, query, label, score, weight (weight may be all 1), and one
    per role a family adds (``family_roles``).

    Scores come either from a small tied set or from a continuous range; weights from a
    small set including 0; each column may have NULLs; slices and queries are skewed so
    that some are one-class or empty after NULLs are dropped. A family role's column has
    no NULL: a role is read only by a call with a metric that needs it (as the item), so
    a NULL in it would leave out a row of a composed call that the other metrics alone
    keep (its NULLs are the family's own tests').
    """
    n = draw(st.integers(0, max_rows))
    tied = draw(st.booleans())
    score = st.sampled_from(TIED_SCORES) if tied else st.floats(0.0, 1.0, allow_nan=False)
    if weighted is None:
        weighted = draw(st.booleans())
    weight = st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0]) if weighted else st.just(1.0)

    def maybe_null(strategy):
        return st.one_of(st.none(), strategy) if nulls and draw(st.booleans()) else strategy

    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["a", "a", "b", "c", None]),
                maybe_null(st.integers(0, 5)),
                maybe_null(st.integers(0, 1)),
                maybe_null(score),
                maybe_null(weight),
                *(st.sampled_from(role.valid_values) for role in family_roles()),
            ),
            min_size=n,
            max_size=n,
        )
    )
    schema = {"slice": pl.String, "query": pl.Int64, "label": pl.Int64, "score": pl.Float64, "weight": pl.Float64}
    schema |= {role.name: pl.Float64 for role in family_roles()}
    return pl.DataFrame(rows, schema=schema, orient="row")


# Ranking: a few queries whose string ids order differently as bytes, numbers or case-insensitively.
QUERIES = ["q0", "q1", "q2", "q3", "q4"]
# String ids whose byte order differs from their numeric or case-insensitive order, to pin trec_eval's tie break.
ITEMS = ["1", "10", "2", "9", "B", "a", "ab", "b", "d0", "d1"]
RANKING_SCORES = [0.0, 0.5, 1.0]
RUN_SCHEMA = {"query": pl.String, "item": pl.String, "score": pl.Float64}
JUDGMENT_SCHEMA = {"query": pl.String, "item": pl.String, "label": pl.Int64}


@st.composite
def run_and_judgments(draw, *, tie_free: bool, max_rows: int = 8) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run (query, item, score) and judgments (query, item, label 0..3) over a few queries.

    Each query independently may be retrieved or not and judged or not; retrieved and judged items are drawn
    separately, so some run items are unjudged and some judged items are not retrieved; labels are often all 0.
    Scores are tied (three values) or, with tie_free, distinct within each query.
    """
    run, judgments = [], []
    for query in QUERIES:
        retrieved = draw(st.lists(st.sampled_from(ITEMS), max_size=max_rows, unique=True))
        if tie_free:
            scores = draw(st.permutations(range(len(retrieved))))
        else:
            scores = draw(st.lists(st.sampled_from(RANKING_SCORES), min_size=len(retrieved), max_size=len(retrieved)))
        run += [(query, item, float(score)) for item, score in zip(retrieved, scores)]
        judged = draw(st.lists(st.sampled_from(ITEMS), max_size=max_rows, unique=True))
        labels = draw(st.lists(st.integers(0, 3), min_size=len(judged), max_size=len(judged)))
        judgments += [(query, item, label) for item, label in zip(judged, labels)]
    return (
        pl.DataFrame(run, schema=RUN_SCHEMA, orient="row"),
        pl.DataFrame(judgments, schema=JUDGMENT_SCHEMA, orient="row"),
    )


@st.composite
def ranked_impressions(draw, *, min_rows: int = 2, max_rows: int = 6) -> pl.DataFrame:
    """Impressions (query, item, score, label) of 1..3 lists of min_rows..max_rows rows, tied scores, labels
    0..3 (often all 0, sometimes 1.5), item ids unique within a list."""
    rows = []
    for query in range(draw(st.integers(1, 3))):
        items = draw(st.lists(st.sampled_from(ITEMS), min_size=min_rows, max_size=max_rows, unique=True))
        scores = draw(st.lists(st.sampled_from(RANKING_SCORES), min_size=len(items), max_size=len(items)))
        labels = draw(
            st.lists(st.sampled_from([0.0, 0.0, 1.0, 1.5, 2.0, 3.0]), min_size=len(items), max_size=len(items))
        )
        rows += [(query, item, score, label) for item, score, label in zip(items, scores, labels)]
    schema = {"query": pl.Int64, "item": pl.String, "score": pl.Float64, "label": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


@st.composite
def head_list_impressions(draw, *, heavy_ties: bool, min_head: int = 40, max_head: int = 120) -> pl.DataFrame:
    """Impressions (query, item, score, label) where one list, the head, holds most rows
    (min_head..max_head, as a skewed log's heaviest user) beside 1..4 lists of 1..5 rows;
    labels 0..3 and 1.5 (graded; some lists without a relevant row); some rows with a NULL
    score, label or query. Scores are distinct within a list except for 0..3 tie groups
    of 2..3 rows (at most 6^3 orders of a list: ties="average" can be checked against
    every order), or with ``heavy_ties`` drawn from three values (tie groups of dozens
    of rows: only the fixed-order tie policies can be checked by brute force)."""
    sizes = [draw(st.integers(min_head, max_head)), *draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))]
    label = st.sampled_from([0.0, 0.0, 0.0, 1.0, 1.5, 2.0, 3.0])
    rows = []
    for query, size in enumerate(sizes):
        if heavy_ties:
            scores = draw(st.lists(st.sampled_from(RANKING_SCORES), min_size=size, max_size=size))
        else:
            scores = [float(s) for s in draw(st.permutations(range(size)))]
            for block in draw(st.lists(st.integers(0, size // 3 - 1), unique=True, max_size=3)) if size >= 3 else []:
                start = 3 * block  # disjoint blocks of three rows: groups never merge
                for i in range(start + 1, start + draw(st.integers(2, 3))):
                    scores[i] = scores[start]
        labels = draw(st.lists(label, min_size=size, max_size=size))
        rows += [(query, f"d{i}", score, rel) for i, (score, rel) in enumerate(zip(scores, labels))]
    nulls = draw(st.lists(st.tuples(st.integers(0, len(rows) - 1), st.sampled_from([0, 2, 3])), max_size=4))
    rows = [list(row) for row in rows]
    for i, column in nulls:
        rows[i][column] = None
    schema = {"query": pl.Int64, "item": pl.String, "score": pl.Float64, "label": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


# Regression targets on a grid of quarters (sums of them and of the weights below are
# exact, so "exactly half the weight" and "all targets equal" mean the same in every
# implementation), with ties and zeros; predictions from the grid or continuous.
TARGET_GRID = st.integers(-400, 400).map(lambda quarters: quarters / 4)


@st.composite
def regression_rows(draw, *, max_rows: int = 40, weighted: bool | None = None, nulls: bool = True) -> pl.DataFrame:
    """A frame with columns slice, label (the target), score (the prediction), weight."""
    n = draw(st.integers(0, max_rows))
    tied = draw(st.booleans())
    target = st.sampled_from([0.0, 1.0, 2.5, -3.0]) if tied else TARGET_GRID
    prediction = st.one_of(target, st.floats(-1e3, 1e3, allow_nan=False))
    if weighted is None:
        weighted = draw(st.booleans())
    weight = st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0]) if weighted else st.just(1.0)

    def maybe_null(strategy):
        return st.one_of(st.none(), strategy) if nulls and draw(st.booleans()) else strategy

    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["a", "a", "b", "c", None]),
                maybe_null(target),
                maybe_null(prediction),
                maybe_null(weight),
            ),
            min_size=n,
            max_size=n,
        )
    )
    schema = {"slice": pl.String, "label": pl.Float64, "score": pl.Float64, "weight": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


# Multi-class: integer classes, and string classes whose byte order differs from their
# order as drawn; the class after the k in use is predicted but never a label.
INT_CLASSES = [0, 1, 2, 3, 4, 5]
STR_CLASSES = ["owl", "Bee", "ant", "cat", "10", "9"]


@st.composite
def class_predictions(
    draw, *, kind: str | None = None, n_classes: int | None = None, unseen: bool = True, max_rows: int = 40
) -> pl.DataFrame:
    """A frame with columns slice, label (the true class), prediction (the predicted
    class), weight and score: 2..5 classes as integers or strings (``kind``), sometimes a
    predicted class that is never a label (``unseen``), NULLs in label, prediction and
    weight, weights from {0, 0.5, 1, 2.5, 4} (or all 1). Slice "c" has one true class,
    so that some slices are single-class; others may be empty once NULLs are dropped."""
    kind = kind or draw(st.sampled_from(["int", "str"]))
    classes = (INT_CLASSES if kind == "int" else STR_CLASSES)[: n_classes or draw(st.integers(2, 5))]
    extra = (INT_CLASSES if kind == "int" else STR_CLASSES)[len(classes)]
    predicted = [*classes, extra] if unseen else classes
    weighted = draw(st.booleans())
    weight = st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0]) if weighted else st.just(1.0)

    def maybe_null(strategy):
        return st.one_of(st.none(), strategy) if draw(st.booleans()) else strategy

    label, prediction, weight = (
        maybe_null(st.sampled_from(classes)),
        maybe_null(st.sampled_from(predicted)),
        maybe_null(weight),
    )
    rows = []
    for _ in range(draw(st.integers(0, max_rows))):
        slice_ = draw(st.sampled_from(["a", "a", "b", "c", None]))
        truth = classes[0] if slice_ == "c" else draw(label)
        rows.append((slice_, truth, draw(prediction), draw(weight), draw(st.sampled_from(TIED_SCORES))))
    dtype = pl.Int64 if kind == "int" else pl.String
    schema = {"slice": pl.String, "label": dtype, "prediction": dtype, "weight": pl.Float64, "score": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


# One-vs-rest: classes whose names need quoting in SQL, score columns with hostile names.
OVR_STR_CLASSES = ["owl", "it's", "Bee", "ant"]


def ovr_score_column(cls) -> str:
    """The wide score column of a class: a name with a double quote and a space."""
    return f'p "{cls}"'


@st.composite
def class_score_rows(
    draw, *, kind: str | None = None, n_classes: int | None = None, max_rows: int = 40
) -> tuple[pl.DataFrame, list]:
    """A frame with columns id (unique), slice, label (the true class), prediction (the
    class of the highest score, first on ties), weight and one score column per class
    (``ovr_score_column``), and the classes in mapping order: 2..4 classes as integers or
    strings (``kind``; ``n_classes`` fixes how many). Each row's scores are probabilities (small integers over their
    sum, so ties are common; a row of zeros is uniform), as scikit-learn's
    multi-class AUC requires. NULLs in label, weight and (rarely) one score; weights from
    {0, 0.5, 1, 2.5, 4} or all 1. Slice "c" has one true class, so that its other
    classes have no positives; other slices may be empty once NULLs are dropped."""
    kind = kind or draw(st.sampled_from(["int", "str"]))
    classes = (INT_CLASSES[:4] if kind == "int" else OVR_STR_CLASSES)[: n_classes or draw(st.integers(2, 4))]
    weighted = draw(st.booleans())
    weight = st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0]) if weighted else st.just(1.0)

    def maybe_null(strategy):
        return st.one_of(st.none(), strategy) if draw(st.booleans()) else strategy

    label, weight = maybe_null(st.sampled_from(classes)), maybe_null(weight)
    null_scores = draw(st.booleans())
    rows = []
    for row_id in range(draw(st.integers(0, max_rows))):
        slice_ = draw(st.sampled_from(["a", "a", "b", "c", None]))
        truth = classes[0] if slice_ == "c" else draw(label)
        counts = draw(st.lists(st.integers(0, 3), min_size=len(classes), max_size=len(classes)))
        counts = counts if sum(counts) else [1] * len(classes)
        scores = [count / sum(counts) for count in counts]
        if null_scores and draw(st.integers(0, 9)) == 0:
            scores[draw(st.integers(0, len(classes) - 1))] = None
        prediction = classes[counts.index(max(counts))]
        rows.append((row_id, slice_, truth, prediction, draw(weight), *scores))
    dtype = pl.Int64 if kind == "int" else pl.String
    schema = {"id": pl.Int64, "slice": pl.String, "label": dtype, "prediction": dtype, "weight": pl.Float64}
    schema |= {ovr_score_column(cls): pl.Float64 for cls in classes}
    return pl.DataFrame(rows, schema=schema, orient="row"), classes


# What a property compares decides its share of the profile's examples (issue 42): one
# against an independent reference (scikit-learn, trec_eval, a brute-force sum, a formula
# in numpy) proves a formula and runs them all; one between two faces of the library (two
# engines, a roll-up and evaluate, Parquet and memory, a composition and its parts, a
# permutation) repeats a comparison whose two sides the reference properties already pin,
# and runs half, but in the "deep" profile, where every property runs all of its own.
REFERENCE, AGREEMENT = "reference", "agreement"
SHARES = {REFERENCE: 1.0, AGREEMENT: 1.0 if os.environ.get("SQLMETRICS_HYPOTHESIS_PROFILE") == "deep" else 0.5}


def examples(n: int = 60, kind: str = REFERENCE) -> settings:
    """``settings(max_examples=...)`` for a property written to run ``n`` examples under
    the "deep" profile (60 a property, as the suite ran before issue 42), scaled with the
    loaded one (tests/conftest.py: 15 by default, 8 under "fast") and by ``kind``'s share
    (``SHARES``); at least 2."""
    return settings(max_examples=max(2, round(n * settings.default.max_examples / 60 * SHARES[kind])))


# A number parameter without a bound on a side is drawn within this distance of its default.
PARAM_SPAN = 2.0


def parameter(param) -> st.SearchStrategy:
    """Values of one metric parameter, from what its ``Param`` declares: its choices, or a
    number within its bounds (``low``, ``high``, ``low_open``). Half the draws are quarter
    steps within ``PARAM_SPAN`` of the default (thresholds tie with the tied scores, and a
    wide range such as err's max_relevance up to 960 would otherwise make every value
    vanish), half anywhere within the bounds (open sides within ``PARAM_SPAN`` of the
    default); None too where None is the default."""
    if param.choices:
        return st.sampled_from(param.choices)
    if param.kind is bool:
        return st.booleans()
    centre = param.default if param.default is not None else (param.low or 0)
    low = param.low if param.low is not None else centre - PARAM_SPAN
    high = param.high if param.high is not None else max(centre, low) + PARAM_SPAN
    if param.kind is int:
        values = st.integers(int(low) + (1 if param.low_open else 0), int(min(high, low + 20)))
    else:
        near = [centre + i / 4 for i in range(int(-4 * PARAM_SPAN), int(4 * PARAM_SPAN) + 1)]
        values = st.one_of(
            st.sampled_from([v for v in near if param.accepts(v)]), st.floats(low, high, exclude_min=param.low_open)
        )
    return st.one_of(st.none(), values) if param.default is None and not param.required else values


def parameters(spec) -> st.SearchStrategy[dict]:
    """A dict of values for every parameter of a metric spec (see ``parameter``)."""
    return st.fixed_dictionaries({param.name: parameter(param) for param in spec.params})
