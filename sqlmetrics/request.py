"""``Request``: what one call of ``evaluate``, ``to_sql``, ``compare`` or ``report`` asks
for (the columns it binds, its interval, the scores or arms it compares), built once
from the call's keywords and passed down whole.

The public functions write their keywords out, so that ``help``, editors and type
checkers show each one (``tests/test_public_signatures.py`` pins them); each builds its
request with ``Request.of(locals())`` as its first statement, and everything below it
(``api.prepare``, ``prepare_paired``, ``prepare_arms``, ``compare``'s differences,
``report``) reads the fields by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from sqlmetrics.binding import ROWS
from sqlmetrics.registry import roles

COMPARE_LEVEL = 0.95  # sm.compare's default ci, which to_sql and report take for a comparison without ci


def _default_columns() -> Mapping[str, Any]:
    """What leaving every role's keyword out binds: each declared role's default."""
    return {role.name: role.default for role in roles()}


@dataclasses.dataclass(frozen=True, init=False)
class Request:
    """The keywords of one call, by their public names and with ``to_sql``'s defaults
    (each means what leaving the keyword out means): ``evaluate``'s docstring says what
    each does. ``columns`` holds the roles' keywords (``spec.Role``: ``label``,
    ``score``, ..., and every role a family declares), one per declared role, read as
    ``request.label``, ``request.score``, ...; ``scores`` (or ``predictions``) and
    ``arm`` ask for ``compare``'s paired or arms statement, ``state`` and ``rollup``
    (``to_sql``'s) for the statements of a roll-up."""

    columns: Mapping[str, Any]
    by: str | Sequence[str] | None = None
    ci: float | None = None
    ci_method: str = "auto"
    ci_unit: str | None = None
    resamples: int = 200
    seed: int = 0
    scores: Sequence[str] | None = None
    predictions: Sequence[str] | None = None
    arm: str | None = None
    state: bool = False
    rollup: bool = False

    def __init__(self, columns: Mapping[str, Any] | None = None, **keywords: Any) -> None:
        """A request of ``columns`` (role -> keyword) and ``keywords``: a role's keyword by
        its name (``label="click"``, which ``dataclasses.replace`` also takes) or a field;
        a role not given keeps its default."""
        declared = _default_columns()
        fields = {field.name: field.default for field in dataclasses.fields(self) if field.name != "columns"}
        unknown = sorted(set(keywords) - set(declared) - set(fields))
        if unknown:
            raise TypeError(f"Request() got an unexpected keyword argument {unknown[0]!r}")
        given = {name: value for name, value in keywords.items() if name in declared}
        object.__setattr__(self, "columns", {**declared, **(columns or {}), **given})
        for name, default in fields.items():
            object.__setattr__(self, name, keywords.get(name, default))

    @classmethod
    def of(cls, arguments: Mapping[str, Any]) -> Request:
        """The request of a public function's ``arguments`` (its ``locals()`` on entry):
        those named like a role or a field; the others (``source``, ``engine``, ...) are
        the function's own, and a role or field the function has no keyword for keeps
        its default."""
        names = [*_default_columns(), *(field.name for field in dataclasses.fields(cls) if field.name != "columns")]
        return cls(**{name: arguments[name] for name in names if name in arguments})

    def __getattr__(self, name: str) -> Any:
        """A role's keyword by its name (``request.label``), from ``columns``."""
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(name)

    @property
    def bound(self) -> tuple[str, ...]:
        """The roles given a column or a table (a keyword not None), which route a metric's
        name (``registry.routed``: with a predicted class ``"f1"`` is ``multiclass_f1``)."""
        return tuple(role for role, value in self.columns.items() if value is not None)

    @property
    def slices(self) -> list[str]:
        """The slice columns ``by`` names, as a list."""
        return [self.by] if isinstance(self.by, str) else list(self.by or [])

    def at_compare_level(self) -> Request:
        """This request with ``compare``'s level (0.95) when it has no ``ci``."""
        return self if self.ci is not None else dataclasses.replace(self, ci=COMPARE_LEVEL)

    @property
    def unit(self) -> str | None:
        """The unit column ``ci_unit`` names: None for none or for ``ci_unit="rows"``
        (``ROWS``: the rows themselves, each independent)."""
        return None if self.ci_unit == ROWS else self.ci_unit

    @property
    def paired(self) -> bool:
        """Whether the call compares two outputs of the same rows: ``scores`` or ``predictions``."""
        return self.scores is not None or self.predictions is not None
