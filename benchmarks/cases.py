"""Benchmark cases. Each runs in its own fresh interpreter:

    python benchmarks/cases.py CASE DATA_DIR

prints one JSON line: the case's numbers, ``seconds`` (read + compute, timed after the
imports), ``import_rss_mb`` (resident memory after the imports) and ``peak_rss_mb`` (the
process's peak RSS, VmHWM).

A case is a function ``(parquet_glob, data_dir) -> run``: it does its imports, and
``run()`` does the timed work (reading the Parquet included) and returns a dict of numbers.
Columns: label ``click``, score ``pctr`` (or ``pctr_cont``: no ties), query ``user_id``.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES = {}


def case(name, group, score="pctr"):
    def register(fn):
        CASES[name] = {"fn": fn, "group": group, "score": score}
        return fn

    return register


def _sqlmetrics(metrics, score, engine, query=None, **intervals):
    """``metrics`` is a list of names, or a function ``sqlmetrics -> list`` (for ``sm.metric(...)``);
    ``intervals``: evaluate's ``ci``, ``ci_method``, ``resamples``, ..."""

    def setup(parquet_glob, data_dir):
        import sqlmetrics as sm

        wanted = metrics(sm) if callable(metrics) else metrics

        def run():
            frame = sm.evaluate(
                parquet_glob, wanted, label="click", score=score, query=query, engine=engine, **intervals
            )
            return frame.row(0, named=True)

        return run

    return setup


def _sklearn_auc(score):
    def setup(parquet_glob, data_dir):
        import pyarrow.dataset as ds
        from sklearn.metrics import roc_auc_score

        files = sorted(Path(data_dir).glob("*.parquet"))

        def run():
            table = ds.dataset(files, format="parquet").to_table(columns=["click", score])
            return {"auc": roc_auc_score(table["click"].to_numpy(), table[score].to_numpy())}

        return run

    return setup


def _polars_ds_auc(score):
    def setup(parquet_glob, data_dir):
        import polars as pl
        import polars_ds as pds

        def run():
            frame = pl.scan_parquet(parquet_glob).select(auc=pds.query_roc_auc("click", score))
            return {"auc": frame.collect(engine="streaming").item()}

        return run

    return setup


@case("duckdb_scan", "scan")
def duckdb_scan(parquet_glob, data_dir):
    import duckdb

    def run():
        con = duckdb.connect()
        sum_pctr, sum_click = con.execute(
            "SELECT sum(pctr), sum(click) FROM read_parquet(?)", [parquet_glob]
        ).fetchall()[0]
        return {"sum_pctr": sum_pctr, "sum_click": int(sum_click)}

    return run


for _suffix, _score in (("", "pctr"), ("_cont", "pctr_cont")):
    case(f"sqlmetrics_auc_duckdb{_suffix}", "auc" + _suffix, _score)(_sqlmetrics(["auc"], _score, "duckdb"))
    case(f"sqlmetrics_auc_polars{_suffix}", "auc" + _suffix, _score)(_sqlmetrics(["auc"], _score, "polars"))
    case(f"sklearn_auc{_suffix}", "auc" + _suffix, _score)(_sklearn_auc(_score))
    case(f"polars_ds_auc{_suffix}", "auc" + _suffix, _score)(_polars_ds_auc(_score))

# Continuous scores only (issue 13): average precision, the hand-written polars rank-sum AUC,
# GAUC and the four composed metrics on pctr_cont.


@case("handwritten_auc_polars_cont", "auc_cont", "pctr_cont")
def handwritten_auc_polars_cont(parquet_glob, data_dir):
    import handwritten

    return lambda: {"auc": handwritten.auc_polars(parquet_glob)}


for _engine in ("duckdb", "polars"):
    case(f"sqlmetrics_ap_{_engine}_cont", "ap_cont", "pctr_cont")(
        _sqlmetrics(["average_precision"], "pctr_cont", _engine)
    )
    case(f"sqlmetrics_gauc_{_engine}_cont", "gauc_cont", "pctr_cont")(
        _sqlmetrics(["gauc"], "pctr_cont", _engine, query="user_id")
    )


@case("sklearn_ap_cont", "ap_cont", "pctr_cont")
def sklearn_ap_cont(parquet_glob, data_dir):
    import pyarrow.dataset as ds
    from sklearn.metrics import average_precision_score

    files = sorted(Path(data_dir).glob("*.parquet"))

    def run():
        table = ds.dataset(files, format="parquet").to_table(columns=["click", "pctr_cont"])
        return {"average_precision": average_precision_score(table["click"].to_numpy(), table["pctr_cont"].to_numpy())}

    return run


@case("handwritten_gauc_polars_cont", "gauc_cont", "pctr_cont")
def handwritten_gauc_polars_cont(parquet_glob, data_dir):
    import handwritten

    def run():
        gauc, groups = handwritten.gauc_polars(parquet_glob, score="pctr_cont")
        return {"gauc": gauc, "groups": groups}

    return run


case("sqlmetrics_gauc_duckdb", "gauc")(_sqlmetrics(["gauc"], "pctr", "duckdb", query="user_id"))
case("sqlmetrics_gauc_polars", "gauc")(_sqlmetrics(["gauc"], "pctr", "polars", query="user_id"))


@case("pandas_sklearn_gauc", "gauc")
def pandas_sklearn_gauc(parquet_glob, data_dir):
    """What a pandas user writes: groupby user, roc_auc_score per user with both classes."""
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    def run():
        frame = pd.read_parquet(data_dir, columns=["user_id", "click", "pctr"])
        grouped = frame.groupby("user_id", sort=False)["click"]
        both = frame[(grouped.transform("sum") > 0) & (grouped.transform("min") == 0)]
        total = weights = groups = 0
        for _, user in both.groupby("user_id", sort=False):
            n = len(user)
            total += n * roc_auc_score(user["click"].to_numpy(), user["pctr"].to_numpy())
            weights += n
            groups += 1
        return {"gauc": total / weights, "groups": groups}

    return run


@case("handwritten_gauc_duckdb", "gauc")
def handwritten_gauc_duckdb(parquet_glob, data_dir):
    import duckdb
    import handwritten

    def run():
        gauc, groups = handwritten.gauc_duckdb(duckdb.connect(), parquet_glob)
        return {"gauc": gauc, "groups": groups}

    return run


@case("handwritten_gauc_polars", "gauc")
def handwritten_gauc_polars(parquet_glob, data_dir):
    import handwritten

    def run():
        gauc, groups = handwritten.gauc_polars(parquet_glob)
        return {"gauc": gauc, "groups": groups}

    return run


_COMPOSED = ["auc", "gauc", "logloss", "calibration"]
case("sqlmetrics_composed_duckdb", "composed")(_sqlmetrics(_COMPOSED, "pctr", "duckdb", query="user_id"))
case("sqlmetrics_composed_polars", "composed")(_sqlmetrics(_COMPOSED, "pctr", "polars", query="user_id"))
for _engine in ("duckdb", "polars"):
    case(f"sqlmetrics_composed_{_engine}_cont", "composed_cont", "pctr_cont")(
        _sqlmetrics(_COMPOSED, "pctr_cont", _engine, query="user_id")
    )
# the same four with their intervals: analytic (DeLong, t over users, the mean's), and the
# Poisson bootstrap with 200 resamples of rows, and of users (clustered)
for _engine in ("duckdb", "polars"):
    case(f"sqlmetrics_composed_ci_{_engine}", "intervals")(
        _sqlmetrics(_COMPOSED[:3], "pctr", _engine, query="user_id", ci=0.95)
    )
    case(f"sqlmetrics_composed_noci_{_engine}", "intervals")(
        _sqlmetrics(_COMPOSED[:3], "pctr", _engine, query="user_id")
    )
    case(f"sqlmetrics_composed_bootstrap_{_engine}", "intervals")(
        _sqlmetrics(_COMPOSED, "pctr", _engine, query="user_id", ci=0.95, ci_method="bootstrap")
    )
    case(f"sqlmetrics_composed_bootstrap_users_{_engine}", "intervals")(
        _sqlmetrics(_COMPOSED, "pctr", _engine, query="user_id", ci=0.95, ci_method="bootstrap", ci_unit="user_id")
    )

# the same-number reference of a bootstrap: three metrics, 200 resamples of users, in numpy
# and scikit-learn with the counts sqlmetrics draws (sqlmetrics/binding/bootstrap.py's hash, written
# here again in numpy), against sqlmetrics' same call
BOOTSTRAP_METRICS = ["auc", "logloss", "calibration"]
for _engine in ("duckdb", "polars"):
    case(f"sqlmetrics_bootstrap3_users_{_engine}", "intervals")(
        _sqlmetrics(BOOTSTRAP_METRICS, "pctr", _engine, ci=0.95, ci_method="bootstrap", ci_unit="user_id")
    )


@case("sklearn_bootstrap3_users", "intervals")
def sklearn_bootstrap3_users(parquet_glob, data_dir):
    import math

    import numpy as np
    import pyarrow.dataset as ds
    from scipy import stats
    from sklearn.metrics import log_loss, roc_auc_score

    files = sorted(Path(data_dir).glob("*.parquet"))
    p = 2**31 - 1
    bounds = np.array([math.ceil(stats.poisson.cdf(k, 1) * p) for k in range(10)], dtype=np.int64)

    def counts(unit: np.ndarray, replicate: int) -> np.ndarray:
        """Poisson(1) counts of (unit, replicate, seed 0): the hash of sqlmetrics/binding/bootstrap.py."""
        h = (48_271 * (unit % p) + 69_621 * replicate + 12_345) % p
        h = (h * h + 1_103_515_245) % p
        h = (h * h + 12_345) % p
        return np.searchsorted(bounds, h, side="right")  # the smallest k with h < bound_k (10 past the last)

    def metrics(y, s, w):
        return {
            "auc": roc_auc_score(y, s, sample_weight=w),
            "logloss": log_loss(y, s, sample_weight=w),
            "calibration": float((w * s).sum() / (w * y).sum()),
        }

    def run():
        table = ds.dataset(files, format="parquet").to_table(columns=["click", "pctr", "user_id"])
        y, s = table["click"].to_numpy(), table["pctr"].to_numpy()
        unit = np.unique(table["user_id"].to_numpy(), return_inverse=True)[1].astype(np.int64) + 1  # DENSE_RANK
        replicates = [metrics(y, s, counts(unit, r).astype(float)) for r in range(1, 201)]
        out = metrics(y, s, np.ones(len(y)))
        for name in BOOTSTRAP_METRICS:
            values = np.array([r[name] for r in replicates])
            out[f"{name}_lo"], out[f"{name}_hi"] = np.quantile(values, [0.025, 0.975])
        return out

    return run


# ---------------------------------------------------------------- fixed cost of a small call
# Analysts and pipelines call evaluate in loops over small frames, where planning, not
# data, is the cost: ten metrics over the first 1,000 rows (a polars frame read before
# the timing), called SMALL_CALLS times after SMALL_WARMUP untimed calls. ``call_seconds``
# is the median call.

SMALL = ["auc", "gauc", "logloss", "brier", "accuracy", "precision", "recall", "f1", "average_precision", "calibration"]
SMALL_ROWS = 1_000
SMALL_CALLS = 50
SMALL_WARMUP = 3


def _sqlmetrics_small(engine):
    def setup(parquet_glob, data_dir):
        import statistics

        import polars as pl

        import sqlmetrics as sm

        frame = pl.scan_parquet(parquet_glob).select("click", "pctr", "user_id").head(SMALL_ROWS).collect()

        def call():
            return sm.evaluate(frame, SMALL, label="click", score="pctr", query="user_id", engine=engine)

        def run():
            for _ in range(SMALL_WARMUP):
                call()
            times = []
            for _ in range(SMALL_CALLS):
                start = time.perf_counter()
                result = call()
                times.append(time.perf_counter() - start)
            return {**result.row(0, named=True), "call_seconds": statistics.median(times)}

        return run

    return setup


for _engine in ("duckdb", "polars"):
    case(f"sqlmetrics_small_{_engine}", "small")(_sqlmetrics_small(_engine))


# ---------------------------------------------------------------- scale: the README's daily report
# AUC, GAUC, logloss and NDCG@10 by day in one call, meant for --rows 100_000_000: the
# DuckDB engine as is, the DuckDB engine held to MEMORY_LIMIT (so it must spill to disk),
# and the polars engine. Each reports the first day's metrics and the rows of all days.

DAILY = ["auc", "gauc", "logloss", "ndcg@10"]
DAILY_COLUMNS = ["auc", "gauc", "logloss", "ndcg_at_10"]
MEMORY_LIMIT = "3GB"


def _sqlmetrics_daily(engine, memory_limit=None, score="pctr"):
    def setup(parquet_glob, data_dir):
        import duckdb

        import sqlmetrics as sm

        def run():
            con = None
            if memory_limit:
                con = duckdb.connect()
                con.execute(f"SET memory_limit = '{memory_limit}'")
                con.execute("SET enable_progress_bar = false")
            frame = sm.evaluate(
                parquet_glob, DAILY, label="click", score=score, query="user_id", by="date", engine=engine, con=con
            )
            first_day = frame.row(0, named=True)
            return {
                **{column: first_day[column] for column in DAILY_COLUMNS},
                "days": frame.height,
                "n_rows": frame["n_rows"].sum(),
                "n_excluded": frame["n_excluded"].sum(),
            }

        return run

    return setup


case("sqlmetrics_daily_duckdb", "scale")(_sqlmetrics_daily("duckdb"))
case("sqlmetrics_daily_duckdb_limited", "scale")(_sqlmetrics_daily("duckdb", MEMORY_LIMIT))
case("sqlmetrics_daily_polars", "scale")(_sqlmetrics_daily("polars"))
# The same with continuous scores (every score distinct), held to 4GB: the issue's
# 200M-row case (`--rows 200_000_000 --cases scale_cont`).
case("sqlmetrics_daily_cont_duckdb_limited", "scale_cont", "pctr_cont")(
    _sqlmetrics_daily("duckdb", "4GB", score="pctr_cont")
)


# ---------------------------------------------------------------- regression metrics
# The predicted probability pctr against the click as a numeric target: regression metrics
# only need numbers, and these are the columns the data has.

REGRESSION = ["mae", "rmse", "r2", "median_absolute_error"]
for _engine in ("duckdb", "polars"):
    case(f"sqlmetrics_regression_{_engine}", "regression")(_sqlmetrics(REGRESSION, "pctr", _engine))


@case("sklearn_regression", "regression")
def sklearn_regression(parquet_glob, data_dir):
    """What a scikit-learn user writes: read the two columns into numpy, call each metric."""
    import pyarrow.dataset as ds
    from sklearn import metrics

    files = sorted(Path(data_dir).glob("*.parquet"))

    def run():
        table = ds.dataset(files, format="parquet").to_table(columns=["click", "pctr"])
        y, p = table["click"].to_numpy().astype("float64"), table["pctr"].to_numpy()
        return {
            "mae": metrics.mean_absolute_error(y, p),
            "rmse": metrics.root_mean_squared_error(y, p),
            "r2": metrics.r2_score(y, p),
            "median_absolute_error": metrics.median_absolute_error(y, p),
        }

    return run


# ---------------------------------------------------------------- curves
# The ROC curve of pctr (every threshold), summarized by its point count and trapezoid area.


def _sqlmetrics_roc(engine):
    def setup(parquet_glob, data_dir):
        import numpy as np

        import sqlmetrics as sm

        def run():
            curve = sm.roc_curve(parquet_glob, label="click", score="pctr", engine=engine)
            return {"points": curve.height, "area": float(np.trapezoid(curve["tpr"], curve["fpr"]))}

        return run

    return setup


for _engine in ("duckdb", "polars"):
    case(f"sqlmetrics_roc_curve_{_engine}", "curves")(_sqlmetrics_roc(_engine))


@case("sklearn_roc_curve", "curves")
def sklearn_roc_curve(parquet_glob, data_dir):
    import numpy as np
    import pyarrow.dataset as ds
    from sklearn.metrics import roc_curve

    files = sorted(Path(data_dir).glob("*.parquet"))

    def run():
        table = ds.dataset(files, format="parquet").to_table(columns=["click", "pctr"])
        fpr, tpr, _ = roc_curve(table["click"].to_numpy(), table["pctr"].to_numpy(), drop_intermediate=False)
        return {"points": len(fpr), "area": float(np.trapezoid(tpr, fpr))}

    return run


# ---------------------------------------------------------------- ranking metrics
# Query user_id, label click, score pctr_cont (no ties) unless the name says ties; queries
# (users) without a click are left out of every mean, as sqlmetrics' default empty="skip".

RANKING = {  # case stem -> (sqlmetrics metric, result column, hand-written function stem)
    "ndcg": ("ndcg@10", "ndcg_at_10", "ndcg"),
    "mrr": ("mrr", "mrr", "mrr"),
    "map": ("map", "map", "map"),
    "hit_rate": ("hit_rate@10", "hit_rate_at_10", "hit_rate"),
}
RANKING_METRICS = [metric for metric, _, _ in RANKING.values()]
RANX_METRICS = {"ndcg@10": "ndcg_at_10", "mrr": "mrr", "map": "map", "hit_rate@10": "hit_rate_at_10"}


def _handwritten_ranking(stem, engine):
    def setup(parquet_glob, data_dir):
        import handwritten

        fn = getattr(handwritten, f"{stem}_{engine}")
        column = RANKING[stem][1]

        def run():
            if engine == "duckdb":
                import duckdb

                value, queries = fn(duckdb.connect(), parquet_glob)
            else:
                value, queries = fn(parquet_glob)
            return {column: value, "queries": queries}

        return run

    return setup


for _stem, (_metric, _column, _fn) in RANKING.items():
    for _engine in ("duckdb", "polars"):
        case(f"sqlmetrics_{_stem}_{_engine}", "ranking", "pctr_cont")(
            _sqlmetrics([_metric], "pctr_cont", _engine, query="user_id")
        )
        case(f"handwritten_{_stem}_{_engine}", "ranking", "pctr_cont")(_handwritten_ranking(_fn, _engine))

for _engine in ("duckdb", "polars"):
    case(f"sqlmetrics_ranking_composed_{_engine}", "ranking", "pctr_cont")(
        _sqlmetrics(RANKING_METRICS, "pctr_cont", _engine, query="user_id")
    )
    for _ties in ("average", "pessimistic"):
        case(f"sqlmetrics_ndcg_ties_{_ties}_{_engine}", "ranking", "pctr")(
            _sqlmetrics(lambda sm, t=_ties: [sm.metric("ndcg@10", ties=t)], "pctr", _engine, query="user_id")
        )


@case("pandas_ranking", "ranking", "pctr_cont")
def pandas_ranking(parquet_glob, data_dir):
    """What a pandas user writes: drop users without a click, sort by (user, score desc),
    ranks from groupby().cumcount(), then one groupby().agg over the clicked rows."""
    import numpy as np
    import pandas as pd

    idcg = np.concatenate([[0.0], np.cumsum(1 / np.log2(np.arange(2, 12)))])  # IDCG@10 of 0..10 clicks

    def run():
        frame = pd.read_parquet(data_dir, columns=["user_id", "click", "pctr_cont"])
        clicks = frame.groupby("user_id", sort=False)["click"].transform("sum")
        frame = frame[clicks > 0].sort_values(["user_id", "pctr_cont"], ascending=[True, False])
        frame["rank"] = frame.groupby("user_id", sort=False).cumcount() + 1
        hits = frame[frame["click"] == 1].copy()
        hits["hit"] = hits.groupby("user_id", sort=False).cumcount() + 1  # clicks at or above this one
        hits["gain"] = np.where(hits["rank"] <= 10, 1 / np.log2(hits["rank"] + 1), 0.0)
        hits["precision"] = hits["hit"] / hits["rank"]
        per = hits.groupby("user_id", sort=False).agg(
            clicks=("hit", "size"), dcg=("gain", "sum"), first=("rank", "min"), ap=("precision", "mean")
        )
        return {
            "ndcg_at_10": (per["dcg"] / idcg[np.minimum(per["clicks"].to_numpy(), 10)]).mean(),
            "mrr": (1 / per["first"]).mean(),
            "map": per["ap"].mean(),
            "hit_rate_at_10": (per["first"] <= 10).mean(),
            "queries": len(per),
        }

    return run


RANX_DOC_WIDTH = 8  # doc ids are zero-padded to this many digits (see ranx_ranking)


def _ranx_inputs(frame):
    """Qrels and Run from a frame (q: str, doc: str, y, s) whose rows are grouped by q: plain
    dicts {q: {doc: relevance or score}} (qrels: the clicked docs only), then ranx's own
    constructors, the documented way to build them."""
    from ranx import Qrels, Run

    qrels, run = {}, {}
    for q, doc, y, s in zip(frame["q"].to_list(), frame["doc"].to_list(), frame["y"].to_list(), frame["s"].to_list()):
        scores = run.get(q)
        if scores is None:
            scores = run[q] = {}
            qrels[q] = {}
        scores[doc] = s
        if y:
            qrels[q][doc] = 1
    return Qrels(qrels), Run(run)


@case("ranx_ranking", "ranking", "pctr_cont")
def ranx_ranking(parquet_glob, data_dir):
    """ranx 0.3: build Qrels and Run from the Parquet, then ``ranx.evaluate`` the four metrics.

    Timed as two parts (``build_seconds``, ``evaluate_seconds``; ``seconds`` is their sum):

    * build: polars reads user_id, click, pctr_cont, keeps the users with a click (ranx
      scores a query without a relevant doc 0 and averages over every query of the qrels,
      and needs qrels and run to hold the same queries: passing only users with a click is
      what makes its means the skip-empty means the others compute), gives every row a doc
      id unique within its user (item_id repeats within a user in this log, and ranx keys
      docs by id, so it would collapse them): the row's index within the user in file
      order, zero-padded to ``RANX_DOC_WIDTH`` digits; then Python dicts and
      ``Qrels(dict)`` / ``Run(dict)`` (the faster of that and ``Qrels/Run.from_df``, whose
      pandas groupby-apply took ~2x as long at 1M rows).
    * evaluate: ``ranx.evaluate(qrels, run, [...])`` (which converts both to numba lists
      and runs its parallel numba kernels).

    ranx compiles its numba kernels on first use (``cache=True``: loaded from
    ``__pycache__`` after the first process, still ~4 s). ``setup`` warms every kernel up
    on a 12-query input with the same types (string ids, doc ids of the same width: numba
    specialises on the width) so neither part pays for compiling. 12 queries, not fewer:
    ``evaluate`` calls ``numba.set_num_threads(1)`` for fewer than 10 queries, and that
    would stick for the timed call.
    """
    import numpy as np
    import polars as pl
    import ranx

    metrics = list(RANX_METRICS)
    warm = pl.DataFrame(
        {
            "q": [str(i // 5) for i in range(60)],
            "doc": [f"{i:0{RANX_DOC_WIDTH}d}" for i in range(60)],
            "y": [int(i % 5 == 0) for i in range(60)],
            "s": np.random.default_rng(0).random(60),
        }
    )
    ranx.evaluate(*_ranx_inputs(warm), metrics)

    def run():
        started = time.perf_counter()
        frame = (
            pl.scan_parquet(parquet_glob)
            .select(q=pl.col("user_id"), y=pl.col("click"), s=pl.col("pctr_cont"))
            .filter(pl.col("y").sum().over("q") > 0)
            .with_columns(
                doc=pl.int_range(pl.len()).over("q").cast(pl.String).str.zfill(RANX_DOC_WIDTH),
                q=pl.col("q").cast(pl.String),
            )
            .sort("q", maintain_order=True)
            .collect()
        )
        qrels, ranx_run = _ranx_inputs(frame)
        built = time.perf_counter()
        scores = ranx.evaluate(qrels, ranx_run, metrics)
        done = time.perf_counter()
        out = {column: float(scores[metric]) for metric, column in RANX_METRICS.items()}
        out.update(queries=len(qrels), build_seconds=built - started, evaluate_seconds=done - built)
        return out

    return run


def _cpu_seconds() -> float:
    """The CPU seconds (user + system, every thread) this process has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_rss_mb() -> float:
    """This process's peak RSS: VmHWM belongs to the address space exec created, so, unlike
    getrusage's ru_maxrss (kept across exec on Linux), it excludes the parent's memory."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def main(argv: list[str]) -> None:
    name, data_dir = argv
    parquet_glob = str(Path(data_dir) / "*.parquet")
    run = CASES[name]["fn"](parquet_glob, data_dir)
    import_rss = _rss_mb()
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    values = run()
    seconds, cpu_seconds = time.perf_counter() - started, _cpu_seconds() - cpu_started
    peak = _peak_rss_mb()
    values = {k: (v if isinstance(v, (int, float, str)) or v is None else float(v)) for k, v in values.items()}
    print(
        json.dumps(
            {
                "case": name,
                "seconds": seconds,
                "cpu_seconds": cpu_seconds,
                "import_rss_mb": import_rss,
                "peak_rss_mb": peak,
                "values": values,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
