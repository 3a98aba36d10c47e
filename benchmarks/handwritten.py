"""The fastest hand-written queries we found, in DuckDB SQL and in polars: impression-weighted
GAUC, and the ranking metrics NDCG@10, MRR, MAP and HR@10.

GAUC
----
GAUC = sum_u n_u * AUC_u / sum_u n_u over users u with both classes, where n_u is the
user's number of impressions and AUC_u is the tie-correct Mann-Whitney statistic

    AUC_u = (R_u - P_u (P_u + 1) / 2) / (P_u (n_u - P_u)),

R_u being the sum of the average ranks (ties share the mean of their ranks) of the user's
positives among the user's rows. Both return ``(gauc, groups)``.

DuckDB: first keep only users with both classes (one GROUP BY), then one window sort per
user gives ``rank()`` (first rank of the tie group) and ``count(*)`` with the default
RANGE frame (last rank of the tie group); twice the average rank is their sum, an exact
integer. Variants we timed at 10M rows and dropped: a (user, score) histogram with a
running sum (2.2 s), rank() plus count(*) OVER (PARTITION BY user, score) (1.4 s), a
positives x negatives inequality join (1.7 s), EXCLUDE GROUP frames (2.0 s); this one ~0.9 s.

polars: a semi-join to the users with both classes, then ``rank("average")`` inside
``group_by().agg``, collected with the streaming engine (~0.7 s at 10M rows; ``.over()``
or a sorted histogram with ``cum_sum`` were 0.8-3 s).

Ranking metrics
---------------
Per query (user), then the plain mean over the queries with at least one click (the others
are left out, as sqlmetrics' default ``empty="skip"``); binary labels, so exponential and
linear gain coincide. Positions by score descending; these queries assume tie-free scores
(the benchmark runs them on ``pctr_cont``). Each returns ``(value, queries)``.

* NDCG@10 = DCG@10 / IDCG@10, DCG@10 = sum over clicks at positions p <= 10 of 1/log2(p+1),
  IDCG@10 the same for min(clicks, 10) clicks on top.
* MRR: 1 / position of the first click. MAP: mean over the clicks of (clicks at or above
  it) / its position. HR@10: share of queries with a click in the top 10.

The key observation: the first click's position is 1 + the number of rows scoring above
the best-scored click (no sort needed), and MAP only needs the rows scoring at least the
worst-scored click (rows below it change no click's position).

Timings at 10M rows (2 cores, ~142k queries, file reading included; median of 3-5 runs in
one process), the kept variant first, then the dropped ones:

DuckDB

* NDCG@10: ``max_by(y, s, 10)`` (the top-10 labels in score order; a per-group heap, no
  full sort) and ``sum(y)`` per user, DCG and IDCG with list lambdas: 0.34 s. Dropped:
  the IDCG from a 10-row table instead (0.33 s, no simpler); QUALIFY row_number() <= 10
  plus a join to the users' click counts (0.40 s); one window sort of the clicked users'
  rows with row_number() and a window sum(y) for the IDCG (0.81 s; 0.90 s without the
  semi-join).
* MRR and HR@10: the best-scored click per user, joined back, counting the rows scoring
  at least that (= the first click's position): 0.22 s and 0.25 s. Dropped: min of
  row_number() over the clicks (MRR, 0.63 s); ``list_max(max_by(y, s, 10))`` (HR, 0.32 s).
* MAP: keep the rows scoring at least the user's worst-scored click (a join),
  row_number() window, QUALIFY the clicks, a second row_number() over the clicks (clicks
  at or above): 0.60 s. Dropped: no pre-filter (0.68 s); a running sum(y) window (0.96 s;
  0.72 s with the pre-filter); count(*) and sum(y) with the default RANGE frame (1.11 s).

polars (all ``collect(engine="streaming")``)

* NDCG@10: semi-join to the users with a click, ``group_by().agg(y.sort_by(s,
  descending=True).head(10))``, DCG with ``list.eval``, IDCG from an 11-entry table:
  0.50 s. Dropped: no list column (head(10) over an int_range, 0.51 s); ``top_k_by``
  (0.73 s; 1.48 s without the semi-join); ``rank("ordinal")`` in the agg (0.94 s; 1.18 s
  without the semi-join); a global sort + ``int_range().over`` (1.24 s).
* MRR and HR@10: as DuckDB (best click's score, join, count the rows at or above it):
  0.20 s and 0.19 s. Dropped: ``arg_max`` of the labels sorted by score (MRR, 0.42 s);
  ``head(10).max()`` of them (HR, 0.37 s).
* MAP: DuckDB's pre-filter, then ``int_range(1, clicks + 1) / (arg_true() + 1)`` over the
  labels sorted by score, in the agg: 0.53 s. Dropped: no pre-filter (0.56 s);
  ``rank("ordinal")`` of the clicks (0.61 s).

``ndcg_ties_duckdb`` (tied scores, pessimistic or average) is not timed: it gives the
reference values the tie cases are checked against.
"""

from __future__ import annotations

import math

import polars as pl

GAUC_SQL = """
WITH r AS (SELECT "{query}" AS q, CAST("{label}" AS INTEGER) AS y, "{score}" AS s FROM {source}),
users AS (SELECT q, count(*) AS n, sum(y) AS p FROM r GROUP BY q HAVING sum(y) > 0 AND sum(y) < count(*)),
ranked AS (
  SELECT q, rank() OVER w + count(*) OVER w AS rank2
  FROM r SEMI JOIN users USING (q)
  WINDOW w AS (PARTITION BY q ORDER BY s)
  QUALIFY y = 1),
rank_sums AS (SELECT q, sum(rank2) / 2.0 AS rank_sum FROM ranked GROUP BY q)
SELECT sum(n * (rank_sum - p * (p + 1) / 2.0) / (p * (n - p))) / sum(n) AS gauc, count(*) AS groups
FROM rank_sums JOIN users USING (q)
"""


def gauc_duckdb(con, parquet_glob: str, label: str = "click", score: str = "pctr", query: str = "user_id"):
    source = "read_parquet(" + "'" + parquet_glob.replace("'", "''") + "')"
    sql = GAUC_SQL.format(query=query, label=label, score=score, source=source)
    gauc, groups = con.execute(sql).fetchall()[0]
    return gauc, groups


def gauc_polars(parquet_glob: str, label: str = "click", score: str = "pctr", query: str = "user_id"):
    rows = pl.scan_parquet(parquet_glob).select(query, score, y=pl.col(label).cast(pl.Int64))
    both = (
        rows.group_by(query)
        .agg(n=pl.len(), p=pl.col("y").sum())
        .filter((pl.col("p") > 0) & (pl.col("p") < pl.col("n")))
        .select(query)
    )
    n, p = pl.col("n"), pl.col("p")
    auc = (pl.col("rank_sum") - p * (p + 1) / 2) / (p * (n - p))
    result = (
        rows.join(both, on=query, how="semi")
        .group_by(query)
        .agg(n=pl.len(), p=pl.col("y").sum(), rank_sum=pl.col(score).rank("average").filter(pl.col("y") == 1).sum())
        .select(gauc=(n * auc).sum() / n.sum(), groups=pl.len())
        .collect(engine="streaming")
    )
    return result["gauc"][0], result["groups"][0]


def auc_polars(parquet_glob: str, label: str = "click", score: str = "pctr_cont"):
    """AUC as a polars user writes it: the rank-sum (R⁺ − P(P + 1)/2) / (P·N), average ranks."""
    y = pl.col(label) == 1
    p, n = y.sum().cast(pl.Float64), (~y).sum().cast(pl.Float64)
    rank_sum = pl.col(score).rank("average").filter(y).sum()
    return pl.scan_parquet(parquet_glob).select(auc=(rank_sum - p * (p + 1) / 2) / (p * n)).collect().item()


# ---------------------------------------------------------------- ranking metrics

RANKING_ROWS = 'r AS (SELECT "{query}" AS q, CAST("{label}" AS INTEGER) AS y, "{score}" AS s FROM {source})'

NDCG_SQL = """
WITH {rows},
per AS (SELECT max_by(y, s, {k}) AS top, sum(y)::BIGINT AS p FROM r GROUP BY q HAVING sum(y) > 0)
SELECT avg(list_sum(list_transform(top, lambda g, i: g / log2(i + 1)))
           / list_sum(list_transform(range(1, least(p, {k}) + 1), lambda i: 1 / log2(i + 1)))),
       count(*)
FROM per
"""

FIRST_HIT_SQL = """
WITH {rows},
users AS (SELECT q, max(s) FILTER (y = 1) AS top FROM r GROUP BY q HAVING sum(y) > 0),
first AS (SELECT count(*) AS rank FROM r JOIN users USING (q) WHERE s >= top GROUP BY q)
SELECT {value}, count(*) FROM first
"""

MAP_SQL = """
WITH {rows},
users AS (SELECT q, min(s) FILTER (y = 1) AS low FROM r GROUP BY q HAVING sum(y) > 0),
hits AS (SELECT q, row_number() OVER (PARTITION BY q ORDER BY s DESC) AS rank
         FROM r JOIN users USING (q) WHERE s >= low QUALIFY y = 1),
prec AS (SELECT q, row_number() OVER (PARTITION BY q ORDER BY rank) / rank AS prec FROM hits)
SELECT avg(ap), count(*) FROM (SELECT avg(prec) AS ap FROM prec GROUP BY q)
"""


def _ranking_duckdb(con, template, parquet_glob, label, score, query, **params):
    source = "read_parquet(" + "'" + parquet_glob.replace("'", "''") + "')"
    rows = RANKING_ROWS.format(query=query, label=label, score=score, source=source)
    value, queries = con.execute(template.format(rows=rows, **params)).fetchall()[0]
    return value, queries


def ndcg_duckdb(con, parquet_glob, k=10, label="click", score="pctr_cont", query="user_id"):
    return _ranking_duckdb(con, NDCG_SQL, parquet_glob, label, score, query, k=int(k))


def mrr_duckdb(con, parquet_glob, label="click", score="pctr_cont", query="user_id"):
    return _ranking_duckdb(con, FIRST_HIT_SQL, parquet_glob, label, score, query, value="avg(1 / rank)")


def hit_rate_duckdb(con, parquet_glob, k=10, label="click", score="pctr_cont", query="user_id"):
    value = f"avg(CAST(rank <= {int(k)} AS DOUBLE))"
    return _ranking_duckdb(con, FIRST_HIT_SQL, parquet_glob, label, score, query, value=value)


def map_duckdb(con, parquet_glob, label="click", score="pctr_cont", query="user_id"):
    return _ranking_duckdb(con, MAP_SQL, parquet_glob, label, score, query)


def _ranking_rows(parquet_glob, label, score, query):
    return pl.scan_parquet(parquet_glob).select(q=pl.col(query), s=pl.col(score), y=pl.col(label).cast(pl.Int64))


def _clicked_users(rows):
    return rows.group_by("q").agg(p=pl.col("y").sum()).filter(pl.col("p") > 0).select("q")


def _idcg(k: int) -> list[float]:
    """IDCG@k of a query with 0, 1, ..., k clicks (binary gains)."""
    out = [0.0]
    for i in range(1, k + 1):
        out.append(out[-1] + 1 / math.log2(i + 1))
    return out


def ndcg_polars(parquet_glob, k=10, label="click", score="pctr_cont", query="user_id"):
    rows = _ranking_rows(parquet_glob, label, score, query)
    y = pl.col("y")
    dcg = pl.col("top").list.eval(pl.element() / (pl.int_range(pl.len()) + 2).log(2)).list.sum()
    idcg = pl.col("p").clip(upper_bound=k).replace_strict(list(range(k + 1)), _idcg(k), return_dtype=pl.Float64)
    result = (
        rows.join(_clicked_users(rows), on="q", how="semi")
        .group_by("q")
        .agg(p=y.sum(), top=y.sort_by("s", descending=True).head(k))
        .select(value=(dcg / idcg).mean(), queries=pl.len())
        .collect(engine="streaming")
    )
    return result["value"][0], result["queries"][0]


def _first_hit_polars(parquet_glob, value, label, score, query):
    rows = _ranking_rows(parquet_glob, label, score, query)
    users = rows.group_by("q").agg(top=pl.col("s").filter(pl.col("y") == 1).max()).drop_nulls("top")
    result = (
        rows.join(users, on="q")
        .filter(pl.col("s") >= pl.col("top"))
        .group_by("q")
        .agg(rank=pl.len())
        .select(value=value, queries=pl.len())
        .collect(engine="streaming")
    )
    return result["value"][0], result["queries"][0]


def mrr_polars(parquet_glob, label="click", score="pctr_cont", query="user_id"):
    return _first_hit_polars(parquet_glob, (1 / pl.col("rank")).mean(), label, score, query)


def hit_rate_polars(parquet_glob, k=10, label="click", score="pctr_cont", query="user_id"):
    return _first_hit_polars(parquet_glob, (pl.col("rank") <= k).cast(pl.Float64).mean(), label, score, query)


def map_polars(parquet_glob, label="click", score="pctr_cont", query="user_id"):
    rows = _ranking_rows(parquet_glob, label, score, query)
    y, s = pl.col("y"), pl.col("s")
    users = rows.group_by("q").agg(low=s.filter(y == 1).min()).drop_nulls("low")
    hit_index = (y == 1).sort_by("s", descending=True).arg_true()  # 0-based ranks of the clicks
    result = (
        rows.join(users, on="q")
        .filter(s >= pl.col("low"))
        .group_by("q")
        .agg(ap=(pl.int_range(1, y.sum() + 1) / (hit_index + 1)).mean())
        .select(value=pl.col("ap").mean(), queries=pl.len())
        .collect(engine="streaming")
    )
    return result["value"][0], result["queries"][0]


def _discount_prefix(m: str, k: int) -> str:
    """SQL for sum_{p=1}^{min(m, k)} 1 / log2(p + 1), for an integer expression m >= 0."""
    return f"coalesce(list_sum(list_transform(range(1, least({m}, {k}) + 1), lambda i: 1 / log2(i + 1))), 0)"


NDCG_TIES_SQL = """
WITH {rows},
users AS (SELECT q FROM r GROUP BY q HAVING sum(y) > 0),
ranked AS (
  SELECT q, y, rank() OVER w AS lo, count(*) OVER w AS hi, sum(y) OVER (PARTITION BY q) AS p
  FROM r SEMI JOIN users USING (q)
  WINDOW w AS (PARTITION BY q ORDER BY s DESC)),
tie_groups AS (
  SELECT q, lo::BIGINT AS lo, hi::BIGINT AS hi, sum(y)::BIGINT AS c, any_value(p)::BIGINT AS p
  FROM ranked GROUP BY q, lo, hi),
per AS (SELECT q, sum({gain}) AS dcg, any_value({idcg}) AS idcg FROM tie_groups GROUP BY q)
SELECT avg(dcg / idcg), count(*) FROM per
"""


def ndcg_ties_duckdb(con, parquet_glob, ties, k=10, label="click", score="pctr", query="user_id"):
    """NDCG@k with tied scores, for the agreement check (not timed; a plain window query).

    Within a tie group (the rows of a query sharing a score) occupying positions lo..hi
    and holding c clicks: ``pessimistic`` puts the clicks last (positions hi-c+1..hi);
    ``average`` gives every click the mean discount of lo..hi, which is the expected DCG
    over all orders of the group (McSherry & Najork 2008, scikit-learn's ndcg_score).
    """
    d = lambda m: _discount_prefix(m, k)  # noqa: E731
    gain = {
        "pessimistic": f"{d('hi')} - {d('hi - c')}",
        "average": f"c * ({d('hi')} - {d('lo - 1')}) / (hi - lo + 1)",
    }[ties]
    return _ranking_duckdb(con, NDCG_TIES_SQL, parquet_glob, label, score, query, gain=gain, idcg=d("p"))
