"""Comparing two search systems on TREC files, as trec_eval would, and beyond.

    python examples/search_runs.py [OUT_DIR]

Writes a small synthetic test collection into OUT_DIR (default: a temporary directory):
graded relevance judgments (``qrels.txt``) and the runs of two systems (``bm25.run``,
``rerank.run``) in trec_eval's formats. Then:

1. each run with trec_eval's conventions (linear gain, ties broken by document id,
   queries without relevant documents scored 0), which is what ``trec_eval -m
   ndcg_cut.10 -m map -m recip_rank -m P.10`` reports for these files;
2. both runs in one call, one row per system (``by="run"``), with sqlmetrics' defaults
   (exponential gain, the exact expected value over tied scores);
3. per-query NDCG@10 of both systems, to see where the reranker wins;
4. the same evaluation from the command line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

import sqlmetrics as sm

TREC_EVAL = {"ties": "item", "empty": "zero"}  # trec_eval's conventions, plus linear gain for NDCG


def write_collection(out: Path, queries: int = 40, documents: int = 60, seed: int = 3) -> None:
    """qrels.txt (grades 0-3 for part of each query's pool) and two runs of 30 documents
    per query: bm25 (noisy, scores rounded: ties) and rerank (closer to the grades)."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], {"bm25": [], "rerank": []}
    for q in range(1, queries + 1):
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=documents)
        judged = rng.random(documents) < 0.7  # the rest of the pool was never judged
        for d in np.flatnonzero(judged):
            qrels.append(f"q{q} 0 d{d:03d} {grades[d]}")
        for system, noise, decimals in (("bm25", 2.0, 1), ("rerank", 0.8, 3)):
            scores = np.round(grades + rng.normal(0, noise, documents), decimals)
            top = np.argsort(-scores, kind="stable")[:30]
            runs[system] += [f"q{q} Q0 d{d:03d} {r} {scores[d]} {system}" for r, d in enumerate(top, 1)]
    (out / "qrels.txt").write_text("\n".join(qrels) + "\n")
    for system, lines in runs.items():
        (out / f"{system}.run").write_text("\n".join(lines) + "\n")


TREC_MEASURES = {  # trec_eval's measure: the same number from sqlmetrics
    "ndcg_cut_10": sm.metric("ndcg@10", gain="linear", **TREC_EVAL),
    "map": sm.metric("map", **TREC_EVAL),
    "recip_rank": sm.metric("mrr", **TREC_EVAL),
    "P_10": sm.metric("precision@10", **TREC_EVAL),
}


def trec_eval_numbers(run_file: Path, qrels_file: Path) -> dict[str, float]:
    """What ``trec_eval -m ndcg_cut.10 -m map -m recip_rank -m P.10`` reports on its "all" line."""
    run, qrels = sm.read_trec_run(run_file), sm.read_trec_qrels(qrels_file)
    columns = {"query": "query", "item": "item", "score": "score", "label": "relevance"}
    result = sm.evaluate(run, list(TREC_MEASURES.values()), judgments=qrels, **columns)
    return {measure: result[call.column].item() for measure, call in TREC_MEASURES.items()}


def main(out: Path) -> None:
    write_collection(out)
    pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4, tbl_hide_dataframe_shape=True)
    qrels = sm.read_trec_qrels(out / "qrels.txt")
    runs = pl.concat([sm.read_trec_run(out / f"{system}.run") for system in ("bm25", "rerank")])
    columns = {"judgments": qrels, "query": "query", "item": "item", "score": "score", "label": "relevance"}

    # 1. trec_eval's numbers for each run.
    for system in ("bm25", "rerank"):
        numbers = trec_eval_numbers(out / f"{system}.run", out / "qrels.txt")
        print(f"{system:8}", "  ".join(f"{measure} {value:.4f}" for measure, value in numbers.items()))

    # 2. Both systems in one call, sqlmetrics' defaults: exponential gain, exact tie expectation.
    report = sm.evaluate(runs, ["ndcg@10", "map", "mrr", "recall@10"], **columns, by="run")
    print(report.select("run", "ndcg_at_10", "map", "mrr", "recall_at_10", "ndcg_at_10_queries"))

    # 3. Per query: each query is its own slice.
    per_query = (
        sm.evaluate(runs, ["ndcg@10"], **columns, by=["query", "run"])
        .pivot(on="run", index="query", values="ndcg_at_10")
        .with_columns(gain=pl.col("rerank") - pl.col("bm25"))
        .sort("gain")
    )
    print(per_query.head(5))
    wins = per_query.filter(pl.col("gain") > 0).height
    print(f"rerank beats bm25 on {wins} of {per_query.height} queries")

    # 4. The command line, on the files themselves.
    command = [
        sys.executable, "-m", "sqlmetrics", "eval", str(out / "rerank.run"), "--judgments", str(out / "qrels.txt"),
        "--trec", "--metrics", "ndcg@10:gain=linear:ties=item:empty=zero,map:ties=item:empty=zero",
    ]  # fmt: skip
    print(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp))
