"""The polars engine's input plan, as ``compose/plan.py`` is the SQL's: the source under
canonical names (``input``, and before it the judgments or the long class scores), its
one aggregation ``base``, the input rules checked on them and the row counts; ``build``
makes a shared step with the polars form its family declares beside its SQL
(``Intermediate.polars``).

The input holds slices, label, score, weight, query, item under canonical names,
``true_class`` and ``predicted_class`` (the label and prediction as they are),
``class_score_<i>`` (wide class scores) or ``row_id`` and ``n_classes`` (long), and ``w``:
the weight of a used row, NULL for an excluded one. ``base`` (one row per slice, and per
distinct score when a metric reads the score histogram, and per class for multi-class
metrics) is the one aggregation over the input, collected in the same pass as the metrics
whose whole work is a pass over the rows (``collect_checked``); the input rules are
checked on it before any value is returned.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from sqlmetrics.binding import Binding, bootstrap
from sqlmetrics.engines.record import check_source_schema
from sqlmetrics.registry import hooks as family_hooks
from sqlmetrics.registry import intermediates
from sqlmetrics.rules.columns import checks_for, raise_failed, raise_weight_total, row_counters_polars
from sqlmetrics.rules.tables import RuleTables, raise_failed_tables, unit_rules
from sqlmetrics.sources import polars_source
from sqlmetrics.spec import MetricCall


@dataclasses.dataclass(frozen=True)
class Input:
    """The source under canonical names, read but not yet checked: its ``rows``, ``base``
    (lazy), the second table under canonical names (the judgments or the long class
    scores; None without), the column rules ``base`` counts and ``units``, each source
    row once with its unit (``RuleTables.units``; None without ``ci_unit``)."""

    binding: Binding
    rows: pl.LazyFrame
    base: pl.LazyFrame
    judged: pl.LazyFrame | None
    checks: list
    keys: tuple[str, ...]
    units: pl.LazyFrame | None = None


def read_input(
    binding: Binding,
    source: Any,
    second: Any = None,
    keys: tuple[str, ...] | None = None,
    sums: tuple[pl.Expr, ...] = (),
) -> Input:
    """The source's rows under canonical names and their ``base`` (keyed by ``keys``,
    default ``base_keys``, with the aggregates ``sums`` too), once the schemas hold."""
    lf = polars_source(source, binding.source_columns)
    schema = {name: str(dtype) for name, dtype in lf.collect_schema().items()}
    check_source_schema(binding, schema)
    judged = None if second is None else _second_table(binding, second, schema)
    checks = checks_for(binding.calls, binding.weight is not None)
    source_rows = _source_rows(binding, lf)
    rows = _input(binding, source_rows, judged)
    keys = base_keys(binding) if keys is None else keys
    units = source_rows if binding.unit is not None else None
    return Input(binding, rows, _base(binding, rows, checks, keys, sums), judged, checks, keys, units)


def collect_checked(data: Input, also: Sequence[pl.LazyFrame] = ()) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """``base`` and the frames ``also`` (of the same rows: the metrics whose whole work is
    a pass over them) collected in one pass, once the input rules hold. The rules are
    checked on ``base`` after the pass: a frame that failed to compute over input that
    breaks one raises the rule's error, not its own."""
    try:
        base, *frames = pl.collect_all([data.base, *also], engine="streaming")
    except pl.exceptions.PolarsError:
        if also:
            _raise_broken_rules(data, data.base.collect(engine="streaming"))
        raise
    _raise_broken_rules(data, base)
    return base, frames


def checked_base(
    binding: Binding,
    source: Any,
    second: Any = None,
    keys: tuple[str, ...] | None = None,
    sums: tuple[pl.Expr, ...] = (),
) -> tuple[pl.LazyFrame, pl.DataFrame, Any]:
    """The source's rows under canonical names, ``base`` (collected, keyed by ``keys``,
    default ``base_keys``, with the aggregates ``sums`` too) once the input rules hold,
    and the second table under canonical names: the judgments or the long class scores
    (None without)."""
    data = read_input(binding, source, second, keys, sums)
    base, _ = collect_checked(data)
    return data.rows, base, data.judged


def _raise_broken_rules(data: Input, base: pl.DataFrame) -> None:
    """Raise InvalidInputError for the first input rule the rows break: the column rules
    counted in ``base``, then the run's and the units' table rules."""
    binding = data.binding
    original = base.filter(pl.col(binding.replicate_slice) == 0) if binding.bootstrap else base  # as rules/sql.py
    raise_failed(original, data.rows, data.checks, data.keys, binding.role_columns)
    if binding.weight is not None:
        raise_weight_total(original, binding.slices, binding.weight)
    second_rules = [rule for hooks in family_hooks() for rule in hooks.polars_rules(binding)]
    raise_failed_tables(second_rules, RuleTables(data.rows, data.judged))
    raise_failed_tables(unit_rules(binding), RuleTables(data.rows, units=data.units))


def family_steps(
    binding: Binding, rows: pl.LazyFrame, second: pl.LazyFrame | None, base: pl.DataFrame
) -> dict[str, pl.DataFrame]:
    """The families' own steps built after ``base`` from the input's ``rows`` and the
    ``second`` table, by name, once their rules hold (``steps.Hooks.polars_steps``:
    multiclass's class score histogram)."""
    return {
        name: frame
        for hooks in family_hooks()
        for name, frame in hooks.polars_steps(binding, rows, second, base).items()
    }


def build(name: str, *inputs: Any, **params: Any) -> Any:
    """The shared step ``name`` made from ``inputs`` (and its ``each`` parameters) by the
    polars form its family declares (``registry.intermediates()[name].polars``); a step
    declared without one (``folded``) is an error."""
    builder: Callable[..., Any] | None = intermediates()[name].polars
    if builder is None:
        raise RuntimeError(f"intermediate {name!r} has no polars form: {intermediates()[name].folded}")
    return builder(*inputs, **params)


def used_rows(rows: pl.LazyFrame) -> pl.LazyFrame:
    """The input's used rows: those not excluded (``w`` not NULL)."""
    return rows.filter(pl.col("w").is_not_null())


def reads_histogram(call: MetricCall, binding: Binding) -> bool:
    """A metric computed by its ``from_histogram`` expression over the score histogram:
    one of the histogram form, unless the scores are nearly all distinct
    (``Binding.distinct_scores``) and its row expression is not slower (its spec's
    ``row_plan``)."""
    spec = call.spec
    return spec.polars_form == "histogram" and (not binding.distinct_scores or not spec.row_plan)


def _second_table(binding: Binding, second: Any, source_schema: dict[str, str]) -> pl.LazyFrame:
    """The second table under canonical names, as the family it belongs to reads it
    (``steps.Hooks.polars_second``: a run's judgments, long class scores)."""
    table = polars_source(second, binding.second_columns)
    read = (hooks.polars_second(binding, table, source_schema) for hooks in family_hooks())
    return next(frame for frame in read if frame is not None)


def _source_rows(binding: Binding, lf: pl.LazyFrame) -> pl.LazyFrame:
    """Each source row once under canonical names (compose/plan.py's ``input_sql``); ``w``
    is NULL for an excluded row. The true and predicted classes keep their types
    (the schema's checks made sure they compare)."""
    roles = binding.roles
    slices = [pl.col(c).alias(s) for s, c in zip(binding.slices, binding.source_by)]
    slices = slices or [pl.lit(0, pl.Int32).alias("slice_0")]
    weight = pl.col(roles["weight"]).cast(pl.Float64) if "weight" in roles else pl.lit(1.0)
    wide = [column for _, column in binding.wide_scores]
    paired = list(binding.paired_scores or ())
    excluded = pl.any_horizontal(pl.col(c).is_null() for c in [*roles.values(), *paired[1:], *wide])
    scores = [pl.col(roles["score"]).cast(pl.Float64).alias("score")] if "score" in roles and not paired else []
    if paired and binding.paired_role == "score":
        scores = [pl.col(c).cast(pl.Float64).alias(f"score_{i}") for i, c in enumerate(paired, 1)]
    classes = [pl.col(roles[role]).alias(key) for key, role in binding.class_roles.items()]
    if paired and binding.multiclass:  # two predicted classes, paired as two scores are
        classes = [classes[0], *(pl.col(c).alias(f"{binding.paired_role}_{i}") for i, c in enumerate(paired, 1))]
    columns = [
        *slices,
        *(
            [pl.col(roles["label"]).cast(pl.Float64).alias("label")]
            if binding.numeric_label and "label" in roles
            else []
        ),
        *scores,
        *classes,
        *(pl.col(column).cast(pl.Float64).alias(f"class_score_{i}") for i, column in enumerate(wide, 1)),
        *([pl.col(roles["row_id"]).alias("row_id")] if "row_id" in roles else []),
        weight.alias("weight"),
        *(pl.col(roles[role]).cast(pl.Float64).alias(role) for role in binding.generic_roles),
        pl.when(excluded).then(None).otherwise(weight).alias("w"),
    ]
    if binding.needs_query:
        columns.append(pl.col(roles["query"]).alias("query"))
    if binding.ranking:
        columns.append((pl.col(roles["item"]) if "item" in roles else pl.lit(None)).alias("item"))
    return lf.select(*columns, *_unit_number(binding))


def _input(binding: Binding, rows: pl.LazyFrame, judged: pl.LazyFrame | None) -> pl.LazyFrame:
    """The input of the plan from the source's rows (``_source_rows``): a run takes each
    row's label from the judgments (0 when unjudged); with long class scores, each row
    gets its row id's count of classes (``n_classes``), and a row with a NULL class
    score is excluded; a bootstrap's replicates and two paired scores' copies."""
    paired = list(binding.paired_scores or ())
    if (paired or binding.bootstrap) and not binding.source_by:
        rows = rows.drop("slice_0")  # the pairs and replicates are the slices
    if binding.bootstrap:
        rows = _resampled_rows(binding, rows if binding.bootstrap.unit else _numbered_rows(rows))
    if paired:
        return _paired_rows(_judged_rows(rows, judged), binding)
    if binding.bootstrap:
        return rows
    if binding.long_scores is not None:
        counts = judged.group_by("row_id").agg(
            n_classes=pl.len().cast(pl.Int64), n_scored=pl.col("score").count().cast(pl.Int64)
        )
        unscored = pl.col("n_scored") < pl.col("n_classes")
        joined = rows.join(counts, on="row_id", how="left")
        return joined.with_columns(w=pl.when(unscored.fill_null(False)).then(None).otherwise(pl.col("w"))).drop(
            "n_scored"
        )
    return _judged_rows(rows, judged)


def _judged_rows(rows: pl.LazyFrame, judged: pl.LazyFrame | None) -> pl.LazyFrame:
    """A run's rows with each row's label from the judgments (0 when unjudged); other
    rows as they are."""
    if judged is None:
        return rows
    labels = judged.filter(pl.col("query").is_not_null() & pl.col("item").is_not_null())
    return rows.join(labels, on=["query", "item"], how="left").with_columns(pl.col("label").fill_null(0.0))


def _paired_rows(rows: pl.LazyFrame, binding: Binding) -> pl.LazyFrame:
    """Each row twice, as compose/plan.py's paired input: with the slice ``pair_slice`` = 1
    and ``score`` its first score, and = 2 and its second; both scores stay (``score_1``,
    ``score_2``: the paired DeLong reads them on the rows of ``pair_slice`` = 1). Two
    predicted classes likewise (``Binding.paired_role``, ``paired_key``), each row's
    predicted class one of its two (of their common type, as SQL's CASE gives)."""
    role, each = binding.paired_role, binding.paired_key
    first, second = pl.col(f"{role}_1"), pl.col(f"{role}_2")
    copies = [
        rows.with_columns(
            pl.lit(i, pl.Int32).alias(binding.pair_slice),
            pl.when(pl.lit(i == 1)).then(first).otherwise(second).alias(each),
        )
        for i in (1, 2)
    ]
    return pl.concat(copies)


def _unit_number(binding: Binding) -> list[pl.Expr]:
    """A bootstrap's unit number over the source, as compose/plan.py's: the dense rank of
    ``ci_unit`` (none for the rows: ``_numbered_rows``)."""
    unit = binding.bootstrap.unit if binding.bootstrap else None
    if unit is None and binding.cluster is not None:  # the analytic intervals' clusters: the unit as it is
        return [pl.col(binding.cluster).alias("unit_id")]
    return [] if unit is None else [pl.col(unit).rank("dense").cast(pl.Int64).alias("unit_id")]


def _numbered_rows(rows: pl.LazyFrame) -> pl.LazyFrame:
    """``rows`` with each row's number from 1 in the order of its columns (compose/plan.py's)."""
    order = [name for name in rows.collect_schema() if name != "slice_0"]  # w: NULL for an excluded row
    numbered = rows.sort(order, nulls_last=True, maintain_order=True).with_row_index("unit_id", offset=1)
    return numbered.with_columns(pl.col("unit_id").cast(pl.Int64))


def _resampled_rows(binding: Binding, rows: pl.LazyFrame) -> pl.LazyFrame:
    """compose/plan.py's bootstrap input: each row once per replicate (the slice
    REPLICATE_SLICE), its weight times the replicate's Poisson(1) count of its unit."""
    boot, replicate = binding.bootstrap, binding.replicate_slice
    replicates = pl.LazyFrame().select(pl.int_range(0, boot.resamples + 1, dtype=pl.Int32).alias(replicate))
    count = bootstrap.counts_polars(pl.col("unit_id"), pl.col(replicate).cast(pl.Int64), boot.seed)
    return rows.join(replicates, how="cross").with_columns(w=pl.col("w") * count).drop("unit_id")


def base_keys(binding: Binding) -> tuple[str, ...]:
    """base's grouping keys besides the slices: the score when a metric reads the score
    histogram, the true and predicted class for multi-class metrics (the true class for
    one-vs-rest metrics). Unlike the SQL plan
    (which also groups by label), polars sums the positives' weight: measured faster in
    polars at any number of distinct scores, and it gives from_histogram distinct scores
    directly (unless classes are keys too)."""
    histogram = ("score",) if any(reads_histogram(call, binding) for call in binding.calls) else ()
    return (*histogram, *binding.class_keys)


def _base(
    binding: Binding, rows: pl.LazyFrame, checks: list, keys: tuple[str, ...], sums: tuple[pl.Expr, ...] = ()
) -> pl.LazyFrame:
    """One row per slice and distinct score (or per slice): used rows, their weight and
    positive weight."""
    w = pl.col("w")
    aggregates = [
        pl.len().cast(pl.Int64).alias("n_all"),
        w.count().cast(pl.Int64).alias("n"),
        w.sum().alias("w"),
        *([(w * pl.col("label")).sum().alias("w_pos")] if binding.numeric_label else []),
        *row_counters_polars(checks, keys),
        *sums,
    ]
    return rows.group_by([*binding.slices, *keys]).agg(aggregates)


def row_counts(binding: Binding, base: pl.DataFrame) -> pl.DataFrame:
    """row_counts: per slice, the rows used (``n_rows``) and excluded (``n_excluded``)."""
    counts = [
        pl.col("n").sum().cast(pl.Int64).alias("n_rows"),
        (pl.col("n_all").sum() - pl.col("n").sum()).cast(pl.Int64).alias("n_excluded"),
    ]
    if not binding.by:  # one row even for an empty source
        return base.select(pl.lit(0, pl.Int32).alias("slice_0"), *counts)
    return base.group_by(list(binding.slices)).agg(counts)
