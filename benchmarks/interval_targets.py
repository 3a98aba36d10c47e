"""The intervals' cost at a user's size: each call with intervals against the same call
without, in a fresh interpreter, wall time and peak memory from ``/usr/bin/time``.

    python benchmarks/interval_targets.py --rows 2_000_000          # ~3 minutes

The log is ``examples/generate_impressions.py``'s (7 days, two model versions, users of
many impressions), written once to ``benchmarks/data/targets-<rows>/``, with a second
score ``pctr_b`` of the same rows for the paired comparisons. Prints a markdown table:
docs/intervals.md ("What it costs") quotes it. One run each, on a quiet machine; never
part of the test suite.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
FIVE = ["auc", "gauc", "logloss", "calibration", "ndcg@10"]
ROLES = "label='click', score='pctr', query='user_id', by=['date', 'model_version']"


def prepare(rows: int) -> Path:
    """The log's Parquet files, generated once, each with the second score ``pctr_b``."""
    out = ROOT / "benchmarks" / "data" / f"targets-{rows}"
    if not (out / "_done").exists():
        spec = importlib.util.spec_from_file_location("generate", ROOT / "examples" / "generate_impressions.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for path in module.generate(out, rows=rows, seed=0):
            frame = pl.read_parquet(path)
            noise = np.random.default_rng(abs(hash(path.name)) % 2**32).normal(0, 0.3, frame.height)
            frame.with_columns(pctr_b=(pl.col("pctr") * np.exp(noise)).clip(1e-6, 1 - 1e-6)).write_parquet(path)
        (out / "_done").write_text("")
    return out


def measured(code: str) -> tuple[float, float]:
    """Seconds and peak GB of ``python -c code`` in a fresh interpreter."""
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", sys.executable, "-c", code],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    seconds, kilobytes = done.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(kilobytes) / 1024**2


def calls(source: str) -> list[tuple[str, str, str]]:
    """(what, the call without intervals, the call with them)."""
    evaluate = f"import sqlmetrics as sm; sm.evaluate({source!r}, {FIVE!r}, {ROLES}"
    paired = "scores=('pctr', 'pctr_b'), label='click', query='user_id', by='date'"
    compared = ["auc", "gauc", "f1", "logloss", "calibration"]
    cli = f"from sqlmetrics import cli; cli.main(['report', {source!r}, '-m', {','.join(FIVE)!r}, " + (
        "'--label', 'click', '--score', 'pctr', '--query', 'user_id', '--by', 'date', '--output', '/tmp/t.html'"
    )
    rows = []
    for engine in ("duckdb", "polars"):
        plain = f"{evaluate}, engine={engine!r})"
        rows.append((f"five metrics, ci=0.95, {engine}", plain, f"{evaluate}, ci=0.95, engine={engine!r})"))
        rows.append(
            (f"five metrics, ci=0.95 by user (ci_unit), {engine}", plain,
             f"{evaluate}, ci=0.95, ci_unit='user_id', engine={engine!r})")
        )  # fmt: skip
    rows.append(
        (
            "compare, paired scores, five metrics (f1 and calibration: delta method)",
            f"import sqlmetrics as sm; [sm.evaluate({source!r}, {compared!r}, label='click', score=s, "
            f"query='user_id', by='date') for s in ('pctr', 'pctr_b')]",
            f"import sqlmetrics as sm; sm.compare({source!r}, {compared!r}, {paired})",
        )
    )
    rows.append(
        (
            "report, --arm --ci 0.95",
            f"{cli}])",
            f"{cli}, '--arm', 'model_version', '--baseline', 'v1', '--ci-unit', 'user_id', '--ci', '0.95'])",
        )
    )
    bootstrap = "label='click', score='pctr', by='date'"
    rows.append(
        (
            "logloss and calibration, bootstrap of users, 200 resamples",
            f"import sqlmetrics as sm; sm.evaluate({source!r}, ['logloss', 'calibration'], {bootstrap})",
            f"import sqlmetrics as sm; sm.evaluate({source!r}, ['logloss', 'calibration'], {bootstrap}, ci=0.95, "
            "ci_method='bootstrap', ci_unit='user_id', resamples=200)",
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda text: int(text.replace("_", "")), default=2_000_000)
    parser.add_argument("--only", default="", help="run only the rows whose name holds this text")
    args = parser.parse_args()
    source = str(prepare(args.rows))
    print(f"| {args.rows:,} rows | without | with | ratio | peak memory with |")
    print("|---|---:|---:|---:|---:|")
    for what, without, with_intervals in calls(source):
        if args.only not in what:
            continue
        (plain, _), (timed, peak) = measured(without), measured(with_intervals)
        print(f"| {what} | {plain:.2f} s | {timed:.2f} s | {timed / plain:.2f}× | {peak:.2f} GB |", flush=True)


if __name__ == "__main__":
    main()
