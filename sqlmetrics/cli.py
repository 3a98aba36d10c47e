"""The ``sqlmetrics`` command: evaluate metrics over Parquet, list them, show their SQL.

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
``gauc:weighting=uniform``, ``ndcg@10``. A value is read as an int, else a float, else
a string. ``sqlmetrics metrics`` lists every metric with its parameters. With
``--prediction`` (the predicted class column), ``accuracy``, ``precision``, ``recall``,
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
trino, bigquery, snowflake or postgres; every dialect but duckdb reads a table or view,
given as SOURCE or ``--table catalog.schema.table``.

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
``--quiet``, or a stderr that is not a terminal, turns it off.

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
import inspect
import os
import re
import shutil
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

import sqlmetrics
from sqlmetrics.api import LOCAL_ENGINES
from sqlmetrics.curves._curve import CurveKind
from sqlmetrics.curves._thin import thin
from sqlmetrics.dialects import DIALECTS
from sqlmetrics.errors import NoRowsUsedWarning, SkippedFilesWarning, SlicesNotShownWarning, SqlMetricsError
from sqlmetrics.html_report import MAX_SLICES
from sqlmetrics.parquet_files import row_count
from sqlmetrics.progress import Progress
from sqlmetrics.registry import parse_metric, parse_value, routed
from sqlmetrics.spec import Metric, MetricCall, Param

PROG = "sqlmetrics"
FORMATS = ("table", "csv", "json", "parquet")
TABLE_CONFIG = {
    "tbl_cols": -1,
    "tbl_rows": -1,
    "tbl_width_chars": -1,
    "fmt_str_lengths": 1000,
    "float_precision": 6,
    "tbl_hide_column_data_types": True,
    "tbl_hide_dataframe_shape": True,
}
METRIC_SYNTAX = """\
metric specs: comma separated, each NAME[@K][:PARAM=VALUE]..., e.g.
  auc,gauc:weighting=uniform,fbeta:beta=2:threshold=0.3,ndcg@10
values are read as int, else float, else string; `sqlmetrics metrics` lists parameters."""


class UsageError(Exception):
    """A bad command line: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (raised, printed by ``main``)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


# --- parsing the command line -------------------------------------------------------


def parse_metrics(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The comma separated metric specs of ``--metrics``."""
    try:
        return [parse_metric(spec) for spec in _split_list(text, "--metrics")]
    except SqlMetricsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def parse_max_slices(text: str) -> int | None:
    """``--max-slices``: a positive integer, or ``all`` (None)."""
    if text == "all":
        return None
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'all', got {text!r}")
    return int(text)


def parse_columns(text: str) -> list[str]:
    """The comma separated column names of ``--by``."""
    return _split_list(text, "--by")


def parse_class_scores(text: str) -> dict[int | float | str, str]:
    """``cat=p_cat,dog=p_dog`` as ``{"cat": "p_cat", "dog": "p_dog"}``; classes are read
    as metric values are (``0=p0,1=p1`` gives the integer classes 0 and 1)."""
    mapping: dict[int | float | str, str] = {}
    for part in _split_list(text, "--class-scores"):
        cls, sep, column = part.partition("=")
        if not sep or not cls.strip() or not column.strip():
            raise argparse.ArgumentTypeError(f"expected CLASS=COLUMN, got {part!r}")
        mapping[parse_value(cls.strip())] = column.strip()
    return mapping


def _split_list(text: str, option: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"empty item in {option} {text!r}")
    return items


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Model-evaluation metrics over Parquet, as SQL.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {sqlmetrics.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    binding = _binding_options()
    formatter = argparse.RawDescriptionHelpFormatter

    output = _output_options()
    run = commands.add_parser(
        "eval",
        parents=[binding, output],
        help="compute metrics over a Parquet source",
        epilog=METRIC_SYNTAX,
        formatter_class=formatter,
    )
    run.set_defaults(handler=run_eval)

    comparison = commands.add_parser(
        "compare",
        parents=[_binding_options(), output],
        help="compare two scores of the same rows (--scores a,b) or arms (--arm, --baseline): difference, "
        "interval, p-value per metric",
        epilog=METRIC_SYNTAX,
        formatter_class=formatter,
    )
    comparison.add_argument(
        "--scores",
        metavar="BASELINE,CANDIDATE",
        help="two score columns of the same rows, compared paired (DeLong's paired test, the paired t over queries)",
    )
    comparison.add_argument("--arm", help="the column naming each row's arm (model version, variant)")
    comparison.add_argument("--baseline", help="the arm the others are compared with (e.g. v1)")
    comparison.set_defaults(handler=run_compare, ci=0.95)

    reporting = commands.add_parser(
        "report",
        parents=[_binding_options()],
        help="write one self-contained HTML report: metrics per slice, over time, curves, comparison, SQL",
        epilog=METRIC_SYNTAX,
        formatter_class=formatter,
    )
    reporting.add_argument("--output", "-o", metavar="PATH", default="report.html", help="default: %(default)s")
    reporting.add_argument("--engine", choices=LOCAL_ENGINES, default="duckdb", help="default: %(default)s")
    reporting.add_argument("--scores", metavar="BASELINE,CANDIDATE", help="also compare two scores of the same rows")
    reporting.add_argument("--arm", help="also compare the arms of this column with --baseline")
    reporting.add_argument("--baseline", help="the arm the others are compared with")
    reporting.add_argument(
        "--max-slices",
        type=parse_max_slices,
        default=MAX_SLICES,
        metavar="N",
        help="show the first N slices, or 'all' (default: %(default)s; every slice: eval with the same options)",
    )
    reporting.add_argument(
        "--quiet", "-q", action="store_true", help="no progress line (shown only on a terminal, after 2 s)"
    )
    reporting.set_defaults(handler=run_report)

    listing = commands.add_parser("metrics", help="list every metric, or show one (formula, parameters, reference)")
    listing.add_argument("name", nargs="?", metavar="NAME", help="a metric to show in full (ndcg, fbeta, precision@k)")
    listing.set_defaults(handler=run_metrics)

    sql = commands.add_parser(
        "sql",
        parents=[_binding_options(table=True)],
        help="print the SQL statement eval runs",
        epilog=METRIC_SYNTAX,
        formatter_class=formatter,
    )
    sql.add_argument("--dialect", choices=DIALECTS, default="duckdb", help="default: %(default)s")
    sql.add_argument(
        "--table",
        metavar="NAME",
        help="the table or view the SQL reads (catalog.schema.table), instead of SOURCE; "
        "every dialect but duckdb reads a table",
    )
    sql.add_argument(
        "--scores", metavar="BASELINE,CANDIDATE", help="the statement compare runs for two scores of the same rows"
    )
    sql.add_argument("--arm", help="the statement compare runs for the arms of this column")
    sql.set_defaults(handler=run_sql)

    curve = commands.add_parser("curve", parents=[output], help="compute a ROC, precision-recall or calibration curve")
    curve.add_argument("kind", choices=CURVES, metavar="CURVE", help="roc, pr or calibration")
    curve.add_argument("source", metavar="SOURCE", help="Parquet file, glob (quote it) or directory")
    curve.add_argument("--label", default="label", help="0/1 truth column (default: %(default)s)")
    curve.add_argument("--score", default="score", help="prediction column (default: %(default)s)")
    curve.add_argument("--weight", help="non-negative sample weight column")
    curve.add_argument("--by", type=parse_columns, default=[], metavar="COLUMNS", help="comma separated slice columns")
    curve.add_argument(
        "--drop-intermediate", action="store_true", default=None, help="roc, pr: keep only the turning points"
    )
    curve.add_argument("--max-points", type=int, metavar="N", help="roc, pr: at most N points per slice")
    curve.add_argument("--bins", type=int, metavar="N", help="calibration: number of bins (default 10)")
    curve.add_argument("--strategy", choices=("uniform", "quantile"), help="calibration: bin edges (default uniform)")
    curve.add_argument("--plot", metavar="PATH", help="also draw the curve to PATH (.png, .svg, .pdf)")
    curve.set_defaults(handler=run_curve)

    classes = _class_options()
    matrix = commands.add_parser(
        "confusion-matrix",
        parents=[classes, output],
        help="the multi-class confusion matrix, long: one row per slice, true and predicted class",
    )
    matrix.set_defaults(handler=run_confusion_matrix)
    per_class = commands.add_parser(
        "per-class",
        parents=[classes, output],
        help="precision, recall, F1 or F-beta of every class: one row per slice and class",
        epilog="metric specs: comma separated precision, recall, f1, fbeta[:beta=B]; e.g. recall,fbeta:beta=2",
    )
    per_class.add_argument(
        "--metrics", "-m", required=True, type=parse_metrics, metavar="SPECS", help="comma separated metric specs"
    )
    per_class.set_defaults(handler=run_per_class)
    return parser


def _output_options() -> argparse.ArgumentParser:
    """--engine, --format and --output: every command that computes a table."""
    options = _Parser(add_help=False)
    options.add_argument("--engine", choices=LOCAL_ENGINES, default="duckdb", help="default: %(default)s")
    options.add_argument(
        "--format",
        choices=FORMATS,
        help="table, csv, json (an array of row objects) or parquet (needs --output); default: from the "
        "--output extension (.csv, .json, .parquet), else table",
    )
    options.add_argument("--output", "-o", metavar="PATH", help="write the result here instead of stdout")
    options.add_argument(
        "--quiet", "-q", action="store_true", help="no progress line (shown only on a terminal, after 2 s)"
    )
    return options


def _class_options() -> argparse.ArgumentParser:
    """The source and columns of ``confusion-matrix`` and ``per-class``."""
    options = _Parser(add_help=False)
    options.add_argument("source", metavar="SOURCE", help="Parquet file, glob (quote it) or directory")
    options.add_argument("--label", default="label", help="true class column (default: %(default)s)")
    options.add_argument("--prediction", required=True, help="predicted class column")
    options.add_argument("--weight", help="non-negative sample weight column")
    options.add_argument(
        "--by", type=parse_columns, default=[], metavar="COLUMNS", help="comma separated slice columns"
    )
    return options


def _binding_options(table: bool = False) -> argparse.ArgumentParser:
    """The source, metrics and column options shared by ``eval`` and ``sql`` (``table``:
    the source may instead be given as ``--table``)."""
    options = _Parser(add_help=False)
    options.add_argument(
        "source",
        metavar="SOURCE",
        nargs="?" if table else None,
        help="Parquet file, glob (quote it) or directory" + (" (or use --table)" if table else ""),
    )
    options.add_argument(
        "--metrics",
        "-m",
        required=True,
        type=parse_metrics,
        metavar="SPECS",
        help="comma separated metric specs (see below)",
    )
    options.add_argument("--label", default="label", help="truth column (default: %(default)s)")
    options.add_argument("--score", help="score column (default: score, when a metric reads a score)")
    options.add_argument(
        "--prediction", help="predicted class column: accuracy, precision, recall, f1, fbeta, mcc become multi-class"
    )
    options.add_argument(
        "--class-scores",
        type=parse_class_scores,
        metavar="CLASS=COLUMN,...",
        help="one score column per class (one-vs-rest auc and average_precision), e.g. cat=p_cat,dog=p_dog",
    )
    options.add_argument(
        "--long-scores",
        metavar="PATH",
        help="class scores as a long table (Parquet; for `sql` also a table name): one row per --row-id and class",
    )
    options.add_argument("--row-id", help="with --long-scores: the column naming a row, in SOURCE and the table")
    options.add_argument("--long-class", default="class", help="--long-scores' class column (default: %(default)s)")
    options.add_argument("--long-score", default="score", help="--long-scores' score column (default: %(default)s)")
    options.add_argument("--query", help="group column for gauc and ranking metrics (user, request, query id)")
    options.add_argument("--item", help="item/document id column (ranking metrics)")
    options.add_argument("--weight", help="non-negative sample weight column")
    options.add_argument(
        "--judgments",
        metavar="PATH",
        help="relevance judgments for a run (Parquet with the --query, --item and --label columns)",
    )
    options.add_argument(
        "--trec",
        action="store_true",
        help="SOURCE is a TREC run file and --judgments a TREC qrels file (trec_eval's formats)",
    )
    options.add_argument(
        "--by",
        type=parse_columns,
        default=[],
        metavar="COLUMNS",
        help="comma separated slice columns: one result row per slice",
    )
    options.add_argument(
        "--ci",
        type=float,
        metavar="LEVEL",
        help="add METRIC_lo and METRIC_hi, a LEVEL confidence interval (e.g. 0.95): DeLong's for auc, "
        "Student's t over queries for gauc and the ranking metrics, the bootstrap for metrics without a formula",
    )
    options.add_argument(
        "--ci-method",
        default="auto",
        choices=("auto", "analytic", "bootstrap"),
        help="interval method: auto takes the analytic interval where a metric has one, else the bootstrap "
        "(default: %(default)s)",
    )
    options.add_argument(
        "--ci-unit",
        metavar="COLUMN",
        help="resample this column's units (e.g. user_id) rather than rows: the clustered bootstrap",
    )
    options.add_argument("--resamples", type=int, default=200, help="bootstrap resamples (default: %(default)s)")
    options.add_argument("--seed", type=int, default=0, help="bootstrap seed, an integer from 0 to 2147483646 (default: %(default)s)")
    return options


# --- the commands -------------------------------------------------------------------


def metric_calls(
    specs: Sequence[tuple[str, dict[str, Any]]], multiclass: bool, class_scores: bool = False
) -> list[MetricCall]:
    """The metric specs as calls; with a prediction column (``multiclass``) plain names
    such as ``f1`` mean the multi-class metrics, with class scores ``auc`` and
    ``average_precision`` the one-vs-rest ones."""
    return [sqlmetrics.metric(routed(name, multiclass, class_scores), **params) for name, params in specs]


def binding_calls(args: argparse.Namespace) -> list[MetricCall]:
    """--metrics as calls, routed by the roles the command line binds."""
    class_scores = args.class_scores is not None or args.long_scores is not None
    return metric_calls(args.metrics, args.prediction is not None, class_scores)


def class_scores_kwarg(args: argparse.Namespace, paths: bool = True) -> Any:
    """--class-scores, or --long-scores with its --row-id, as ``evaluate``'s ``class_scores``
    (the long table a path, or for ``sql`` (``paths=False``) a path or a table name)."""
    if args.long_scores is None:
        if args.row_id is not None:
            raise UsageError("--row-id names the row column of --long-scores: pass --long-scores PATH")
        return args.class_scores
    if args.class_scores is not None:
        raise UsageError("give class scores either wide (--class-scores) or long (--long-scores), not both")
    if args.row_id is None:
        raise UsageError("--long-scores needs --row-id, the column naming a row in SOURCE and in the table")
    table = Path(args.long_scores) if paths else args.long_scores
    return sqlmetrics.long_scores(table, row_id=args.row_id, class_=args.long_class, score=args.long_score)


def binding_kwargs(args: argparse.Namespace, paths: bool = True) -> dict[str, Any]:
    """The column options as keyword arguments of ``evaluate`` and ``to_sql``; TREC
    files have fixed column names."""
    columns = {"label": args.label, "score": args.score, "query": args.query, "item": args.item}
    if args.trec:
        columns = {"label": "relevance", "score": "score", "query": "query", "item": "item"}
    return {
        **columns,
        "prediction": args.prediction,
        "weight": args.weight,
        "by": args.by,
        "class_scores": class_scores_kwarg(args, paths),
        "ci": args.ci,
        "ci_method": args.ci_method,
        "ci_unit": args.ci_unit,
        "resamples": args.resamples,
        "seed": args.seed,
    }


def read_sources(args: argparse.Namespace) -> tuple[Any, Any]:
    """SOURCE and --judgments: Parquet paths, or with --trec the frames of TREC files.
    (The CLI has no DuckDB tables to name, so SOURCE is always a path or glob.)"""
    if args.trec:
        if args.judgments is None:
            raise UsageError("--trec reads a run and its qrels: pass --judgments QRELS")
        return sqlmetrics.read_trec_run(args.source), sqlmetrics.read_trec_qrels(args.judgments)
    return Path(args.source), None if args.judgments is None else Path(args.judgments)


def run_compare(args: argparse.Namespace) -> None:
    calls = binding_calls(args)
    source, judgments = read_sources(args)
    kwargs = binding_kwargs(args) | {"ci": 0.95 if args.ci is None else args.ci}
    if kwargs.pop("class_scores") is not None:
        raise UsageError("compare: the one-vs-rest metrics (--class-scores, --long-scores) have no interval yet")
    if args.scores is not None:
        if args.arm is not None or args.baseline is not None:
            raise UsageError("compare: pass either --scores (the same rows) or --arm and --baseline (arms), not both")
        scores = [column.strip() for column in args.scores.split(",")]
        if len(scores) != 2:
            raise UsageError(
                f"--scores takes two score columns, baseline first: --scores pctr_v1,pctr_v2 (got {args.scores!r})"
            )
        if args.score is not None:
            raise UsageError("compare: --scores names both score columns; leave out --score")
        kwargs.pop("score")
        compute_and_write(args, sqlmetrics.compare, source, calls, scores=scores, judgments=judgments, **kwargs)
        return
    if args.arm is None or args.baseline is None:
        raise UsageError(
            "compare needs --scores BASELINE,CANDIDATE (two scores of the same rows) or --arm COLUMN "
            "--baseline VALUE (arms that saw different rows)"
        )
    compute_and_write(
        args, sqlmetrics.compare, source, calls, arm=args.arm, baseline=args.baseline, judgments=judgments, **kwargs
    )


def run_report(args: argparse.Namespace) -> None:
    source, judgments = read_sources(args)
    kwargs = binding_kwargs(args) | {"judgments": judgments}
    if (args.arm is None) != (args.baseline is None):
        raise UsageError("report: --arm and --baseline go together")
    scores = None if args.scores is None else _split_list(args.scores, "--scores")
    if scores is not None:
        kwargs["score"] = None
    progress = _progress(not args.quiet and sys.stderr.isatty(), f"writing the report of {args.source}")
    with progress, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NoRowsUsedWarning)
        warnings.simplefilter("always", SlicesNotShownWarning)
        path = sqlmetrics.report(
            source, binding_calls(args), **kwargs, scores=scores, arm=args.arm, baseline=args.baseline,
            max_slices=args.max_slices, engine=args.engine, output=args.output,
        )  # fmt: skip
    notices: set[str] = set()
    for warning in caught:  # the report says so too
        if isinstance(warning.message, NoRowsUsedWarning):
            _warn_no_rows(warning.message.excluded, "every metric is NULL")
        if isinstance(warning.message, SlicesNotShownWarning):
            shown, total = warning.message.shown, warning.message.total
            sys.stderr.write(
                f"{PROG}: warning: the report shows the first {shown:,} of the {total:,} slices: every slice with "
                f"'{PROG} eval' and the same options, or a report with a larger --max-slices (or 'all')\n"
            )
        if not isinstance(warning.message, (NoRowsUsedWarning, SlicesNotShownWarning)) and str(warning.message) not in notices:
            # e.g. skipped files, once although the report reads the source for each of its parts
            notices.add(str(warning.message))
            warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)
    print(f"wrote {path}", file=sys.stderr)


def run_eval(args: argparse.Namespace) -> None:
    calls = binding_calls(args)
    source, judgments = read_sources(args)
    result = compute_and_write(args, sqlmetrics.evaluate, source, calls, **binding_kwargs(args), judgments=judgments)
    warn_if_no_rows_used(result)


def warn_if_no_rows_used(result: pl.DataFrame) -> None:
    """Say on stderr when no row was used, so a table of NULLs is not mistaken for results."""
    if result["n_rows"].sum() == 0:
        _warn_no_rows(result["n_excluded"].sum(), "every metric is NULL")


def warn_if_empty(result: pl.DataFrame, source: str) -> None:
    """Say on stderr why a table (curve, confusion matrix, per-class values) came out
    empty: the source has no rows, or every row was excluded. The tables carry no row
    counts, so the source's are read from its Parquet footers, only then."""
    if result.height == 0:
        _warn_no_rows(row_count(source), "the table is empty")


def _warn_no_rows(excluded: int, consequence: str) -> None:
    reason = (
        f"all {excluded:,} rows were excluded (each has a NULL in a bound column)"
        if excluded
        else "the source has no rows"
    )
    sys.stderr.write(f"{PROG}: warning: {reason}: {consequence}\n")


def compute_and_write(
    args: argparse.Namespace,
    function: Callable[..., pl.DataFrame],
    *given: Any,
    shown: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    **kwargs: Any,
) -> pl.DataFrame:
    """``function(*given, engine=--engine, **kwargs)`` (with a progress line for a person
    waiting at a terminal) written as --format to --output, ``shown(result)`` if given;
    returns the table."""
    fmt = output_format(args.format, args.output)
    show = not args.quiet and sys.stderr.isatty()
    what = f"computing over {args.source}"
    if args.engine == "duckdb":
        with duckdb_connection() as con, _progress(show, what, con.query_progress):
            result = function(*given, engine="duckdb", con=con, **kwargs)
    else:
        with _progress(show, what):
            result = function(*given, engine=args.engine, **kwargs)
    write_result(result if shown is None else shown(result), fmt, args.output)
    return result


# The format an --output file's extension names; any other extension is written as given.
EXTENSION_FORMATS = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".pq": "parquet"}


def output_format(given: str | None, output: str | None) -> str:
    """The format to write: --format, else the one --output's extension names, else
    ``table``. A --format that contradicts the extension is refused rather than writing,
    say, a text table into ``result.parquet``."""
    implied = EXTENSION_FORMATS.get(Path(output).suffix.lower()) if output is not None else None
    if given is not None and implied is not None and given != implied:
        raise UsageError(f"--format {given} contradicts --output {output} (a {implied} file): drop one of them")
    fmt = given or implied or "table"
    if fmt == "parquet" and output is None:
        raise UsageError("--format parquet writes a binary file: pass --output PATH")
    return fmt


def duckdb_connection() -> ProgressConnection:
    """A connection that tracks its progress (for ``Progress``) without drawing DuckDB's
    own bar, which would go to stdout, among the results."""
    return ProgressConnection(duckdb.connect())


class ProgressConnection:
    """A DuckDB connection whose cursors track their progress. sqlmetrics runs a call's
    statements on a cursor of the connection it is given (``con.cursor()``, leaving the
    connection itself as it was), and progress is a setting of each cursor's own session:
    every cursor made here tracks it, without drawing DuckDB's bar, and
    ``query_progress`` is the latest cursor's. Anything else is the connection's."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self._connection = connection
        self._cursor: duckdb.DuckDBPyConnection | None = None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = self._connection.cursor()
        cursor.execute("SET enable_progress_bar = true")
        cursor.execute("SET enable_progress_bar_print = false")
        self._cursor = cursor
        return cursor

    def query_progress(self) -> float:
        """The share of the running statement done, in percent; -1 when none runs."""
        try:
            return self._cursor.query_progress() if self._cursor is not None else -1.0
        except duckdb.Error:  # the cursor closed as its call ended
            return -1.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)

    def __enter__(self) -> ProgressConnection:
        return self

    def __exit__(self, *_: object) -> None:
        self._connection.close()


def _progress(show: bool, what: str, percent: Callable[[], float] | None = None) -> AbstractContextManager:
    """A progress line on stderr while the block runs, when ``show``; else nothing."""
    return Progress(sys.stderr, what, percent) if show else nullcontext()


def write_result(result: pl.DataFrame, fmt: str, output: str | None) -> None:
    """Write ``result`` as ``fmt`` to ``output``, or to stdout when it is None."""
    if fmt == "parquet":
        result.write_parquet(output)
        return
    text = render(result, fmt)
    if output is None:
        sys.stdout.write(text)
    else:
        Path(output).write_text(text, encoding="utf-8")


def render(result: pl.DataFrame, fmt: str) -> str:
    """``result`` as text: a readable table, CSV, or a JSON array of row objects."""
    if fmt == "csv":
        return result.write_csv()
    if fmt == "json":
        return result.write_json() + "\n"
    with pl.Config(**TABLE_CONFIG):
        return f"{result}\n"


# The families in the order ``sqlmetrics metrics`` lists them, with what their labels are.
FAMILIES = {
    "classification": "binary label (0/1 or boolean) and a score",
    "regression": "a real target as label and the prediction as score",
    "ranking": "a graded relevance as label, a score and a query (the list)",
    "multiclass": "a class label and a predicted class (--prediction) or class scores",
}


def run_metrics(args: argparse.Namespace) -> None:
    """Every metric grouped by family, fitted to the terminal; or one metric in full."""
    width = shutil.get_terminal_size((100, 24)).columns
    if args.name:
        spec = sqlmetrics.registry().get(args.name) or sqlmetrics.metric(args.name).spec
        sys.stdout.write(describe_metric(spec, width))
        return
    lines = []
    registered = sqlmetrics.registry().values()
    for family in dict.fromkeys([*FAMILIES, *(spec.family for spec in registered)]):
        specs = [spec for spec in registered if spec.family == family]
        indent = 2 + max(len(spec.name) for spec in specs) + 2
        heading = f"{family} ({FAMILIES[family]})" if family in FAMILIES else family
        lines += ["", *_wrapped("", heading, 2, width)]
        for spec in specs:
            lines += _wrapped(f"  {spec.name.ljust(indent - 2)}", spec.summary, indent, width)
            if spec.params:
                lines += _wrapped(" " * indent, describe_params(spec), indent, width)
    footer = "sqlmetrics metrics NAME shows one metric's formula, parameters and reference."
    lines += ["", *_wrapped("", footer, 2, width)]
    sys.stdout.write("\n".join(lines[1:]) + "\n")


def describe_metric(spec: Metric, width: int = 100) -> str:
    """One metric in full: summary, what it needs, its formula, conventions and example
    (the docstring of its polars form), parameters, reference and SQL template, within
    ``width`` columns (a paragraph of the docstring is rewrapped only when it is wider;
    its runnable example is shown as written)."""
    roles = ", ".join(spec.needs) + (" (weight optional)" if spec.weighted else " (no weights)")
    lines = [*_wrapped("", f"{spec.name} ({spec.family}): {spec.summary}", 2, width)]
    lines += [*_wrapped("", f"needs: {roles}", 2, width), ""]
    for paragraph in (inspect.getdoc(_polars_form(spec)) or "").split("\n\n"):
        rows = paragraph.splitlines()
        code = any(row.startswith((" ", ">>>", "...")) for row in rows)
        fits = max(map(len, rows), default=0) <= width
        lines += [*(rows if code or fits else _wrapped("", " ".join(rows), 0, width)), ""]
    for param in spec.params:
        lines += _wrapped("", f"{_describe_param(param)}: {param.doc}", 2, width)
    lines += [*_wrapped("", f"reference: {spec.reference}", 2, width), f"SQL: sql/{spec.template}"]
    return "\n".join(lines) + "\n"


def _polars_form(spec: Metric) -> Callable[..., Any]:
    module = spec.module
    return getattr(module, "expr", None) or getattr(module, "frame", None) or module


def _wrapped(first: str, text: str, indent: int, width: int) -> list[str]:
    """``text`` after ``first``, wrapped to ``width`` with continuation lines at ``indent``."""
    return textwrap.wrap(
        text,
        width=max(width, indent + 20),
        initial_indent=first,
        subsequent_indent=" " * indent,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def describe_params(spec: Metric) -> str:
    """``beta=1, threshold=0.5`` or ``weighting=impressions (impressions|positives|uniform)``."""
    return ", ".join(_describe_param(param) for param in spec.params) or "-"


def _describe_param(param: Param) -> str:
    if param.required:
        return f"{param.name} (required)"
    default = f"{param.default:g}" if isinstance(param.default, float) else str(param.default)
    choices = f" ({'|'.join(param.choices)})" if param.choices else ""
    return f"{param.name}={default}{choices}"


def run_sql(args: argparse.Namespace) -> None:
    if (args.source is None) == (args.table is None):
        raise SqlMetricsError("give the source as SOURCE (a Parquet path or a table name) or as --table NAME, once")
    if args.table is not None:
        args.source = args.table
    source, judgments = (args.source, args.judgments) if not args.trec else read_sources(args)
    kwargs = binding_kwargs(args, paths=False)
    scores = None if args.scores is None else _split_list(args.scores, "--scores")
    if scores is not None:
        kwargs["score"] = None
    statement = sqlmetrics.to_sql(
        binding_calls(args),
        source=source,
        judgments=judgments,
        dialect=args.dialect,
        scores=scores,
        arm=args.arm,
        **kwargs,
    )
    sys.stdout.write(statement.rstrip("\n") + "\n")


CURVES = ("roc", "pr", "calibration")
CURVE_OPTIONS = {"roc": ("drop_intermediate", "max_points"), "calibration": ("bins", "strategy")}
CURVE_OPTIONS["pr"] = CURVE_OPTIONS["roc"]


def run_curve(args: argparse.Namespace) -> None:
    from sqlmetrics.curves import KINDS, plot

    if args.plot is not None:
        plot.check_target(args.plot)  # before the work: a missing matplotlib or an unknown image format
    function = getattr(sqlmetrics, f"{args.kind}_curve")
    columns = {"label": args.label, "score": args.score, "weight": args.weight, "by": args.by}
    screen = partial(screenful, KINDS[args.kind], args.by) if _to_terminal(args) else None
    result = compute_and_write(args, function, Path(args.source), **columns, **curve_params(args), shown=screen)
    warn_if_empty(result, args.source)
    if args.plot is not None:
        plot.plot(result, KINDS[args.kind], args.by, args.plot)


def _to_terminal(args: argparse.Namespace) -> bool:
    """Whether the result is a table on a person's screen (no --output, no other format)."""
    return args.output is None and args.format in (None, "table") and sys.stdout.isatty()


def screenful(kind: CurveKind, by: list[str], curve: pl.DataFrame) -> pl.DataFrame:
    """``curve`` as shown on a terminal: thinned (the rule of ``sm.roc_curve``'s
    ``max_points``) so that the table fits the screen, with a line on stderr saying so and
    how to get every point."""
    rows = max(20, shutil.get_terminal_size((100, 40)).lines - 12)
    if curve.height <= rows:
        return curve
    per_slice = max(2, rows // (curve.select(by).n_unique() if by else 1))
    points = curve.lazy().with_row_index("point")
    if not by:  # thin() partitions by its slices (polars refuses an empty partition): one constant slice
        points = points.with_columns(unsliced=pl.lit(0))
    shown = thin(points, by or ["unsliced"], *kind.axes, max_points=per_slice).select(curve.columns).collect()
    sys.stderr.write(
        f"{PROG}: showing {shown.height} of the curve's {curve.height:,} points, thinned to fit the terminal; "
        "--output FILE (or a pipe) gets every point\n"
    )
    return shown


def curve_params(args: argparse.Namespace) -> dict[str, Any]:
    """The curve options given on the command line; an option of another curve is an error."""
    given = {
        name: value
        for name in ("drop_intermediate", "max_points", "bins", "strategy")
        if (value := getattr(args, name)) is not None
    }
    for name in given:
        if name not in CURVE_OPTIONS[args.kind]:
            curves = " and ".join(kind for kind, options in CURVE_OPTIONS.items() if name in options)
            raise UsageError(f"--{name.replace('_', '-')} applies to {curves} curves only, not {args.kind}")
    return given


def class_columns(args: argparse.Namespace) -> dict[str, Any]:
    return {"label": args.label, "prediction": args.prediction, "weight": args.weight, "by": args.by}


def run_confusion_matrix(args: argparse.Namespace) -> None:
    result = compute_and_write(args, sqlmetrics.confusion_matrix, Path(args.source), **class_columns(args))
    warn_if_empty(result, args.source)


def run_per_class(args: argparse.Namespace) -> None:
    calls = metric_calls(args.metrics, multiclass=True)
    result = compute_and_write(args, sqlmetrics.per_class, Path(args.source), calls, **class_columns(args))
    warn_if_empty(result, args.source)


# --- the entry point ----------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else 0
    except UsageError as error:
        return _fail(error, 2)
    handler: Callable[[argparse.Namespace], None] = args.handler
    try:
        with _notices():
            handler(args)
    except UsageError as error:
        return _fail(error, 2)
    except KeyboardInterrupt:  # Ctrl-C: the query is stopped (interrupt.py); 128 + SIGINT, as shells report it
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `sqlmetrics ... | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (SqlMetricsError, OSError) as error:
        return _fail(error, 1)
    return 0


@contextmanager
def _notices() -> Iterator[None]:
    """Within it, sqlmetrics' notices (``SkippedFilesWarning``) are one line each on
    stderr, as the command line's other warnings; other warnings are shown as Python shows them."""
    with warnings.catch_warnings():
        python_shows = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *where: Any, **more: Any) -> None:
            if issubclass(category, SkippedFilesWarning):
                sys.stderr.write(f"{PROG}: warning: {message}\n")
            else:
                python_shows(message, category, *where, **more)

        warnings.showwarning = show
        yield


def _fail(error: Exception, status: int) -> int:
    print(f"{PROG}: error: {in_cli_terms(str(error))}", file=sys.stderr)
    return status


# The Python API's advice as the command line says it: keyword arguments become options.
CLI_TERMS = (
    (re.compile(r"\b(query|item|prediction|label|score|weight)=<"), r"--\1 <"),
    (
        re.compile(r"class_scores=\{class: score column\} or class_scores=sm\.long_scores\(table, row_id=\.\.\.\)"),
        "--class-scores CLASS=COLUMN,... or --long-scores PATH --row-id COLUMN",
    ),
    (re.compile(r"pass its name \(e\.g\. 'logs\.impressions'\)"), "pass --table NAME (e.g. logs.impressions)"),
    (re.compile(r"pass judgments=<its name>"), "pass --judgments TABLE"),
    (re.compile(r"pass sm\.long_scores\(<its name>, \.\.\.\)"), "pass --long-scores TABLE"),
    (re.compile(r"a call without weight="), "a call without --weight"),
    (re.compile(r"a call without ci\b"), "a call without --ci"),
    (re.compile(r"\bci must be\b"), "--ci must be"),
    (re.compile(r"(sm\.evaluate's )?\bci_method='(\w+)'"), r"--ci-method \2"),
    (
        re.compile(r"\b(ci_method|ci_unit|resamples|seed)\b(?= must| clusters|\))"),
        lambda m: f"--{m[1].replace('_', '-')}",
    ),
    (re.compile(r"(--ci-method \w+) (\(or|or) '(\w+)'"), r"\1 \2 \3"),
    (re.compile(r"\bno ci_unit\b"), "no --ci-unit"),
    (re.compile(r"\bwithout ci_unit\b"), "without --ci-unit"),
    # the long class-score table: its columns are --row-id, --long-class and --long-score
    (re.compile(r"\b(class_scores row id|row_id) column"), "--row-id column"),
    (re.compile(r"\bclass_scores (class|score) column"), r"--long-\1 column"),
    (re.compile(r"the class scores have:"), "the --long-scores table has:"),
    (re.compile(r"\bclass_scores must"), "--long-scores must"),
    (re.compile(r"the classes of class_scores"), "the scored classes"),
    (re.compile(r"\bclass_scores \("), "--class-scores ("),
    (re.compile(r"judgments and class_scores"), "--judgments and --class-scores (or --long-scores)"),
    # a file of another format: the command line reads Parquet files or tables only
    (
        re.compile(r"a source is Parquet files, .*: to read it, pass pl\.\w+\((.*)\)$"),
        "SOURCE is Parquet files or a table (--table): convert it first, e.g. "
        "duckdb -c \"COPY (FROM \\1) TO 'out.parquet'\"",
    ),
)


def in_cli_terms(message: str) -> str:
    """An error message with the API's keyword arguments written as the CLI's options."""
    for pattern, replacement in CLI_TERMS:
        message = pattern.sub(replacement, message)
    return message
