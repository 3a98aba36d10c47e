"""What a family of metrics declares besides its metrics: the shared steps
(``Intermediate``), the steps between ``base`` and the metrics that its templates read,
and its hooks (``Hooks``), what it adds to a call outside those steps.

A family package (``sqlmetrics/metrics/<family>/__init__.py``) declares
``INTERMEDIATES = {name: Intermediate(...)}`` and, if it adds more, ``FAMILY =
Family(name, roles=..., hooks=Hooks(...))``; the registry collects them
(``registry.intermediates``, ``registry.families``, ``registry.roles``,
``registry.hooks``), and the composer renders each step a call's metrics read, once,
and places each family's own steps. What a step needs (its template, the sums it adds
to ``base``, the SQL its parameters make) is declared here, and so is its polars form,
which the polars engine reads from the same declaration: the function that builds the
same rows, or, for a step the polars engine computes inside its metrics' expressions,
which polars form does so and why (``Folded``).

The core reaches a family through the registry alone: the composer (``compose/``), the
input rules (``rules/``), the bound call (``request.py``, ``binding.py``) and the SQL
engines import no family, and call a family's code through its declarations (its
metrics, ``INTERMEDIATES`` and ``FAMILY``). Only these modules outside ``metrics/``
import a family by name, each in a layer above the composer (``tests/test_imports.py``
holds this list to the code and fails on any other importer): the polars engine, which
runs each family's polars forms (``engines/polars_engine/__init__.py``: multiclass's
``per_class_values``; ``engines/polars_engine/forms.py``: multiclass's ``COUNTS`` and
``averaged``, ranking's ``Lists`` and ``call_lists``; its input plan reads the second
table and a family's own steps through the hooks); the entry points of a family's own (``api.py``:
multiclass's ``class_scores=`` read by ``metrics/multiclass/class_scores.py``; ``__init__.py``:
``sm.long_scores``); the curves (``curves/roc.py``, ``curves/pr.py`` and
``curves/calibration.py``: classification's ``ratio``); ``dbt/package.py``, which writes
ranking's and multiclass's steps as macros; and ``polars.py``, which re-exports every
metric module's polars expression.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.rules.tables import TableRule
from sqlmetrics.spec import Role


@dataclass(frozen=True)
class Folded:
    """Where the polars engine computes a step it does not build: inside the expressions
    of the metrics of polars form ``form`` (``spec.POLARS_FORMS``; every metric reading
    the step has it), and ``reason``, why that is the better plan in polars."""

    form: str
    reason: str


@dataclass(frozen=True)
class Intermediate:
    """A shared step between ``base`` and the metrics, rendered once per call.

    ``after`` names the steps it reads. ``collects`` names metric parameters whose
    distinct combinations across the call's metrics that read this step are rendered as
    the table ``{{ <table> }}`` (every threshold used). ``each`` names parameters for
    which the step is rendered once per distinct combination in use (as literals, plus
    the SQL that ``derived`` makes of them), the renders stacked with UNION ALL (every
    tie policy and relevance threshold of the ranking metrics: each sorts its own way).
    ``base_aggregates`` are added to ``base`` when the step is rendered: sums over the
    rows that the step then adds up per slice, so that the source is still aggregated
    once; a step with ``each`` parameters may declare them as a function of those
    parameters instead, whose sums are added for every combination in use (their names
    holding the values, e.g. ``derived``'s), and ``polars_sums`` likewise (the off-policy
    family's clipped and shrunk weights). ``distributed`` is the template for the engines that spread a slice over
    workers, if it differs; ``distinct`` the template when the scores are nearly all
    distinct (``Binding.distinct_scores``), if it differs. ``values`` are fixed
    placeholder values (the table a shared template reads), ``keys`` the columns the step
    is partitioned by besides the slices. ``floor`` (a step that ranks lists) is, per
    metric call, the SQL aggregate of the lowest score it reads in a list:
    ``floor(reach, k, min_relevance, portable)``, read by ``list_floors``.

    ``polars`` builds the same rows with polars, as the polars engine computes them (a
    LazyFrame or DataFrame): a function of the frame the step reads and the slice columns
    (``score_hist`` of the engine's ``base``, ``class_counts`` of ``class_confusion``), or
    for the ranking steps of the call's ``Lists`` and the step's ``each`` parameters.
    ``folded`` says instead which polars form computes the step inside its metrics
    (``Folded``): a step has one or the other (``tests/test_steps.py``). ``polars_sums``
    gives ``base_aggregates`` as polars expressions, for a state's base part.
    """

    template: str
    after: tuple[str, ...] = ()
    collects: tuple[str, ...] = ()
    table: str = ""
    base_aggregates: tuple[str, ...] | Callable[..., tuple[str, ...]] = ()
    each: tuple[str, ...] = ()
    derived: Callable[..., dict[str, str]] | None = None
    distributed: str = ""
    distinct: str = ""
    values: tuple[tuple[str, str], ...] = ()
    keys: tuple[str, ...] = ()
    floor: Callable[[str, int | None, float, bool], str] | None = None
    polars: Callable[..., Any] | None = None
    folded: Folded | None = None
    # the polars expressions of ``base_aggregates``, by the same names and with SQL's NULLs
    # (a state's base part built by the polars engine: ``sm.state``)
    polars_sums: Callable[..., list[Any]] | None = None
    # why the dbt package does not write the step ("": it does): its readers are left out
    # of the package's catalog with this reason (``dbt/package.py``'s ``left_out``)
    not_packaged: str = ""


def cumulative(hist: str, folded: Folded, keys: tuple[str, ...] = (), distinct: str = "") -> Intermediate:
    """The running sums (tp, fp) over the scores of histogram ``hist`` in order (one
    window per slice; on the distributed engines, within score buckets); ``distinct``:
    its template when ``hist`` holds a row per used row (nearly distinct scores);
    ``folded``: the polars form whose metrics sort and sum in their own expressions."""
    return Intermediate(
        "intermediates/score_cum.sql",
        after=(hist,),
        distributed="intermediates/score_cum_distributed.sql",
        distinct=distinct,
        values=(("hist", hist),),
        keys=keys,
        folded=folded,
    )


def reads_among(name: str, steps: tuple[str, ...], declared: dict[str, Intermediate]) -> bool:
    """Whether a metric reading ``steps`` reads the step ``name`` of ``declared``, directly
    or through the steps they are computed ``after``."""
    return any(r == name or reads_among(name, declared[r].after, declared) for r in steps if r in declared)


def cutoff_column(k: int | None) -> str:
    """The ``list_floors`` column of each list's lowest score that can hold a relevant row
    within the top k (k None: no cutoff), which a step reading lists at a cutoff
    (``cutoff_hits``) reads."""
    return "cutoff_all" if k is None else f"cutoff_{k}"


def _no_steps(binding: Binding, *args: Any) -> dict[str, str]:
    return {}


def _no_rules(binding: Binding) -> list[TableRule]:
    return []


def _no_check(binding: Binding, *checked: Any) -> None:
    return None


def _no_names(binding: Binding) -> tuple[str, ...]:
    return ()


def _no_table(binding: Binding, table: pl.LazyFrame, source_schema: dict[str, str]) -> None:
    return None


def _no_frames(binding: Binding, *frames: Any) -> dict[str, pl.DataFrame]:
    return {}


@dataclass(frozen=True)
class Hooks:
    """What a family adds to a call besides its shared steps and its metrics, called by
    the core through ``registry.hooks()`` (each does nothing for a call that does not
    use the family):

    * ``steps_before(binding, portable)``: the family's own steps of the statement, by
      name, placed after ``row_counts`` and before the shared steps (``portable``: the
      engine has no DuckDB's own aggregates; ranking: ``ideal_rows``, ``list_floors``,
      ``run_checks``; multiclass: ``class_score_rows``);
    * ``steps_after(binding)``: its steps placed after the shared steps (multiclass:
      ``class_nan`` and ``class_checks``, which read ``class_score_hist``);
    * ``table_rules(binding)``: its rules on the call's second table and the rows it
      serves (``rules.tables.TableRule``; ranking: the judgments, multiclass: the class
      scores), which the DuckDB engine reads to name their keyword arguments in an error;
    * ``check_result(binding, result)``: raises on a result the family never reports
      (regression: a sum that overflowed the float range);
    * ``check_steps(binding)``: the names of its steps (of ``steps_before`` or
      ``steps_after``) whose ``failure`` must be NULL for the result to be returned
      (ranking: ``run_checks``; multiclass: ``class_checks``);
    * ``shared_steps(binding)``: the shared steps (``INTERMEDIATES``) the call renders
      whatever its metrics read, which its own steps read (multiclass:
      ``class_score_hist``, which ``class_checks`` reads);
    * ``source_schema(binding, schema)``: raises for the source's schema of its roles'
      columns, after the core's rules (``rules.schema.check_schema``; multiclass: classes
      that cannot be compared, wide class-score columns);
    * ``second_schema(binding, schema, source_schema)``: raises for the second table's
      schema when the table is the family's (ranking: a run's judgments; multiclass: long
      class scores);
    * ``polars_second(binding, table, source_schema)``: for the polars engine, the call's
      second table (``table``, a LazyFrame of its columns, ``Binding.second_columns``)
      under canonical names once its schema holds, when it is the family's (ranking: a
      run's judgments; multiclass: long class scores), else None;
    * ``polars_rules(binding)``: its rules on the second table the polars engine checks
      with the column rules, on ``rules.tables.RuleTables(rows, second)`` (ranking: a
      run's);
    * ``polars_steps(binding, rows, second, base)``: its own steps the polars engine
      builds after ``base``, by name, once their rules hold (multiclass:
      ``class_score_hist`` with class scores bound, whatever reads it).
    """

    steps_before: Callable[[Binding, bool], dict[str, str]] = _no_steps
    steps_after: Callable[[Binding], dict[str, str]] = _no_steps
    table_rules: Callable[[Binding], list[TableRule]] = _no_rules
    check_result: Callable[[Binding, pl.DataFrame], None] = _no_check
    check_steps: Callable[[Binding], tuple[str, ...]] = _no_names
    shared_steps: Callable[[Binding], tuple[str, ...]] = _no_names
    source_schema: Callable[[Binding, Mapping[str, str]], None] = _no_check
    second_schema: Callable[[Binding, Mapping[str, str], Mapping[str, str]], None] = _no_check
    polars_second: Callable[[Binding, pl.LazyFrame, dict[str, str]], pl.LazyFrame | None] = _no_table
    polars_rules: Callable[[Binding], list[TableRule]] = _no_rules
    polars_steps: Callable[..., dict[str, pl.DataFrame]] = _no_frames


@dataclass(frozen=True)
class Family:
    """A family's declaration, ``FAMILY`` in its package's ``__init__.py`` (beside its
    shared steps, ``INTERMEDIATES``): its name, the roles it adds (``spec.Role``: its
    columns' keywords, CLI options, what they hold and their input rules) and its hooks
    (``Hooks``); ``summary``: what its metrics read, in a line (``sqlmetrics metrics``
    heads the family's list with it); ``notes``: what each of its own steps that Python
    writes (``Hooks.steps_before``, ``steps_after``, its input steps) is, by name, which
    the statement shows above the step's SQL. The registry collects them (``registry.families()``,
    ``registry.roles()``, ``registry.hooks()``); a family package without one adds no role
    and no hook."""

    name: str
    roles: tuple[Role, ...] = ()
    hooks: Hooks = Hooks()
    summary: str = ""
    notes: Mapping[str, str] = field(default_factory=dict)
