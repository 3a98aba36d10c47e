-- positions: rank positions p = 0 .. the deepest a metric with cutoff k reads, with running
-- sums of the DCG discount 1/log2(p + 1) and of 1/p (both 0 at p = 0), so that a metric sums
-- either over positions a..e as D(e) − D(a − 1). The call renders it once per cutoff its
-- readers use and stacks the renders (UNION ALL): a reader with a cutoff reads no position
-- past k (a peer group straddling k is read to LEAST(last_position, k)), so its table stops
-- at k, or at the longest list or judged set when that is shorter; only k NULL (no cutoff)
-- runs to the longest, which on a skewed log is millions of positions. Column k is the
-- cutoff, 0 for none (k >= 1): a reader selects its table with k = COALESCE(its k, 0).
-- It is written k + 0 * p, not as the constant: DataFusion (55) pushes a filter on a
-- constant column of stacked SELECTs wrongly, keeping every render's rows for the first's k.
--
-- reads:  ranked(last_position), list_floors(judged)
-- params: {{ k }}
-- output: k, p, discount_through, harmonic_through
SELECT COALESCE({{ k }}, 0) + 0 * p AS k, p,
       SUM(CASE WHEN p = 0 THEN 0 ELSE 1 / LOG2(p + 1) END)
           OVER (ORDER BY p ASC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS discount_through,
       SUM(CASE WHEN p = 0 THEN 0 ELSE 1 / CAST(p AS DOUBLE) END)
           OVER (ORDER BY p ASC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS harmonic_through
FROM (
    SELECT UNNEST(RANGE(0, CAST(CASE WHEN {{ k }} IS NULL THEN longest ELSE LEAST(longest, {{ k }}) END AS BIGINT) + 1))
           AS p
    FROM (
        SELECT MAX(n) AS longest
        FROM (
            SELECT MAX(last_position) AS n FROM ranked
            UNION ALL
            SELECT MAX(judged) FROM list_floors
        ) AS lengths
    ) AS longest_list
) AS numbers
