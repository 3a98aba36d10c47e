"""Ranking metrics: lists (queries) ordered by score, judged by graded relevance.

The steps their templates read (``INTERMEDIATES``, collected by the registry): ``ranked``
(every kept row with its tie group's positions, rendered once per tie policy and
relevance threshold in use, sorting by the keys its policy needs; its ``floor`` says how
deep each metric reads, for ``list_floors``), ``first_hits`` (each list's first peer
group holding a relevant row, from the rows at or above its top relevant score, without
ranking them: mrr, hit_rate), ``cutoff_hits`` (each list's expected relevant rows in
the top k, from the rows at or above its k-th highest score, without ranking them:
precision@k, recall@k, hit_rate's micro form), ``judged`` (each list's histogram of
the labels that earn gain, for the ideal DCG) and ``positions`` (running sums of the
discounts, once per cutoff in use: a metric with a cutoff reads none past it). Every
ranking metric reads each list's relevant and judged items from ``list_floors``. Each
step declares its polars form beside its template, a function of the call's ``Lists``
(``_lists.py``), which the polars engine builds with ``call_lists`` and the ranking
metrics read.

Its ``FAMILY`` declares the role ``judgments``, and its hooks place its own steps before
the shared ones (``ideal_rows``, ``list_floors`` and ``run_checks``: ``list_sql.py``),
give its rules on a run's judgments and read them for the polars engine (``rules.py``).
"""

from sqlmetrics.metrics.ranking._lists import Lists, call_lists
from sqlmetrics.metrics.ranking._steps import INTERMEDIATES
from sqlmetrics.metrics.ranking.list_sql import ranking_steps, run_check_steps
from sqlmetrics.metrics.ranking.rules import check_judgments_schema, judged_table, judgment_rules
from sqlmetrics.spec import Role
from sqlmetrics.steps import Family, Hooks

# The role ranking adds (relevance judgments of a run, a second table joined by query and
# item) and its hooks.
FAMILY = Family(
    "ranking",
    roles=(
        Role("judgments", "a table of query, item and label (the relevance) for a run's lists", option="--judgments",
             metavar="PATH", annotation="Any", after="weight", generic=False, table=True, state_flag=True),
    ),
    hooks=Hooks(steps_before=ranking_steps, table_rules=judgment_rules, check_steps=run_check_steps,
                second_schema=check_judgments_schema, polars_second=judged_table, polars_rules=judgment_rules),
    summary="a graded relevance as label, a score and a query (the list)",
    notes={
        "judgments": "judgments: the relevance judgments under canonical names (query, item, label)",
        "ideal_rows": "ideal_rows: every list's judged items, the ideal ranking's rows",
        "list_floors": "list_floors: per list, its relevant and judged items, the lowest score any ranking metric "
        "ranks\n-- down to (rows below are never ranked) and, for the metrics that rank nothing, its top relevant\n"
        "-- score and the lowest score that can hold a relevant item within each cutoff k",
        "run_checks": "run_checks: the rules of a run and its judgments (no item ranked or judged twice)",
    },
)  # fmt: skip

__all__ = ["FAMILY", "INTERMEDIATES", "Lists", "call_lists"]
