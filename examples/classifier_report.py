"""Evaluating a multi-class classifier: one report per region, the tables behind it, and
the one-vs-rest curves' numbers.

    python examples/classifier_report.py [OUT_DIR]

Writes ``predictions.parquet`` into OUT_DIR (default: a temporary directory): 30k rows of
a 4-class classifier over three regions, with its predicted class, one probability
column per class and a sample weight. Then:

1. one call, one scan: accuracy, macro and weighted F1, MCC, Cohen's kappa, and the
   one-vs-rest AUC and average precision of the class probabilities, by region;
2. the confusion matrix and the per-class precision, recall and F1 behind them;
3. the ROC curve of one class against the rest, thinned to 50 points;
4. the same report from the command line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

import sqlmetrics as sm

CLASSES = ["cat", "dog", "fox", "owl"]
PROBABILITIES = {cls: f"p_{cls}" for cls in CLASSES}
REPORT = [
    "accuracy",
    "f1",
    sm.multiclass_f1(average="weighted"),
    "mcc",
    "cohen_kappa",
    "auc",
    "average_precision",
]


def write_predictions(out: Path, rows: int = 30_000, seed: int = 5) -> Path:
    """Predictions of a classifier that is better in some regions than in others; its
    probabilities are a softmax of noisy logits rounded to 3 decimals (ties)."""
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east"], size=rows, p=[0.5, 0.3, 0.2])
    truth = rng.choice(len(CLASSES), size=rows, p=[0.4, 0.3, 0.2, 0.1])
    skill = np.select([region == "north", region == "south"], [2.0, 1.2], 0.6)
    logits = rng.normal(0, 1, (rows, len(CLASSES)))
    logits[np.arange(rows), truth] += skill
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    frame = pl.DataFrame(
        {
            "region": region,
            "species": np.array(CLASSES)[truth],
            "predicted": np.array(CLASSES)[probabilities.argmax(axis=1)],
            **{PROBABILITIES[cls]: probabilities[:, i].round(3) for i, cls in enumerate(CLASSES)},
            "w": rng.choice([1.0, 2.0], size=rows),
        }
    )
    path = out / "predictions.parquet"
    frame.write_parquet(path)
    return path


def report(path: Path, engine: str = "duckdb") -> pl.DataFrame:
    """The classifier's report by region (step 1)."""
    return sm.evaluate(
        path,
        REPORT,
        label="species",
        prediction="predicted",
        class_scores=PROBABILITIES,
        weight="w",
        by="region",
        engine=engine,
    )


def main(out: Path) -> None:
    path = write_predictions(out)
    pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4, tbl_hide_dataframe_shape=True)

    # 1. The report: the multi-class metrics read the predicted class, auc and
    #    average_precision the class probabilities (one-vs-rest).
    print(report(path).select("region", "n_rows", "accuracy", "f1", "f1_weighted", "mcc", "cohen_kappa", "auc",
                              "average_precision"))  # fmt: skip

    # 2. What the numbers are made of.
    columns = {"label": "species", "prediction": "predicted", "weight": "w"}
    matrix = sm.confusion_matrix(path, **columns, by="region")
    print(matrix.filter(pl.col("region") == "east").pivot(on="prediction", index="label", values="weight"))
    print(sm.per_class(path, ["precision", "recall", "f1"], **columns, by="region").filter(pl.col("region") == "east"))

    # 3. One class against the rest: its ROC curve is the binary curve of (species == owl).
    owl = pl.read_parquet(path).with_columns(is_owl=(pl.col("species") == "owl").cast(pl.Int8))
    curve = sm.roc_curve(owl, label="is_owl", score="p_owl", weight="w", by="region", max_points=50)
    fpr, tpr = pl.col("fpr"), pl.col("tpr")
    trapezoids = ((fpr - fpr.shift()) * (tpr + tpr.shift()) / 2).sum()
    areas = curve.group_by("region").agg(points=pl.len(), area_of_50_points=trapezoids)
    exact = sm.evaluate(owl, ["auc"], label="is_owl", score="p_owl", weight="w", by="region").select("region", "auc")
    print(areas.join(exact, on="region").sort("region"))  # owl's one-vs-rest AUC, and its thinned curve's area

    # 4. The command line.
    command = [
        sys.executable, "-m", "sqlmetrics", "eval", str(path), "--metrics", "accuracy,f1,mcc,auc",
        "--label", "species", "--prediction", "predicted", "--weight", "w", "--by", "region",
        "--class-scores", ",".join(f"{cls}={column}" for cls, column in PROBABILITIES.items()),
    ]  # fmt: skip
    print(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(Path(tmp))
