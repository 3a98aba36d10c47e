"""Tables of classes: ``sm.confusion_matrix`` and ``sm.per_class``, each one statement
over the steps every multi-class metric reads (input, base, checks, class_confusion,
class_counts) with a final SELECT of its own."""

from __future__ import annotations

from sqlmetrics.binding import Binding
from sqlmetrics.compose.plan import base_keys, base_sql, input_sql
from sqlmetrics.compose.select import user_slices
from sqlmetrics.compose.statement import assemble
from sqlmetrics.registry import intermediates
from sqlmetrics.rules.sql import checks_sql
from sqlmetrics.sqltext import templates


def _class_steps(binding: Binding, source_sql: str) -> dict[str, str]:
    """input, base and its checks, class_confusion and class_counts: the steps every
    table of classes reads (binding has a prediction and no metric that reads more)."""
    by = ", ".join(binding.slices)
    ctes = {
        "input": input_sql(binding, source_sql),
        "base": base_sql(binding),
        "checks": checks_sql(binding, base_keys(binding)),
    }
    for name in ("class_confusion", "class_counts"):
        ctes[name] = templates.render(intermediates()[name].template, {"by": by}, binding.slices)
    return ctes


def compose_confusion_matrix(binding: Binding, source_sql: str) -> str:
    """``sm.confusion_matrix``: per slice, one row per pair of true and predicted class
    that occurs in the used rows, with its rows ``n`` and (weighted) its ``weight``."""
    classes = [f"c.{key} AS {role}" for key, role in binding.class_roles.items()]
    columns = [*user_slices(binding, "c"), *classes, "c.n"]
    if binding.weight is not None:
        columns.append("c.w AS weight")
    order = [*(f"c.{s}" for s in binding.slices if binding.by), "c.true_class", "c.predicted_class"]
    select = (
        f"SELECT {', '.join(columns)}\nFROM class_confusion AS c\nCROSS JOIN checks\n"
        f"WHERE checks.failure IS NULL\nORDER BY {templates.ascending(order)}"
    )
    return assemble(_class_steps(binding, source_sql), select)


def compose_per_class(binding: Binding, source_sql: str) -> str:
    """``sm.per_class``: per slice and class, the support and each metric's per-class
    value (the column of ``sql/multiclass/per_class.sql`` its module names), one
    ``per_class_<i>`` step per F-score β in use, joined by slice and class."""
    ctes = _class_steps(binding, source_sql)
    betas = sorted({call.kwargs.get("beta", 1.0) for call in binding.calls})
    for i, beta in enumerate(betas):
        values = {"by": ", ".join(binding.slices), "beta": templates.literal(beta)}
        ctes[f"per_class_{i}"] = templates.render("multiclass/per_class.sql", values, binding.slices)
    columns = [*user_slices(binding, "p0"), "p0.class AS class", "p0.support"]
    columns += [
        f"p{betas.index(call.kwargs.get('beta', 1.0))}.{call.spec.per_class} AS {call.column}" for call in binding.calls
    ]
    joins = [
        f"JOIN per_class_{i} AS p{i} ON {templates.same_slice(binding.slices, 'p0', f'p{i}')} AND p0.class = p{i}.class"
        for i in range(1, len(betas))
    ]
    order = [*(f"p0.{s}" for s in binding.slices if binding.by), "p0.class"]
    select = (
        f"SELECT {', '.join(columns)}\nFROM per_class_0 AS p0\n"
        + "".join(join + "\n" for join in joins)
        + f"CROSS JOIN checks\nWHERE checks.failure IS NULL\nORDER BY {templates.ascending(order)}"
    )
    return assemble(ctes, select)
