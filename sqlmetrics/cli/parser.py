"""The command line's parser: the commands, their options and the types of their values."""

from __future__ import annotations

import argparse
from typing import Any

import sqlmetrics
from sqlmetrics.cli.arguments import split_list
from sqlmetrics.cli.class_tables import run_confusion_matrix, run_per_class
from sqlmetrics.cli.compare import run_compare
from sqlmetrics.cli.curve import CURVES, run_curve
from sqlmetrics.cli.dbt import run_dbt
from sqlmetrics.cli.evaluate import run_eval
from sqlmetrics.cli.listing import run_metrics
from sqlmetrics.cli.messages import PROG, UsageError, stands_for
from sqlmetrics.cli.output import FORMATS
from sqlmetrics.cli.report import run_report
from sqlmetrics.cli.rollup import run_rollup
from sqlmetrics.cli.sql import run_sql
from sqlmetrics.cli.state import run_state
from sqlmetrics.engines import LOCAL_ENGINES
from sqlmetrics.errors import SqlMetricsError
from sqlmetrics.html_report import MAX_SLICES
from sqlmetrics.registry import parse_metric, parse_value, roles
from sqlmetrics.sqltext.dialects import DIALECTS

METRIC_SYNTAX = """\
metric specs: comma separated, each NAME[@K][:PARAM=VALUE]..., e.g.
  auc,gauc:weighting=uniform,fbeta:beta=2:threshold=0.3,ndcg@10
values are read as int, else float (ASCII digits only), else string; `sqlmetrics metrics`
lists parameters."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (raised, printed by ``main``)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def parse_metrics(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The comma separated metric specs of ``--metrics``."""
    try:
        return [parse_metric(spec) for spec in split_list(text, "--metrics")]
    except SqlMetricsError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def parse_max_slices(text: str) -> int | None:
    """``--max-slices``: a positive integer, or ``all`` (None)."""
    if text == "all":
        return None
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'all', got {text!r}")
    return int(text)


def parse_path(text: str) -> str:
    """A path read or written (a Parquet file, glob or directory, states, a TREC file, an
    output file): refused when empty, as an unset shell variable leaves it, since an empty
    source would name the working directory and read every Parquet file under it."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (an unset shell variable?): give a file, a glob or a directory")
    return text


def parse_columns(text: str) -> list[str]:
    """The comma separated column names of ``--by``."""
    return split_list(text, "--by")


def parse_class_scores(text: str) -> dict[int | float | str, str]:
    """``cat=p_cat,dog=p_dog`` as ``{"cat": "p_cat", "dog": "p_dog"}``; classes are read
    as metric values are (``0=p0,1=p1`` gives the integer classes 0 and 1)."""
    mapping: dict[int | float | str, str] = {}
    for part in split_list(text, "--class-scores"):
        cls, sep, column = part.partition("=")
        if not sep or not cls.strip() or not column.strip():
            raise argparse.ArgumentTypeError(f"expected CLASS=COLUMN, got {part!r}")
        mapping[parse_value(cls.strip())] = column.strip()
    return mapping


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
    comparison.add_argument(
        "--predictions",
        metavar="BASELINE,CANDIDATE",
        help="two predicted-class columns of the same rows, compared paired (the multi-class metrics)",
    )
    comparison.add_argument(
        "--arm",
        help="the column naming each row's arm (model version, variant); needs --ci-unit, the unit the arms were "
        "randomized by (e.g. user_id) or 'rows'",
    )
    comparison.add_argument("--baseline", help="the arm the others are compared with (e.g. v1)")
    comparison.set_defaults(handler=run_compare, ci=0.95)

    reporting = commands.add_parser(
        "report",
        parents=[_binding_options()],
        help="write one self-contained HTML report: metrics per slice, over time, curves, comparison, SQL",
        epilog=METRIC_SYNTAX,
        formatter_class=formatter,
    )
    reporting.add_argument(
        "--output", "-o", type=parse_path, metavar="PATH", default="report.html", help="default: %(default)s"
    )
    reporting.add_argument("--engine", choices=LOCAL_ENGINES, default="duckdb", help="default: %(default)s")
    reporting.add_argument("--scores", metavar="BASELINE,CANDIDATE", help="also compare two scores of the same rows")
    reporting.add_argument(
        "--predictions", metavar="BASELINE,CANDIDATE", help="also compare two predicted classes of the same rows"
    )
    reporting.add_argument(
        "--arm", help="also compare the arms of this column with --baseline (needs --ci-unit: the unit or 'rows')"
    )
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

    keeping = commands.add_parser(
        "state",
        parents=[_binding_options(state=True)],
        help="write what the metrics need of SOURCE to be rolled up with other parts (days, files) to a Parquet file",
        epilog=METRIC_SYNTAX,
        formatter_class=formatter,
    )
    keeping.add_argument(
        "--output",
        "-o",
        required=True,
        metavar="PATH",
        help="the .parquet file to write, e.g. states/day=2026-11-01.parquet",
    )
    keeping.add_argument("--engine", choices=LOCAL_ENGINES, default="duckdb", help="default: %(default)s")
    keeping.add_argument(
        "--score-digits",
        type=int,
        metavar="D",
        help="round scores to D decimals (1 to 15) before keeping them: a state of a few thousand rows per slice "
        "instead of one per distinct score; rollup then reports METRIC_max_error, a certified bound on what "
        "rounding changed (default: exact)",
    )
    keeping.add_argument(
        "--quiet", "-q", action="store_true", help="no progress line (shown only on a terminal, after 2 s)"
    )
    keeping.set_defaults(handler=run_state, format="parquet")  # a state is always written as Parquet

    rolling = commands.add_parser(
        "rollup",
        parents=[_output_options(engine=False)],
        help="compute the metrics of the union of the parts whose states (written by `state`) are given, per slice",
    )
    rolling.add_argument(
        "source", type=parse_path, metavar="STATES", help="a state's Parquet file, a glob (quote it) or a directory"
    )
    rolling.add_argument(
        "--by",
        type=parse_columns,
        default=[],
        metavar="COLUMNS",
        help="comma separated slice columns, some of the states' (default: none, one row of every part)",
    )
    rolling.add_argument(
        "--metrics", "-m", type=parse_metrics, metavar="SPECS", help="some of the states' metrics (default: all)"
    )
    rolling.add_argument(
        "--ci",
        type=float,
        metavar="LEVEL",
        help="add METRIC_lo and METRIC_hi, a LEVEL confidence interval (e.g. 0.95): the analytic ones the states' "
        "sums give (a bootstrap resamples rows, which states do not keep)",
    )
    rolling.set_defaults(handler=run_rollup)

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
    table = sql.add_argument(
        "--table",
        metavar="NAME",
        help="the table or view the SQL reads (catalog.schema.table), instead of SOURCE; "
        "every dialect but duckdb reads a table",
    )
    stands_for(table, "source")
    sql.add_argument(
        "--scores", metavar="BASELINE,CANDIDATE", help="the statement compare runs for two scores of the same rows"
    )
    sql.add_argument(
        "--predictions",
        metavar="BASELINE,CANDIDATE",
        help="the statement compare runs for two predicted classes of the same rows",
    )
    sql.add_argument(
        "--arm", help="the statement compare runs for the arms of this column (needs --ci-unit: the unit or 'rows')"
    )
    roll_up = sql.add_mutually_exclusive_group()
    roll_up.add_argument(
        "--state",
        action="store_true",
        help="the statement of a state (sm.state): its rows go INTO a table of states, one day (or part) at a time",
    )
    roll_up.add_argument(
        "--rollup",
        action="store_true",
        help="the statement rolling a table of states up (sm.rollup): SOURCE or --table is the states' table, "
        "--metrics and the column options are the states', --by the roll-up's slices (some of the states')",
    )
    sql.set_defaults(handler=run_sql)

    dbt = commands.add_parser(
        "dbt",
        help="write the dbt package: a model calls {{ sqlmetrics.evaluate(ref('t'), metrics=[...], ...) }}",
        description="Write the dbt package sqlmetrics to DIR: the steps of the statement `sqlmetrics sql` "
        "writes, per dialect (duckdb, postgres, spark, trino, bigquery, snowflake), as Jinja macros, and the macro "
        "evaluate that a model calls, which assembles them into one statement. Install it in a dbt project "
        "as a local package (packages.yml: "
        "- local: DIR) or from git, then a model writes {{ sqlmetrics.evaluate(ref('impressions'), "
        "metrics=['auc', 'gauc', 'logloss', 'ndcg@10'], label='click', score='pctr', query='user_id', "
        "by=['date']) }}. The package is generated once per version (about half a minute) and kept in the "
        "user's cache ($SQLMETRICS_CACHE_DIR, else ~/.cache/sqlmetrics/dbt), each entry checked by its digest "
        "before it is copied; stderr says what was written and whether from the cache.",
    )
    dbt.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="the package's folder: new, empty, or one it wrote before (its files are replaced)",
    )
    dbt.set_defaults(handler=run_dbt)

    curve = commands.add_parser("curve", parents=[output], help="compute a ROC, precision-recall or calibration curve")
    curve.add_argument("kind", choices=CURVES, metavar="CURVE", help="roc, pr or calibration")
    curve.add_argument("source", type=parse_path, metavar="SOURCE", help="Parquet file, glob (quote it) or directory")
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


def _output_options(engine: bool = True) -> argparse.ArgumentParser:
    """--engine, --format and --output: every command that computes a table (``rollup``,
    which always runs on DuckDB, without --engine)."""
    options = _Parser(add_help=False)
    if engine:
        options.add_argument("--engine", choices=LOCAL_ENGINES, default="duckdb", help="default: %(default)s")
    options.add_argument(
        "--format",
        choices=FORMATS,
        help="table, csv, json (an array of row objects) or parquet (needs --output); default: from the "
        "--output extension (.csv, .json, .parquet), else table",
    )
    options.add_argument(
        "--output", "-o", type=parse_path, metavar="PATH", help="write the result here instead of stdout"
    )
    options.add_argument(
        "--quiet", "-q", action="store_true", help="no progress line (shown only on a terminal, after 2 s)"
    )
    return options


def _class_options() -> argparse.ArgumentParser:
    """The source and columns of ``confusion-matrix`` and ``per-class``."""
    options = _Parser(add_help=False)
    options.add_argument("source", type=parse_path, metavar="SOURCE", help="Parquet file, glob (quote it) or directory")
    options.add_argument("--label", default="label", help="true class column (default: %(default)s)")
    options.add_argument("--prediction", required=True, help="predicted class column")
    options.add_argument("--weight", help="non-negative sample weight column")
    options.add_argument(
        "--by", type=parse_columns, default=[], metavar="COLUMNS", help="comma separated slice columns"
    )
    return options


def _binding_options(table: bool = False, state: bool = False) -> argparse.ArgumentParser:
    """The source, metrics and column options shared by ``eval`` and ``sql`` (``table``:
    the source may instead be given as ``--table``; ``state``: without the class scores,
    which do not merge, and the intervals, which ``rollup`` computes)."""
    options = _Parser(add_help=False)
    options.add_argument(
        "source",
        type=parse_path,
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
    if not state:
        _class_score_options(options)
    options.add_argument("--query", help="group column for gauc and ranking metrics (user, request, query id)")
    options.add_argument("--item", help="item/document id column (ranking metrics)")
    options.add_argument("--weight", help="non-negative sample weight column")
    for role in roles():
        if role.generic:  # a role a family declares: its option, from its declaration
            help_text = f"{role.name} column: {role.holds}"
            options.add_argument(role.flag, dest=role.name, metavar=role.metavar, help=help_text)
    options.add_argument(
        "--judgments",
        type=parse_path,
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
    if not state:
        _interval_options(options)
    return options


def _class_score_options(options: argparse.ArgumentParser) -> None:
    """--class-scores, or --long-scores and its columns: the one-vs-rest metrics' scores."""
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
    row_id = options.add_argument(
        "--row-id", metavar="COLUMN", help="with --long-scores: the column naming a row, in SOURCE and the table"
    )
    long_class = options.add_argument(
        "--long-class", default="class", help="--long-scores' class column (default: %(default)s)"
    )
    long_score = options.add_argument(
        "--long-score", default="score", help="--long-scores' score column (default: %(default)s)"
    )
    for option, keyword in ((row_id, "row_id"), (long_class, "class_"), (long_score, "score")):
        stands_for(option, f"long_scores.{keyword}")  # sm.long_scores' keywords


def _interval_options(options: argparse.ArgumentParser) -> None:
    """--ci and how the intervals are computed."""
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
        help="the unit whose rows are not independent (e.g. user_id): the analytic intervals are clustered by it "
        "and the bootstrap resamples its units rather than rows; 'rows' declares every row independent. "
        "Required with --arm: the unit the arms were randomized by (or 'rows'). A used row without a unit is "
        "refused; a column named 'rows' cannot be the unit (rename it)",
    )
    options.add_argument("--resamples", type=int, default=200, help="bootstrap resamples (default: %(default)s)")
    seed = "bootstrap seed, an integer from 0 to 2147483646 (default: %(default)s)"
    options.add_argument("--seed", type=int, default=0, help=seed)
