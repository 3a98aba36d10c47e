"""The ``sqlmetrics`` command: evaluate metrics over Parquet, list them, show their SQL.

One module per job: ``parser`` (the commands and their options), a module per command
(``evaluate``, ``compare``, ``report``, ``sql``, ``curve``, ``class_tables``, ``listing``),
``arguments`` (options as the API's arguments), ``output`` (tables, CSV, JSON, Parquet,
progress) and ``messages`` (errors, their keywords written as options); ``main`` here.

Usage examples (quote globs so the shell leaves them to sqlmetrics)::

    sqlmetrics eval 'logs/*.parquet' --metrics auc,gauc,logloss \\
        --label click --score pctr --query user_id --by date,country
    sqlmetrics eval logs/ --metrics 'fbeta:beta=2,precision:threshold=0.3' --format csv
    sqlmetrics eval logs.parquet --metrics auc --format parquet --output auc.parquet
    sqlmetrics eval 'logs/*.parquet' --metrics ndcg@10,mrr,map,hit_rate@10 \
        --label click --score pctr --query request_id --by model_version
    sqlmetrics eval run.txt --judgments qrels.txt --trec --metrics 'ndcg@10:gain=linear:ties=item,map'
    sqlmetrics eval preds.parquet --metrics accuracy,f1:average=weighted,mcc --label y --prediction y_hat
    sqlmetrics eval preds.parquet --metrics auc,average_precision --label y --class-scores cat=p_cat,dog=p_dog,fox=p_fox
    sqlmetrics state logs/day=2026-11-01 --metrics auc,gauc,logloss --label click --score pctr \
        --query request_id --by country --output states/day=2026-11-01.parquet
    sqlmetrics rollup states/ --by country --ci 0.95 --format csv
    sqlmetrics metrics
    sqlmetrics sql 'logs/*.parquet' --metrics auc,gauc:weighting=uniform --query user_id
    sqlmetrics sql --table logs.impressions --dialect spark --metrics auc,ndcg@10 --query user_id
    sqlmetrics curve roc 'logs/*.parquet' --label click --score pctr --by date --max-points 500 \
        --format csv --output roc.csv --plot roc.png
    sqlmetrics curve calibration logs/ --label click --score pctr --bins 20 --strategy quantile
    sqlmetrics confusion-matrix preds.parquet --label y --prediction y_hat --by region --format csv
    sqlmetrics per-class preds.parquet --metrics precision,recall,fbeta:beta=2 --label y --prediction y_hat

Metric specs in ``--metrics`` are comma separated; each is ``NAME[@K][:PARAM=VALUE]...``:
``fbeta:beta=2``, ``precision:threshold=0.3``, ``fbeta:beta=0.5:threshold=0.7``,
``gauc:weighting=uniform``, ``ndcg@10``. A value is read as an int, else a float (in
ASCII digits: ``ndcg@١٠`` is refused), else a string. ``sqlmetrics metrics`` lists every
metric with its parameters. With ``--prediction`` (the predicted class column), ``accuracy``, ``precision``, ``recall``,
``f1``, ``fbeta`` and ``mcc`` are the multi-class metrics (``multiclass_f1``, ...); with
class scores, one column per class (``--class-scores cat=p_cat,dog=p_dog``) or a long
table (``--long-scores PATH --row-id id [--long-class class --long-score score]``),
``auc`` and ``average_precision`` are the one-vs-rest ones.

Ranking metrics read an impressions log (``--label`` is the graded relevance) or a run
with ``--judgments PATH`` (Parquet with the ``--query``, ``--item`` and ``--label``
columns). With ``--trec``, SOURCE is a TREC run file and ``--judgments`` a TREC qrels
file (columns query, item, score / relevance), so numbers can be checked against
trec_eval: ``--metrics 'ndcg@10:gain=linear:ties=item:empty=zero'``.

``sql`` prints the statement ``eval`` runs, for ``--dialect`` duckdb (default), spark,
trino, bigquery, snowflake, postgres or clickhouse; every dialect but duckdb reads a table or view,
given as SOURCE or ``--table catalog.schema.table``.

``state`` writes what a source's metrics need to be rolled up with other parts (days,
files: ``sm.state``) to a ``.parquet`` file (any other extension is refused), and says on
stderr the rows of each part written; ``rollup STATES [--by ...] [--metrics ...] [--ci
LEVEL]`` reads such files (a file, glob or directory) and writes the metrics of the
union of their parts (``sm.rollup``), in ``eval``'s formats. ``report`` takes states too.

``curve roc|pr|calibration`` writes a curve as a long table (one row per threshold or
bin and slice; on a terminal, thinned to a screenful) and, with ``--plot PATH`` (.png,
.svg, .pdf), draws it (needs matplotlib: the ``plot`` extra).

``confusion-matrix`` and ``per-class`` write the tables of ``sm.confusion_matrix`` (one
row per slice, true and predicted class, with its rows and summed weight) and
``sm.per_class`` (one row per slice and class: support and each metric's value).

Output formats: ``table`` (every row and column), ``csv``, ``json`` (one JSON array of
row objects) and ``parquet`` (needs ``--output``). Without ``--format`` the extension of
``--output`` decides (``.csv``, ``.json``, ``.parquet``/``.pq``), else ``table``; a
``--format`` that contradicts the extension is an error.

On a terminal, a run longer than 2 s shows one progress line on stderr (DuckDB's share
done and the elapsed time, fitted to the terminal's width), erased before the result;
``--quiet``, or a stderr that is not a terminal, turns it off. A bootstrap that will be
long (rows × resamples above ``sqlmetrics.engines.long_bootstrap.LONG_BOOTSTRAP``) says so on
stderr before it starts (``sqlmetrics: warning: a long bootstrap: ...``), terminal or not.

A run that used no row (the source has no rows, or every row has a NULL in a bound
column) still writes its result, NULL metrics or an empty table, and says which on stderr
(``sqlmetrics: warning: the source has no rows: every metric is NULL``).

Errors in the input (unknown metric, missing column, missing file, bad parameter) print
one line ``sqlmetrics: error: <message>`` to stderr and exit with status 1; bad command
line usage exits with status 2. Ctrl-C stops the running query at once, prints
``sqlmetrics: interrupted`` and exits with status 130.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlmetrics.cli.messages import PROG, UsageError, fail, options
from sqlmetrics.cli.parser import build_parser
from sqlmetrics.errors import LongBootstrapWarning, SkippedFilesWarning, SqlMetricsError
from sqlmetrics.running.interrupt import query_still_running
from sqlmetrics.running.progress import showing

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    known = options(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else 0
    except UsageError as error:
        return fail(error, 2, known)
    handler: Callable[[argparse.Namespace], None] = args.handler
    try:
        with _notices():
            handler(args)
    except UsageError as error:
        return fail(error, 2, known)
    except KeyboardInterrupt:  # Ctrl-C: the query is stopped (interrupt.py); 128 + SIGINT, as shells report it
        print(f"{PROG}: interrupted", file=sys.stderr)
        if query_still_running():  # a polars query cannot be stopped: leave without waiting for it
            sys.stderr.flush()
            os._exit(130)  # (Python's exit would end its native threads mid-run: an abort on polars 1.39)
        return 130
    except BrokenPipeError:  # `sqlmetrics ... | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (SqlMetricsError, OSError) as error:
        return fail(error, 1, known)
    return 0


@contextmanager
def _notices() -> Iterator[None]:
    """Within it, sqlmetrics' notices (``SkippedFilesWarning``, ``LongBootstrapWarning``) are
    one line each on stderr, as the command line's other warnings (above a progress line
    that shows); other warnings are shown as Python shows them."""
    with warnings.catch_warnings():
        python_shows = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *where: Any, **more: Any) -> None:
            if issubclass(category, (SkippedFilesWarning, LongBootstrapWarning)):
                line, text = showing(), f"{PROG}: warning: {message}\n"
                line.interject(text) if line is not None else sys.stderr.write(text)
            else:
                python_shows(message, category, *where, **more)

        warnings.showwarning = show
        yield
