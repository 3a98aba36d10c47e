"""Spark distributes: no row-level data meets in one partition.

A window over a whole slice (``PARTITION BY slice ORDER BY score``, or no PARTITION BY
for a call without slices) makes Spark move every row of the slice to one task
("No Partition Defined for Window operation! Moving all data to a single partition"),
so on a cluster the metric runs on one executor. This reads Spark's physical plan for
every composed call of the cross-engine tests (``sql_engines.COMPOSED``), with and
without slices, and for both score plans (the score histogram and the used rows), and
fails on a window ordered by score that is partitioned by no more than the slices (each
slice is sorted in one task), and on an ``Exchange SinglePartition`` whose input is
row-level: not an aggregate grouped by keys with few values (a global aggregate's
partial sums, the per-bucket totals of ``score_cum_distributed.sql``, the counts per
class), nor the table of positions the ranking metrics generate.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from sqlmetrics.api import prepare
from sqlmetrics.engines.warehouse import composed_in_dialect
from sqlmetrics.request import Request
from sqlmetrics.sources import table_sql

from sql_engines import COMPOSED, impressions, long_class_scores

# the engines tier; tests/conftest.py gives one worker the Spark session, the other the warehouses
pytestmark = pytest.mark.engines

# Operators that pass their input's rows on (as many, or fewer, per row): the search for
# what an exchange moves looks through them.
_PASS_THROUGH = {"Project", "Filter", "Sort", "Window", "WindowGroupLimit", "ColumnarToRow", "InputAdapter"}
_AGGREGATES = {"HashAggregate", "ObjectHashAggregate", "SortAggregate"}
# Grouping keys with about as many values as rows: an aggregate grouped by one of them is
# row-level data (grouped by slices, labels, classes or score buckets, it is not).
_ROW_LEVEL_KEY = re.compile(r"\b(score|query|item|row_id)#")
_KEYS = re.compile(r"keys?=\[([^\]]*)\]")
# Window [functions], [partition by], [order by] (no partition list without PARTITION BY)
_WINDOW_SPECS = re.compile(r" AS \w+#\d+L?\], (\[.*\])\s*$")


@dataclasses.dataclass
class Node:
    text: str
    children: list[Node]

    @property
    def operator(self) -> str:
        return re.match(r"\w+", self.text).group(0)


def parse_plan(plan: str) -> Node:
    """Spark's plan tree string as nodes: each child line starts with ``+-`` or ``:-``
    three columns to the right of its parent's marker."""
    root = Node(plan.splitlines()[0].strip(), [])
    stack: list[tuple[int, Node]] = [(-3, root)]
    for line in plan.splitlines()[1:]:
        marker = re.search(r"[+:]- (?:\*\(\d+\) )?", line)
        if marker is None:
            continue
        node = Node(line[marker.end() :], [])
        while stack[-1][0] >= marker.start():
            stack.pop()
        stack[-1][1].children.append(node)
        stack.append((marker.start(), node))
    return root


def moved_by(exchange: Node) -> Node:
    """The operator whose rows ``exchange`` moves, past the operators that pass rows on."""
    node = exchange.children[0]
    while node.operator in _PASS_THROUGH and len(node.children) == 1:
        node = node.children[0]
    return node


def whole_slice_sorts(root: Node) -> list[str]:
    """The operators that sort or gather a whole slice's row-level data in one task: a
    window ordered by score that is not partitioned by a key with many values (a list's
    query, a score bucket), and an ``Exchange SinglePartition`` whose input is
    row-level (not an aggregate grouped by keys with few values, nor the positions
    0..longest that the ranking metrics generate)."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        stack += node.children
        if node.operator == "Window":
            *partition, order = _WINDOW_SPECS.search(node.text).group(1).split("], [")
            partition = partition[0] if partition else ""
            if _ROW_LEVEL_KEY.search(order) and not re.search(r"\b(bucket|query)#", partition):
                found.append(node.text[-200:])
        if node.text.startswith("Exchange SinglePartition"):
            source = moved_by(node)
            if source.operator in _AGGREGATES and not _ROW_LEVEL_KEY.search(_KEYS.search(source.text).group(1)):
                continue
            if source.operator == "Generate" and "sequence(0" in source.text:
                continue
            found.append(source.text[:200])
    return found


def physical_plan(spark_session, group: str, by: str | None, distinct_scores: bool) -> str:
    metrics, roles = COMPOSED[group]
    frame = impressions(7)
    tables = {"src": frame}
    if group == "one_vs_rest":
        tables["class_scores"] = long_class_scores(frame)
    for name, table in tables.items():
        spark_session.createDataFrame(table.to_arrow()).createOrReplaceTempView(name)
    binding, _ = prepare(metrics, Request(**roles, by=by))
    binding = dataclasses.replace(binding, distinct_scores=distinct_scores)
    sql = composed_in_dialect(binding, table_sql("src"), None, "spark")
    return spark_session.sql(sql)._jdf.queryExecution().executedPlan().toString()


@pytest.mark.parametrize(
    "sql, whole_slice",
    [
        ("SELECT SUM(label) OVER (ORDER BY score) AS c FROM rows", True),
        ("SELECT SUM(label) OVER (PARTITION BY slice_1 ORDER BY score) AS c FROM rows", True),
        ("SELECT SUM(label) OVER (PARTITION BY slice_1, query ORDER BY score) AS c FROM rows", False),
        ("SELECT LAG(score) OVER (ORDER BY label) AS c FROM rows", True),
        ("SELECT SUM(label) AS n FROM rows", False),
        ("SELECT slice_1, SUM(label) AS n FROM rows GROUP BY slice_1", False),
    ],
)
def test_the_check_tells_a_whole_slice_from_spread_work(spark_session, sql, whole_slice):
    """The check itself, on plain queries over rows under the statement's column names."""
    rows = impressions(8).select(slice_1="s", query="q", label="label", score="score")
    spark_session.createDataFrame(rows.to_arrow()).createOrReplaceTempView("rows")
    plan = spark_session.sql(sql)._jdf.queryExecution().executedPlan().toString()
    assert bool(whole_slice_sorts(parse_plan(plan))) == whole_slice, plan


# Every group with the score histogram's plan; the binary group (the score-histogram
# metrics) also with the used rows' plan.
PLANS = [(group, False) for group in sorted(COMPOSED)] + [("binary", True)]


@pytest.mark.parametrize("by", [None, "s"], ids=["unsliced", "sliced"])
@pytest.mark.parametrize("group, distinct_scores", PLANS, ids=[f"{g}-{'rows' if d else 'histogram'}" for g, d in PLANS])
def test_no_row_level_data_meets_in_one_partition(spark_session, group, by, distinct_scores):
    plan = physical_plan(spark_session, group, by, distinct_scores)
    assert whole_slice_sorts(parse_plan(plan)) == [], plan
