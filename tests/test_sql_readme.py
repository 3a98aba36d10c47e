"""The by-hand examples of sql/README.md run as written and give sm.evaluate's numbers."""

from __future__ import annotations

import math
import re
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

import sqlmetrics as sm

GUIDE = Path(__file__).resolve().parent.parent / "sql" / "README.md"
EXAMPLES = re.findall(r"```sql\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)


@pytest.fixture(scope="module")
def impressions() -> pl.DataFrame:
    rng = np.random.default_rng(7)
    n = 500
    return pl.DataFrame(
        {
            "day": rng.choice(["2026-11-01", "2026-11-02", "2026-11-03"], n),
            "user_id": rng.integers(0, 40, n),
            "click": rng.integers(0, 2, n),
            "pctr": rng.choice([0.05, 0.1, 0.2, 0.4, 0.8], n),  # ties
            "price": rng.normal(100, 20, n),
            "predicted_price": rng.normal(100, 20, n),
        }
    )


def expected(frame: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    if columns == ["auc"]:
        return sm.evaluate(frame, ["auc"], label="click", score="pctr", by="day")
    return sm.evaluate(frame, ["mae", "rmse"], label="price", score="predicted_price", by="day")


def test_the_guide_has_its_two_runnable_examples():
    assert len(EXAMPLES) == 2


@pytest.mark.parametrize("sql", EXAMPLES, ids=["auc", "mae_rmse"])
def test_example_runs_and_agrees_with_evaluate(sql, impressions):
    con = duckdb.connect()
    con.register("impressions", impressions)
    result = con.sql(sql).pl()
    metrics = result.columns[1:]
    reference = expected(impressions, metrics)
    assert result["slice_1"].to_list() == reference["day"].to_list()
    for column in metrics:
        for got, want in zip(result[column], reference[column]):
            assert math.isclose(got, want, rel_tol=1e-12)
