"""The input rules as SQL: each step's ``failure`` raises ``error()`` with the message of
the first rule the data breaks, so the statement refuses bad data by itself.

The rules, their messages and their SQL and polars forms are written once, in
``rules/columns.py`` and ``rules/tables.py`` (and a family's rules on its second table
in the family: ``metrics/ranking/rules.py``, ``metrics/multiclass/rules.py``); this
module puts the SQL forms into steps: ``checks`` (the row rules, over ``base``) and
``unit_checks`` (a unit in every used row with ``ci_unit``; the queries and arms of the
units an interval is clustered by), and gives ``rules_sql``, with which the families
write theirs: ``run_checks`` (a run and its judgments) and ``class_checks`` (class
scores, after ``class_nan``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmetrics.binding import Binding
from sqlmetrics.rules.columns import (
    ERROR_PREFIX,
    MAX_WEIGHT_TOTAL,
    checks_for,
    counted_sql,
    message_parts,
    number_text_sql,
    weight_total_message,
)
from sqlmetrics.rules.tables import TableRule, unit_rules
from sqlmetrics.sqltext import templates


def checks_sql(binding: Binding, base_roles: Sequence[str]) -> str:
    """One row whose ``failure`` raises an error naming the first rule the data breaks.
    A rule on one of ``base_roles`` (base's grouping keys) is checked on base's groups;
    another is read from base's counter of its bad rows."""
    cases = []
    for check, metrics in checks_for(binding.calls, binding.weight is not None):
        before, counted, between = message_parts(check, binding.role_columns[check.role], metrics)
        if check.role in base_roles:
            count = f"SUM(CASE WHEN {check.sql} THEN n_all ELSE 0 END)"
            example = f"MIN(CASE WHEN {check.sql} THEN {check.role} END)"
        else:
            count, example = f"SUM(n_bad_{check.name})", f"MIN(bad_{check.name})"
        message = (
            f"{templates.literal(before)} || {counted_sql(counted, count)} || {templates.literal(between)}"
            f" || {number_text_sql(example)}"
        )
        cases.append(f"    WHEN {count} > 0 THEN error({message})")
    if binding.weight is not None:
        # the largest slice's summed weight, in the message too (a constant message would
        # be raised by PostgreSQL's planner whatever the data)
        totals = f"SELECT SUM(w) AS total FROM base GROUP BY {', '.join(binding.slices)}"
        largest = f"(SELECT MAX(total) FROM ({totals}) AS slice_weights)"
        before, after = weight_total_message(binding.weight)
        said = templates.literal(ERROR_PREFIX + before), templates.literal(after)
        message = f"{said[0]} || CAST({largest} AS VARCHAR) || {said[1]}"
        cases.append(f"    WHEN {largest} >= {templates.literal(MAX_WEIGHT_TOTAL)} THEN error({message})")
    if not cases:  # multi-class metrics without weights: no rule to check
        return "SELECT NULL AS failure"
    original = f"\nWHERE {binding.replicate_slice} = 0" if binding.bootstrap else ""  # a bootstrap's rows as they are
    return "SELECT CASE\n" + "\n".join(cases) + "\n  END AS failure\nFROM base" + original


def unit_checks_sql(binding: Binding) -> str:
    """The rules of ``tables.unit_rules``: a unit of ``ci_unit`` in every used row, each
    query within one unit, each unit within one arm."""
    return rules_sql(unit_rules(binding))


def rules_sql(rules: Sequence[TableRule]) -> str:
    """One row whose ``failure`` raises the first broken rule, each counted by its SQL
    form (count, example, FROM clause)."""
    selects, cases = [], []
    for rule in rules:
        count, example, source = rule.sql
        selects.append(f"(SELECT {count} AS n, {example} AS e FROM {source}) AS {rule.name}")
        message = (
            f"{templates.literal(ERROR_PREFIX + rule.head)} || {counted_sql(rule.counted, f'{rule.name}.n')}"
            f" || {templates.literal(rule.between)} || CAST({rule.name}.e AS VARCHAR)"
        )
        cases.append(f"    WHEN {rule.name}.n > 0 THEN error({message})")
    return "SELECT CASE\n" + "\n".join(cases) + "\n  END AS failure\nFROM " + "\nCROSS JOIN ".join(selects)
