"""The final SELECT of a metrics call: every metric left-joined onto ``row_counts`` by
slice (NULL-safe), the check steps cross-joined (their ``failure`` must be NULL), sorted
by the slice keys, the slices under the user's names."""

from __future__ import annotations

from sqlmetrics.binding import Binding
from sqlmetrics.compose.intermediates import check_steps
from sqlmetrics.sqltext import templates


def user_slices(binding: Binding, relation: str) -> list[str]:
    """``relation``'s slice columns under the user's names."""
    return [f"{relation}.{s} AS {templates.quote(user)}" for s, user in zip(binding.slices, binding.by)]


def final_select(binding: Binding, checks: list[str] | None = None) -> str:
    """One row per slice: the row counts, then each metric's columns; ``checks``: the
    steps whose ``failure`` must be NULL (default: the input rules', ``check_steps``)."""
    slices = binding.slices
    columns = [*user_slices(binding, "row_counts"), "row_counts.n_rows", "row_counts.n_excluded"]
    joins = []
    for call in binding.calls:
        cte, name = f"m_{call.column}", call.base_name
        columns.append(f"{cte}.{name} AS {call.column}")
        if binding.analytic(call):
            parts = ("lo", "hi", "se", "df") if binding.spread_columns else ("lo", "hi")
            columns += [f"{cte}.{name}_{part} AS {call.column}_{part}" for part in parts]
        if binding.max_error(call):  # a roll-up of rounded states: the bound of the error rounding caused
            columns.append(f"e_{call.column}.{name}_max_error AS {call.column}_max_error")
            joins.append(
                f"LEFT JOIN e_{call.column} ON {templates.same_slice(slices, 'row_counts', f'e_{call.column}')}"
            )
        columns += [f"COALESCE({cte}.{name}_{out}, 0) AS {call.column}_{out}" for out in call.spec.outputs]
        joins.append(f"LEFT JOIN {cte} ON {templates.same_slice(slices, 'row_counts', cte)}")
    order = f"\nORDER BY {templates.ascending(f'row_counts.{s}' for s in slices)}" if binding.by else ""
    checks = check_steps(binding) if checks is None else checks
    where = "\nWHERE " + " AND ".join(f"{name}.failure IS NULL" for name in checks) if checks else ""
    return (
        f"SELECT {', '.join(columns)}\nFROM row_counts\n"
        + "\n".join(joins)
        + "".join(f"\nCROSS JOIN {name}" for name in checks)
        + where
        + order
    )
