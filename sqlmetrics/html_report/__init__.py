"""``sm.report``: one self-contained HTML file of an evaluation, to open and to share.

It holds what was evaluated (source, columns, metrics, rows used and excluded, when,
how long), the metric tables per slice (one per family, each value with its interval
when ``ci`` is given), each metric over time when a slice column holds dates (one line
per other slice, or per arm in a chart per other slice; the intervals as bands), the ROC,
precision–recall and calibration curves of each slice for binary metrics (thinned; AUC
and average precision in the legend), the comparison of ``sm.compare`` when ``scores``
or ``arm`` is given (a forest plot per metric: each slice's difference and interval
against zero; and the table), and the SQL that computed the table and the comparison.
Charts are static SVG and the styles inline: the file opens offline and prints to PDF.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from sqlmetrics import intervals
from sqlmetrics.api import TABLE_ROLES, ClassScores, Metrics, check_arm_unit, evaluate, evaluate_request, request_sql
from sqlmetrics.compare import compare_request
from sqlmetrics.compose.state import META_PART
from sqlmetrics.curves import calibration_curve, pr_curve, roc_curve
from sqlmetrics.errors import Counted, InvalidParameterError, Keyword, NoRowsUsedWarning, SlicesNotShownWarning
from sqlmetrics.html_report import numbers, page, svg
from sqlmetrics.registry import resolve, roles
from sqlmetrics.request import Request
from sqlmetrics.spec import MetricCall
from sqlmetrics.states import common_meta, is_state, read_states, rolled_up, rollup_binding

CURVE_POINTS = 200  # points kept per curve and slice (the thinning bounds the area's change)
MAX_SLICES = 500  # slices a report shows by default: a year of days; about 2.5 MB and 2 s with two metrics
LINES_PER_CHART = 8
COMPARISON_STATEMENT = "The statement that computed the comparison (its rows give the differences, intervals, p-values)"


def report(
    source: Any,
    metrics: Metrics,
    *,
    output: str | Path = "report.html",
    # <roles>: written by `python -m sqlmetrics.docs --write`
    label: str = "label",
    score: str | None = None,
    prediction: str | None = None,
    query: str | None = None,
    item: str | None = None,
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    judgments: Any = None,
    class_scores: ClassScores | None = None,
    propensity: str | None = None,
    target_propensity: str | None = None,
    reward_model: str | None = None,
    target_reward_model: str | None = None,
    # </roles>
    ci: float | None = None,
    ci_method: str = "auto",
    ci_unit: str | None = None,
    resamples: int = 200,
    seed: int = 0,
    scores: Sequence[str] | None = None,
    predictions: Sequence[str] | None = None,
    arm: str | None = None,
    baseline: Any = None,
    max_slices: int | None = MAX_SLICES,
    engine: str = "duckdb",
) -> Path:
    """Evaluate ``metrics`` over ``source`` as ``sm.evaluate`` does and write the report
    to ``output`` (a new or existing ``.html`` file in an existing directory); return
    its path. With ``scores=(baseline, candidate)`` (the metrics of the first score, the
    comparison of both; ``predictions=`` likewise for two predicted classes) or ``arm=``
    and ``baseline=`` (with ``ci_unit``, the unit the arms were randomized by, or
    ``"rows"``: ``sm.compare`` requires it, and the page names it), the report adds ``sm.compare``'s
    table and a forest plot of each metric's differences; an ``arm`` is a slice of the
    metric tables and charts (added to ``by``). The other arguments are ``evaluate``'s:
    a ``prediction``, ``class_scores`` or ``judgments`` reports the multi-class,
    one-vs-rest or judged-run metrics (without curves, which are binary). A report of
    no used row (the source has none, or every row has a NULL in a bound column) says
    so, and warns (``NoRowsUsedWarning``).

    ``source`` may be states (``state``'s frames, or Parquet files with its ``state_part``
    and ``state_meta`` columns): the report then shows their roll-up (``rollup`` of
    ``metrics`` per slice of ``by``, with ``ci``) in its tables and charts over time; the
    curves, comparisons and SQL need the rows and are left out (the page says so). The
    columns are the states', and what reads the rows (``scores``, ``arm``, ``judgments``,
    ``class_scores``, a bootstrap's options) is refused; it runs on DuckDB.

    The page shows the first ``max_slices`` slices (500 by default; ``None``: all), in
    the order of ``evaluate``'s rows: its table, charts and comparison. With more, it
    says so (and where every slice is: ``evaluate`` with the same arguments), and warns
    (``SlicesNotShownWarning``); the counts of rows used and excluded are of every slice.

    >>> import polars as pl, sqlmetrics as sm, tempfile, pathlib
    >>> logs = pl.DataFrame({"day": ["2026-11-01"] * 4 + ["2026-11-02"] * 4, "click": [0, 1] * 4,
    ...                      "pctr": [.2, .6, .7, .5, .1, .9, .3, .8]})
    >>> path = sm.report(logs, ["auc", "logloss"], label="click", score="pctr", by="day",
    ...                  output=pathlib.Path(tempfile.mkdtemp()) / "report.html")
    >>> "<svg" in path.read_text()
    True
    """
    request = Request.of(locals())
    path = _output_path(output)
    _check_bound(max_slices)
    if is_state(source):
        return _written(path, *_of_states(source, metrics, request, max_slices), statements={})
    if class_scores is not None and (request.paired or arm is not None):
        raise InvalidParameterError("the report compares binary, multi-class and ranking metrics, not class_scores yet")
    if arm is not None and not request.paired:
        check_arm_unit(request)  # before the metrics are computed
    slices = request.slices + ([arm] if arm is not None and arm not in request.slices else [])  # a line per arm
    first_score = scores[0] if scores is not None else score
    first_prediction = predictions[0] if predictions is not None else prediction
    evaluated = dataclasses.replace(
        request, score=first_score, prediction=first_prediction, scores=None, predictions=None, arm=None,
        by=slices or None,
    )  # fmt: skip
    started, when = time.perf_counter(), dt.datetime.now(dt.UTC)
    table = evaluate_request(source, metrics, evaluated, engine)
    shown = table if max_slices is None else table.head(max_slices)
    calls = resolve(metrics, bound=evaluated.bound)
    scored = _scored(scores, predictions)
    sections = [page.metric_tables(shown, slices, _families(calls), ci, scored)]
    first = (scores or predictions or [None])[0]  # the compared column the tables and charts show
    sections += _over_time(shown, slices, [call.column for call in calls], arm, scored, first)
    binary = first_score is not None and class_scores is None and judgments is None
    if binary and any(call.spec.family == "classification" for call in calls):
        sections.append(_curves(source, label, first_score, weight, shown.select(slices), engine, scored))
    statements = {"The statement that computed the metrics": request_sql(metrics, source, evaluated)}
    if request.paired or arm is not None:
        comparable = [call for call in calls if _comparable(call, paired=request.paired)]
        compared = dataclasses.replace(
            request.at_compare_level(),
            score=None if scores is not None else score,
            prediction=None if predictions is not None else prediction,
            by=[c for c in slices if c != arm],
        )
        comparison = compare_request(source, comparable, compared, baseline, engine)
        comparison = _of_slices(comparison, shown.select(compared.slices).unique())
        charts = _differences(comparison, comparable, compared.ci)
        sections.append(page.comparison_table(comparison, [c.column for c in calls if c not in comparable], charts))
        statements[COMPARISON_STATEMENT] = request_sql(comparable, source, compared)
    bound = {  # every column role as declared; compared: the tables show the first's metrics
        **{role: column for role, column in request.columns.items() if role not in TABLE_ROLES},
        "scores": ", ".join(scores or ()),
        "predictions": ", ".join(predictions or ()),
    }
    described = {
        "source": _described(source),
        "columns": _columns_described(bound),
        **({"judgments": _described(judgments)} if judgments is not None else {}),
        **({"class scores": _described(class_scores)} if class_scores is not None else {}),
        **({"arms randomized by": _unit_described(request)} if arm is not None else {}),
        **_table_described(slices, calls, table, shown),
        "evaluated": f"{when:%Y-%m-%d %H:%M:%S} UTC on {engine}, in {time.perf_counter() - started:.2f} s",
    }
    return _written(path, described, sections, table, shown, statements)


def _written(path: Path, described: dict[str, str], sections: list[str], table: pl.DataFrame, shown: pl.DataFrame,
             statements: dict[str, str]) -> Path:  # fmt: skip
    """Write the page to ``path`` (with the notices of ``table``, the metrics of every
    slice, of which ``shown`` are on the page) and warn as it says; return ``path``."""
    notice, capped = no_rows_notice(table), capped_notice(shown.height, table.height)
    notices = [text for text in (notice, capped) if text is not None]
    path.write_text(page.document(described, sections, statements, notices), encoding="utf-8")
    if notice is not None:  # stacklevel 3: report's caller
        warnings.warn(NoRowsUsedWarning(notice, table["n_excluded"].sum()), stacklevel=3)
    if capped is not None:
        warnings.warn(SlicesNotShownWarning(capped, shown.height, table.height), stacklevel=3)
    return path


STATES_LEAVE_OUT = "the curves, the comparisons and the SQL: they need the rows, which states do not keep"


def _of_states(
    states: Any, metrics: Metrics, request: Request, max_slices: int | None
) -> tuple[dict[str, str], list[str], pl.DataFrame, pl.DataFrame]:
    """The page of the roll-up of ``states`` (``sm.rollup`` of ``metrics`` per slice of
    ``request.by``, with ``request.ci``): what was rolled up, the metric tables and the
    charts over time, the roll-up and the slices shown of it."""
    started, when = time.perf_counter(), dt.datetime.now(dt.UTC)
    frame = read_states(states)
    meta = common_meta(frame)
    _check_of_states(request, meta)
    binding = rollup_binding(meta, request.by, metrics, request.ci)
    table = rolled_up(frame, binding)
    shown = table if max_slices is None else table.head(max_slices)
    calls, slices = list(binding.calls), list(binding.by)
    sections = [page.metric_tables(shown, slices, _families(calls), request.ci)]
    sections += _over_time(shown, slices, [call.column for call in calls], None)
    parts = frame.filter(pl.col("state_part") == META_PART).height  # each state has one meta row
    sliced = f", sliced by {', '.join(meta['by'])}" if meta["by"] else ""
    described = {
        "source": f"{_described(states)}: the states of {parts:,} part{'s' * (parts != 1)}{sliced}",
        "columns": _columns_described({r.name: meta["columns"][r.name] for r in roles() if r.name in meta["columns"]}),
        **_table_described(slices, calls, table, shown),
        "rolled up": f"{when:%Y-%m-%d %H:%M:%S} UTC on duckdb, in {time.perf_counter() - started:.2f} s",
        "left out": STATES_LEAVE_OUT,
    }
    return described, sections, table, shown


def _check_of_states(request: Request, meta: dict[str, Any]) -> None:
    """Refuse what a report of states cannot do: a column other than the states' (the
    columns are theirs), or what reads the rows (comparisons, class scores, judgments, a
    bootstrap)."""
    default = Request()
    for role, column in meta["columns"].items():
        given = getattr(request, role)
        if given not in (getattr(default, role), column):
            raise InvalidParameterError(
                Keyword(role, given),
                f": the states were built with {role} {column!r}; a report of states takes "
                "their columns (leave it out)",
            )
    reads_rows = (
        "scores",
        "predictions",
        "arm",
        "judgments",
        "class_scores",
        "ci_method",
        "ci_unit",
        "resamples",
        "seed",
    )
    given = [(name, getattr(request, name)) for name in reads_rows if getattr(request, name) != getattr(default, name)]
    if given:
        name, value = given[0]
        raise InvalidParameterError(
            Keyword(name, value if isinstance(value, str | int | float) else None),
            " reads the rows, which states do not keep: a report of states takes metrics, by, ci and "
            "max_slices; report the rows for the rest",
        )


def _columns_described(columns: Mapping[str, str | None]) -> str:
    """The bound columns by role: ``label = click, score = pctr``."""
    return ", ".join(f"{role} = {column}" for role, column in columns.items() if column)


def _table_described(slices: list[str], calls: list[MetricCall], table: pl.DataFrame,
                     shown: pl.DataFrame) -> dict[str, str]:  # fmt: skip
    """The slices (how many, how many shown), the metrics and the rows used and excluded."""
    return {
        "slices": _slices_described(slices, shown.height, table.height),
        "metrics": ", ".join(call.column for call in calls),
        "rows used": f"{table['n_rows'].sum():,}",
        "rows excluded (a NULL in a bound column)": f"{table['n_excluded'].sum():,}",
    }


def _families(calls: list[MetricCall]) -> list[tuple[str, list[str]]]:
    """The metrics' columns by family (its title), in the order of ``calls``."""
    families: dict[str, list[str]] = {}
    for call in calls:
        families.setdefault(call.spec.family.replace("multiclass", "multi-class").capitalize(), []).append(call.column)
    return list(families.items())


def _slices_described(slices: list[str], shown: int, total: int) -> str:
    """The slice columns, and how many slices there are and are shown."""
    if not slices:
        return "none"
    slices_counted = Counted("slice", "slices").of(total, ",")
    counted = slices_counted if shown == total else f"{slices_counted}, the first {shown:,} shown"
    return f"{', '.join(slices)} ({counted})"


def _check_bound(max_slices: object) -> None:
    if max_slices is not None and (isinstance(max_slices, bool) or not isinstance(max_slices, int) or max_slices < 1):
        raise InvalidParameterError(f"max_slices must be a positive integer or None (every slice), got {max_slices!r}")


def capped_notice(shown: int, total: int) -> str | None:
    """What the page leaves out when it shows ``shown`` of ``total`` slices, and where
    every slice is; None when it shows them all."""
    if shown == total:
        return None
    return (
        f"This report shows the first {shown:,} of the {total:,} slices (in slice order) in its table, charts and "
        "comparison. Every slice: sm.evaluate with the same arguments (or sqlmetrics eval with the same options, "
        "e.g. --format csv --output all.csv), or a report with a larger max_slices (--max-slices)."
    )


def _of_slices(table: pl.DataFrame, kept: pl.DataFrame) -> pl.DataFrame:
    """The rows of ``table`` whose slice (the columns of ``kept``) is one of ``kept``'s."""
    if not kept.columns:
        return table
    return table.join(kept, on=kept.columns, how="semi", nulls_equal=True, maintain_order="left")


def _described(value: Any) -> str:
    """A source, the judgments or the class scores as the report names them."""
    if isinstance(value, str | Path):
        return str(value)
    if isinstance(value, Mapping):
        return ", ".join(f"{key} = {column}" for key, column in value.items())
    return f"a {type(value).__name__}"


def no_rows_notice(table: pl.DataFrame) -> str | None:
    """Why every metric of ``table`` (evaluate's) is empty, when no row was used."""
    if table["n_rows"].sum() > 0:
        return None
    excluded = table["n_excluded"].sum()
    if excluded:
        rows = Counted("row was", "rows were").of(excluded, ",")
        return f"No row was used: all {rows} excluded (each has a NULL in a bound column)."
    return "No row was used: the source has no rows."


def _unit_described(request: Request) -> str:
    """The unit the arms were randomized by, as the page says it (``ci_unit``)."""
    if request.unit is None:
        return "rows (ci_unit='rows': each row assigned its arm on its own)"
    return f"unit {request.unit} (ci_unit: the intervals clustered, the bootstrap resampled, by it)"


def _comparable(call: MetricCall, paired: bool) -> bool:
    """Whether ``sm.compare`` compares the metric: by its analytic test (paired scores) or
    interval (arms), or by the bootstrap (any metric taking weights)."""
    analytic = intervals.paired_of(call) if paired else intervals.interval_of(call)
    return analytic is not None or call.spec.weighted


def _output_path(output: str | Path) -> Path:
    path = Path(output)
    if path.suffix.lower() not in (".html", ".htm"):
        raise InvalidParameterError(f"output must be an .html file, got {str(output)!r}")
    if not path.parent.is_dir():
        raise InvalidParameterError(f"output {str(output)!r}: the directory {str(path.parent)!r} does not exist")
    return path


def date_column(table: pl.DataFrame, column: str) -> pl.Series | None:
    """The column as dates (days since 1970-01-01) if it holds dates: a Date or Datetime
    column, or text in ISO form (2026-11-01); else None."""
    values = table[column]
    if values.dtype == pl.Date:
        return values.cast(pl.Int32)
    if isinstance(values.dtype, pl.Datetime):
        return values.dt.date().cast(pl.Int32)
    if values.dtype == pl.String:
        parsed = values.str.to_date("%Y-%m-%d", strict=False)
        if parsed.null_count() == values.null_count():
            return parsed.cast(pl.Int32)
    return None


def _scored(scores: Sequence[str] | None, predictions: Sequence[str] | None) -> str | None:
    """Which of two compared columns the metric tables and charts show (the first's
    metrics), as their titles say it: ``score a (the first of a, b)``; None without."""
    for role, pair in (("score", scores), ("prediction", predictions)):
        if pair is not None:
            return f"{role} {pair[0]} (the first of {', '.join(pair)}; the comparison compares both)"
    return None


def _over_time(table: pl.DataFrame, slices: list[str], labels: list[str], arm: str | None,
               scored: str | None = None, first: str | None = None) -> list[str]:  # fmt: skip
    """Charts of each metric over the first date-like slice column (not the arm), a line
    per other slice (LINES_PER_CHART a chart) with its interval as a band when the table
    has one; with an ``arm``, a chart per combination of the slices left, a line per arm.
    ``scored``: which of two compared scores the values are of, in the section's title, and
    ``first``, that column, in each chart's (``auc of a``)."""
    dated = next(((c, days) for c in slices if c != arm and (days := date_column(table, c)) is not None), None)
    if dated is None:
        return []
    column, days = dated
    frame = table.with_columns(days.alias("_day")).sort("_day")
    panels = [c for c in slices if c not in (column, arm)]
    lined = [arm] if arm is not None else panels
    colors = _arm_colors(frame, arm)
    charts = []
    of = "" if first is None else f" of {first}"
    for label in labels:
        for panel, lines in _chart_lines(frame, panels if arm is not None else [], lined, label, colors):
            title = f"{label}{of} · {panel}" if panel else f"{label}{of}"
            charts.append(svg.line_chart(lines, title=title, x_label=column, y_label=label, dates=True, markers=True))
    return [page.section(f"Over time ({column})" + ("" if scored is None else f", {scored}"), charts)]


def _chart_lines(frame: pl.DataFrame, panels: list[str], lined: list[str], label: str,
                 colors: Mapping[Any, str]) -> list[tuple[str, list[svg.Line]]]:  # fmt: skip
    """Each chart's name (its combination of the ``panels`` columns) and lines (one per
    combination of the ``lined`` columns, the metric ``label``'s values over ``_day``, its
    interval when the frame has ``<label>_lo`` and ``_hi``), LINES_PER_CHART a chart."""
    charts = []
    for panel_key, panel in _groups(frame, panels):
        lines = []
        for key, part in _groups(panel, lined):
            bounds = [part[f"{label}_{end}"].to_list() for end in ("lo", "hi")] if f"{label}_lo" in part.columns else []
            color = colors.get(key[0]) if colors else None
            lines.append(svg.Line(_line_name(lined, key) or label, part["_day"].to_list(), part[label].to_list(),
                                  *(bounds or [None, None]), color))  # fmt: skip
        for start in range(0, len(lines), LINES_PER_CHART):
            charts.append((_line_name(panels, panel_key), lines[start : start + LINES_PER_CHART]))
    return charts


def _groups(frame: pl.DataFrame, columns: list[str]) -> list[tuple[tuple, pl.DataFrame]]:
    """The frame's rows by their values of ``columns`` (in order of first appearance)."""
    if not columns:
        return [((), frame)]
    return list(frame.partition_by(columns, maintain_order=True, as_dict=True).items())


def _arm_colors(frame: pl.DataFrame, arm: str | None) -> dict[Any, str]:
    """Each arm's colour, the same in every chart (the arms in the order of ``frame``)."""
    if arm is None:
        return {}
    return {value: svg.PALETTE[i % len(svg.PALETTE)] for i, value in enumerate(frame[arm].unique(maintain_order=True))}


def _differences(comparison: pl.DataFrame, calls: list[MetricCall], level: float) -> list[str]:
    """A forest plot per metric of ``comparison`` (sm.compare's): a row per slice (and
    candidate, when there are several) with the difference and its interval."""
    slices = comparison.columns[: comparison.columns.index("metric")]
    several = comparison["candidate"].n_unique() > 1
    better = {call.column: call.spec.higher_is_better for call in calls}
    charts = []
    for (metric,), part in comparison.partition_by("metric", maintain_order=True, as_dict=True).items():
        rows = []
        for row in part.iter_rows(named=True):
            named = [str(row[c]) for c in slices] + ([str(row["candidate"])] if several else [])
            rows.append(svg.Difference(" · ".join(named) or "all rows", row["delta"], row["delta_lo"], row["delta_hi"]))
        pair = "candidate − baseline" if several else f"{part['candidate'][0]} − {part['baseline'][0]}"
        rows_are = " · ".join([*slices, *(["candidate"] if several else [])])
        charts.append(svg.forest_plot(rows, title=f"{metric}: {pair}", x_label=f"difference, {level:.0%} interval",
                                      y_label=rows_are, higher_is_better=better.get(metric)))  # fmt: skip
    return charts


def _line_name(columns: list[str], key: tuple) -> str:
    return ", ".join(f"{column}={value}" for column, value in zip(columns, key))


def _curves(source: Any, label: str, score: str, weight: str | None, kept: pl.DataFrame, engine: str,
            scored: str | None = None) -> str:  # fmt: skip
    """ROC, precision–recall and calibration charts, a line per slice of ``kept`` (its
    rows, in order: the slice columns) with AUC and average precision in the legend,
    LINES_PER_CHART slices per chart; ``scored`` (which of two compared scores) in the title."""
    slices = kept.columns
    roles = {"label": label, "score": score, "weight": weight, "by": slices or None, "engine": engine}
    areas = _of_slices(evaluate(source, ["auc", "average_precision"], **roles), kept)
    roc = _of_slices(roc_curve(source, **roles, max_points=CURVE_POINTS), kept)
    pr = _of_slices(pr_curve(source, **roles, max_points=CURVE_POINTS), kept)
    calibration = _of_slices(calibration_curve(source, **roles), kept)
    kinds = [
        ("ROC", roc, "fpr", "tpr", "auc", {"x_range": (0, 1), "y_range": (0, 1), "diagonal": True}),
        ("precision–recall", pr, "recall", "precision", "average_precision", {"x_range": (0, 1), "y_range": (0, 1)}),
        ("calibration", calibration, "mean_score", "observed_rate", None, {"diagonal": True, "markers": True}),
    ]
    keys = areas.select(slices).rows() if slices else [()]
    charts = []
    for start in range(0, len(keys), LINES_PER_CHART):
        chunk = keys[start : start + LINES_PER_CHART]
        for title, curve, x, y, area, options in kinds:
            lines = []
            for key in chunk:
                part = curve.filter(*(pl.col(c).eq_missing(v) for c, v in zip(slices, key))) if slices else curve
                name = _line_name(slices, key) or "all rows"
                if area is not None:
                    value = areas.filter(*(pl.col(c).eq_missing(v) for c, v in zip(slices, key)))[area][0]
                    name += f" ({'AUC' if area == 'auc' else 'AP'} {'n/a' if value is None else numbers.number(value)})"
                lines.append((name, part[x].to_list(), part[y].to_list()))
            charts.append(svg.line_chart(lines, title=title, x_label=x, y_label=y, **options))
    return page.section("Curves" if scored is None else f"Curves of {scored}", charts)
