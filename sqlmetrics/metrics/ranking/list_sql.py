"""The steps before ranking metrics rank their lists: ``ideal_rows`` (every list's judged
items) and ``list_floors`` (per list, the lowest score any metric of the call reads, so
rows below it are never ranked), which ranking's ``Hooks`` places before the shared
steps with ``run_checks`` (``ranking_steps``).

How deep a metric reads is its family's to say: the step that ranks lists declares a
``floor`` (``Intermediate.floor``) that turns a call's reach, cutoff and relevance
threshold into a SQL aggregate over a list's rows; here the floors of a call's metrics
are combined, per tie policy and relevance threshold in use.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlmetrics.binding import Binding
from sqlmetrics.metrics.ranking._steps import INTERMEDIATES
from sqlmetrics.metrics.ranking.rules import run_checks_sql
from sqlmetrics.spec import MetricCall
from sqlmetrics.sqltext import templates
from sqlmetrics.steps import cutoff_column, reads_among

# DuckDB's top-k aggregate ``max(x, k)`` reserves about 16 bytes per k for every list
# (measured: 3,000 lists at k = 100,000 took 5.2 GB; it refuses k >= 1,000,000), so only a
# small k uses it; a larger k uses the portable top k (a rank over the list's rows), which
# gives the same floor in memory that follows the rows.
DUCKDB_TOP_K_MAX = 100
# ... and only while k slots for every list fit: with no more lists than rows, the source's
# rows × k bounds the slots (2^27 slots: ~2 GB). Past that, or without a row count, the
# rank form, which sorts the rows and spills to disk (200M rows with k = 10: the top-k
# states spilled more than 60 GB under a 4 GB memory limit, the rank form 10 GB).
DUCKDB_TOP_K_SLOTS = 1 << 27

# The step whose rows the floors bound, and those that read lists without ranking them:
# each list's first relevant peer group (from its top relevant score) and its hits in
# the top k (from its k-th highest score).
RANKED = "ranked"
FIRST_HITS = "first_hits"
CUTOFF_HITS = "cutoff_hits"
LIST_STEPS = (RANKED, FIRST_HITS, CUTOFF_HITS)


def ranking_steps(binding: Binding, portable: bool) -> dict[str, str]:
    """Ranking's steps before the shared steps, by name: ``ideal_rows`` (a call with
    lists), ``list_floors`` (one whose metrics read lists step by step; ``portable``:
    without DuckDB's top-k aggregate) and ``run_checks`` (a run with judgments)."""
    ctes = {}
    if binding.ranking:
        ctes["ideal_rows"] = ideal_rows_sql(binding)
    if ranks_lists(binding):
        ctes["list_floors"] = list_floors_sql(binding, portable)
    if binding.judgments:
        ctes["run_checks"] = run_checks_sql(binding)
    return ctes


def run_check_steps(binding: Binding) -> tuple[str, ...]:
    """The step refusing a bad run or judgments (``run_checks``), with judgments bound."""
    return ("run_checks",) if binding.judgments else ()


def ideal_rows_sql(binding: Binding) -> str:
    """The judged items of every list: its own used rows, or with judgments every judged
    item of the list's query."""
    by = ", ".join(binding.slices)
    if not binding.judgments:
        return f"SELECT {by}, query, label\nFROM input\nWHERE w IS NOT NULL"
    lists = f"SELECT DISTINCT {by}, query FROM input WHERE w IS NOT NULL"
    qualified = ", ".join(f"lists.{s}" for s in binding.slices)
    return (
        f"SELECT {qualified}, j.query, j.label\nFROM ({lists}) AS lists\nJOIN judgments AS j ON lists.query = j.query"
    )


def ranks_lists(binding: Binding) -> bool:
    """Whether a metric of the call reads lists step by step (``ranked``, ``first_hits``
    or ``cutoff_hits``)."""
    return any(_reads_lists(call) for call in binding.calls)


def _reads_lists(call: MetricCall) -> bool:
    return any(reads_among(step, call.spec.intermediates, INTERMEDIATES) for step in LIST_STEPS)


def list_floors_sql(binding: Binding, portable: bool) -> str:
    """Per list and (tie policy, relevance threshold) in use: the lowest score any metric
    of the call ranks down to (``floor``: the ranked step's ``floor``; ``portable``:
    without DuckDB's top-k aggregate, which is also avoided for a k above
    ``DUCKDB_TOP_K_MAX``); its ``relevant`` and ``judged`` items, which every ranking
    metric reads (for impressions counted in the same aggregation, for a run from its
    judgments). For the metrics that find their rows without ranking, also the list's top
    relevant score (``top_relevant``, NULL without a relevant row: for ``first_hits``)
    and for every cutoff k in use the lowest score that can hold a relevant row within
    the top k (``cutoff_<k>``, ``cutoff_all`` without a cutoff; NULL without a relevant
    row: for ``cutoff_hits``)."""
    by = ", ".join(binding.slices)
    floor = INTERMEDIATES[RANKED].floor
    readers = {
        step: [call for call in binding.calls if reads_among(step, call.spec.intermediates, INTERMEDIATES)]
        for step in LIST_STEPS
    }
    cutoffs = sorted({call.kwargs.get("k") for call in readers[CUTOFF_HITS]}, key=lambda k: (k is not None, k or 0))
    top_ks = [k for k in [*(call.kwargs.get("k") for call in readers[RANKED]), *cutoffs] if k is not None]
    portable = portable or (bool(top_ks) and not _top_k_fits(binding, max(top_ks)))
    floors: dict[tuple[str, float], set[str]] = {}
    for call in filter(_reads_lists, binding.calls):
        floors.setdefault((call.kwargs["ties"], call.kwargs["min_relevance"]), set())
    for call in readers[RANKED]:
        kwargs = call.kwargs
        floors[kwargs["ties"], kwargs["min_relevance"]].add(
            floor(call.spec.reach, kwargs.get("k"), kwargs["min_relevance"], portable)
        )
    rows = "input\nWHERE w IS NOT NULL"
    if portable and top_ks:
        rows = ranked_rows_sql(by)  # the floor's top k reads score_rank
    selects = []
    for (ties, min_relevance), exprs in sorted(floors.items()):
        relevant = f"label >= {templates.literal(min_relevance)}"
        columns = [
            f"{templates.literal(ties)} AS ties",
            f"{templates.literal(min_relevance)} AS min_relevance",
            by,
            "query",
            # a policy that only the steps without ranking read ranks no row: any floor does
            f"{_least(sorted(exprs)) if exprs else 'MAX(score)'} AS floor",
        ]
        if readers[FIRST_HITS]:
            columns.append(f"MAX(CASE WHEN {relevant} THEN score END) AS top_relevant")
        for k in cutoffs:
            columns.append(f"{hit_floor(k, relevant, floor, portable)} AS {cutoff_column(k)}")
        if not binding.judgments:
            columns += [f"SUM(CASE WHEN {relevant} THEN 1 ELSE 0 END) AS relevant", "COUNT(*) AS judged"]
        select = f"SELECT {', '.join(columns)}\nFROM {rows}\nGROUP BY {by}, query"
        selects.append(_with_judged_counts(binding, select, relevant) if binding.judgments else select)
    return "\nUNION ALL\n".join(selects)


def ranked_rows_sql(by: str) -> str:
    """The used rows with ``score_rank``, their score's RANK in their list (descending)."""
    return (
        f"(\n  SELECT *, RANK() OVER (PARTITION BY {by}, query ORDER BY score DESC NULLS LAST) AS score_rank\n"
        "  FROM input\n  WHERE w IS NOT NULL\n) AS ranked_input"
    )


def hit_floor(k: int | None, relevant: str, floor: Callable[..., str], portable: bool) -> str:
    """The lowest score of a list that can hold a relevant row within the top k: the
    larger of its k-th highest score and its lowest relevant score (NULL without a
    relevant row). Every row above it is counted, so a tie group at it still knows
    the rows ranked before it."""
    lowest_relevant = f"MIN(CASE WHEN {relevant} THEN score END)"
    if k is None:
        return lowest_relevant
    top_k = floor("cutoff", k, None, portable)
    return f"CASE WHEN {lowest_relevant} IS NOT NULL THEN GREATEST({top_k}, {lowest_relevant}) END"


def _with_judged_counts(binding: Binding, select: str, relevant: str) -> str:
    """``select`` (one row per list of a run) with the list's ``relevant`` and ``judged``
    items counted in its judgments (``ideal_rows``; 0 for a list without any)."""
    by = ", ".join(binding.slices)
    counts = (
        f"SELECT {by}, query, SUM(CASE WHEN {relevant} THEN 1 ELSE 0 END) AS relevant, COUNT(*) AS judged\n"
        f"FROM ideal_rows\nGROUP BY {by}, query"
    )
    on = f"{templates.same_slice(binding.slices, 'f', 'c')} AND f.query = c.query"
    return (
        f"SELECT f.*, COALESCE(c.relevant, 0) AS relevant, COALESCE(c.judged, 0) AS judged\n"
        f"FROM (\n{select}\n) AS f\nLEFT JOIN (\n{counts}\n) AS c ON {on}"
    )


def _top_k_fits(binding: Binding, k: int) -> bool:
    """Whether DuckDB's top-k aggregate may keep ``k`` scores for every list."""
    rows = binding.source_rows
    return k <= DUCKDB_TOP_K_MAX and rows is not None and rows * k <= DUCKDB_TOP_K_SLOTS


def _least(exprs: list[str]) -> str:
    """The smallest of ``exprs`` (LEAST takes two or more arguments in Spark)."""
    return exprs[0] if len(exprs) == 1 else f"LEAST({', '.join(exprs)})"
