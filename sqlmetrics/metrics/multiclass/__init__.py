"""Multi-class classification: a predicted class (the prediction) against the true class (the label).

The steps their templates read (``INTERMEDIATES``, collected by the registry): the
confusion matrix and per-class counts (from ``base``), and one score histogram per class
with its running sums (one-vs-rest), each with its polars form (the running sums are
taken inside the one-vs-rest metrics' expressions in polars). The polars engine reads
the per-class values and the averages through the names exported here.
Its ``FAMILY`` declares the roles ``prediction`` and ``class_scores``, and its hooks
place its own steps around the shared ones (``class_score_rows`` before, ``class_nan``
and ``class_checks`` after: ``class_score_rows.py``), give its rules on class scores,
and read long class scores and build the checked class score histogram for the polars
engine (``rules.py``). ``class_scores=`` is read in ``class_scores.py``; the tables of classes
(``sm.confusion_matrix``, ``sm.per_class``) are statements of the composer's
(``compose/class_tables.py``).
"""

from sqlmetrics.metrics.multiclass._classes import COUNTS, class_confusion, class_counts, per_class_values
from sqlmetrics.metrics.multiclass._ovr import averaged, class_score_hist, wide_rows
from sqlmetrics.metrics.multiclass.class_score_rows import (
    after_shared,
    before_shared,
    class_score_checks,
    class_score_steps,
)
from sqlmetrics.metrics.multiclass.class_scores import long_scores
from sqlmetrics.metrics.multiclass.rules import (
    check_class_schema,
    check_long_schema,
    checked_class_score_hist,
    class_rules,
    long_table,
)
from sqlmetrics.spec import Role
from sqlmetrics.steps import Family, Folded, Hooks, Intermediate, cumulative

INTERMEDIATES = {
    "class_confusion": Intermediate("intermediates/class_confusion.sql", polars=class_confusion),
    "class_counts": Intermediate("intermediates/class_counts.sql", after=("class_confusion",), polars=class_counts),
    "class_score_hist": Intermediate("intermediates/class_score_hist.sql", polars=class_score_hist),
    "class_score_cum": cumulative(
        "class_score_hist",
        Folded(
            "class_histogram",
            "each class's from_class_histogram (the binary from_histogram) sorts that class's histogram and takes "
            "the running sums in its own expression, within one aggregation per slice and class",
        ),
        keys=("class",),
    ),
}

# The roles multi-class metrics add (the predicted class, compared with the label as a class,
# or one score per class, one-vs-rest) and their hooks.
FAMILY = Family(
    "multiclass",
    roles=(
        Role("prediction", "the predicted class (a number, string or boolean), compared with the label", after="score",
             generic=False),
        Role("class_scores", "one score per class: {class: score column}, or sm.long_scores(table, ...)",
             option="--class-scores", metavar="CLASS=COLUMN", annotation="ClassScores | None", after="judgments",
             generic=False, table=True),
    ),
    hooks=Hooks(steps_before=before_shared, steps_after=after_shared, table_rules=class_rules,
                check_steps=class_score_checks, shared_steps=class_score_steps, source_schema=check_class_schema,
                second_schema=check_long_schema, polars_second=long_table, polars_steps=checked_class_score_hist),
    summary="a class label and a predicted class (--prediction) or class scores",
    notes={
        "long_scores": "long_scores: the long class scores under canonical names (row_id, class, score)",
        "long_rows": "long_rows: per row id, its class rows and its scored class rows",
        "source_rows": "source_rows: the source under canonical names, before the long class scores are joined",
        "class_score_rows": "class_score_rows: one row per used row and class, with the class's score",
        "class_nan": "class_nan: per class, the rows whose class score is NaN",
        "class_checks": "class_checks: the class-score rules; error() refuses the query with the first one broken",
    },
)  # fmt: skip

__all__ = [
    "COUNTS",
    "FAMILY",
    "INTERMEDIATES",
    "averaged",
    "long_scores",
    "per_class_values",
    "wide_rows",
]
