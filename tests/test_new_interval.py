"""A new interval method is its template, its module and its reference test.

A copy of the source tree gains a toy method, ``label_binomial`` (the Wald interval of
the share of positives, se = √(p(1 − p)/W), weights counting as frequencies), and
``label_mean`` declares it instead of the mean over rows. With the template and the
module alone, the registry-driven check of test_intervals fails naming the method: it
has no reference. With its reference test added, the interval tests of the copy pass
on both engines (the engines agreeing), and a wrong reference makes them fail.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from test_new_metric import copy_tree, pytest_in, run

TEMPLATE = """\
-- label_binomial: the Wald interval of the share of positives, p = W⁺ / W,
--   se = √(p·(1 − p) / W), weights counting as frequencies. NULL on an empty slice.
--
-- reads:  score_hist({{ by }}, w_pos, w_neg)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }},
       SQRT(p * (1 - p) / CAST(total AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, SUM(w_pos) / CAST(NULLIF(SUM(w_pos + w_neg), 0) AS DOUBLE) AS p, SUM(w_pos + w_neg) AS total
    FROM score_hist
    GROUP BY {{ by }}
    HAVING SUM(w_pos + w_neg) > 0
) AS shares
"""

MODULE = '''\
"""The Wald interval of the share of positives (``sql/intervals/label_binomial.sql``)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import Interval, MetricCall


def label_binomial_polars(call: MetricCall, hist: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """label_binomial.sql over the score histogram: per slice ``se`` and ``df`` (NULL)."""
    totals = hist.group_by(slices).agg(positive=pl.col("w_pos").sum(), total=(pl.col("w_pos") + pl.col("w_neg")).sum())
    p = pl.col("positive") / pl.col("total")
    se = (p * (1 - p) / pl.col("total")).sqrt()
    return totals.filter(pl.col("total") > 0).select(*slices, se=se, df=pl.lit(None, pl.Int64))


LABEL_BINOMIAL = Interval(
    "label_binomial",
    "intervals/label_binomial.sql",
    "binomial",
    comparison="binomial",
    polars=label_binomial_polars,
    reads_histogram=True,
)
'''

REFERENCE_TEST = """

@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("label_binomial"))
@given(rows=ROWS, weighted=st.booleans())
def test_label_binomial_is_walds(engine, metric, rows, weighted):
    frame, y, s = _repeated(rows, weighted)
    out = sm.evaluate(frame, [metric], score="score", weight="w" if weighted else None, ci=0.9, engine=engine)
    row = out.row(0, named=True)
    if len(y) == 0:
        assert row[f"{metric}_lo"] is None
        return
    p = y.mean()
    half = stats.norm.ppf(0.95) * math.sqrt(p * (1 - p) / len(y))
    assert row[f"{metric}_lo"] == pytest.approx(clipped(metric, p - half), abs=1e-9)
    assert row[f"{metric}_hi"] == pytest.approx(clipped(metric, p + half), abs=1e-9)


REFERENCE_TESTS["label_binomial"] = test_label_binomial_is_walds
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """The source tree with the toy method's template and module, label_mean declaring it."""
    root = copy_tree(tmp_path_factory.mktemp("tree"))
    (root / "sql" / "intervals" / "label_binomial.sql").write_text(TEMPLATE)
    (root / "sqlmetrics" / "intervals" / "label_binomial.py").write_text(MODULE)
    module = root / "sqlmetrics" / "metrics" / "classification" / "label_mean.py"
    text = module.read_text()
    assert 'interval=row_mean("1", "0")' in text
    text = text.replace('interval=row_mean("1", "0")', "interval=LABEL_BINOMIAL")
    text = text.replace(
        "from sqlmetrics.intervals.row_mean import row_mean",
        "from sqlmetrics.intervals.label_binomial import LABEL_BINOMIAL",
    )
    module.write_text(text)
    generated = run(root, sys.executable, "-m", "sqlmetrics.docs", "--write")
    assert generated.returncode == 0, generated.stderr
    return root


@pytest.mark.scale
def test_a_method_without_a_reference_fails_then_its_reference_test_passes(tree):
    check = "test_every_interval_method_and_metric_has_a_reference"
    missing = pytest_in(tree, "tests/test_intervals.py", "-k", check)
    assert missing.returncode != 0 and "label_binomial" in missing.stdout, missing.stdout[-3000:]
    tests = tree / "tests" / "test_intervals.py"
    original = tests.read_text()
    tests.write_text(original.replace('"label_mean": lambda y, s: y.astype(float),\n', "") + REFERENCE_TEST)
    passed = pytest_in(tree, "tests/test_intervals.py", "tests/test_docs.py", "tests/test_imports.py", "-vv")
    assert passed.returncode == 0, passed.stdout[-5000:]
    assert "test_label_binomial_is_walds[label_mean-polars] PASSED" in passed.stdout
    tests.write_text(tests.read_text().replace("p * (1 - p) / len(y)", "p * (1 - p) / (len(y) + 1)"))
    wrong = pytest_in(tree, "tests/test_intervals.py", "-x", "-k", "label_binomial")
    assert wrong.returncode != 0
