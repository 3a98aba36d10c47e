"""Declarative metric specs (what a metric is) and metric calls (a metric with parameters).

A metric module holds one ``SPEC = Metric(...)`` next to the code that computes it; the
registry discovers the specs, and everything else (composition, both engines, the CLI,
the shared tests) works from them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlmetrics.errors import InvalidParameterError, closest

# What a metric requires of the score column beyond "not NaN".
SCORE_DOMAINS = ("any", "finite", "probability")

# What a rounded state's roll-up reports of a metric (``Metric.score_rounding``; ``sqlmetrics/compose/rounding.py``):
# ``monotone``: a function of each row's score that only rises, or only falls, with it
# (its direction may depend on the row's label): bounded by the spread's corners;
# ``bins``: a bound of its own, from each rounded bin's weights (its ``rounding_bound``
# template: average_precision, not monotone where scores tie); ``unchanged``: reads no
# score's value (label_mean); "": no bound derived, refused.
SCORE_ROUNDINGS = ("monotone", "bins", "unchanged", "")

# What a metric requires of the label column: 0/1 (or boolean), a graded relevance >= 0,
# any finite number (a regression target), or a class (a number, string or boolean,
# compared with the predicted class as it is, never cast).
LABEL_DOMAINS = ("binary", "relevance", "real", "class")

# A multi-class metric is registered as ``multiclass_<name>``; when a prediction column
# is bound, the plain name means it (``registry.routed``) and its column is ``<name>``.
MULTICLASS_PREFIX = "multiclass_"

# How the polars engine computes a metric (``Metric.polars_form``), and the functions its
# module defines for that form (the registry checks them):
# * histogram: ``from_histogram(score, w_pos, w_neg)`` over the score histogram, and
#   ``expr(score, label, weight)`` over a slice's rows (nearly distinct scores, where a
#   histogram holds a row per row; unless ``row_plan`` is False); ``smp.<name>`` is ``expr``;
# * rows: ``expr(score, label, weight)`` over a slice's rows; ``smp.<name>`` is ``expr``;
# * class_counts: ``from_class_counts(tp, fp, fn, support)`` over per-class counts;
# * class_confusion: ``from_class_confusion(confusion, slices)`` over the confusion matrix;
# * class_histogram: ``from_class_histogram(...)`` over each class's score histogram;
# * lists: ``from_lists(lists)`` over the ranking lists;
# * frame: ``frame(data, ...)`` over the used rows;
# every form but histogram and rows also defines ``frame(data, ...)``, which ``smp.<name>`` is.
POLARS_FORMS = {
    "histogram": ("from_histogram", "expr"),
    "rows": ("expr",),
    "class_counts": ("from_class_counts", "frame"),
    "class_confusion": ("from_class_confusion", "frame"),
    "class_histogram": ("from_class_histogram", "frame"),
    "lists": ("from_lists", "frame"),
    "frame": ("frame",),
}
EXPRESSION_FORMS = ("histogram", "rows")

# The largest integer parameter every engine holds (a signed 64-bit integer, 2**63 - 1),
# and its rule as a refusal states it.
MAX_INT = 2**63 - 1
MAX_INT_RULE = f"must be at most {MAX_INT:,} in magnitude (a 64-bit integer)"


@dataclass(frozen=True)
class Param:
    """A metric parameter: its type, default, and the values it accepts.

    A choice parameter lists its ``choices``; a number is finite and within its declared
    bounds (``low``, ``high``, inclusive unless ``low_open``), which the error messages
    state and the tests draw values from. ``rule_text`` overrides the stated rule.
    """

    name: str
    kind: type
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # the value must be > low, not >= low
    rule_text: str = ""
    choices: tuple[str, ...] = ()
    # (value, why): values a sibling metric's parameter of the same name takes and this
    # one cannot (err's ties="average"), refused with the reason
    refused: tuple[tuple[str, str], ...] = ()
    required: bool = False  # no default: the call must give a value (``precision@k`` needs k)

    def accepts(self, value: Any) -> bool:
        """Whether a value of the parameter's type is within its bounds (finite numbers only)."""
        if self.kind in (int, float):
            if not math.isfinite(value):
                return False
            if self.low is not None and (value <= self.low if self.low_open else value < self.low):
                return False
            if self.high is not None and value > self.high:
                return False
        return True

    @property
    def rule(self) -> str:
        """The rule in words, for error messages: "must be a finite number > 0"."""
        if self.rule_text:
            return self.rule_text
        if self.kind is bool:
            return "must be True or False"
        noun = "an integer" if self.kind is int else "a finite number"
        if self.low is not None and self.high is not None and not self.low_open:
            return f"must be {noun} from {self.low:,} to {self.high:,}"
        bounds = [f"{'>' if self.low_open else '>='} {self.low}"] if self.low is not None else []
        bounds += [f"<= {self.high}"] if self.high is not None else []
        return " ".join([f"must be {noun}", " and ".join(bounds)]).strip()

    def validate(self, metric: str, value: Any) -> Any:
        """Return the value coerced to the parameter's type, or raise naming metric and rule."""
        if value is None and self.default is None and not self.required:
            return None
        if self.choices:
            reason = dict(self.refused).get(value) if isinstance(value, str) else None
            if reason:
                raise InvalidParameterError(
                    f"{metric}: {self.name}={value!r} is not supported: {reason}; "
                    f"use one of {', '.join(map(repr, self.choices))}"
                )
            if value not in self.choices:
                raise InvalidParameterError(
                    f"{metric}: parameter {self.name!r} must be one of "
                    f"{', '.join(map(repr, self.choices))}, got {value!r}"
                )
            return value
        coerced = _coerce(value, self.kind)
        if self.kind is int and coerced is not None and abs(coerced) > MAX_INT:
            raise InvalidParameterError(f"{metric}: parameter {self.name!r} {MAX_INT_RULE}, got {value!r}")
        if coerced is None or not self.accepts(coerced):
            raise InvalidParameterError(f"{metric}: parameter {self.name!r} {self.rule}, got {value!r}")
        return coerced


def _coerce(value: Any, kind: type) -> Any:
    if isinstance(value, bool):
        return value if kind is bool else None
    if kind is float and isinstance(value, (int, float)):
        return float(value)
    if kind is int and isinstance(value, int):
        return value
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    return None


@dataclass(frozen=True)
class SumsOfRows:
    """A metric as a function of weighted sums over the used rows (``Metric.sums``):
    ``summands``, SQL of a row's ``score`` and ``label`` (and the call's parameters,
    ``{{ threshold }}``), each summed as Σ w·summand; ``value``, SQL of the metric over
    those sums, ``{{ s1 }}``, ``{{ s2 }}``, ... in order (NULL where it is undefined)."""

    summands: tuple[str, ...]
    value: str

    @classmethod
    def ratio(cls, numerator: str, denominator: str) -> SumsOfRows:
        """Σ w·numerator / Σ w·denominator (NULL where the denominator's sum is 0)."""
        return cls((numerator, denominator), "{{ s1 }} / CAST(NULLIF({{ s2 }}, 0) AS DOUBLE)")


@dataclass(frozen=True)
class PairedInterval:
    """How the difference of a metric under two paired scores (``sm.compare(scores=...)``)
    gets its spread: ``template`` outputs ``se`` and ``df`` per slice on the rows of the
    second score; ``over_rows``: it reads the used rows of both scores (rendered by the
    slices without the pair's) rather than the metric's own steps; ``polars`` builds the
    same spread from the used rows, None when the metric's own per-query step brings it;
    ``method`` is what ``sm.compare``'s ``method`` column calls it."""

    template: str
    method: str
    over_rows: bool = False
    polars: Callable[..., Any] | None = None


@dataclass(frozen=True)
class ClusteredInterval:
    """How a metric's interval is clustered by a unit column (``ci_unit=``), rows of a
    unit being correlated and units independent: ``template`` gives each unit's part of
    the metric's linearization (``unit_id``, ``part`` = Σ w·u / W over the unit's used
    rows, u each row's influence) per slice, and ``sql/intervals/clustered.sql`` the
    standard error C/(C − 1)·Σ part² over the C units; ``polars`` builds the same parts
    from the used rows (with ``unit_id``) or, ``reads_histogram``, from their histogram
    by unit and score. ``whole_queries``: a mean over queries, whose parts are its
    queries' (``polars`` reads them: per slice ``query``, ``value``, ``weight`` and
    ``unit_id``), so each query must lie within one unit; clustered by the query column
    itself it keeps its t over queries. ``method``: what the docs call the clustered
    interval when its name is not the unclustered one's."""

    template: str
    polars: Callable[..., Any]
    reads_histogram: bool = False
    whole_queries: bool = False
    method: str | None = None

    def takes(self, unit: str, query: str | None) -> bool:
        """Whether the interval clustered by column ``unit`` is this form: not for a mean
        over queries whose queries are the units (``query``, its t over queries)."""
        return not (self.whole_queries and unit == query)


@dataclass(frozen=True)
class KeptSpread:
    """What a state (``sm.state``) keeps of an interval whose spread is no sum of base (the
    regression means' Σ w·(x − m)²): per slice, the interval's step ``step`` (one of its
    ``steps``: ``total`` W, ``mean`` and ``spread``), taken over the rows in SQL and in
    polars (``polars``, over the used rows); ``merged``, the template that gives the same
    columns from the states' rows of it (``value`` the mean, ``weight`` W, ``spread``),
    which a roll-up's interval reads in the step's place."""

    step: str
    merged: str
    polars: Callable[..., Any]


@dataclass(frozen=True)
class PerQuery:
    """What a metric averaged over queries keeps of each query, in its template: the step
    ``step``, one row per query of every slice (kept or left out), and SQL over it:
    ``value`` (the query's value, NULL for a query left out) and ``weight`` (its weight in
    the mean); ``pooled``, the (value, weight) whose weighted mean is the metric with
    ``average="micro"`` (a ratio of sums Σ a / Σ b: each query's a / b weighted by b).
    The interval over queries reads them (``intervals.query_mean``), and a state keeps
    them (``sm.state``), to be averaged again by ``sm.rollup``."""

    step: str
    value: str
    weight: str = "1"
    pooled: tuple[str, str] | None = None

    def of(self, call: MetricCall) -> tuple[str, str]:
        """The (value, weight) SQL of ``call``: the pooled ones for a micro average."""
        pooled = call.kwargs.get("average") == "micro" and self.pooled is not None
        return self.pooled if pooled else (self.value, self.weight)


@dataclass(frozen=True)
class Interval:
    """How a metric's interval is computed, in both forms: ``template`` (SQL reading the
    metric's steps, filled with ``values``, giving ``se`` and ``df`` per slice) and
    ``polars`` (the same spread from the used rows, or from the score histogram when
    ``reads_histogram``; None when the metric's own polars step brings ``_se`` and
    ``_df``, as the means over queries do), Student's t (``df``) or the normal. The
    bounds are clipped to the metric's range. ``name`` is the method's module in
    ``sqlmetrics/intervals/``, ``method`` what the docs call it, ``comparison`` what
    ``sm.compare``'s ``method`` column calls the difference of two arms' values, and
    ``paired`` the spread of a paired difference, if it has one; ``micro``: whether it
    serves the metric's ``average="micro"`` too (a pooled value, which a mean over
    queries does not give); ``clustered`` its form clustered by a unit (``ci_unit``), if
    it has one. ``steps`` are templates that its templates (``template``, the clustered
    one) read as subqueries, each under the placeholder of its name, rendered with
    ``values`` (the gradient of a metric of the confusion matrix cell by cell, which
    both read); ``kept``: what a state keeps of it when its spread is no sum of base."""

    name: str
    template: str
    method: str
    comparison: str
    values: tuple[tuple[str, str], ...] = ()
    steps: tuple[tuple[str, str], ...] = ()
    student: bool = False
    polars: Callable[..., Any] | None = None
    reads_histogram: bool = False
    paired: PairedInterval | None = None
    micro: bool = False
    clustered: ClusteredInterval | None = None
    kept: KeptSpread | None = None


@dataclass(frozen=True)
class Metric:
    """What a metric is, independent of how an engine computes it.

    * ``template``: its SQL file under ``sql/``, read by the composer;
    * ``polars_form``: how the polars engine computes it (``POLARS_FORMS``), which also
      says whether ``sqlmetrics.polars`` gives an expression or a function of a frame;
    * ``row_plan``: for the histogram form, whether the row expression is used on nearly
      distinct scores (False where it measured slower than the histogram);
    * ``per_class``: for a multi-class metric, its column of ``per_class_values``, which
      ``sm.per_class`` reports (empty: it has no per-class value);
    * ``intermediates``: the shared steps the template selects from (``score_hist``, ...);
    * ``reads_of``: where a call reads only some of them, by its parameters, the ones it
      reads (hit_rate: ``first_hits`` for the macro average, ``cutoff_hits`` for micro):
      the polars lists compute only those; the SQL renders every step of ``intermediates``
      and folds the branch of the other parameters away, and the engine drops what no
      branch reads;
    * ``needs``: the column roles it requires (``weight`` is always optional);
    * ``outputs``: extra result columns after the main one (``label + "_" + output``);
    * ``score_domain``: ``any`` (only order matters), ``finite`` or ``probability``;
    * ``label_domain``: what labels must be (``binary``: 0/1 or boolean; ``relevance``:
      a finite graded relevance >= 0; ``real``: any finite number, a regression target;
      ``class``: a class compared with the ``prediction`` column, any number, string or
      boolean);
    * ``weighted``: whether it takes row weights (ranking metrics order rows, they do not
      weigh them);
    * ``weight_count``: whether its value is a weighted count (tp, fp, tn, fn), which
      scaling every weight by c scales by c; every other weighted metric is unchanged;
    * ``reach``: for a ranking metric, the rows below its cutoff it still reads (see
      ``metrics/ranking/_reach.py``);
    * ``best_reached``: whether perfect scores attain the best end of ``range`` (not for
      precision@k, which needs k relevant items per list, rank_corr, where pairs tied in
      label earn ½, or err, whose R stays below 1);
    * ``per_query``: for a mean over queries, what it keeps of each query (``PerQuery``);
    * ``sums``: when the metric is a function of weighted sums over the used rows
      (``SumsOfRows``: calibration's Σ w·p / Σ w·y, precision's tp / (tp + fp), mcc of
      the four confusion counts), which a bootstrap by unit takes from each unit's sums
      (``compose/unit_bootstrap.py``; the means over rows are read from their
      interval's declaration);
    * ``score_rounding``: for a metric of the score histogram, what a roll-up of rounded
      states (``score_digits``) reports of it (``SCORE_ROUNDINGS``): ``monotone``,
      a function of each row's score that only rises or only falls with it, the
      direction possibly set by the row's label (auc, logloss, the threshold metrics):
      its bound ``<column>_max_error``; ``bins``: the bound is its template
      ``rounding_bound`` over the roll-up's steps; ``unchanged``: it reads no score's
      value; ``""``: no bound derived, refused with ``score_digits``;
    * ``reference``: the independent implementation the tests compare with.
    """

    name: str
    family: str
    summary: str
    template: str
    intermediates: tuple[str, ...]
    polars_form: str = ""  # every registered metric declares one (the curves are not registered)
    needs: tuple[str, ...] = ("label", "score")
    params: tuple[Param, ...] = ()
    outputs: tuple[str, ...] = ()
    score_domain: str = "any"
    label_domain: str = "binary"
    weighted: bool = True
    weight_count: bool = False
    reach: str = ""
    higher_is_better: bool | None = True
    range: tuple[float, float] | None = (0.0, 1.0)
    best_reached: bool = True  # perfect scores attain the range's best end (precision@k needs k relevant items)
    reference: str = ""
    row_plan: bool = True
    per_class: str = ""
    per_query: PerQuery | None = None
    sums: SumsOfRows | None = None
    score_rounding: str = ""
    rounding_bound: str = ""
    # the analytic confidence interval (sqlmetrics/intervals/), if the metric has one
    interval: Interval | None = None
    reads_of: Callable[..., tuple[str, ...]] | None = field(default=None, compare=False, repr=False)
    module: Any = field(default=None, compare=False, repr=False)
    # the declarations of the roles of ``needs`` that a family adds (``Role.generic``), set
    # by the registry: their input rules are the call's (``rules.columns.checks_for``)
    roles: tuple[Role, ...] = field(default=(), compare=False, repr=False)

    @property
    def is_expression(self) -> bool:
        """Whether ``sqlmetrics.polars`` gives it as an expression (else a frame function)."""
        return self.polars_form in EXPRESSION_FORMS

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def called(self, params: dict[str, Any], elsewhere: Callable[[str], str] = lambda key: "") -> MetricCall:
        """This metric called with ``params``, each checked against its parameter's rule
        (``sm.metric`` of a registered name): an unknown parameter (``elsewhere(key)``:
        a note on where it belongs instead, if anywhere; those belonging nowhere are
        named first) and a required one missing are refused; the others take their
        defaults. Reads no registry: a family calls its own ``SPEC`` with it."""
        name, known = self.name, {param.name for param in self.params}
        unknown = sorted(params.keys() - known, key=lambda key: bool(elsewhere(key)))
        if unknown:
            key, allowed = unknown[0], ", ".join(sorted(known)) or "none"
            raise InvalidParameterError(
                f"{name}: unknown parameter {key!r} (parameters: {allowed}){closest(key, known)}{elsewhere(key)}"
            )
        missing = [p.name for p in self.params if p.required and params.get(p.name) is None]
        if missing:
            raise InvalidParameterError(
                f"{name}: parameter {missing[0]!r} is required (e.g. {name.replace('@k', '@10')!r})"
            )
        values = tuple(
            (p.name, p.validate(name, params[p.name]) if p.name in params else p.default) for p in self.params
        )
        return MetricCall(self, values)


@dataclass(frozen=True)
class MetricCall:
    """A metric bound to parameter values; what ``evaluate`` computes one column for."""

    spec: Metric
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def reads(self) -> tuple[str, ...]:
        """The shared steps this call reads: its metric's ``intermediates``, or those its
        parameters pick (``Metric.reads_of``)."""
        reads_of = self.spec.reads_of
        return self.spec.intermediates if reads_of is None else reads_of(**self.kwargs)

    @property
    def base_name(self) -> str:
        """The name without a ``@k`` suffix or a ``multiclass_`` prefix: ``precision`` for
        ``precision@k`` and for ``multiclass_precision``."""
        return self.spec.name.removesuffix("@k").removeprefix(MULTICLASS_PREFIX)

    @property
    def column(self) -> str:
        """The result column: the metric name, then one part per parameter that differs
        from its default: ``_at_<k>`` for ``k`` (``ndcg_at_10``), ``_<value>`` for a
        choice (``gauc_uniform``), ``_<param>_<value>`` for a number
        (``precision_threshold_0p3``, ``fbeta_beta_2``). In numbers ``.`` is written
        ``p`` and ``-`` ``m``, so every column name is a plain SQL identifier."""
        parts = [self.base_name]
        for param in self.spec.params:
            value = self.kwargs[param.name]
            if value == param.default and not param.required:
                continue
            if param.name == "k":
                parts.append(f"at_{value}")
            elif param.choices:
                parts.append(str(value))
            else:
                parts.append(f"{param.name}_{_format_value(value)}")
        return "_".join(parts)

    @property
    def columns(self) -> tuple[str, ...]:
        """Every result column this call produces, main one first."""
        return (self.column, *(f"{self.column}_{out}" for out in self.spec.outputs))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params)
        return f"{self.spec.name}({args})"


def _format_value(value: Any) -> str:
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return text.replace(".", "p").replace("-", "m").replace("+", "")


@dataclass(frozen=True)
class RoleRule:
    """The input rule on a role's values: ``{role} column "x" must {rule}: n rows are not,
    e.g. v``. ``sql`` is a row condition over ``input``'s column of the role's name, true
    for a bad row, and ``polars`` the same condition as a polars expression (a function
    returning it); ``rules/columns.py`` checks it in every engine."""

    rule: str
    sql: str
    polars: Callable[[], Any]


@dataclass(frozen=True)
class Role:
    """A column role: a keyword of the public functions (``evaluate(..., exposure="e")``)
    naming the source's column, and a CLI option (``--exposure COLUMN``).

    ``holds``: what the column must hold, in words (the docs and the CLI help say it);
    ``rule``: the rule on its values, checked in every engine (``RoleRule``), if any;
    ``option``: the CLI option (``--<name>`` with dashes by default); ``annotation`` and
    ``default``: the keyword's, as the public signatures show them; ``after``: the
    keyword it follows in the signatures (none: after every role declared before it);
    ``valid_values``: a few values the column may hold (its rule accepts each, and a
    role a family adds declares them): the registry-driven tests draw the role's column
    from them (``tests/strategies.py``), the library itself never reads them.

    The core's roles (``CORE_ROLES``) and the families' (``steps.Family.roles``) are declared
    alike. ``generic`` (the default): the core reads the role the one generic way:
    ``input`` holds the column as a number under the role's name (NULL excludes the row,
    as for every bound role), the schema must make it numeric, and a metric reads it by
    that name; the core's own roles and those read with code of their own (a class, a
    table) say ``generic=False``. ``table``: the role is bound to a table or a mapping
    rather than a column of the source (``bind`` takes it by its own keyword: the
    judgments, class scores). ``state_flag``: a table role whose state records whether it
    was bound, as a true or false of its meta under the role's name (a run's judgments)."""

    name: str
    holds: str
    rule: RoleRule | None = None
    option: str = ""
    metavar: str = "COLUMN"
    annotation: str = "str | None"
    default: Any = None
    after: str = ""
    valid_values: tuple[Any, ...] = ()
    generic: bool = True
    table: bool = False
    state_flag: bool = False

    @property
    def flag(self) -> str:
        """The CLI option: ``option``, or ``--<name>`` with ``_`` written ``-``."""
        return self.option or "--" + self.name.replace("_", "-")


# The roles every family reads, declared once here; a family adds its own (``steps.Family.roles``).
CORE_ROLES = (
    Role("label", "the label: 0/1, a graded relevance, a regression target or a class, as the metrics read it",
         metavar="COLUMN", annotation="str", default="label", generic=False),
    Role("score", "the score (a number); default: the column score, when a metric reads a score", generic=False),
    Role("query", "the query (list) id: the list of a ranking metric, the group of gauc", generic=False),
    Role("item", "the item (document) id, for ranking metrics", generic=False),
    Role("weight", "the row weight: a number, finite and >= 0", generic=False),
)  # fmt: skip
