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

from sqlmetrics.class_scores import LongClassScores

ClassScores = Mapping[Any, str] | LongClassScores
COMPARE_LEVEL = 0.95  # sm.compare's default ci, which to_sql and report take for a comparison without ci
# ci_unit's value declaring each row its own unit (rows assigned their arm one by one): not a
# column; a source that also has a column of this name is refused (``rules.schema``), so
# that the word never stands for a column
ROWS = "rows"


@dataclasses.dataclass(frozen=True)
class Request:
    """The keywords of one call, by their public names and with ``to_sql``'s defaults
    (each means what leaving the keyword out means): ``evaluate``'s docstring says what
    each does. ``scores`` (or ``predictions``) and ``arm`` ask for ``compare``'s paired or arms statement,
    ``state`` and ``rollup`` (``to_sql``'s) for the statements of a roll-up."""

    label: str = "label"
    score: str | None = None
    prediction: str | None = None
    query: str | None = None
    item: str | None = None
    weight: str | None = None
    by: str | Sequence[str] | None = None
    judgments: Any = None
    class_scores: ClassScores | None = None
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

    @classmethod
    def of(cls, arguments: Mapping[str, Any]) -> Request:
        """The request of a public function's ``arguments`` (its ``locals()`` on entry):
        those named like a field; the others (``source``, ``engine``, ...) are the
        function's own, and a field the function has no keyword for keeps its default."""
        fields = (field.name for field in dataclasses.fields(cls))
        return cls(**{name: arguments[name] for name in fields if name in arguments})

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
