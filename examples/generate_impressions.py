"""Generate a deterministic, realistic-looking impressions log of an A/B test as Parquet.

One row per shown item. Every value is drawn from a seeded numpy generator, so the same
``(rows, seed)`` always gives the same files, whatever the machine.

Columns
-------
date           pl.Date   one of 7 consecutive days starting 2026-11-01 (one day per request)
country        str       US, IN, BR, DE, JP, FR with skewed shares (one country per user)
user_id        int64     about rows/20 distinct users; impressions per user are lognormal-
                         distributed: many users with 1-3 impressions, a few heavy users
request_id     int64     a request is a run of ~5-20 consecutive impressions of one user
item_id        int64     Zipf-like item popularity over a catalogue of max(1000, rows/100)
position       int32     1-based position of the item within its request
model_version  str       "v1" or "v2"; a 50/50 split by user (each user sees one model)
pctr           float64   the serving model's predicted CTR, in (0, 1). It is a noisy estimate
                         of a latent true CTR; v2 is less noisy than v1 and v1 over-predicts a
                         little. v1 is rounded to 4 decimals, v2 to 5, so scores have ties.
click          int8      0/1, drawn from the latent true CTR (user, item, position and country
                         effects); about 3% of rows. AUC of pctr is around 0.75, and
                         sum(pctr) / sum(click) is near 1 (a bit above for v1).

Files
-----
Rows are generated in chunks of about 5M rows (whole users per chunk), so memory stays
bounded at any size. Each chunk is written as one file per date:
``OUT_DIR/impressions-<YYYY-MM-DD>-<chunk>.parquet``. Existing ``*.parquet`` files in
OUT_DIR are removed first, so reruns are idempotent.

Usage
-----
    python examples/generate_impressions.py OUT_DIR [--rows N] [--seed S]

or, from Python, ``generate(out_dir, rows=200_000, seed=0) -> list[Path]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from pathlib import Path

import numpy as np
import polars as pl

START_DATE = dt.date(2026, 11, 1)
N_DAYS = 7
CHUNK_ROWS = 5_000_000
MEAN_IMPRESSIONS_PER_USER = 20
COUNTRIES = np.array(["US", "IN", "BR", "DE", "JP", "FR"])
COUNTRY_SHARES = np.array([0.36, 0.24, 0.15, 0.10, 0.08, 0.07])
COUNTRY_LOGIT = np.array([0.0, -0.35, 0.15, -0.10, -0.25, 0.05])
DAY_SHARES = np.array([0.15, 0.14, 0.14, 0.14, 0.14, 0.14, 0.15])
BASE_LOGIT = -3.05  # puts the mean true CTR near 3%
# Serving models: score logit = true logit + bias + noise(sd); v1 noisier and over-predicting.
MODEL_NOISE_SD = {"v1": 0.95, "v2": 0.75}
MODEL_BIAS = {"v1": -0.28, "v2": -0.23}
MODEL_DECIMALS = {"v1": 4, "v2": 5}


def _scramble(index: np.ndarray, multiplier: int, offset: int) -> np.ndarray:
    """Map 0..n-1 to distinct, random-looking positive int64 ids (a bijection mod 2**40)."""
    return ((index.astype(np.int64) * multiplier) % (1 << 40)) + offset


def _user_counts(rng: np.random.Generator, rows: int) -> np.ndarray:
    """Impressions per user: lognormal counts (median ~6, long tail), summing to ``rows``."""
    n_users = max(1, rows // MEAN_IMPRESSIONS_PER_USER)
    sigma = 1.5
    mu = np.log(MEAN_IMPRESSIONS_PER_USER) - sigma**2 / 2
    counts = np.maximum(1, np.round(rng.lognormal(mu, sigma, n_users))).astype(np.int64)
    counts = np.minimum(counts, max(1, rows // 50))  # no single user dominates a small log
    # Rescale to the exact total: drop users past the total, or spread the remainder.
    total = np.cumsum(counts)
    if total[-1] >= rows:
        last = int(np.searchsorted(total, rows))
        counts = counts[: last + 1]
        counts[-1] -= int(total[last] - rows)
    else:
        missing = rows - int(total[-1])
        counts += missing // len(counts)
        counts[: missing % len(counts)] += 1
    return counts[counts > 0]


def _chunk_frame(
    rng: np.random.Generator,
    counts: np.ndarray,
    first_user: int,
    first_request: int,
    item_effect: np.ndarray,
) -> tuple[pl.DataFrame, int]:
    """Rows of the users ``first_user .. first_user+len(counts)-1``; returns (frame, n_requests)."""
    n_users, n = len(counts), int(counts.sum())
    user_idx = np.arange(first_user, first_user + n_users)
    user_country = rng.choice(len(COUNTRIES), size=n_users, p=COUNTRY_SHARES)
    user_is_v2 = rng.random(n_users) < 0.5
    user_effect = rng.normal(0.0, 0.8, n_users)

    row_user = np.repeat(np.arange(n_users), counts)
    user_start = np.zeros(n, dtype=bool)
    user_start[np.cumsum(counts)[:-1]] = True
    user_start[0] = True

    # Requests: cut the row stream every 5-20 rows, and at every new user.
    sizes = rng.integers(5, 21, size=n // 5 + 2)
    cuts = np.cumsum(sizes)
    request_start = user_start.copy()
    request_start[cuts[cuts < n]] = True
    row_request = np.cumsum(request_start) - 1
    n_requests = int(row_request[-1]) + 1
    start_pos = np.flatnonzero(request_start)
    position = (np.arange(n) - start_pos[row_request] + 1).astype(np.int32)
    request_day = rng.choice(N_DAYS, size=n_requests, p=DAY_SHARES)
    row_day = request_day[row_request]

    n_items = len(item_effect)
    item_rank = np.minimum(np.exp(rng.random(n) * np.log(n_items)).astype(np.int64), n_items) - 1
    country = user_country[row_user]
    true_logit = (
        BASE_LOGIT
        + user_effect[row_user]
        + item_effect[item_rank]
        - 0.55 * np.log(position)
        + COUNTRY_LOGIT[country]
        + 0.05 * np.sin(row_day)
    )
    true_ctr = 1.0 / (1.0 + np.exp(-true_logit))
    click = (rng.random(n) < true_ctr).astype(np.int8)

    is_v2 = user_is_v2[row_user]
    sd = np.where(is_v2, MODEL_NOISE_SD["v2"], MODEL_NOISE_SD["v1"])
    bias = np.where(is_v2, MODEL_BIAS["v2"], MODEL_BIAS["v1"])
    score = 1.0 / (1.0 + np.exp(-(true_logit + bias + rng.normal(0.0, 1.0, n) * sd)))
    pctr = np.where(
        is_v2,
        np.clip(np.round(score, MODEL_DECIMALS["v2"]), 1e-5, 1 - 1e-5),
        np.clip(np.round(score, MODEL_DECIMALS["v1"]), 1e-4, 1 - 1e-4),
    )

    frame = pl.DataFrame(
        {
            "date": pl.Series(row_day.astype(np.int32) + (START_DATE - dt.date(1970, 1, 1)).days).cast(pl.Date),
            "country": COUNTRIES[country],
            "user_id": _scramble(user_idx, 0x9E3779B97F, 10_000_000)[row_user],
            "request_id": (first_request + row_request).astype(np.int64),
            "item_id": _scramble(item_rank, 0x5DEECE66D, 1_000),
            "position": position,
            "model_version": np.where(is_v2, "v2", "v1"),
            "pctr": pctr,
            "click": click,
        }
    )
    return frame, n_requests


def generate(out_dir: str | Path, rows: int = 200_000, seed: int = 0) -> list[Path]:
    """Write a ``rows``-row impressions log to ``out_dir``; returns the Parquet paths written.

    Deterministic in ``(rows, seed)``. Existing ``*.parquet`` files in ``out_dir`` are removed.
    """
    if rows < 1:
        raise ValueError(f"rows must be >= 1, got {rows}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.parquet"):
        old.unlink()

    users_rng, items_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    counts = _user_counts(users_rng, rows)
    item_effect = items_rng.normal(0.0, 0.6, max(1000, rows // 100))

    # Whole users per chunk: cut the user list where the running row count passes each 5M.
    ends = np.searchsorted(np.cumsum(counts), np.arange(CHUNK_ROWS, rows, CHUNK_ROWS), side="right")
    bounds = [0, *[int(e) for e in ends if 0 < e < len(counts)], len(counts)]
    bounds = sorted(set(bounds))

    paths: list[Path] = []
    first_request = 1
    for chunk, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        rng = np.random.default_rng(np.random.SeedSequence([seed, chunk]))
        frame, n_requests = _chunk_frame(rng, counts[lo:hi], lo, first_request, item_effect)
        first_request += n_requests
        frame = frame.sort("date", "request_id", "position")
        for (day,), part in frame.partition_by("date", as_dict=True, maintain_order=True).items():
            path = out / f"impressions-{day.isoformat()}-{chunk:03d}.parquet"
            part.write_parquet(path)
            paths.append(path)
    return sorted(paths)


def _summary(paths: list[Path]) -> pl.DataFrame:
    return (
        pl.scan_parquet(paths)
        .group_by("model_version")
        .agg(
            rows=pl.len(),
            users=pl.col("user_id").n_unique(),
            requests=pl.col("request_id").n_unique(),
            click_rate=pl.col("click").mean(),
            calibration=pl.col("pctr").sum() / pl.col("click").sum(),
            distinct_pctr=pl.col("pctr").n_unique(),
        )
        .sort("model_version")
        .collect()
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    paths = generate(args.out_dir, rows=args.rows, seed=args.seed)
    print(f"wrote {args.rows:,} rows to {len(paths)} files in {args.out_dir} ({time.perf_counter() - started:.1f} s)")
    print(_summary(paths))


if __name__ == "__main__":
    main()
