"""The polars form of the ranking plan: the same steps as the SQL intermediates, each
declared beside its template in the family's ``INTERMEDIATES`` (``Intermediate.polars``).

``Lists`` holds a call's used rows and judged items, and computes once each

* ``list_floors``: one aggregation of each list's rows, giving every per-list score the
  steps below start from and, for impressions, the list's relevant and judged items
  (``list_floors_of``, the form of ``list_sql.py``'s ``list_floors``);
* ``ranked(ties, min_relevance)``: every row with its peer group's positions
  ``first_position .. last_position`` and ``group_relevant`` (``ranked_rows``, the form
  of ``sql/intermediates/ranked.sql``);
* ``judged``: each list's relevance histogram (``judged_labels``; ``judged.sql`` keeps
  only its labels above 0; for a run, it also counts the list's relevant and judged
  items);
* ``discount_through`` / ``harmonic_through``: running sums over positions, as deep as
  a cutoff k reads (``positions``, the form of ``positions.sql``), read with ``gather``;

the functions ``first_relevant`` and ``hits_in_top`` (``first_hits.sql``,
``cutoff_hits.sql``: the rows at or above a per-list score, grouped, not ranked; each
also computed once per policy, threshold and cutoff for all its readers); and
the steps every metric ends with: ``per_list`` (lists, their relevant and judged
counts, and whether the ``empty`` rule keeps them) and ``summarize`` (one row per slice:
the metric, lists used, lists skipped). A list is one query within one slice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import paired_spread, spread_expr
from sqlmetrics.metrics.ranking._params import TIE_BREAKS
from sqlmetrics.metrics.ranking._reach import floor_plan, kth_highest_column, lowest_relevant, top_scores
from sqlmetrics.rules.columns import checks_for, raise_failed_rows
from sqlmetrics.sources import in_kind, slice_names
from sqlmetrics.spec import Metric, MetricCall


@dataclass
class Lists:
    """A call's ranking input. ``rows``: the used rows with canonical columns (slices,
    ``query``, ``item``, ``score``, ``label``); ``ideal_rows``: the judged items of every
    list (slices, ``query``, ``label``); ``by``: the slice columns; ``counted_in_rows``:
    whether a list's relevant and judged items are its rows' (impressions), not its
    judgments' (a run)."""

    rows: pl.LazyFrame
    ideal_rows: pl.LazyFrame
    by: list[str]
    counted_in_rows: bool = True
    # What the calls read of each list (``reached_by``), all from one aggregation of its
    # rows (``list_floors``): per (ties, min_relevance), the (reach, k) of the metrics
    # ranking that way (see _reach.py); the relevance thresholds of the calls (their
    # relevant items), of the readers of ``first_hits`` (the top relevant score) and the
    # (k, threshold) of the readers of ``cutoff_hits`` (the lowest score that can hold a
    # relevant row within the top k).
    floors: dict[tuple[str, float], set[tuple[str, int | None]]] = field(default_factory=dict)
    relevances: set[float] = field(default_factory=set)
    first_hits: set[float] = field(default_factory=set)
    cutoffs: set[tuple[int | None, float]] = field(default_factory=set)
    _cache: dict[Any, pl.DataFrame] = field(default_factory=dict)
    # also give each mean's standard error and degrees of freedom (``<name>_se``, ``_df``);
    # a slice name: that slice holds two paired scores (1, 2), give the spread of their
    # difference on the rows of 2 (sm.compare)
    spread: bool | str = False
    # give each list's value and weight in the mean rather than the mean (a state's
    # queries: ``sm.state``)
    per_query: bool = False

    def reached_by(self, calls: Sequence[MetricCall]) -> Lists:
        """These lists, reading (and ranking) only what the ranking metrics of ``calls``
        read."""
        floors: dict[tuple[str, float], set[tuple[str, int | None]]] = {}
        relevances, first_hits, cutoffs = set(), set(), set()
        for call in calls:
            if call.spec.polars_form != "lists":
                continue
            kwargs, steps = call.kwargs, call.reads
            min_relevance = kwargs["min_relevance"]
            relevances.add(min_relevance)
            if call.spec.reach:
                floors.setdefault((kwargs["ties"], min_relevance), set()).add((call.spec.reach, kwargs.get("k")))
            if "first_hits" in steps:
                first_hits.add(min_relevance)
            if "cutoff_hits" in steps:
                cutoffs.add((kwargs.get("k"), min_relevance))
        return Lists(
            self.rows,
            self.ideal_rows,
            self.by,
            self.counted_in_rows,
            floors,
            relevances,
            first_hits,
            cutoffs,
            spread=self.spread,
        )

    @property
    def keys(self) -> list[str]:
        return [*self.by, "query"]

    def _cached(self, key: Any, build: Callable[[], pl.LazyFrame]) -> pl.DataFrame:
        if key not in self._cache:
            self._cache[key] = build().collect(engine="streaming")
        return self._cache[key]

    @property
    def list_floors(self) -> pl.LazyFrame:
        """Every list, with what the calls read of it (``list_floors_of``), collected once."""
        return self._cached("list_floors", lambda: list_floors_of(self)).lazy()

    def ranked(self, ties: str, min_relevance: float) -> pl.LazyFrame:
        """Every used row with its peer group (see ``sql/intermediates/ranked.sql``)."""
        return self._cached(("ranked", ties, min_relevance), lambda: ranked_rows(self, ties, min_relevance)).lazy()

    @property
    def judged(self) -> pl.LazyFrame:
        return self._cached("judged", lambda: judged_labels(self)).lazy()

    def _positions(self, k: int | None) -> pl.DataFrame:
        """``positions`` for cutoff ``k``: as far as the ranked rows and ideal rankings
        computed so far reach (rebuilt longer when one reaches further), and no further
        than k."""
        return self._cached(("positions", self.deepest(k)), lambda: positions(self, k=k))

    def _longest(self) -> int:
        """The last position of the ranked rows computed so far and of the ideal rankings
        (a list's judged items): the positions the metrics read."""
        ranked = [
            frame["last_position"].max() or 0
            for key, frame in self._cache.items()
            if isinstance(key, tuple) and key[0] == "ranked"
        ]
        judged = self._cached("judged_longest", lambda: self._judged_counts().select(pl.col("judged").max())).item()
        return max([*ranked, judged or 0])

    def deepest(self, k: int | None) -> int:
        """The last position a metric with cutoff ``k`` reads: the longest list or ideal
        ranking (``_longest``), or k when that is shorter (a peer group straddling k is
        read to min(e, k))."""
        longest = self._longest()
        return longest if k is None else min(longest, k)

    def discount_through(self, position: pl.Expr, k: int | None) -> pl.Expr:
        """D(position) = Σ_{p <= position} 1/log2(p + 1), for a metric with cutoff ``k``
        (position <= k)."""
        return pl.lit(self._positions(k)["discount_through"]).gather(position)

    def harmonic_through(self, position: pl.Expr, k: int | None) -> pl.Expr:
        """H(position) = Σ_{p <= position} 1/p, for a metric with cutoff ``k`` (position <= k)."""
        return pl.lit(self._positions(k)["harmonic_through"]).gather(position)

    def _judged_counts(self, min_relevance: float | None = None) -> pl.LazyFrame:
        """Per list with judged items: ``judged``, and its ``relevant`` items for
        ``min_relevance``; for impressions counted in ``list_floors``, for a run in its
        judgments."""
        if self.counted_in_rows:
            relevant = [] if min_relevance is None else [pl.col(relevant_column(min_relevance)).alias("relevant")]
            return self.list_floors.select(*self.keys, *relevant, "judged")
        n = pl.col("n")
        relevant = [] if min_relevance is None else [n.filter(pl.col("label") >= min_relevance).sum().alias("relevant")]
        return self.judged.group_by(self.keys).agg(*relevant, judged=n.sum())

    def per_list(self, parts: pl.LazyFrame, min_relevance: float, empty: str) -> pl.LazyFrame:
        """Every list with the metric's summed ``parts`` (0 where it has none), its
        ``relevant`` and ``judged`` counts and ``used``: a list without a relevant judged
        item is kept only under ``empty="zero"``, a list without judgments never."""
        lists = self.list_floors.select(self.keys)
        values = [c for c in parts.collect_schema() if c not in self.keys]
        joined = lists.join(parts, on=self.keys, how="left", nulls_equal=True).join(
            self._judged_counts(min_relevance), on=self.keys, how="left", nulls_equal=True
        )
        relevant, judged = pl.col("relevant").fill_null(0), pl.col("judged").fill_null(0)
        return joined.with_columns(
            pl.col(values).fill_null(0.0),
            relevant=relevant,
            used=(relevant > 0) | ((judged > 0) & pl.lit(empty == "zero")),
        )

    def summarize(self, per_list: pl.LazyFrame, name: str, value: pl.Expr) -> pl.LazyFrame:
        """One row per slice: ``name`` = mean of ``value`` over used lists, with the
        counts of lists used (``<name>_queries``) and skipped (``<name>_skipped``), and
        with ``spread`` the mean's ``<name>_se`` and ``<name>_df`` (intervals.py)."""
        extra, used_value = [], pl.when(pl.col("used")).then(value)
        if self.per_query:
            return self.queries(per_list, used_value, pl.lit(1.0))
        if self.spread is True:
            se, df = spread_expr(used_value)
            extra = [se.alias(f"{name}_se"), df.alias(f"{name}_df")]
        summary = self.summarize_with(per_list, name, value.filter(pl.col("used")).mean(), extra)
        if isinstance(self.spread, str):
            spreads = paired_spread(per_list, self.by, self.spread, used_value, None, name)
            summary = summary.join(spreads, on=self.by, how="left", nulls_equal=True)
        return summary

    def summarize_pooled(self, per_list: pl.LazyFrame, name: str, part: pl.Expr, whole: pl.Expr) -> pl.LazyFrame:
        """Like ``summarize`` for a micro average: Σ part / Σ whole over the used lists
        (NULL when Σ whole is 0); per query, each list's part / whole weighted by its whole."""
        used = pl.col("used")
        if self.per_query:
            value = pl.when(used).then(pl.when(whole > 0).then(part / whole).otherwise(0.0))
            return self.queries(per_list, value, whole)
        total = whole.filter(used).sum()
        return self.summarize_with(per_list, name, pl.when(total > 0).then(part.filter(used).sum() / total))

    def queries(self, per_list: pl.LazyFrame, value: pl.Expr, weight: pl.Expr) -> pl.LazyFrame:
        """Each list's ``value`` (NULL: left out) and ``weight`` in the mean (a state's
        queries, ``PerQuery``)."""
        return per_list.select(*self.keys, value=value.cast(pl.Float64), weight=pl.lit(1.0) * weight.cast(pl.Float64))

    def summarize_with(
        self, per_list: pl.LazyFrame, name: str, aggregate: pl.Expr, extra: Sequence[pl.Expr] = ()
    ) -> pl.LazyFrame:
        """Like ``summarize`` with any ``aggregate`` over the lists (micro averages)."""
        used = pl.col("used")
        summary = [
            aggregate.alias(name),
            used.sum().cast(pl.Int64).alias(f"{name}_queries"),
            (~used).sum().cast(pl.Int64).alias(f"{name}_skipped"),
            *extra,
        ]
        return per_list.group_by(self.by).agg(summary) if self.by else per_list.select(summary)


def ranked_rows(lists: Lists, ties: str, min_relevance: float) -> pl.LazyFrame:
    """The polars form of ``ranked``: every used row of ``lists`` at or above its list's
    floor with its peer group (``sql/intermediates/ranked.sql``'s columns but the
    parameters). Rows sorted by list, score descending and the tie policy's order (``TIE_BREAKS``);
    peers (rows still tied) are consecutive, so their span and relevant rows come from
    cumulative sums over the sorted rows, without a window per group. The rows are sorted
    by score and tie breaks first, then stably by list: polars' sort by (list, score)
    compares the score of every pair in a long run of one list, and took 4-7 CPU-s for
    4.9M rows of Zipf(1.6) lists against 0.9 for the two sorts (0.9 against 0.3 on evenly
    spread lists)."""
    keys = lists.keys
    rows = lists.rows
    if (ties, min_relevance) in lists.floors:
        floors = lists.list_floors.select(*keys, floor=pl.col(floor_column(ties, min_relevance)))
        rows = rows.join(floors, on=keys, how="inner", nulls_equal=True).filter(pl.col("score") >= pl.col("floor"))
    breaks = [column for column, _ in TIE_BREAKS[ties]]
    rows = rows.select(
        *keys, "score", *dict.fromkeys(["label", *breaks]), relevant=(pl.col("label") >= min_relevance).cast(pl.Int64)
    )
    rows = sorted_by_list(
        rows, keys, ["score", *breaks], descending=[True] + [descending for _, descending in TIE_BREAKS[ties]]
    )
    index = pl.int_range(pl.len(), dtype=pl.Int64)
    new_list = starts(keys)
    new_peer = starts([*keys, "score", *breaks])
    peer_ends = new_peer.shift(-1, fill_value=True)
    cum_relevant = pl.col("relevant").cum_sum()
    list_start = pl.when(new_list).then(index).forward_fill()
    peer_start = pl.when(new_peer).then(index).forward_fill()
    peer_end = pl.when(peer_ends).then(index).backward_fill()
    peer_before = pl.when(new_peer).then(cum_relevant - pl.col("relevant")).forward_fill()
    peer_through = pl.when(peer_ends).then(cum_relevant).backward_fill()
    return rows.select(
        *keys,
        "label",
        "relevant",
        (peer_start - list_start + 1).alias("first_position"),
        (peer_end - list_start + 1).alias("last_position"),
        (peer_through - peer_before).alias("group_relevant"),
    )


def sorted_by_list(rows: pl.LazyFrame, keys: list[str], order: list[str], descending: list[bool]) -> pl.LazyFrame:
    """``rows`` sorted by ``keys`` and within a list by ``order`` (NULLs last): sorted by
    ``order``, then by each key alone, stably, the last key first. A row index between
    two sorts keeps polars from fusing them into one sort by every column (the slow
    one: see ``ranked_rows``); the index is never read, and the optimizer drops it."""
    rows = rows.sort(order, descending=descending, nulls_last=True)
    for i, key in enumerate(reversed(keys)):
        rows = rows.with_row_index(f"_sorted_{i}").sort(key, nulls_last=True, maintain_order=True)
    return rows


def list_floors_of(lists: Lists) -> pl.LazyFrame:
    """The polars form of ``list_floors`` (``list_sql.py``): one aggregation of each
    list's rows giving every score the list steps start from (what ``lists`` was
    ``reached_by``): the floor of each (tie policy, relevance threshold) that ranks
    (``floor_column``), the top relevant score (``top_relevant_column``, for
    ``first_relevant``) and the lowest score that can hold a relevant row within each
    cutoff k (``hit_floor_column``, for ``hits_in_top``); and for impressions its relevant
    items per threshold (``relevant_column``) and ``judged`` items."""
    aggregates: dict[str, pl.Expr] = {}
    floors = {}
    for (ties, min_relevance), reaches in lists.floors.items():
        needed, floor = floor_plan(reaches, min_relevance)
        aggregates |= needed
        floors[floor_column(ties, min_relevance)] = floor
    score, label = pl.col("score"), pl.col("label")
    for min_relevance in lists.first_hits:
        aggregates[top_relevant_column(min_relevance)] = score.filter(label >= min_relevance).max()
    cutoffs = {}
    for k, min_relevance in lists.cutoffs:
        lowest, aggregates[lowest] = lowest_relevant(min_relevance)
        floor = pl.col(lowest)
        if k is not None:
            floor = pl.when(floor.is_not_null()).then(pl.max_horizontal(pl.col(kth_highest_column(k)), floor))
        cutoffs[hit_floor_column(k, min_relevance)] = floor
    if lists.counted_in_rows:
        aggregates |= {relevant_column(m): (label >= m).sum().cast(pl.Int64) for m in lists.relevances}
        aggregates["judged"] = pl.len().cast(pl.Int64)
    ks = {k for reaches in lists.floors.values() for _, k in reaches if k is not None}
    ks |= {k for k, _ in lists.cutoffs if k is not None}
    kth: dict[str, pl.Expr] = {}
    if ks:
        aggregates["top_scores"], kth = top_scores(ks)
    aggregates = aggregates or {"judged": pl.len().cast(pl.Int64)}  # every list, whatever is read
    frame = lists.rows.group_by(lists.keys).agg(**aggregates)
    if kth:
        frame = frame.with_columns(**kth).drop("top_scores")
    return frame.with_columns(**floors, **cutoffs)


def floor_column(ties: str, min_relevance: float) -> str:
    """The column of ``list_floors`` with the lowest score ``ranked`` keeps for a policy."""
    return f"floor_{ties}_{min_relevance!r}"


def top_relevant_column(min_relevance: float) -> str:
    """The column of ``list_floors`` with a list's top relevant score."""
    return f"top_relevant_{min_relevance!r}"


def hit_floor_column(k: int | None, min_relevance: float) -> str:
    """The column of ``list_floors`` with the larger of a list's k-th highest score and its
    lowest relevant one (NULL without a relevant row)."""
    return f"cutoff_{k}_{min_relevance!r}"


def relevant_column(min_relevance: float) -> str:
    """The column of ``list_floors`` with a list's relevant rows (impressions)."""
    return f"relevant_{min_relevance!r}"


def judged_labels(lists: Lists) -> pl.LazyFrame:
    """The polars form of ``judged``: per list and label of its judged items, their
    count ``n`` (every label: ``judged.sql`` keeps those above 0)."""
    return lists.ideal_rows.group_by([*lists.keys, "label"]).agg(n=pl.len().cast(pl.Int64))


def positions(lists: Lists, *, k: int | None) -> pl.LazyFrame:
    """The polars form of ``positions`` for cutoff ``k``: p = 0 .. the last position the
    ranked rows of ``lists`` computed so far and its ideal rankings reach, or k when that
    is shorter (``Lists.deepest``), with the running sums D(p) = Σ_{q <= p} 1/log2(q + 1)
    (``discount_through``) and H(p) = Σ_{q <= p} 1/q (``harmonic_through``), both 0 at
    p = 0."""
    p = pl.int_range(0, lists.deepest(k) + 1, eager=False)

    def through(term: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        return pl.when(p == 0).then(0.0).otherwise(term(p.cast(pl.Float64))).cum_sum()

    return pl.LazyFrame().select(
        p.alias("p"),
        through(lambda q: 1 / (q + 1).log(2)).alias("discount_through"),
        through(lambda q: 1 / q).alias("harmonic_through"),
    )


def starts(columns: Sequence[str]) -> pl.Expr:
    """True on the first row and wherever any of ``columns`` differs from the row above
    (NULL-safe): on sorted rows, the first row of each group. Running sums per group are
    then a global cum_sum minus its value before the group's first row, much cheaper
    than ``.over()`` on many small groups."""
    changed = pl.any_horizontal(pl.col(c).ne_missing(pl.col(c).shift(1)) for c in columns)
    return changed | (pl.int_range(pl.len()) == 0)


def gain_expr(kind: str) -> pl.Expr:
    """gain(rel): 2^rel − 1 (``exponential``) or rel (``linear``)."""
    return pl.col("label") if kind == "linear" else pl.lit(2.0).pow(pl.col("label")) - 1


def within(k: int | None, column: str = "last_position") -> pl.Expr:
    """min(column, k), or the column itself when there is no cutoff."""
    return pl.col(column) if k is None else pl.min_horizontal(pl.col(column), pl.lit(k))


def group_size() -> pl.Expr:
    return pl.col("last_position") - pl.col("first_position") + 1


def from_frame(
    data: pl.DataFrame | pl.LazyFrame,
    *,
    score: str,
    label: str,
    query: str,
    item: str | None = None,
    by: Sequence[str] = (),
    judgments: pl.DataFrame | pl.LazyFrame | None = None,
) -> Lists:
    """``Lists`` of a user's frame: rows with a NULL in a used column are left out.
    With ``judgments`` (columns ``query``, ``item`` and ``label`` named as in ``data``),
    ``data`` is a run and each row's relevance is its judgment (0 if unjudged)."""
    lf = data.lazy()
    by_names = slice_names(by)
    slices = [pl.col(c).alias(name) for c, name in zip(by, by_names)]
    item_expr = pl.col(item) if item is not None else pl.lit(None)
    columns = [
        *slices,
        pl.col(query).alias("query"),
        item_expr.alias("item"),
        pl.col(score).cast(pl.Float64).alias("score"),
    ]
    used = [query, score, *(() if item is None else (item,))]
    if judgments is None:
        rows = lf.filter(*(pl.col(c).is_not_null() for c in [*used, label])).select(
            *columns, pl.col(label).cast(pl.Float64).alias("label")
        )
        return Lists(rows, rows.select(*by_names, "query", "label"), by_names)
    judged = judgments.lazy().select(
        pl.col(query).alias("query"), pl.col(item).alias("item"), pl.col(label).cast(pl.Float64).alias("label")
    )
    return run_lists(lf.filter(*(pl.col(c).is_not_null() for c in used)).select(columns), judged, by_names)


def run_lists(run: pl.LazyFrame, judged: pl.LazyFrame, by: list[str]) -> Lists:
    """``Lists`` of a run (canonical columns, used rows) and its judgments."""
    keys = [*by, "query"]
    rows = run.join(judged, on=["query", "item"], how="left").with_columns(pl.col("label").fill_null(0.0))
    ideal = run.select(keys).unique().join(judged, on="query", how="inner").select(*keys, "label")
    return Lists(rows, ideal, by, counted_in_rows=False)


def call_lists(
    rows: pl.LazyFrame,
    judged: pl.LazyFrame | None,
    by: list[str],
    calls: Sequence[MetricCall],
    spread: str | bool | None,
) -> Lists:
    """The polars engine's ``Lists`` for a call (its ``lists`` runner reads them): the used
    rows' lists (``rows``: the slices ``by``, query, item, score, label), each list's
    judged items (its own rows, or the judgments ``judged`` of a run), as deep as
    ``calls`` read, and with ``spread`` (the slice of a query mean's interval) unless None."""
    if judged is None:
        lists = Lists(rows, rows.select(*by, "query", "label"), by)
    else:
        lists = run_lists(rows.drop("label"), judged, by)
    lists = lists.reached_by(calls)
    return lists if spread is None else replace(lists, spread=spread)


def frame_metric(
    spec: Metric,
    compute: Callable[..., pl.LazyFrame],
    data: pl.DataFrame | pl.LazyFrame,
    *,
    score: str,
    label: str,
    query: str,
    item: str | None = None,
    by: Sequence[str] = (),
    judgments: pl.DataFrame | pl.LazyFrame | None = None,
    **params: Any,
) -> Any:
    """A ranking metric's public frame function (``smp.<name>``) of its module's ``spec``:
    validate ``params`` as ``sm.metric`` does (``Metric.called``: no registry, which
    imports this family), refuse bad relevance or scores with ``sm.evaluate``'s messages
    (read now, whatever the kind of ``data``), compute per slice, and name the slice
    columns back; a LazyFrame for a LazyFrame ``data``, a DataFrame for a DataFrame."""
    call = spec.called(params)
    lists = from_frame(data, score=score, label=label, query=query, item=item, by=by, judgments=judgments)
    raise_failed_rows(lists.rows, checks_for([call], weighted=False), {"label": label, "score": score})
    lists = lists.reached_by([call])
    result = compute(lists, **call.kwargs)
    result = result.rename(dict(zip(lists.by, by))).sort(list(by), nulls_last=True) if by else result
    return in_kind(result, data)


def hits_in_top(lists: Lists, *, k: int | None, ties: str, min_relevance: float) -> pl.LazyFrame:
    """The polars form of ``cutoff_hits``: per list with a relevant row, ``hits``, the
    expected relevant rows in the top k (``sql/intermediates/cutoff_hits.sql``): from
    the rows at or above the larger of the list's k-th highest score and its lowest
    relevant score, each peer group of n rows after the first b counting
    min(n, max(k − b, 0))/n of its relevant rows."""

    def build() -> pl.LazyFrame:
        groups = _top_groups(lists, ties, min_relevance, hit_floor_column(k, min_relevance))
        n, b = pl.col("n"), pl.col("rows_before")
        inside = n if k is None else pl.min_horizontal(n, pl.max_horizontal(pl.lit(k) - b, pl.lit(0)))
        return groups.group_by(lists.keys).agg(hits=(pl.col("relevant") * inside / n).sum())

    return lists._cached(("cutoff_hits", k, ties, min_relevance), build).lazy()  # once for all its readers


def first_relevant(lists: Lists, *, ties: str, min_relevance: float) -> pl.LazyFrame:
    """The polars form of ``first_hits``: per list with a relevant row, its first peer
    group holding one: positions from ``a``, ``g`` rows of which ``m`` relevant
    (``sql/intermediates/first_hits.sql``: from the rows at or above the list's top
    relevant score, without ranking them)."""

    def build() -> pl.LazyFrame:
        groups = _top_groups(lists, ties, min_relevance, top_relevant_column(min_relevance))
        first = (pl.col("relevant") > 0) & (pl.col("relevant_before") == 0)
        a, g, m = pl.col("rows_before") + 1, pl.col("n"), pl.col("relevant")
        return groups.filter(first).select(*lists.keys, a=a, g=g, m=m)

    return lists._cached(("first_hits", ties, min_relevance), build).lazy()  # once for all its readers


def _top_groups(lists: Lists, ties: str, min_relevance: float, threshold: str) -> pl.LazyFrame:
    """The rows of each list at or above its ``threshold`` score (a column of
    ``list_floors``; a list where it is NULL has none): those above it as one group,
    those at it per peer group of the policy, in the policy's order, each group's rows
    ``n``, ``relevant`` rows and the rows and relevant rows before it (``rows_before``,
    ``relevant_before``)."""
    keys, breaks = lists.keys, TIE_BREAKS[ties]
    floors = lists.list_floors.select(*keys, threshold=pl.col(threshold)).filter(pl.col("threshold").is_not_null())
    rows = lists.rows.join(floors, on=keys, how="inner", nulls_equal=True).filter(
        pl.col("score") >= pl.col("threshold")
    )
    at = pl.col("score") == pl.col("threshold")
    peers = [f"peer_{column}" for column, _ in breaks]
    rows = rows.select(
        *keys,
        (~at).alias("above"),
        *(pl.when(at).then(pl.col(column)).alias(f"peer_{column}") for column, _ in breaks),
        (pl.col("label") >= min_relevance).cast(pl.Int64).alias("relevant"),
    )
    groups = rows.group_by([*keys, "above", *peers]).agg(n=pl.len().cast(pl.Int64), relevant=pl.col("relevant").sum())
    groups = groups.sort(
        [*keys, "above", *peers],
        descending=[False] * len(keys) + [True] + [descending for _, descending in breaks],
        nulls_last=True,
    )
    new_list = starts(keys)
    rows_through, relevant_through = pl.col("n").cum_sum(), pl.col("relevant").cum_sum()
    rows_before = rows_through - pl.col("n") - pl.when(new_list).then(rows_through - pl.col("n")).forward_fill()
    relevant_before = (
        relevant_through
        - pl.col("relevant")
        - pl.when(new_list).then(relevant_through - pl.col("relevant")).forward_fill()
    )
    return groups.with_columns(rows_before=rows_before, relevant_before=relevant_before)
