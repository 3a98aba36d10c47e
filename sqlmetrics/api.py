"""The public entry points: ``evaluate`` runs metrics, ``to_sql`` shows the SQL it runs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import duckdb
import polars as pl

from sqlmetrics.binding import bind
from sqlmetrics.compose import compose
from sqlmetrics.engines import duckdb_engine, polars_engine
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.registry import resolve
from sqlmetrics.sources import JUDGMENTS_VIEW, source_sql
from sqlmetrics.spec import MetricCall

ENGINES = ("duckdb", "polars")
DIALECTS = ("duckdb",)

Metrics = str | MetricCall | Iterable[str | MetricCall]


def evaluate(
    source: Any,
    metrics: Metrics,
    *,
    label: str = "label",
    score: str | None = None,
    prediction: str | None = None,
    query: str | None = None,
    item: str | None = None,
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    judgments: Any = None,
    engine: str = "duckdb",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame:
    """Compute ``metrics`` over ``source``: one row per slice of ``by``, one column per metric.

    ``source`` is a Parquet path, glob or directory, a polars DataFrame or LazyFrame, a
    pyarrow Table, or the name of a table or view in ``con`` (a DuckDB connection).
    ``metrics`` are names (``"auc"``, ``"gauc"``) or calls with parameters
    (``sm.fbeta(beta=2)``, ``sm.metric("precision", threshold=0.3)``).
    ``label``, ``score`` (default: the column ``score``, when a metric reads a score),
    ``prediction`` (the predicted class), ``query`` (the list of a ranking metric, the
    group of gauc), ``item``, ``weight`` and ``by`` name the source's columns. With
    ``prediction`` bound, the names ``"accuracy"``, ``"precision"``, ``"recall"``,
    ``"f1"``, ``"fbeta"`` and ``"mcc"`` mean the multi-class metrics
    (``multiclass_f1``, ...), which compare the prediction with the label as classes
    (numbers, strings or booleans); their columns keep the plain names. Ranking metrics
    (``"ndcg@10"``, ``"mrr"``, ...) read either an impressions log (``label`` is each
    row's graded relevance) or, with ``judgments``, a run: ``source`` then holds
    ``query``, ``item`` and ``score``, and ``judgments`` (any kind of source) holds
    ``query``, ``item`` and ``label``, the relevance; unjudged run items have relevance 0,
    and judged items missing from the run still count in ideal DCG, recall and MAP.

    The result has the slice columns (sorted, NULL last), ``n_rows`` (rows used),
    ``n_excluded`` (rows with a NULL label, score, prediction, weight, query or, for
    ranking metrics, item, left out), then each metric's columns (see
    ``MetricCall.label``). ``engine="duckdb"`` runs the one SQL statement that ``to_sql``
    returns; ``engine="polars"`` computes the same plan with the polars expressions; both
    give the same numbers.

    >>> import polars as pl, sqlmetrics as sm
    >>> df = pl.DataFrame({"click": [0, 1, 1, 0, 0, 1, 1],
    ...                    "pctr": [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8]})
    >>> sm.evaluate(df, ["auc", "logloss"], label="click", score="pctr").select("n_rows", "auc").row(0)
    (7, 0.8333333333333334)
    """
    binding = bind(
        resolve(metrics, multiclass=prediction is not None),
        label=label,
        score=score,
        prediction=prediction,
        query=query,
        weight=weight,
        by=by,
        item=item,
        judgments=judgments is not None,
    )
    if engine == "duckdb":
        return duckdb_engine.run(binding, source, con, judgments)
    if engine == "polars":
        return polars_engine.run(binding, source, judgments)
    raise InvalidParameterError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")


def to_sql(
    metrics: Metrics,
    *,
    source: Any,
    label: str = "label",
    score: str | None = None,
    prediction: str | None = None,
    query: str | None = None,
    item: str | None = None,
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    judgments: Any = None,
    dialect: str = "duckdb",
) -> str:
    """The one SQL statement ``evaluate(..., engine="duckdb")`` runs for the same arguments.

    ``source`` may be a Parquet path or glob (read with ``read_parquet``), a table or view
    name (quoted part by part: ``"catalog"."schema"."table"``), or a frame, which the
    statement reads as the view ``sqlmetrics_source``; ``judgments`` likewise (a frame
    is read as the view ``sqlmetrics_judgments``). Parquet paths are not required to
    exist. Bad data makes the statement fail with a message starting "sqlmetrics: ".
    """
    if dialect not in DIALECTS:
        raise InvalidParameterError(f"dialect must be one of {', '.join(map(repr, DIALECTS))}, got {dialect!r}")
    binding = bind(
        resolve(metrics, multiclass=prediction is not None),
        label=label,
        score=score,
        prediction=prediction,
        query=query,
        weight=weight,
        by=by,
        item=item,
        judgments=judgments is not None,
    )
    judged = None if judgments is None else source_sql(judgments, check_paths=False, view=JUDGMENTS_VIEW)
    return compose(binding, source_sql(source, check_paths=False), judged)
