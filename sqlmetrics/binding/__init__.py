"""How the caller's columns map onto the canonical roles, and what the call's metrics need:
``bind`` checks the keywords themselves (a role the metrics need is bound, names do not
collide) and returns the ``Binding``. What the source's columns must be (present,
numeric, of comparable kinds) is checked against its schema in ``rules/schema.py`` and by
each family's hooks (``steps.Hooks.source_schema``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlmetrics.binding.bootstrap import Bootstrap
from sqlmetrics.binding.class_scores import LongClassScoreColumns, WideClassScores
from sqlmetrics.errors import InvalidParameterError, Keyword, shown
from sqlmetrics.spec import ClusteredInterval, MetricCall

# ci_unit's value declaring each row its own unit (rows assigned their arm one by one): not a
# column; a source that also has a column of this name is refused (``rules.schema``), so
# that the word never stands for a column
ROWS = "rows"
PAIRED_SLICE = "sqlmetrics_scores"  # the slice saying which of two paired scores a row is evaluated with


@dataclass(frozen=True)
class Binding:
    """The user's column for each role, the slice columns, and the metrics to compute."""

    calls: tuple[MetricCall, ...]
    # role -> the user's column, for every column role bound (``label`` always; ``score``
    # only when a metric reads a score or one was bound; ``prediction``, the predicted
    # class of multi-class metrics; a role a family declares, ``spec.Role``), in the
    # order the roles are declared; ``label``, ``score``, ... read them by name
    columns: Mapping[str, str]
    by: tuple[str, ...] = ()
    judgments: bool = False  # the label is read from separate judgments, joined by (query, item)
    class_scores: WideClassScores | LongClassScoreColumns | None = None  # one score per class, for one-vs-rest metrics
    # the scores are nearly all distinct (``source_evidence.distinct_scores``): the metrics that read
    # the score histogram read the used rows instead, and base is not grouped by score
    distinct_scores: bool = False
    # the source's rows, from evidence that reads no row (``source_evidence.source_rows``:
    # Parquet footers, a frame's height); None without
    source_rows: int | None = None
    # the confidence level of the intervals to add (``intervals.py``), None for none
    ci: float | None = None
    # with ci, also each metric's standard error and degrees of freedom (sm.compare)
    spread_columns: bool = False
    # two score columns of the same rows (sm.compare's paired comparison): ``score`` is
    # the first; every row is evaluated once per score, the last slice of ``by``
    # (PAIRED_SLICE, not a source column) saying which (1, 2), and each metric's spread is
    # that of the second's value minus the first's, on the second's rows. With a
    # ``prediction`` bound they are two predicted-class columns, ``prediction`` the first
    # (``paired_role``)
    paired_scores: tuple[str, str] | None = None
    # sm.compare's arms: the source column of the slice (in ``by``) naming each row's arm
    arm: str | None = None
    # the bootstrap's calls and parameters (sqlmetrics.binding.bootstrap): every row is evaluated
    # once per replicate, the last slice of ``by`` (REPLICATE_SLICE, not a source column)
    # numbering them; the other calls with ``ci`` get their analytic interval
    bootstrap: Bootstrap | None = None
    # the unit column the analytic intervals are clustered by (``ci_unit``, for the calls
    # whose interval has a clustered form: ``Interval.clustered``); ``input`` carries it
    # as ``unit_id``
    cluster: str | None = None
    # a rounded state's (``sm.state(..., score_digits=d)``, ``sqlmetrics/compose/rounding.py``): its
    # statement rounds the scores of base to d decimals; a roll-up of such states reports
    # the bound of each ``max_error`` call
    score_digits: int | None = None
    # ci_unit="rows" (``request.ROWS``): the rows declared their own units, no column; a
    # source column of that name is refused (``rules/schema.py``), so the word is never one
    rows_unit: bool = False

    @property
    def label(self) -> str:
        return self.columns["label"]

    @property
    def score(self) -> str | None:
        """None: no metric reads a score and none was bound."""
        return self.columns.get("score")

    @property
    def query(self) -> str | None:
        return self.columns.get("query")

    @property
    def weight(self) -> str | None:
        return self.columns.get("weight")

    @property
    def item(self) -> str | None:
        return self.columns.get("item")

    @property
    def prediction(self) -> str | None:
        return self.columns.get("prediction")

    def has(self, role: str) -> bool:
        """Whether ``role`` is bound: a column role to a column, a table role
        (``spec.Role.table``, the field of its name: ``judgments``, ``class_scores``) to
        its table."""
        return role in self.columns or getattr(self, role, None) not in (None, False)

    @property
    def generic_roles(self) -> tuple[str, ...]:
        """The bound roles a family declares beyond the core's own (``spec.Role.generic``)
        that a metric of the call reads: ``input`` holds each as a number under the
        role's name (a role no metric reads is not read, as the item without a ranking
        metric)."""
        needed = {role.name for call in self.calls for role in call.spec.roles}
        return tuple(role for role in self.columns if role in needed)

    def clustered(self, call: MetricCall) -> ClusteredInterval | None:
        """The clustered form the call's analytic interval takes (``Interval.clustered``)
        when the intervals are clustered by ``cluster``: none for a mean over queries
        whose queries are the units (its t over queries takes each query as one)."""
        interval = call.spec.interval
        if self.cluster is None or interval is None or interval.clustered is None:
            return None
        return interval.clustered if interval.clustered.takes(self.cluster, self.query) else None

    @property
    def unit(self) -> str | None:
        """The ``ci_unit`` column the statement reads: the bootstrap's unit, or the units the
        analytic intervals are clustered by. Not a role: a row's unit never decides
        whether the row is used (the metric must not depend on ``ci_unit``), and a used row
        without one is refused (``rules.tables.unit_rules``)."""
        return self.bootstrap.unit if self.bootstrap else self.cluster

    def max_error(self, call: MetricCall) -> bool:
        """Whether a roll-up of rounded states reports ``<column>_max_error`` for the call:
        a metric that reads each row's score, monotone in it or with a bound of its own
        (``Metric.score_rounding``)."""
        return self.score_digits is not None and call.spec.score_rounding in ("monotone", "bins")

    def analytic(self, call: MetricCall) -> bool:
        """Whether the call's interval is analytic (computed in its step)."""
        return self.ci is not None and (self.bootstrap is None or call.column not in self.bootstrap.columns)

    @property
    def weighted(self) -> bool:
        """Whether rows carry weights: a weight column, or a bootstrap's counts."""
        return self.weight is not None or self.bootstrap is not None

    @property
    def analytic_calls(self) -> list[MetricCall]:
        return [call for call in self.calls if self.analytic(call)]

    @property
    def needs_query(self) -> bool:
        return any("query" in call.spec.needs for call in self.calls)

    @property
    def ranking(self) -> bool:
        return any(call.spec.family == "ranking" for call in self.calls)

    @property
    def multiclass(self) -> bool:
        """Whether the call compares classes (the label as it is with the prediction):
        binding a prediction column means it (``sm.confusion_matrix`` has no metric)."""
        return self.prediction is not None

    @property
    def paired_role(self) -> str:
        """What the two ``paired_scores`` columns are: ``input``'s ``<role>_1`` and
        ``<role>_2`` (``score``, or ``prediction`` for predicted classes)."""
        return "prediction" if self.multiclass else "score"

    @property
    def class_keys(self) -> tuple[str, ...]:
        """The class columns of ``input`` and keys of ``base``: the true and the predicted
        class with a prediction bound, the true class alone with class scores bound."""
        if self.multiclass:
            return ("true_class", "predicted_class")
        return ("true_class",) if self.class_scores is not None else ()

    @property
    def class_roles(self) -> dict[str, str]:
        """Each class column of ``input`` (``class_keys``) with the role whose column it
        holds as it is: the true class the label's, the predicted class the prediction's
        (the tables of classes name them so: ``sm.confusion_matrix``)."""
        return dict(zip(self.class_keys, ("label", "prediction")))

    @property
    def paired_key(self) -> str:
        """The ``input`` column each of two paired rows takes its ``paired_role``'s value
        in: ``score``, or ``predicted_class`` for two predicted classes."""
        return "predicted_class" if self.multiclass else "score"

    @property
    def second_role(self) -> str:
        """The role read from the call's second table, which names its view
        (``sources.second_view``): ``class_scores`` for long class scores, else
        ``judgments``."""
        return "class_scores" if self.long_scores is not None else "judgments"

    @property
    def plain_score(self) -> bool:
        """Whether the metrics read one score column as the source's rows hold it: a score
        bound, without class scores (one per class) or judgments (the run's rows joined)."""
        return self.score is not None and self.class_scores is None and not self.judgments

    @property
    def wide_scores(self) -> tuple[tuple[object, str], ...]:
        """(class, column) of each wide class-score column; empty otherwise."""
        return self.class_scores.columns if isinstance(self.class_scores, WideClassScores) else ()

    @property
    def long_scores(self) -> LongClassScoreColumns | None:
        return self.class_scores if isinstance(self.class_scores, LongClassScoreColumns) else None

    @property
    def numeric_label(self) -> bool:
        """Whether a metric reads the label as a number (binary, relevance, regression)."""
        return any(call.spec.label_domain != "class" for call in self.calls)

    @property
    def slices(self) -> tuple[str, ...]:
        """Canonical slice column names; a constant ``slice_0`` when there are no slices."""
        return tuple(f"slice_{i}" for i in range(1, len(self.by) + 1)) or ("slice_0",)

    @property
    def roles(self) -> dict[str, str]:
        """Bound role -> the source's column; a NULL in any of these excludes the row.

        With judgments the label is the judgments' column, so it is not among them; the
        item is a role only for ranking metrics (the others ignore it). The ``unit`` is
        not a role: a NULL unit is refused, not excluded."""
        bound = {
            "label": None if self.judgments else self.label,
            "score": self.score,
            "prediction": self.prediction,
            "row_id": self.long_scores.row_id if self.long_scores else None,
            "query": self.query,
            "item": self.item if self.ranking else None,
            "weight": self.weight,
            **{role: self.columns[role] for role in self.generic_roles},
        }
        return {role: column for role, column in bound.items() if column is not None}

    @property
    def role_columns(self) -> dict[str, str]:
        """Role -> the user's column name, wherever it lives (for messages)."""
        return {"label": self.label, **self.roles}

    @property
    def source_by(self) -> tuple[str, ...]:
        """The slice columns read from the source (all of ``by`` but a paired call's
        PAIRED_SLICE and a bootstrap's REPLICATE_SLICE, which come last, in that order)."""
        return self.by[: len(self.by) - bool(self.paired_scores) - bool(self.bootstrap)]

    @property
    def pair_slice(self) -> str:
        """The canonical slice saying which of two paired scores a row is evaluated with."""
        return self.slices[len(self.source_by)]

    @property
    def arm_slice(self) -> str:
        """The canonical slice of ``arm``, the arms compared."""
        return self.slices[self.by.index(self.arm)]

    @property
    def replicate_slice(self) -> str:
        """The canonical slice numbering a bootstrap's replicates (the last)."""
        return self.slices[-1]

    @property
    def source_columns(self) -> tuple[str, ...]:
        """Every column the call reads from the source."""
        paired = self.paired_scores[1:] if self.paired_scores else ()
        unit = (self.unit,) if self.unit is not None else ()
        return (*self.roles.values(), *unit, *paired, *self.source_by, *(column for _, column in self.wide_scores))

    @property
    def second_columns(self) -> tuple[str, ...]:
        """Every column the call reads from its second table: long class scores or judgments."""
        long = self.long_scores
        return (long.row_id, long.class_, long.score) if long else tuple(self.judgment_roles.values())

    @property
    def judgment_roles(self) -> dict[str, str]:
        """Role -> the judgments' column, when the labels come from judgments."""
        if not self.judgments:
            return {}
        return {"query": self.query or "", "item": self.item or "", "label": self.label}

    @property
    def output_columns(self) -> list[str]:
        return [*self.by, "n_rows", "n_excluded", *(col for call in self.calls for col in self.call_columns(call))]

    def call_columns(self, call: MetricCall) -> tuple[str, ...]:
        """The call's result columns: its value, its bounds when its interval is
        analytic (a bootstrap's come after the statement: ``bootstrap_columns``), its
        companions."""
        parts = ("lo", "hi", "se", "df") if self.spread_columns else ("lo", "hi")
        bounds = tuple(f"{call.column}_{part}" for part in parts) if self.analytic(call) else ()
        error = (f"{call.column}_max_error",) if self.max_error(call) else ()
        return (call.column, *bounds, *error, *call.columns[1:])

    @property
    def bootstrap_columns(self) -> list[str]:
        """The result columns of a bootstrap call: each call's value, bounds and companions
        per slice of ``source_by`` (the replicates summarized)."""
        calls = [(call.column, f"{call.column}_lo", f"{call.column}_hi", *call.columns[1:]) for call in self.calls]
        return [*self.source_by, "n_rows", "n_excluded", *(column for columns in calls for column in columns)]


def bind(
    calls: Sequence[MetricCall],
    *,
    columns: Mapping[str, str | None],
    by: str | Sequence[str] | None,
    judgments: bool = False,
    class_scores: WideClassScores | LongClassScoreColumns | None = None,
) -> Binding:
    """Check that the roles the metrics need are bound and that names do not collide;
    ``columns``: role -> the user's column (None: not bound) for every column role, in
    the order the roles are declared.

    ``score=None`` binds the column ``score`` when a metric reads a score, and no score
    otherwise (multi-class metrics read the prediction or the class scores instead)."""
    _check_column_names(columns)
    slices = (by,) if isinstance(by, str) else tuple(by) if isinstance(by, Sequence) else () if by is None else None
    if slices is None or not all(isinstance(column, str) for column in slices):
        raise InvalidParameterError(
            f"by must be a column name or a list of column names, got {shown(by)}", parameter="by"
        )
    columns = dict(columns)
    if columns.get("score") is None and any("score" in call.spec.needs for call in calls):
        columns["score"] = "score"
    bound = {role: column for role, column in columns.items() if column is not None}
    binding = Binding(tuple(calls), bound, slices, judgments, class_scores)
    if binding.needs_query and binding.query is None:
        needing = ", ".join(c.column for c in calls if "query" in c.spec.needs)
        raise InvalidParameterError(
            f"{needing} averages over queries: pass ", Keyword("query", hint="the user/request/query id column")
        )
    _check_generic_roles(binding)
    prediction = binding.prediction
    needing = ", ".join(c.spec.name for c in calls if "prediction" in c.spec.needs)
    if prediction is None and needing:
        raise InvalidParameterError(
            f"{needing}: a multi-class metric compares the predicted class with the label: pass ",
            Keyword("prediction", hint="the predicted class column"),
        )
    needing = ", ".join(c.spec.name for c in calls if "class_scores" in c.spec.needs)
    if class_scores is None and needing:
        raise InvalidParameterError(
            f"{needing}: a one-vs-rest metric reads one score per class: pass ",
            Keyword("class_scores", python="class_scores={class: score column}", words="{option} {metavar}"),
            " or ",
            Keyword("long_scores", python="class_scores=sm.long_scores(table, ", words="{option} {metavar}"),
            Keyword("long_scores.row_id", python="row_id=...)", words=" {option} {metavar}"),
        )
    if judgments and class_scores is not None:
        raise InvalidParameterError(
            Keyword("judgments"), " and ", Keyword("class_scores"),
            Keyword("long_scores", python="", words=" (or {option})"),
            " cannot be combined: judgments serve ranking metrics, class scores one-vs-rest metrics; evaluate them "
            "in separate calls",
        )  # fmt: skip
    _check_ranking_roles(binding)
    if len(set(slices)) != len(slices):
        raise InvalidParameterError(f"by lists a column twice: {list(slices)}")
    clashes = sorted(set(slices) & set(binding.output_columns[len(slices) :]))
    if clashes:
        raise InvalidParameterError(f"slice column(s) {clashes} clash with result columns of the same name")
    return binding


def _check_column_names(columns: Mapping[str, str | None]) -> None:
    """Raise for a role bound to something other than a column name; the label must be bound."""
    if columns.get("label") is None:
        raise InvalidParameterError(
            "label=None: pass ", Keyword("label", hint="the label column"), " (every metric reads a label)"
        )
    for role, column in columns.items():
        if column is not None and not isinstance(column, str):
            raise InvalidParameterError(f"{role} must be a column name (a string), got {shown(column)}", parameter=role)


def _check_generic_roles(binding: Binding) -> None:
    """Raise for a role a family declares (``spec.Role.generic``) that a metric needs and
    the call does not bind."""
    for call in binding.calls:
        missing = [role.name for role in call.spec.roles if role.name not in binding.columns]
        if missing:
            raise InvalidParameterError(
                f"{call.column} reads the {missing[0]} column: pass ", Keyword(missing[0], hint="its column")
            )


def _check_ranking_roles(binding: Binding) -> None:
    calls = binding.calls
    unweighted = [c.column for c in calls if not c.spec.weighted]
    if binding.weight is not None and unweighted:
        raise InvalidParameterError(
            f"{', '.join(unweighted)} take no row weights (a ranking metric orders rows, it does not weigh them): "
            "evaluate them in a call without ",
            Keyword("weight", python="weight="),
        )
    by_item = [c.column for c in calls if c.kwargs.get("ties") == "item"]
    if by_item and binding.item is None:
        raise InvalidParameterError(
            f"{', '.join(by_item)} break ties by item: pass ", Keyword("item", hint="the item/document id column")
        )
    if binding.judgments:
        others = [c.column for c in calls if c.spec.family != "ranking"]
        if others:
            raise InvalidParameterError(
                f"judgments give relevance to ranking metrics only; evaluate {', '.join(others)} over a labelled "
                "source",
                parameter="judgments",
            )
        if binding.item is None or binding.query is None:
            raise InvalidParameterError(
                "judgments are joined to the run by query and item: pass ", Keyword("query", hint="query id column"),
                " and ", Keyword("item", hint="item id column"),
            )  # fmt: skip
