"""The public entry points: ``evaluate`` runs metrics, ``to_sql`` shows the SQL it runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import duckdb
import polars as pl

from sqlmetrics import intervals
from sqlmetrics.binding import PAIRED_SLICE, Binding, bind, bootstrap
from sqlmetrics.binding.bootstrap import REPLICATE_SLICE
from sqlmetrics.compose import compose
from sqlmetrics.compose.class_tables import compose_confusion_matrix, compose_per_class
from sqlmetrics.compose.rollup import compose_rollup, rollup_binding
from sqlmetrics.compose.state import Identity, check_mergeable, compose_state, meta_text, source_identity, state_meta
from sqlmetrics.compose.unit_bootstrap import compose_unit_bootstrap, sums_per_unit
from sqlmetrics.engines import engine_named, long_bootstrap, polars_engine, source_evidence
from sqlmetrics.engines.polars_engine.unit_bootstrap import unit_bootstrap as polars_unit_bootstrap
from sqlmetrics.engines.record import Engine, OwnTable
from sqlmetrics.errors import InvalidParameterError, Keyword, Part, SourceError
from sqlmetrics.metrics.multiclass.class_scores import ClassScores, parse
from sqlmetrics.registry import hooks as family_hooks
from sqlmetrics.registry import registry, resolve, roles
from sqlmetrics.request import ROWS, Request
from sqlmetrics.sources import FRAME_VIEW, is_path, second_view, source_sql
from sqlmetrics.spec import MetricCall
from sqlmetrics.sqltext.dialects import check_dialect, dialect_named, transpile

Metrics = str | MetricCall | Iterable[str | MetricCall]
# The roles bound to a table or a mapping rather than a column of the source (``spec.Role.table``):
# ``bind`` takes them apart.
TABLE_ROLES = tuple(role.name for role in roles() if role.table)


def evaluate(
    source: Any,
    metrics: Metrics,
    *,
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
    engine: str = "duckdb",
    con: Any = None,
    spark: Any = None,
) -> pl.DataFrame:
    """Compute ``metrics`` over ``source``: one row per slice of ``by``, one column per metric.

    ``source`` is a Parquet path, glob or directory, a polars DataFrame or LazyFrame, a
    pyarrow Table, or the name of a table or view in ``con`` (a DuckDB connection).
    ``metrics`` are names (``"auc"``, ``"gauc"``) or calls with parameters
    (``sm.fbeta(beta=2)``, ``sm.metric("precision", threshold=0.3)``).
    ``label``, ``score`` (default: the column ``score``, when a metric reads a score),
    ``prediction`` (the predicted class), ``query`` (the list of a ranking metric, the
    group of gauc), ``item``, ``weight`` and ``by`` name the source's columns, as does
    the keyword of every role a family of metrics declares (``sqlmetrics.registry.roles()``:
    a number per row, which its metrics read; a NULL in it excludes the row). With
    ``prediction`` bound, the names ``"accuracy"``, ``"precision"``, ``"recall"``,
    ``"f1"``, ``"fbeta"`` and ``"mcc"`` mean the multi-class metrics
    (``multiclass_f1``, ...), which compare the prediction with the label as classes
    (numbers, strings or booleans); their columns keep the plain names. Ranking metrics
    (``"ndcg@10"``, ``"mrr"``, ...) read either an impressions log (``label`` is each
    row's graded relevance) or, with ``judgments``, a run: ``source`` then holds
    ``query``, ``item`` and ``score``, and ``judgments`` (any kind of source) holds
    ``query``, ``item`` and ``label``, the relevance; unjudged run items have relevance 0,
    and judged items missing from the run still count in ideal DCG, recall and MAP.
    With ``class_scores`` (one score per class: ``{class: score column}`` of the source,
    or ``sm.long_scores(table, row_id=..., class_=..., score=...)``, a second table of
    row id, class and score), the names ``"auc"`` and ``"average_precision"`` mean the
    one-vs-rest multi-class metrics (``multiclass_auc``, ...), averaged over the classes;
    ``label`` is then the true class.

    The result has the slice columns (sorted, NULL last), ``n_rows`` (rows used),
    ``n_excluded`` (rows with a NULL label, score, prediction, weight, query or, for
    ranking metrics, item, left out), then each metric's columns (see
    ``MetricCall.column``). ``engine="duckdb"`` runs the one SQL statement that ``to_sql``
    returns; ``engine="polars"`` computes the same plan with the polars expressions;
    ``engine="spark"`` runs the statement written in Spark SQL on the session ``spark=``
    (``source``: a Spark DataFrame, a table name of its catalog, or a polars or pyarrow
    frame); ``engine="postgres"`` runs it on the psycopg connection ``con=`` (``source``:
    a table name); ``engine="clickhouse"`` runs it on ``con=``, a chdb session or a
    clickhouse-connect client, or without ``con`` on a chdb session of its own (``source``:
    a table name, or a polars or pyarrow frame). Every engine gives the same numbers.

    ``ci`` (a level such as 0.95) adds ``<column>_lo`` and ``<column>_hi`` after each
    metric's column, computed in the same query (``sqlmetrics.intervals``): DeLong's
    interval for ``auc``, Student's t over queries for ``gauc`` and the ranking metrics,
    the binomial one for accuracy, precision, recall and specificity, the mean's for
    logloss, brier, score_mean, label_mean, the regression errors mae, mse, mape and
    mean_error and the off-policy ips, clipped_ips, dm, dr, switch_dr, dr_os and mean_weight, and for
    rmse mse's through the delta method, the delta method's for f1, fbeta,
    balanced_accuracy and mcc (over the confusion cells), for cohen_kappa and the
    multi-class multiclass_accuracy, multiclass_precision, multiclass_recall,
    multiclass_f1, multiclass_fbeta (every average), multiclass_balanced_accuracy and
    multiclass_mcc (over the confusion matrix), for calibration, ne and rig (over the rows'
    means), for the off-policy ratios snips and sndr (over each row's influence) and for r2
    (over the rows' squared errors and deviations) (``ci_method="analytic"``;
    ``docs/intervals.md``); for the other metrics ``ci_method="auto"`` (the default)
    takes the percentile interval of a Poisson bootstrap of ``resamples`` replicates
    drawn from ``seed`` (an integer from 0 to 2**31 - 2; ``sqlmetrics.binding.bootstrap``),
    which ``ci_method="bootstrap"`` takes for every metric; ``ci_unit`` (a column, e.g.
    the user, whose rows are not independent) clusters every analytic interval by it
    (the units' sums: ``sqlmetrics/intervals/clustered.py``; a mean over queries from
    its queries' values, each query within one unit), but keeps a mean over queries' t
    when the queries are its units, and resamples the others' units rather than rows.
    It never changes a metric's value: a used row without a unit (NULL) is refused, as
    is a unit column of lists or structs; ``ci_unit="rows"`` declares every row its own
    unit (as without ``ci_unit``; a source column named ``rows`` is then refused).

    >>> import polars as pl, sqlmetrics as sm
    >>> df = pl.DataFrame({"click": [0, 1, 1, 0, 0, 1, 1],
    ...                    "pctr": [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8]})
    >>> sm.evaluate(df, ["auc", "logloss"], label="click", score="pctr").select("n_rows", "auc").row(0)
    (7, 0.8333333333333334)
    """
    return evaluate_request(source, metrics, Request.of(locals()), engine, con, spark)


def interval_methods(
    metrics: Metrics,
    *,
    ci: float = 0.95,
    ci_method: str = "auto",
    ci_unit: str | None = None,
    resamples: int = 200,
    seed: int = 0,
    prediction: str | None = None,
    class_scores: ClassScores | None = None,
    query: str | None = None,
) -> pl.DataFrame:
    """Which method ``evaluate`` takes for each metric's interval with these arguments, one
    row per metric's result column: ``method`` (DeLong, Student's t over queries,
    binomial, mean over rows, delta method, or bootstrap), ``interval`` (normal,
    Student's t, percentile), ``level``, and for the bootstrap its ``resamples``,
    ``seed`` and ``unit`` (the resampled unit: ``ci_unit``, or ``"row"``). Reads no data;
    refuses what ``evaluate`` refuses (an analytic interval asked for a metric without
    one, a bootstrap of a metric that takes no weights, ...). ``prediction`` and
    ``class_scores``, as given to ``evaluate``, route the names as it does: with a
    prediction column ``"f1"`` is ``multiclass_f1``, with class scores ``"auc"`` is
    ``multiclass_auc`` (only whether they are given matters); ``query``, the query column,
    says whether ``ci_unit`` is the queries (a mean over queries then keeps its t).

    >>> import sqlmetrics as sm
    >>> sm.interval_methods(["auc", "average_precision"], resamples=500)["method"].to_list()
    ['DeLong', 'bootstrap']
    """
    request = Request.of(locals())
    bootstrap.check(resamples, seed, ci_unit)
    calls = resolve(metrics, bound=request.bound)
    return intervals.described(calls, ci, ci_method, request.unit, resamples, seed, query, registered=registry())


def evaluate_request(
    source: Any, metrics: Metrics, request: Request, engine: str = "duckdb", con: Any = None, spark: Any = None
) -> pl.DataFrame:
    """``evaluate`` of a request built already (``report``'s)."""
    binding, second = prepare(metrics, request)
    return run(binding, source, second, engine, con, spark)


def run(binding: Binding, source: Any, second: Any, engine: str, con: Any = None, spark: Any = None) -> pl.DataFrame:
    """``binding``'s metrics over ``source`` (and ``second``) on the engine named ``engine``."""
    return _run(binding, source, second, engine_named(engine), con, spark)


def _run(binding: Binding, source: Any, second: Any, engine: Engine, con: Any, spark: Any) -> pl.DataFrame:
    """``run`` on the engine record ``engine``."""
    if binding.bootstrap and not binding.spread_columns:
        by_unit = _summed_by_unit(binding, engine)
        if by_unit or len(binding.bootstrap.columns) < len(binding.calls):
            return _resampled_apart(binding, source, second, engine, con, spark, by_unit)
    with long_bootstrap.announced(binding, source, engine):
        result = engine.run(binding, source, second, con=con, spark=spark)
    if binding.bootstrap and not binding.spread_columns:  # sm.compare takes the replicates themselves
        by = list(binding.source_by)
        result = bootstrap.percentile_intervals(result, by, binding.bootstrap).select(binding.bootstrap_columns)
    check_result(binding, result)
    return result


def _resampled_apart(
    binding: Binding,
    source: Any,
    second: Any,
    engine: Engine,
    con: Any = None,
    spark: Any = None,
    by_unit: tuple[MetricCall, ...] = (),
) -> pl.DataFrame:
    """``run`` of a call whose bootstrap serves only some of its metrics, or some of them
    from their units' sums: the others once, with their analytic intervals, in a statement
    of their own (one statement would compute every metric once per replicate: R times
    the work); the functions of sums over rows resampled by unit from each unit's sums
    (``_unit_sums_bootstrap``); the rest once per replicate; joined by slice."""
    boot = binding.bootstrap
    resampled = tuple(call for call in binding.calls if call.column in boot.columns and call not in by_unit)
    once = tuple(call for call in binding.calls if call.column not in boot.columns)
    slices = list(binding.source_by)
    # the unit a bound column still: a row without one is left out, as the bootstrap leaves it out
    analytic = dataclasses.replace(binding, calls=once, by=tuple(slices), bootstrap=None, cluster=boot.unit)
    joined = _run(analytic, source, second, engine, con, spark)
    parts = []
    if resampled:
        columns = frozenset(call.column for call in resampled)
        rows = dataclasses.replace(binding, calls=resampled, bootstrap=dataclasses.replace(boot, columns=columns))
        parts.append(_run(rows, source, second, engine, con, spark).drop("n_rows", "n_excluded"))
    if by_unit:
        parts.append(_unit_sums_bootstrap(binding, by_unit, source, second, engine, con))
    for part in parts:
        joined = joined.join(part, on=slices, how="left", nulls_equal=True) if slices else joined.hstack(part)
    return joined.select(binding.bootstrap_columns)


def _summed_by_unit(binding: Binding, engine: Engine) -> tuple[MetricCall, ...]:
    """The resampled calls a bootstrap by unit takes from each unit's sums (the functions
    of sums over rows, on an engine that resamples them: ``Engine.resamples_unit_sums``):
    R × units rows rather than R × rows."""
    boot = binding.bootstrap
    if boot.unit is None or not engine.resamples_unit_sums or binding.judgments or binding.class_scores is not None:
        return ()
    return tuple(call for call in binding.calls if call.column in boot.columns and sums_per_unit(call))


def _unit_sums_bootstrap(
    binding: Binding, calls: tuple[MetricCall, ...], source: Any, second: Any, engine: Engine, con: Any
) -> pl.DataFrame:
    """The percentile intervals of ``calls`` (functions of sums) resampled by unit, from the
    units' sums (``compose/unit_bootstrap.py``): the same replicates as the row bootstrap
    by unit, so the same numbers. Their values, ``_lo`` and ``_hi`` per slice."""
    boot = binding.bootstrap
    resampling = dataclasses.replace(boot, columns=frozenset(call.column for call in calls))
    summed = dataclasses.replace(binding, calls=calls, by=binding.source_by, bootstrap=None, cluster=boot.unit, ci=None)
    replicates = engine.table(  # R x units rows: no long bootstrap to announce
        OwnTable(
            lambda b, source_sql, _: compose_unit_bootstrap(b, source_sql, resampling),
            lambda b, data, second_data: polars_unit_bootstrap(b, data, second_data, resampling),
        ),
        summed,
        source,
        second,
        con,
    )
    slices = list(binding.source_by)
    columns = [name for call in calls for name in (call.column, f"{call.column}_lo", f"{call.column}_hi")]
    if not slices and replicates.is_empty():  # no used unit at all: the one row of no slices, undefined
        return pl.DataFrame({column: [None] for column in columns}, schema=dict.fromkeys(columns, pl.Float64))
    return bootstrap.percentile_intervals(replicates, slices, resampling).select(*slices, *columns)


def check_result(binding: Binding, result: pl.DataFrame) -> None:
    """Each family's check of a call's result (``steps.Hooks.check_result``; regression
    refuses a value that overflowed the float range, ``metrics/regression/overflow.py``)."""
    for hooks in family_hooks():
        hooks.check_result(binding, result)


def prepare(metrics: Metrics, request: Request) -> tuple[Binding, Any]:
    """The binding of ``evaluate``'s ``request`` (its ``scores`` and ``arm`` left aside),
    with its intervals, and its second table (the judgments, or long class scores)."""
    binding, second = _bound(metrics, request)
    resampled = intervals.resampled(request.ci, request.ci_method, binding.calls, request.unit, registered=registry())
    binding = dataclasses.replace(binding, ci=request.ci, cluster=_cluster(binding, resampled, request))
    return _resampling(binding, resampled, request), second


def _cluster(binding: Binding, resampled: Sequence[MetricCall], request: Request) -> str | None:
    """The unit column the analytic intervals are clustered by (``Binding.cluster``):
    ``request``'s ``ci_unit`` when a call keeps its analytic interval; else None."""
    clustered = request.ci is not None and request.unit is not None and len(resampled) < len(binding.calls)
    return request.unit if clustered else None


def _bound(metrics: Metrics, request: Request) -> tuple[Binding, Any]:
    """The binding of ``request``'s columns, without intervals, and its second table."""
    described, long_table = parse(request.class_scores)
    binding = bind(
        resolve(metrics, bound=request.bound),
        columns={role: column for role, column in request.columns.items() if role not in TABLE_ROLES},
        by=request.by,
        judgments=request.judgments is not None,
        class_scores=described,
    )
    binding = dataclasses.replace(binding, rows_unit=request.ci_unit == ROWS)
    return binding, request.judgments if request.judgments is not None else long_table


def _resampling(binding: Binding, resampled: Sequence[MetricCall], request: Request) -> Binding:
    """``binding`` with the bootstrap of the ``resampled`` calls (none: unchanged): the
    slice REPLICATE_SLICE last. The bootstrap's arguments (``request``'s ``resamples``,
    ``seed`` and ``ci_unit``) are checked even when no metric is resampled: a bad one is
    a mistake either way."""
    bootstrap.check(request.resamples, request.seed, request.ci_unit)
    if not resampled:
        return binding
    if REPLICATE_SLICE in binding.by:
        raise InvalidParameterError(f"{REPLICATE_SLICE!r} is the name the bootstrap gives its own slice")
    columns = frozenset(call.column for call in resampled)
    resampling = bootstrap.Bootstrap(binding.ci, request.resamples, request.seed, request.unit, columns)
    return dataclasses.replace(binding, by=(*binding.by, REPLICATE_SLICE), bootstrap=resampling)


def prepare_paired(metrics: Metrics, request: Request) -> tuple[Binding, Any]:
    """The binding of ``request``'s two paired ``scores`` (or ``predictions``: predicted
    classes) of the same rows (``sm.compare``; ``ci`` set): each metric per score (the
    slice PAIRED_SLICE) with the spread of the difference, analytic or, resampling both
    scores' rows alike, the bootstrap's (the slice REPLICATE_SLICE); and the source of
    the judgments of a run, if any."""
    role, columns = _checked_pair(request)
    pairs = dataclasses.replace(request, **{role: columns[0]}, by=[*request.slices, PAIRED_SLICE], class_scores=None)
    binding, second = _bound(metrics, pairs)
    resampled = intervals.resampled(
        request.ci, request.ci_method, binding.calls, request.unit, paired=True, registered=registry()
    )
    cluster = _cluster(binding, resampled, request)
    binding = dataclasses.replace(binding, ci=request.ci, spread_columns=True, paired_scores=columns, cluster=cluster)
    return _resampling(binding, resampled, request), second


def prepare_arms(metrics: Metrics, request: Request) -> tuple[Binding, Any]:
    """The binding of arms that saw different rows (``sm.compare``; ``ci`` set): each
    metric per slice and value of ``request``'s column ``arm``, with its analytic
    standard error (``<column>_se``) or, resampled, per bootstrap replicate (the slice
    REPLICATE_SLICE); and the source of the judgments, if any."""
    arm = request.arm
    if not isinstance(arm, str):
        raise InvalidParameterError(f"arm must be a column name (a string), got {arm!r}")
    check_arm_unit(request)
    if arm in request.slices:
        raise InvalidParameterError(f"arm column {arm!r} is also a slice column (by): compare arms within slices")
    binding, second = prepare(metrics, dataclasses.replace(request, by=[*request.slices, arm], class_scores=None))
    return dataclasses.replace(binding, spread_columns=True, arm=arm), second


def check_arm_unit(request: Request) -> None:
    """Refuse arms compared without the unit they were randomized by (``ci_unit``): a
    column, or ``"rows"`` for rows assigned one by one. Taking a user's rows for
    independent draws understates the spread: identical arms of Zipf-heavy users came out
    different at p = 1e-9 (docs/intervals.md)."""
    if request.ci_unit is None:
        raise InvalidParameterError(
            "comparing arms needs the unit they were randomized by: pass ",
            Keyword("ci_unit", hint="the unit column, e.g. user_id"),
            " when each unit's rows share its arm (the intervals are clustered, the bootstrap resampled, by it), or ",
            Keyword("ci_unit", ROWS),
            " when each row was assigned its arm on its own; rows of one user are not independent, and counting them "
            "as such understates the spread and declares identical arms different",
            parameter="ci_unit",
        )


def _checked_pair(request: Request) -> tuple[str, tuple[str, str]]:
    """The role ``request`` pairs (``score``, or ``prediction``: predicted classes) and
    its two distinct column names, in a call that can pair them."""
    if request.scores is not None and request.predictions is not None:
        raise InvalidParameterError(
            "pass scores= (two score columns) or predictions= (two predicted-class columns), not both"
        )
    role, keyword = ("prediction", "predictions") if request.predictions is not None else ("score", "scores")
    columns, single = getattr(request, keyword), getattr(request, role)
    if isinstance(columns, str) or not isinstance(columns, Sequence) or len(columns) != 2:
        raise InvalidParameterError(f"{keyword} must be two {role} columns (baseline, candidate), got {columns!r}")
    if not all(isinstance(column, str) for column in columns) or columns[0] == columns[1]:
        raise InvalidParameterError(f"{keyword} must be two different column names, got {columns!r}")
    if single is not None:
        raise InvalidParameterError(
            f"{keyword}= names the two {role} columns: {role}={single!r} cannot be added to them"
        )
    if PAIRED_SLICE in request.slices:
        raise InvalidParameterError(f"{PAIRED_SLICE!r} is the name compare gives its own slice: rename that column")
    if role == "score" and request.prediction is not None:
        raise InvalidParameterError(
            "scores= pairs two score columns; to compare two predicted classes of the same rows, pass "
            f"predictions=({request.prediction!r}, <the other prediction column>) instead of prediction="
        )
    return role, (columns[0], columns[1])


def to_sql(
    metrics: Metrics,
    *,
    source: Any,
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
    state: bool = False,
    rollup: bool = False,
    dialect: str = "duckdb",
) -> str:
    """The one SQL statement ``evaluate`` runs for the same arguments, written for
    ``dialect``: one of ``duckdb`` (the default), ``spark``, ``trino``, ``bigquery``,
    ``snowflake``, ``postgres`` or ``clickhouse`` (whose statement ends with the SETTINGS
    it needs: ``sqlmetrics.sqltext.dialects``).

    ``source`` is a table or view name, quoted part by part for the dialect
    (``"catalog.schema.table"`` reads ``"catalog"."schema"."table"``); the statement
    reads the bound columns from it under their own names (``label=``, ``score=``, ...
    name them, as for ``evaluate``). For DuckDB it may also be a Parquet path or glob
    (read with ``read_parquet``, not required to exist) or a frame, which the statement
    reads as the view ``sqlmetrics_source``. ``judgments`` and long ``class_scores`` are
    read the same way (frames: the views ``sqlmetrics_judgments`` and
    ``sqlmetrics_class_scores``). Bad data makes the statement fail with a message
    starting "sqlmetrics: " (see ``sqlmetrics.sqltext.dialects`` for how each dialect fails).
    A metric the dialect cannot express raises ``UnsupportedInDialectError`` naming it.
    With ``ci`` and ``ci_method="bootstrap"`` (or ``ci_unit``), the statement has a row
    per slice and replicate (the column ``sqlmetrics_replicate``, 0 the data as it is):
    ``evaluate`` takes each interval's percentiles over replicates 1..R from it. With
    ``scores=(baseline, candidate)``, it is the statement ``sm.compare`` runs for two
    paired scores: a row per slice and score (``sqlmetrics_scores``: 1, 2), the second's
    rows carrying the standard error of the difference (``<column>_se``); with
    ``predictions=(baseline, candidate)`` the same for two predicted classes of the same
    rows (the multi-class metrics). With ``arm=``,
    it is the statement ``sm.compare`` runs for arms: a row per slice and arm, each
    metric with its standard error (``<column>_se``), or per replicate for the metrics it
    resamples; the differences to the baseline arm, their intervals and p-values are
    computed from these rows.

    >>> import sqlmetrics as sm
    >>> sql = sm.to_sql(["auc", "logloss"], source="logs.impressions", label="click", score="pctr",
    ...                 by="day", dialect="spark")
    >>> "FROM `logs`.`impressions`" in sql
    True
    """
    return request_sql(metrics, source, Request.of(locals()), dialect)


def request_sql(metrics: Metrics, source: Any, request: Request, dialect: str = "duckdb") -> str:
    """``to_sql`` of a request built already (``report``'s)."""
    check_dialect(dialect)
    if request.state or request.rollup:
        return _rollup_statement(metrics, source, request, dialect)
    if request.paired and request.arm is not None:
        raise InvalidParameterError("pass either scores= or predictions= (paired) or arm= (arms), not both")
    if request.paired:  # sm.compare's paired statement
        binding, second_source = prepare_paired(metrics, request.at_compare_level())
    elif request.arm is not None:  # sm.compare's statement for arms
        binding, second_source = prepare_arms(metrics, request.at_compare_level())
    else:
        binding, second_source = prepare(metrics, request)
    binding = source_evidence.planned(binding, source)  # the plan evaluate takes for the same source
    return statement(binding, source, second_source, dialect)


def _rollup_statement(metrics: Metrics, source: Any, request: Request, dialect: str) -> str:
    """``to_sql``'s statement of ``sm.state`` (``request.state``) or of ``sm.rollup`` over a
    table of states (``request.rollup``), once the request asks nothing a state cannot give."""
    _check_rollup_request(request)
    binding, second = prepare(metrics, dataclasses.replace(request, ci=None))
    check_mergeable(binding)
    if request.state:
        meta, identity = meta_text(binding), Identity(None, source_identity(source))  # the id: made by each run
        return statement(
            binding, source, second, dialect, lambda b, s, t: compose_state(b, s, t, dialect, meta, identity)
        )
    rolled = rollup_binding(state_meta(binding), request.by, None, request.ci)
    return statement(rolled, source, None, dialect, lambda b, s, _: compose_rollup(b, s, dialect))


def _check_rollup_request(request: Request) -> None:
    """Refuse what a state or roll-up statement cannot be: both at once, a comparison, a
    state's interval, a roll-up's bootstrap or clustered interval, a roll-up's judgments."""
    if request.state and request.rollup:
        raise InvalidParameterError(
            "state=True writes a part's state, rollup=True the roll-up of a table of states: pass one of them"
        )
    if request.paired or request.arm is not None:
        raise InvalidParameterError(
            "state=True and rollup=True write the statements of a roll-up, not sm.compare's: drop scores=, "
            "predictions= and arm="
        )
    if request.state and request.ci is not None:
        raise InvalidParameterError("a state keeps no interval: drop ci=, and ask it of the roll-up (rollup=True)")
    if request.ci is not None and (request.ci_method == "bootstrap" or request.unit is not None):
        raise InvalidParameterError(
            "a roll-up's intervals are the analytic ones of the states' sums: ci_method='bootstrap' and ci_unit= "
            "resample or cluster rows, which a state does not keep; drop them"
        )
    if request.rollup and request.judgments is not None:
        raise InvalidParameterError(
            "judgments= is read by the state statement (state=True): the roll-up reads only the states; drop it"
        )


def statement(
    binding: Binding,
    source: Any,
    second_source: Any,
    dialect: str,
    composer: Callable[[Binding, str, str | None], str] | None = None,
) -> str:
    """The statement of ``binding`` over ``source`` (and ``second_source``) in ``dialect``,
    written by ``composer`` (default: ``compose``, the metrics' statement)."""
    second = None
    if second_source is not None:
        long = binding.long_scores is not None
        reads = (
            ("the class scores from a table or view: pass ", _LONG_SCORES_TABLE)
            if long
            else ("the judgments from a table or view: pass ", _JUDGMENTS_TABLE)
        )
        second = _statement_source(second_source, dialect, second_view(binding.second_role), reads)
    reads = ("a table or view: pass ", _SOURCE_TABLE)
    source_sql = _statement_source(source, dialect, FRAME_VIEW, reads)
    sql = compose(binding, source_sql, second, dialect) if composer is None else composer(binding, source_sql, second)
    return transpile(sql, dialect)


# The tables a statement for a warehouse reads, as its error names them.
_SOURCE_TABLE = Keyword(
    "source", python="its name (e.g. 'logs.impressions')", words="{option} {metavar} (e.g. logs.impressions)"
)
_JUDGMENTS_TABLE = Keyword("judgments", python="judgments=<its name>", words="{option} TABLE")
_LONG_SCORES_TABLE = Keyword("long_scores", python="sm.long_scores(<its name>, ...)", words="{option} TABLE")


def _statement_source(source: Any, dialect: str, view: str, reads: tuple[Part, ...]) -> str:
    """How a statement for ``dialect`` reads ``source``: any source for DuckDB, a table
    or view name for every other dialect (else an error: the statement ``reads`` ...)."""
    if not dialect_named(dialect).native and (not isinstance(source, str) or is_path(source)):
        raise SourceError(
            f"SQL for {dialect} reads ", *reads, f", not a {'path' if is_path(source) else type(source).__name__}"
        )
    return source_sql(source, view=view)


def confusion_matrix(
    source: Any,
    *,
    label: str = "label",
    prediction: str,
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    engine: str = "duckdb",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame:
    """The confusion matrix of every slice of ``by``, long: the slice columns, ``label``
    (true class), ``prediction`` (predicted class), ``n`` (rows) and, with ``weight``, the
    summed ``weight``; one row per pair of classes that occurs in the used rows (pairs
    that never occur are absent, not 0), sorted by slice, label and prediction.

    The sources, the NULL rule (a row with a NULL label, prediction or weight is left
    out) and the weight rules are ``evaluate``'s; the DuckDB engine runs the steps
    ``base`` and ``class_confusion`` that the multi-class metrics read.

    >>> import polars as pl, sqlmetrics as sm
    >>> df = pl.DataFrame({"y": ["cat", "dog", "cat", "dog"], "y_hat": ["cat", "cat", "cat", "dog"]})
    >>> sm.confusion_matrix(df, label="y", prediction="y_hat").rows()
    [('cat', 'cat', 2), ('dog', 'cat', 1), ('dog', 'dog', 1)]
    """
    binding = _class_table_binding([], label, prediction, weight, by, ("label", "prediction", "n", "weight"))
    return _run_class_table(binding, source, engine, con, compose_confusion_matrix, polars_engine.confusion_matrix)


def per_class(
    source: Any,
    metrics: Metrics,
    *,
    label: str = "label",
    prediction: str,
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    engine: str = "duckdb",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame:
    """Precision, recall, F1 or F-beta of each class: one row per slice of ``by`` and
    class present in it (as a label or a prediction), with the slice columns, ``class``,
    ``support`` (the class's summed true weight, a float; its rows, an integer, without
    weights) and one column
    per metric, sorted by slice and class; scikit-learn's
    ``precision_recall_fscore_support(average=None, zero_division=np.nan)``, NULL for
    its NaN.

    ``metrics`` are ``"precision"``, ``"recall"``, ``"f1"``, ``"fbeta"`` or calls such as
    ``sm.multiclass_fbeta(beta=2)`` (column ``fbeta_beta_2``), without ``average``.

    >>> import polars as pl, sqlmetrics as sm
    >>> df = pl.DataFrame({"y": ["cat", "dog", "cat", "dog"], "y_hat": ["cat", "cat", "cat", "dog"]})
    >>> # cat: 2 of 3 predictions right, both cats found; dog: 1 of 1 right, 1 of 2 found
    >>> sm.per_class(df, ["precision", "recall"], label="y", prediction="y_hat").rows()
    [('cat', 2, 0.6666666666666666, 1.0), ('dog', 2, 1.0, 0.5)]
    """
    calls = resolve(metrics, bound=("prediction",))
    without = [repr(call) for call in calls if not call.spec.per_class]
    if without:
        raise InvalidParameterError(
            f"{', '.join(without)} has no per-class value: per_class reports precision, recall, f1 and fbeta"
        )
    averaged = [repr(call) for call in calls if call.kwargs.get("average", "macro") != "macro"]
    if averaged:
        raise InvalidParameterError(f"{', '.join(averaged)}: per_class reports each class's value, drop average=")
    columns = ("class", "support", *(call.column for call in calls))
    binding = _class_table_binding(calls, label, prediction, weight, by, columns)
    table = _run_class_table(binding, source, engine, con, compose_per_class, polars_engine.per_class)
    return table if weight is not None else table.with_columns(pl.col("support").cast(pl.Int64))


def _class_table_binding(
    calls: list[MetricCall],
    label: str,
    prediction: str,
    weight: str | None,
    by: str | Sequence[str] | None,
    columns: Sequence[str],
) -> Binding:
    """The binding of a table of classes, whose slices must not be named like its columns."""
    binding = bind(calls, columns={"label": label, "prediction": prediction, "weight": weight}, by=by)
    clashes = sorted(set(binding.by) & set(columns))
    if clashes:
        raise InvalidParameterError(f"slice column(s) {clashes} clash with result columns of the same name")
    return binding


def _run_class_table(
    binding: Binding,
    source: Any,
    engine: str,
    con: duckdb.DuckDBPyConnection | None,
    statement: Callable[[Binding, str], str],
    polars_table: Callable[[Binding, Any], pl.DataFrame],
) -> pl.DataFrame:
    """A table of classes over ``source`` on the engine named ``engine`` (one that computes
    them): ``statement`` on DuckDB, ``polars_table`` on polars."""
    table = OwnTable(lambda b, from_sql, _: statement(b, from_sql), lambda b, data, _: polars_table(b, data))
    runner = engine_named(engine, lambda record: record.supports_class_tables)
    return runner.table(table, binding, source, None, con)
