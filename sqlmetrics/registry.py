"""The metric registry: discovers every ``SPEC`` under ``sqlmetrics.metrics`` and every
family's shared steps (``INTERMEDIATES``) and declaration (``FAMILY``: its roles and
hooks), and turns names like ``"auc"`` or ``"ndcg@10"`` into validated metric calls."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Collection, Iterable
from functools import cache
from typing import Any

from sqlmetrics import metrics as _metrics_package
from sqlmetrics.errors import InvalidParameterError, UnknownMetricError, closest, shown
from sqlmetrics.spec import CORE_ROLES, MULTICLASS_PREFIX, POLARS_FORMS, Metric, MetricCall, Role
from sqlmetrics.steps import Family, Hooks, Intermediate, reads_among


@cache
def registry() -> dict[str, Metric]:
    """Every registered metric by name, discovered from the metric modules.

    A module under ``sqlmetrics/metrics/<family>/`` registers a metric by defining
    ``SPEC``; modules whose name starts with ``_`` hold shared helpers.
    """
    found: dict[str, Metric] = {}
    prefix = _metrics_package.__name__ + "."
    for info in pkgutil.walk_packages(_metrics_package.__path__, prefix):
        if info.name.rsplit(".", 1)[-1].startswith("_") or info.ispkg:
            continue
        module = importlib.import_module(info.name)
        spec: Metric | None = getattr(module, "SPEC", None)
        if spec is None:
            continue
        if spec.name in found:
            raise RuntimeError(f"metric {spec.name!r} is registered twice")
        _check_polars_form(spec, module)
        found[spec.name] = Metric(**{**spec.__dict__, "module": module, "roles": _declared(spec)})
    return dict(sorted(found.items()))


def _declared(spec: Metric) -> tuple[Role, ...]:
    """The declarations of the roles a family adds (``Role.generic``) that ``spec`` needs;
    a role no family declares is the metric author's mistake, named."""
    declared = {role.name: role for role in roles()}
    unknown = [role for role in spec.needs if role not in declared]
    if unknown:
        raise RuntimeError(f"metric {spec.name!r} needs the role {unknown[0]!r}, which no family declares")
    return tuple(declared[role] for role in spec.needs if declared[role].generic)


@cache
def intermediates() -> dict[str, Intermediate]:
    """Every shared step by name, from the ``INTERMEDIATES`` each family package
    (``sqlmetrics/metrics/<family>/__init__.py``) declares; a name declared twice is an
    error."""
    found: dict[str, Intermediate] = {}
    for info in pkgutil.iter_modules(_metrics_package.__path__, _metrics_package.__name__ + "."):
        if not info.ispkg:
            continue
        declared: dict[str, Intermediate] = getattr(importlib.import_module(info.name), "INTERMEDIATES", {})
        twice = sorted(set(declared) & set(found))
        if twice:
            raise RuntimeError(f"intermediate {twice[0]!r} is declared twice (again in {info.name})")
        found |= declared
    return found


@cache
def families() -> dict[str, Family]:
    """Every family's declaration (``FAMILY``, a ``steps.Family``, in its package's
    ``__init__.py``) by name, in the order of the packages; a family package without one
    declares no role and no hook."""
    found: dict[str, Family] = {}
    for info in pkgutil.iter_modules(_metrics_package.__path__, _metrics_package.__name__ + "."):
        if info.ispkg:
            name = info.name.rsplit(".", 1)[1]
            found[name] = getattr(importlib.import_module(info.name), "FAMILY", None) or Family(name)
    return found


@cache
def roles() -> tuple[Role, ...]:
    """Every role, the core's (``spec.CORE_ROLES``) and each family's, in keyword order:
    a role declared ``after`` another follows it (and the roles placed after it before),
    the others in the order declared. A role declared twice is an error."""
    ordered: list[Role] = []
    for role in (*CORE_ROLES, *(role for family in families().values() for role in family.roles)):
        if role.name in (known.name for known in ordered):
            raise RuntimeError(f"role {role.name!r} is declared twice")
        ordered.append(role)
    placed = [role for role in ordered if not role.after]
    waiting = [role for role in ordered if role.after]
    while waiting:
        names = [known.name for known in placed]
        ready = next((role for role in waiting if role.after in names), None)
        if ready is None:
            raise RuntimeError(f"role {waiting[0].name!r} is declared after {waiting[0].after!r}, which is no role")
        anchor = names.index(ready.after)
        while anchor + 1 < len(placed) and placed[anchor + 1].after == ready.after:
            anchor += 1  # after the roles placed after the same one before it
        placed.insert(anchor + 1, ready)
        waiting.remove(ready)
    return tuple(placed)


def hooks() -> list[Hooks]:
    """Each family's hooks (``steps.Hooks``, in its ``FAMILY``: its own steps, its rules on
    a second table, its check of a result), in the families' order."""
    return [family.hooks for family in families().values()]


def reads(name: str, steps: tuple[str, ...]) -> bool:
    """Whether a metric reading ``steps`` reads intermediate ``name``, directly or not."""
    return reads_among(name, steps, intermediates())


def _check_polars_form(spec: Metric, module: Any) -> None:
    """A metric author's mistake, named: an unknown polars form, or a function the form
    needs (``spec.POLARS_FORMS``, and one per extra output of an expression) missing."""
    if spec.polars_form not in POLARS_FORMS:
        raise RuntimeError(
            f"metric {spec.name!r} ({module.__name__}): polars_form must be one of "
            f"{', '.join(POLARS_FORMS)}, got {spec.polars_form!r}"
        )
    needed = [*POLARS_FORMS[spec.polars_form], *(spec.outputs if spec.is_expression else ())]
    missing = [name for name in needed if not callable(getattr(module, name, None))]
    if missing:
        raise RuntimeError(
            f"metric {spec.name!r} ({module.__name__}): its polars form {spec.polars_form!r} needs "
            f"{', '.join(missing)}, which the module does not define"
        )


def get(name: str) -> Metric:
    """The spec of a registered metric, or an error listing the closest names."""
    specs = registry()
    if name not in specs:
        raise UnknownMetricError(f"unknown metric {name!r}{closest(name, specs)}")
    return specs[name]


def metric(name: str, **params: Any) -> MetricCall:
    """A metric with parameters: ``metric("fbeta", beta=2)``, ``metric("ndcg@10")``, or the
    command line's spec ``metric("fbeta:beta=2")``.

    ``name@k`` sets the parameter ``k``; where a ranking metric shares its name with a
    classification metric (``precision``, ``recall``), the ranking one is registered as
    ``precision@k`` and ``"precision@10"`` means it. A parameter that only the
    multi-class metric of that name has selects it: ``metric("f1", average="weighted")``
    is ``multiclass_f1``. Parameters not given take their defaults; every value is
    checked against the parameter's rule.
    """
    if ":" in name:
        name, given = parse_metric(name)
        twice = sorted(set(given) & set(params))
        if twice:
            raise InvalidParameterError(f"{name}: parameter {twice[0]!r} given twice (in the spec and as a keyword)")
        params = {**given, **params}
    if "@" in name and name not in registry():
        name, k_text = name.split("@", 1)
        if "k" in params:
            raise InvalidParameterError(f"{name}: k given twice ('@{k_text}' and k={params['k']!r})")
        params["k"] = _parse_k(name, k_text)
        if f"{name}@k" in registry():
            name = f"{name}@k"
    elif "k" in params and f"{name}@k" in registry():
        name = f"{name}@k"
    name = _multiclass_by_params(name, params)
    return get(name).called(params, elsewhere=lambda key: _other_form(name, key))


def _multiclass_by_params(name: str, params: dict[str, Any]) -> str:
    """``multiclass_<name>`` when some parameter is one only it has, else ``name``."""
    plain, prefixed = registry().get(name), registry().get(MULTICLASS_PREFIX + name)
    if plain is None or prefixed is None:
        return name
    own = {p.name for p in plain.params}
    theirs = {p.name for p in prefixed.params}
    return prefixed.name if set(params) - own and set(params) <= theirs else name


def _other_form(name: str, key: str) -> str:
    """Where the binary and the multi-class metric of one name share it, a note that the
    other takes ``key`` (a call mixing their parameters selects neither)."""
    plain = name.removeprefix(MULTICLASS_PREFIX)
    other = registry().get(MULTICLASS_PREFIX + plain if plain == name else plain)
    if other is None or key not in {p.name for p in other.params}:
        return ""
    theirs = ", ".join(p.name for p in other.params)
    return f"; {key!r} is {other.name}'s (parameters: {theirs}): a call takes the parameters of one of them"


def _parse_k(name: str, text: str) -> int:
    """The ``k`` of ``name@k``: an integer numeral of ASCII digits (``INTEGER_NUMERAL``)."""
    if re.fullmatch(INTEGER_NUMERAL, text.strip()) is None:
        raise InvalidParameterError(f"{name}: parameter 'k' must be an integer >= 1, got {text!r}")
    return int(text.strip())


def routed(name: str, bound: Collection[str] = ()) -> str:
    """The registered name a metric name means. Every ``multiclass_<name>`` answers to its
    plain name when the roles it reads that a family adds (instead of the score) are
    among the ``bound`` ones: with a predicted class bound, ``"f1"`` means
    ``multiclass_f1``; with class scores, ``"auc"`` means ``multiclass_auc``. Otherwise,
    and for every other name, the name itself."""
    prefixed = MULTICLASS_PREFIX + name
    spec = registry().get(prefixed)
    if spec is None:
        return name
    core = {role.name for role in CORE_ROLES}
    return prefixed if set(spec.needs) - core <= set(bound) else name


def resolve(metrics: Iterable[str | MetricCall] | str | MetricCall, *, bound: Collection[str] = ()) -> list[MetricCall]:
    """Metric names and calls as a list of calls with distinct result columns. Names are
    ``routed`` by the roles ``bound`` (the call's roles given a column or table): with a
    predicted class ``"accuracy"`` is ``multiclass_accuracy``, with class scores
    ``"auc"`` is ``multiclass_auc``; calls are taken as they are."""
    if isinstance(metrics, (str, MetricCall)):
        metrics = [metrics]
    if metrics is None or not isinstance(metrics, Iterable):
        raise InvalidParameterError(
            f"metrics must be a metric name, a metric call or a list of them, got {shown(metrics)}"
        )
    metrics = list(metrics)
    others = [m for m in metrics if not isinstance(m, (str, MetricCall))]
    if others:
        raise InvalidParameterError(
            f"metrics must be names (e.g. 'auc') or metric calls (e.g. sm.fbeta(beta=2)), got {others[0]!r}"
        )
    calls = [m if isinstance(m, MetricCall) else _named_call(m, bound) for m in metrics]
    if not calls:
        raise InvalidParameterError("no metrics given")
    seen: dict[str, MetricCall] = {}
    for call in calls:
        for column in call.columns:
            if column in seen:
                raise InvalidParameterError(f"metrics {seen[column]!r} and {call!r} both produce the column {column!r}")
            seen[column] = call
    return calls


def _named_call(text: str, bound: Collection[str]) -> MetricCall:
    """A name or spec (``"fbeta:beta=2"``) as a call, its name ``routed``."""
    name, params = parse_metric(text)
    return metric(routed(name, bound), **params)


# The numerals a metric spec's value is read as a number from (the dbt package reads them
# with the same patterns: ``dbt.package.catalog``): ASCII digits only, as written in SQL.
# Python's int() and float() also take other scripts' digits ('١٠') and underscores
# ('1_0'), which would read a typo as another number. The integer's digits are bounded
# by what int() reads (a longer one is read as a float: inf); the float's numeral
# includes float()'s nan and inf, which a number parameter refuses as not finite.
INTEGER_NUMERAL = "[+-]?[0-9]{1,4300}"
FLOAT_NUMERAL = "[+-]?(?:(?:[0-9]+[.]?[0-9]*|[.][0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))"


def parse_value(text: str) -> int | float | str:
    """A parameter value as an int (``INTEGER_NUMERAL``), else a float
    (``FLOAT_NUMERAL``), else the string itself."""
    if re.fullmatch(INTEGER_NUMERAL, text):
        return int(text)
    if re.fullmatch(FLOAT_NUMERAL, text):
        return float(text)
    return text


def parse_metric(text: str) -> tuple[str, dict[str, Any]]:
    """``"fbeta:beta=2:threshold=0.3"`` -> ``("fbeta", {"beta": 2, "threshold": 0.3})``."""
    name, *assignments = (part.strip() for part in text.split(":"))
    if not name:
        raise InvalidParameterError(f"metric spec {text!r} has no metric name")
    params: dict[str, Any] = {}
    for assignment in assignments:
        key, equals, value = (part.strip() for part in assignment.partition("="))
        if not (key and equals and value):
            raise InvalidParameterError(
                f"metric spec {text!r}: write parameters as {name}:PARAM=VALUE, got {assignment!r}"
            )
        if key in params:
            raise InvalidParameterError(f"metric spec {text!r} sets {key!r} twice")
        params[key] = parse_value(value)
    return name, params
