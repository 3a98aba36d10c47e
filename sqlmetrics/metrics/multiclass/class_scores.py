"""Class scores for the one-vs-rest multi-class metrics (``multiclass_auc``,
``multiclass_average_precision``), in one of two shapes:

* **wide**: one score column per class in the source, given as a mapping
  ``{class: column}`` (``{"setosa": "p_setosa", ...}``); the classes are its keys;
* **long**: a second table with one row per (row id, class) and its score, given as
  ``sm.long_scores(table, row_id="id", class_="class", score="score")``; the row id
  column is named alike in the source and in the table, and the classes are the
  distinct classes of the table.

Classes are values (numbers, strings or booleans, compared with the label as they are);
they reach SQL only as typed literals, and column names only as quoted identifiers.

Here ``class_scores=`` is read (``parse``) and ``sm.long_scores`` made; the shapes
themselves, which the bound call holds, are the core's (``sqlmetrics/binding/class_scores.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from sqlmetrics.binding.class_scores import LongClassScoreColumns, LongClassScores, WideClassScores
from sqlmetrics.errors import InvalidParameterError, shown

# What ``class_scores=`` takes (the public signatures' annotation): {class: score column}, or
# ``long_scores(table, ...)``.
ClassScores = Mapping[Any, str] | LongClassScores


def long_scores(table: Any, *, row_id: str, class_: str = "class", score: str = "score") -> LongClassScores:
    """Class scores as a long table: one row per (row id, class) with the class's score.

    ``row_id`` names the column that identifies a row, in the source and in ``table``;
    ``class_`` and ``score`` name the table's class and score columns. Pass the result as
    ``class_scores=`` to ``sm.evaluate``:

    >>> import polars as pl, sqlmetrics as sm
    >>> rows = pl.DataFrame({"id": [1, 2, 3], "y": ["a", "b", "c"]})
    >>> scores = pl.DataFrame({"id": [1, 1, 1, 2, 2, 2, 3, 3, 3], "cls": ["a", "b", "c"] * 3,
    ...                        "p": [.8, .1, .1, .3, .4, .3, .2, .2, .6]})
    >>> long = sm.long_scores(scores, row_id="id", class_="cls", score="p")
    >>> sm.evaluate(rows, ["auc"], label="y", class_scores=long).row(0)  # n_rows, n_excluded, auc, classes, skipped
    (3, 0, 1.0, 3, 0)
    """
    for name, value in (("row_id", row_id), ("class_", class_), ("score", score)):
        if not isinstance(value, str):
            raise InvalidParameterError(f"long_scores: {name} must be a column name, got {shown(value)}")
    return LongClassScores(table, LongClassScoreColumns(row_id, class_, score))


def parse(class_scores: Any) -> tuple[WideClassScores | LongClassScoreColumns | None, Any]:
    """``class_scores=`` as the binding's description of it and the long table (None for
    the wide shape or without class scores)."""
    if class_scores is None:
        return None, None
    if isinstance(class_scores, LongClassScores):
        return class_scores.columns, class_scores.table
    if not isinstance(class_scores, Mapping):
        raise InvalidParameterError(
            "class_scores must be a mapping {class: score column} or sm.long_scores(table, row_id=...), "
            f"got a {type(class_scores).__name__}",
            parameter="class_scores",
        )
    return _wide(class_scores), None


def _wide(mapping: Mapping[Any, Any]) -> WideClassScores:
    columns = []
    for cls, column in mapping.items():
        cls = cls.item() if hasattr(cls, "item") else cls  # numpy scalars
        if not isinstance(column, str):
            raise InvalidParameterError(
                f"class_scores: the score column of class {cls!r} must be a name, got {shown(column)}"
            )
        if not isinstance(cls, (str, int, float)) or (isinstance(cls, float) and not math.isfinite(cls)):
            raise InvalidParameterError(
                f"class_scores: a class must be a string, a number or a boolean, got {cls!r} ({type(cls).__name__})"
            )
        columns.append((cls, column))
    if len(columns) < 2:
        raise InvalidParameterError(f"class_scores: one-vs-rest needs at least two classes, got {len(columns)}")
    kinds = {isinstance(cls, str) for cls, _ in columns}
    if len(kinds) > 1:
        raise InvalidParameterError(
            f"class_scores: classes must be all strings or all numbers (or booleans), got {[c for c, _ in columns]}"
        )
    return WideClassScores(tuple(columns))
