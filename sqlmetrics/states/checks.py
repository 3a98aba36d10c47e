"""States read back for a roll-up (``sm.rollup``, ``sqlmetrics rollup``, a report of
states), and checked before a number is computed from them.

A state is a stored artifact: anyone may have edited it, copied it, or given it twice.
What it holds is checked in a few passes over all the states together (never a Python
loop over their rows, so that a thousand state files roll up as fast as before), and a
refusal names the state (its file, or ``states[2]`` of a list), the column, how many rows
and one example:

* each file is readable Parquet and a state (its columns ``state_part`` and
  ``state_meta``): a folder of states holds nothing else;
* the states' columns have one type each: Enum slices of different categories are read
  as one Enum of all their categories, slices of several text types as text, numbers of
  several widths as one; text beside anything else is refused;
* each state has a meta row, JSON of the keys ``sm.state`` writes (``_meta_problem``),
  of this format version, describing a call sqlmetrics rolls up; all of one call;
* every column the call's state keeps, of its kind (counts whole numbers, sums and keys
  numbers, the parts, meta and ids text), and only the call's parts (``_check_parts``);
* their values (``_value_rules``): counts >= 0 and at most ``n_all``, summing below 2^53;
  weights finite and >= 0; no NaN sum; labels and scores in the metrics' domains (the
  input rules of ``rules/columns.py``, read on the state's base rows); queries named;
* no rows twice (``_check_repeats``): one state given twice (one ``state_id`` in two meta
  rows), or two states of one source holding the same slice (which rows a state covers:
  ``compose/state.py``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from sqlmetrics.binding import Binding, bind
from sqlmetrics.compose.rollup import rollup_binding
from sqlmetrics.compose.rounding import DIGITS, check_score_digits
from sqlmetrics.compose.state import (
    BASE_PART,
    META_PART,
    SLICES_PART,
    STATE_FORMAT,
    STATE_VERSION,
    check_mergeable,
    count_columns,
    meta_roles,
    per_query_calls,
    spread_calls,
    state_columns,
    state_flags,
)
from sqlmetrics.errors import Counted, InvalidInputError, InvalidParameterError, SourceError, SqlMetricsError
from sqlmetrics.registry import roles
from sqlmetrics.rules.columns import ROWS_ARE_NOT, checks_for, message_scope, number_text
from sqlmetrics.sources.parquet_files import listing

ORIGIN = "state_origin"  # the index of the state (file or frame) a row was read from, while it is checked
# and each of ``state_flags()``; and score_digits, when rounded
META_KEYS = ("by", "columns", "format", "metrics", "version")
TEXT_COLUMNS = ("state_part", "state_meta", "state_slice", "state_id", "state_source")
MAX_COUNT = 2**53  # the counts of all states together stay below: exact as doubles, and no BIGINT overflow


def read_states(states: Any) -> pl.DataFrame:
    """States as one frame, checked (the module docstring): a state frame or LazyFrame,
    a Parquet path, glob or directory of states, or a list of any of these."""
    frames: list[pl.DataFrame] = []
    names: list[str] = []
    _gather(states, None, frames, names)
    frame = _concatenated(frames, names)
    meta = _checked_meta(frame, names)
    binding = rollup_binding(meta, meta["by"], None, None)
    _check_columns(frames, names, frame, binding, meta["by"])
    _check_parts(frame, names, binding)
    _check_values(frame, names, binding)
    _check_repeats(frame, names, meta["by"])
    return frame.drop(ORIGIN)


def state_files(path: str | os.PathLike) -> list[str]:
    """The Parquet files of a path as a source's are listed (``parquet_files.listing``: the
    file, a glob's matches or a directory's files, a failed job's ``_``/``.`` leftovers
    skipped); none when it names none."""
    try:
        return list(listing(path).paths)
    except SourceError:
        return []


def _gather(states: Any, name: str | None, frames: list[pl.DataFrame], names: list[str]) -> None:
    """Append each state of ``states`` to ``frames`` and what a message calls it to
    ``names`` (``name``: the place of ``states`` in the list given)."""
    if isinstance(states, (list, tuple)):
        if not states:
            raise InvalidParameterError("states is an empty list: pass at least one state")
        for i, one in enumerate(states):
            _gather(one, f"{name or 'states'}[{i}]", frames, names)
        return
    if isinstance(states, pl.LazyFrame):
        try:
            states = states.collect()
        except pl.exceptions.PolarsError as error:
            raise SourceError(f"{name or 'the state frame'} cannot be read: {_first_line(error)}") from None
    if isinstance(states, pl.DataFrame):
        _add(states, name or "the state frame", frames, names)
        return
    if isinstance(states, (str, os.PathLike)):
        files = state_files(states)
        if not files:
            raise SourceError(f"no state files at {str(states)!r} (a Parquet file, a glob or a directory of them)")
        for file in files:
            _add(_read_file(file), f"the state file {file!r}", frames, names)
        return
    raise SourceError(
        f"states must be a state frame, a Parquet path, glob or directory of states, or a list of them; got "
        f"{type(states).__name__}"
    )


def _read_file(file: str) -> pl.DataFrame:
    try:
        return pl.read_parquet(file, hive_partitioning=False)
    except (pl.exceptions.PolarsError, OSError) as error:
        raise SourceError(f"the state file {file!r} cannot be read as Parquet: {_first_line(error)}") from None


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _add(frame: pl.DataFrame, name: str, frames: list[pl.DataFrame], names: list[str]) -> None:
    if not {"state_part", "state_meta"} <= set(frame.columns):
        shown = ", ".join(map(repr, frame.columns[:8])) + (", ..." if frame.width > 8 else "")
        beside = "; a folder of states holds only states: move the other files out" if "file" in name else ""
        raise SourceError(
            f"{name} is not a state (sm.state's frame, or the file sqlmetrics state writes): no 'state_part' and "
            f"'state_meta' among its columns {shown}{beside}"
        )
    frames.append(frame)
    names.append(name)


def _concatenated(frames: list[pl.DataFrame], names: list[str]) -> pl.DataFrame:
    """The states as one frame, each row with the index of its state (``ORIGIN``)."""
    frames = _one_type_per_column(frames, names)
    try:
        whole = pl.concat(frames, how="diagonal_relaxed")
    except pl.exceptions.PolarsError as error:
        raise SourceError(f"the states' columns do not concatenate: {_first_line(error)}") from None
    origins = np.repeat(np.arange(len(frames), dtype=np.uint32), [frame.height for frame in frames])
    return whole.with_columns(pl.Series(ORIGIN, origins))


def _is_text(dtype: pl.DataType) -> bool:
    return dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))


def _one_type_per_column(frames: list[pl.DataFrame], names: list[str]) -> list[pl.DataFrame]:
    """``frames`` with each column of one type: Enums of different categories as the Enum
    of all their categories (in order of appearance), several text types as text;
    numbers of several types, and temporal types of one kind, as concatenation reads them.
    Text beside any other type, or two other kinds, is refused, naming two states."""
    seen: dict[str, dict[pl.DataType, int]] = {}  # column -> its types -> the first state of each
    for i, frame in enumerate(frames):
        for column, dtype in frame.schema.items():
            if dtype != pl.Null:
                seen.setdefault(column, {}).setdefault(dtype, i)
    casts: dict[str, pl.DataType] = {}
    for column, types in seen.items():
        dtypes = list(types)
        if len(dtypes) < 2:
            continue
        if all(isinstance(dtype, pl.Enum) for dtype in dtypes):
            categories = dict.fromkeys(c for dtype in dtypes for c in dtype.categories.to_list())
            casts[column] = pl.Enum(list(categories))
        elif all(map(_is_text, dtypes)):
            casts[column] = pl.String
        elif any(map(_is_text, dtypes)) or not (
            all(dtype.is_numeric() for dtype in dtypes) or len({dtype.base_type() for dtype in dtypes}) == 1
        ):
            (one, i), (other, j) = list(types.items())[:2]
            raise SourceError(
                f"the states do not agree on the type of column {column!r}: {one} in {names[i]}, {other} in "
                f"{names[j]}; a roll-up merges states of one call, whose columns have one type"
            )
    if not casts:
        return frames
    return [
        frame.with_columns(pl.col(column).cast(dtype) for column, dtype in casts.items() if column in frame.columns)
        for frame in frames
    ]


def _checked_meta(frame: pl.DataFrame, names: list[str]) -> dict[str, Any]:
    """The call the states describe: each state's meta row well formed, all of one call."""
    metas = frame.lazy().filter(pl.col("state_part") == META_PART).select(ORIGIN, "state_meta").collect()
    without = sorted(set(range(len(names))) - set(metas[ORIGIN].to_list()))
    if without:
        others = (
            f" (and {Counted('other state', 'other states').of(len(without) - 1)} given)" if len(without) > 1 else ""
        )
        raise SourceError(
            f"{names[without[0]]} is not a state: it has no meta row (state_part 'meta', the call sm.state "
            f"describes){others}"
        )
    texts = metas.group_by("state_meta", maintain_order=True).agg(pl.col(ORIGIN).first())
    parsed = [(_parsed_meta(text, names[origin]), origin) for text, origin in texts.iter_rows()]
    first, origin = parsed[0]
    for other, where in parsed[1:]:
        key = next(key for key in sorted(set(first) | set(other)) if first.get(key) != other.get(key))
        raise InvalidParameterError(
            f"the states are of different calls and do not merge: their {key} differ ({first.get(key)!r} in "
            f"{names[origin]}, {other.get(key)!r} in {names[where]}); roll up states built with the same arguments"
        )
    return first


def _parsed_meta(text: Any, name: str) -> dict[str, Any]:
    """A state's meta (``state_meta`` of its meta row), once it is what ``sm.state``
    writes of a call this sqlmetrics rolls up; else refused, naming the state."""
    shown = repr(text) if not isinstance(text, str) or len(text) <= 80 else repr(text[:77] + "...")
    if not isinstance(text, str):
        raise SourceError(f"{name}: its meta row holds no state_meta ({shown}): build the state again")
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as error:
        raise SourceError(f"{name}: its meta row's state_meta is not JSON ({error.msg}): {shown}") from None
    if not isinstance(meta, dict):
        raise SourceError(f"{name}: its meta row's state_meta is not a JSON object: {shown}")
    if meta.get("format") != STATE_FORMAT:
        raise SourceError(f"{name} is not a state: its meta row says format {meta.get('format')!r}")
    if meta.get("version") != STATE_VERSION:
        raise SourceError(
            f"{name} is a state of format version {meta.get('version')!r}: this sqlmetrics reads version "
            f"{STATE_VERSION}, whose states say which rows they cover (so that a state given twice is refused, not "
            "counted twice); build the states again (sm.state, sqlmetrics state or sm.to_sql(..., state=True))"
        )
    problem = _meta_problem(meta)
    if problem is None:
        try:
            binding = rollup_binding(meta, meta["by"], None, None)
            # the roles its metrics need
            bind(binding.calls, columns=meta["columns"], by=meta["by"], **{flag: meta[flag] for flag in state_flags()})
            check_mergeable(binding)
            check_score_digits(meta.get("score_digits"), binding)
        except SqlMetricsError as error:
            problem = f"it describes no call a state keeps: {error}"
        else:
            if json.dumps(meta, sort_keys=True) != text:
                problem = "it is not written as sm.state writes it (JSON, keys sorted)"
    if problem is not None:
        raise SourceError(f"{name}: its meta row's state_meta is not a state's: {problem}: {shown}")
    return meta


def _meta_problem(meta: dict[str, Any]) -> str | None:
    """What is wrong with the shape of a meta (``state.state_meta``'s keys and types), or None."""
    keys = {*META_KEYS, *state_flags()} | ({"score_digits"} if "score_digits" in meta else set())
    if set(meta) != keys:
        missing, unknown = sorted(keys - set(meta)), sorted(set(meta) - keys)
        return f"{'no key ' + ', '.join(missing) if missing else ''}{'; ' if missing and unknown else ''}" + (
            f"unknown key {', '.join(unknown)}" if unknown else ""
        )
    metrics = meta["metrics"]
    if not isinstance(metrics, list) or not metrics:
        return "metrics is not a list of metrics"
    for entry in metrics:
        if not (isinstance(entry, dict) and set(entry) == {"metric", "params"} and isinstance(entry["metric"], str)):
            return f"a metric is not {{'metric': <name>, 'params': {{...}}}}: {entry!r}"
        if not isinstance(entry["params"], dict):
            return f"the params of {entry['metric']} are not an object: {entry['params']!r}"
    columns = meta["columns"]
    generic = {role.name for role in roles() if role.generic}  # a role a family declares, when bound
    named = meta_roles()
    if not isinstance(columns, dict) or not set(named) <= set(columns) <= set(named) | generic:
        return f"columns is not an object of the roles {', '.join(named)} (and those the families declare)"
    if not all(value is None or isinstance(value, str) for value in columns.values()):
        return "a column of columns is not a name (or null)"
    by = meta["by"]
    if not isinstance(by, list) or not all(isinstance(column, str) for column in by) or len(set(by)) < len(by):
        return f"by is not a list of distinct column names: {by!r}"
    for flag in state_flags():
        if not isinstance(meta[flag], bool):
            return f"{flag} is not true or false: {meta[flag]!r}"
    digits = meta.get("score_digits")
    if "score_digits" in meta and (isinstance(digits, bool) or not isinstance(digits, int)):
        return f"score_digits is not an integer from {DIGITS[0]} to {DIGITS[1]}: {digits!r}"
    return None


def _check_columns(
    frames: list[pl.DataFrame], names: list[str], frame: pl.DataFrame, binding: Binding, by: Sequence[str]
) -> None:
    """Each state has every column its call's state keeps, each of its kind."""
    expected = ["state_part", *by, *state_columns(binding)]
    for frame_of_one, name in zip(frames, names):
        missing = [column for column in expected if column not in frame_of_one.columns]
        if missing:
            raise SourceError(
                f"{name}: the state has no column {', '.join(map(repr, missing))}, which a state of "
                f"{', '.join(call.column for call in binding.calls)} by {list(by)} keeps (dropped or renamed after "
                "it was written?): build the state again"
            )
    kinds = _column_kinds(binding)
    for column, kind in kinds.items():
        dtype = frame.schema[column]
        if dtype != pl.Null and not _KINDS[kind](dtype):
            origin = next(i for i, one in enumerate(frames) if one.schema[column] != pl.Null)
            raise SourceError(
                f"{names[origin]}: the state's column {column!r} is of type {dtype}, not {kind}: build the state again"
            )


_KINDS = {
    "text": lambda dtype: dtype == pl.String,
    "whole numbers (a count of rows)": lambda dtype: dtype.is_integer(),
    "numbers": lambda dtype: dtype.is_numeric(),
}


def _column_kinds(binding: Binding) -> dict[str, str]:
    """The kind of each column of the call's state whose kind is known (the slices, the
    classes and the query are the user's)."""
    counts = count_columns(binding)
    kinds = dict.fromkeys(TEXT_COLUMNS, "text") | dict.fromkeys(counts, "whole numbers (a count of rows)")
    user = ("true_class", "predicted_class", "query")
    numbers = [c for c in state_columns(binding) if c not in (*TEXT_COLUMNS, *counts, *user)]
    return kinds | dict.fromkeys(numbers, "numbers")


def _check_parts(frame: pl.DataFrame, names: list[str], binding: Binding) -> None:
    """Every row is of one of the call's parts (a renamed part would be left out)."""
    known = [BASE_PART, *(call.column for call in [*per_query_calls(binding), *spread_calls(binding)])]
    known += [SLICES_PART, META_PART]
    unknown = pl.col("state_part").is_null() | ~pl.col("state_part").is_in(known)
    count = frame.select(unknown.sum()).item()
    if count:
        part, origin = frame.filter(unknown).select("state_part", ORIGIN).row(0)
        raise SourceError(
            f"{names[origin]}: {Counted('row of the states is', 'rows of the states are').of(count)} of no part "
            "of their call, e.g. state_part "
            f"{part!r}; a state of {', '.join(call.column for call in binding.calls)} has the parts "
            f"{', '.join(known)}: build the state again"
        )


@dataclass(frozen=True)
class _Rule:
    """A rule on the values of a part's column: ``bad`` true for a row that breaks it."""

    part: str
    column: str
    must: str
    bad: pl.Expr


def _value_rules(binding: Binding) -> list[_Rule]:
    """The rules a state's values keep (the module docstring)."""
    base = pl.col("state_part") == BASE_PART
    counts = count_columns(binding)
    rules = [
        _Rule(BASE_PART, c, "be a count of rows, >= 0", base & (pl.col(c).is_null() | (pl.col(c) < 0))) for c in counts
    ]
    rules += [
        _Rule(BASE_PART, c, "be at most n_all, the rows of its slice", base & (pl.col(c) > pl.col("n_all")))
        for c in counts
        if c != "n_all"
    ]
    rules.append(_Rule(BASE_PART, "w", "be a finite sum of weights, >= 0", base & _not_finite_or_negative("w")))
    columns = state_columns(binding)
    for check, metrics in checks_for(binding.calls, binding.weight is not None):
        if check.role in ("label", "score") and check.role in columns:
            rules.append(_Rule(BASE_PART, check.role, check.rule + message_scope(metrics), base & check.polars()))
    sums = [c for c, kind in _column_kinds(binding).items() if kind == "numbers" and c not in ("w", "value", "weight")]
    rules += [_Rule(BASE_PART, c, "not be NaN", base & pl.col(c).is_nan()) for c in sums if c != "spread"]
    for call in per_query_calls(binding):
        part = pl.col("state_part") == call.column
        rules.append(_Rule(call.column, "query", "name the query", part & pl.col("query").is_null()))
        rules.append(_Rule(call.column, "weight", "be a finite weight, >= 0", part & _not_finite_or_negative("weight")))
        rules.append(_Rule(call.column, "value", "not be NaN", part & pl.col("value").is_nan()))
    for call in spread_calls(binding):
        part = pl.col("state_part") == call.column
        rules.append(_Rule(call.column, "weight", "be a finite weight, >= 0", part & _not_finite_or_negative("weight")))
        rules.append(_Rule(call.column, "value", "not be NaN", part & pl.col("value").is_nan()))
        rules.append(_Rule(call.column, "spread", "be a sum of squares, >= 0", part & _negative_or_nan("spread")))
    identified = pl.col("state_part").is_in([META_PART, SLICES_PART])
    rules.append(_Rule("meta and slices", "state_id", "name the state", identified & pl.col("state_id").is_null()))
    slices = pl.col("state_part") == SLICES_PART
    rules.append(_Rule(SLICES_PART, "state_slice", "name the slice", slices & pl.col("state_slice").is_null()))
    return [_Rule(rule.part, rule.column, rule.must, rule.bad.fill_null(False)) for rule in rules]


def _not_finite_or_negative(column: str) -> pl.Expr:
    return pl.col(column).is_nan() | pl.col(column).is_infinite() | (pl.col(column) < 0)


def _negative_or_nan(column: str) -> pl.Expr:
    return pl.col(column).is_nan() | (pl.col(column) < 0)


def _check_values(frame: pl.DataFrame, names: list[str], binding: Binding) -> None:
    """The rules of ``_value_rules``, counted in one pass over all states; the first
    broken refused with its count and one example; then the counts' totals."""
    numbers = [c for c, kind in _column_kinds(binding).items() if kind != "text" and frame.schema[c] != pl.Float64]
    checked = frame.lazy().with_columns(pl.col(c).cast(pl.Float64) for c in numbers)  # rules read numbers as doubles
    rules = _value_rules(binding)
    counts = checked.select(rule.bad.sum().alias(str(i)) for i, rule in enumerate(rules)).collect().row(0)
    for rule, count in zip(rules, counts):
        if count:  # the example as the state holds it (a count, not its double)
            bad = checked.select(rule.bad).collect().to_series()
            value, origin = frame.filter(bad).select(rule.column, ORIGIN).row(0)
            raise InvalidInputError(
                f"column {rule.column!r} of a state's {rule.part} rows must {rule.must}: {ROWS_ARE_NOT.of(count)}, "
                f"e.g. {number_text(value)} in {names[origin]}"
            )
    counted = count_columns(binding)
    base = frame.filter(pl.col("state_part") == BASE_PART)
    totals = base.select(pl.col(c).cast(pl.Float64).sum() for c in counted).row(0) if counted else ()
    for column, total in zip(counted, totals):
        if total is not None and total >= MAX_COUNT:
            value, origin = base.sort(column, descending=True).select(column, ORIGIN).row(0)
            raise InvalidInputError(
                f"column {column!r} of the states' base rows adds up to {total:.4g} rows, beyond 2^53 "
                f"({MAX_COUNT:,}), more than any log holds: a count was edited, e.g. {number_text(value)} in "
                f"{names[origin]}"
            )


def _check_repeats(frame: pl.DataFrame, names: list[str], by: Sequence[str]) -> None:
    """Refuse rows the states hold twice: a state given twice (its id in two meta rows),
    or two states of one source holding one slice, naming both."""
    marked = frame.lazy().filter(pl.col("state_part").is_in([META_PART, SLICES_PART]))
    marked = marked.select("state_part", "state_id", "state_source", *by, ORIGIN).collect()
    metas = marked.filter(pl.col("state_part") == META_PART)
    twice = metas.group_by("state_id").agg(pl.col(ORIGIN).head(2), pl.len().alias("copies"))
    twice = twice.filter(pl.col("copies") > 1).sort("state_id")
    if twice.height:
        state_id, (one, other), copies = twice.row(0)
        where = f"{names[one]} holds it {copies} times" if one == other else f"given as {names[one]} and {names[other]}"
        raise InvalidInputError(
            f"{Counted('state is', 'states are').of(twice.height)} given more than once, e.g. the state {state_id} "
            f"({where}): its rows would "
            "be counted twice; give each state once (a file named on its own is not also given in its folder or glob)"
        )
    slices = marked.filter(pl.col("state_part") == SLICES_PART, pl.col("state_source").is_not_null())
    keys = ["state_source", *by]
    shared = slices.group_by(keys).agg(
        pl.col("state_id").unique().sort().head(2).alias("ids"), pl.col("state_id").n_unique().alias("states")
    )
    shared = shared.filter(pl.col("states") > 1)
    if shared.height:
        row = shared.sort(keys, nulls_last=True).row(0, named=True)
        ids = row["ids"]
        origins = [slices.filter(pl.col("state_id") == state_id)[ORIGIN][0] for state_id in ids]
        held = ", ".join(f"{column}={row[column]!r}" for column in by) or "all its rows (no slices)"
        raise InvalidInputError(
            f"{names[origins[0]]} and {names[origins[1]]} cover the same rows: both are states of the source "
            f"{row['state_source']!r} holding the slice {held} (states {ids[0]} and {ids[1]}), and "
            f"{Counted('slice of a source is', 'slices of a source are').of(shared.height)} held by more than one "
            "state. Their rows would be counted "
            "twice (a job run twice, a source read again after it grew): roll up one state per slice of a source, "
            "or slice each state by what tells its rows apart (the day)"
        )
