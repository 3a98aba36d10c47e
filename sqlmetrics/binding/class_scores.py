"""The two shapes of class scores (``class_scores=``) as the bound call holds them:
``WideClassScores`` (one score column per class) and a long table's
``LongClassScoreColumns`` (and ``LongClassScores``, the table with them, as
``sm.long_scores`` makes it). Multiclass reads ``class_scores=`` into them
(``metrics/multiclass/class_scores.py``), and the one-vs-rest metrics read them; they
are here, below the families, because ``Request`` and ``Binding`` hold them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WideClassScores:
    """One score column per class: ``columns`` is ((class, column), ...) in the mapping's order."""

    columns: tuple[tuple[Any, str], ...]

    @property
    def classes(self) -> tuple[Any, ...]:
        return tuple(cls for cls, _ in self.columns)

    @property
    def kind(self) -> str:
        """``text`` for string classes, ``number`` for numbers and booleans (as ``rules.schema.class_kind``)."""
        return "text" if isinstance(self.columns[0][0], str) else "number"


@dataclass(frozen=True)
class LongClassScoreColumns:
    """The columns of a long class-score table: the row id (named alike in the source),
    the class and its score."""

    row_id: str
    class_: str
    score: str


@dataclass(frozen=True, eq=False)
class LongClassScores:
    """A long class-score table (any kind of source: a Parquet path, a frame, a table
    name with ``con=``) and its columns; made by ``long_scores``."""

    table: Any
    columns: LongClassScoreColumns
