"""The fastest hand-written impression-weighted GAUC we found, in DuckDB SQL and in polars.

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
"""

from __future__ import annotations

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
