"""The class-score steps of one-vs-rest metrics: ``class_score_rows`` (one row per used
row and class, unpivoted from wide columns in one pass over ``input`` or joined from the
long table) and ``class_nan`` (per class, the rows whose class score is NaN, which the
class-score rules read), which multiclass's ``Hooks`` places: ``class_score_rows``
before the shared steps (``before_shared``), ``class_nan`` and ``class_checks`` after
them (``after_shared``), for a call with class scores."""

from __future__ import annotations

from sqlmetrics.binding import Binding
from sqlmetrics.metrics.multiclass.rules import class_checks_sql
from sqlmetrics.sqltext import templates


def class_score_rows_sql(binding: Binding) -> str:
    """One row per used row and class: the class, its score, the row's true class and
    weight. Wide scores are unpivoted in one pass over ``input`` (a CROSS JOIN with the
    classes, a CASE picking each class's column); long scores are joined by row id."""
    if binding.long_scores is not None:
        slices = ", ".join(f"i.{s}" for s in binding.slices)
        return (
            f"SELECT {slices}, s.class, s.score, i.true_class, i.w\nFROM input AS i\n"
            "JOIN long_scores AS s ON i.row_id = s.row_id\nWHERE i.w IS NOT NULL"
        )
    picks = " ".join(f"WHEN {i} THEN class_score_{i}" for i in range(1, len(binding.wide_scores) + 1))
    return (
        f"SELECT {', '.join(binding.slices)}, c.class, CASE c.i {picks} END AS score, true_class, w\n"
        f"FROM input\nCROSS JOIN {_classes_values(binding)}\nWHERE w IS NOT NULL"
    )


def _classes_values(binding: Binding) -> str:
    """The wide classes as a table c(i, class), i their position in the mapping."""
    rows = ", ".join(f"({i}, {templates.literal(cls)})" for i, (cls, _) in enumerate(binding.wide_scores, 1))
    return f"(VALUES {rows}) AS c(i, class)"


CLASS_NAN_SQL = "SELECT class, CAST(SUM(n) AS BIGINT) AS n\nFROM class_score_hist\nWHERE isnan(score)\nGROUP BY class"


def before_shared(binding: Binding, portable: bool) -> dict[str, str]:
    """``class_score_rows``, for a call with class scores."""
    return {"class_score_rows": class_score_rows_sql(binding)} if binding.class_scores is not None else {}


def class_score_checks(binding: Binding) -> tuple[str, ...]:
    """The step refusing bad class scores (``class_checks``), with class scores bound."""
    return ("class_checks",) if binding.class_scores is not None else ()


def class_score_steps(binding: Binding) -> tuple[str, ...]:
    """The shared step ``class_checks`` reads (``class_score_hist``), with class scores
    bound, whatever the metrics read."""
    return ("class_score_hist",) if binding.class_scores is not None else ()


def after_shared(binding: Binding) -> dict[str, str]:
    """``class_nan`` and ``class_checks`` (after ``class_score_hist``, which they read),
    for a call with class scores."""
    if binding.class_scores is None:
        return {}
    return {"class_nan": CLASS_NAN_SQL, "class_checks": class_checks_sql(binding)}
