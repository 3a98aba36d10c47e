"""The bootstrap by unit of a function of sums over rows (``ci_unit=`` with
``ci_method="bootstrap"``: the weighted means logloss, brier, score_mean, label_mean,
mae, mse, mean_error, mape, calibration's Σ w·p / Σ w·y, and the metrics of the
confusion counts at a threshold, accuracy, precision, recall, specificity, f1, fbeta,
balanced_accuracy, mcc), from each unit's sums rather than its rows.

All of a unit's rows share its Poisson count c, so a replicate's sums are

    S_jr = Σ_u c_ur·(Σ_k w·a_j),

the sums over unit u's rows k of the metric's summands a_j (``Metric.sums``; for a
mean, its interval's row value x and 1), and its value the metric of them: the
statement reads the rows once into one row per slice and unit, then R rows per unit:
R × units rather than R × rows. The counts are the row bootstrap's
(``sqlmetrics.binding.bootstrap``: the same unit numbers, hash and seed), so the replicates, and
the interval, are the same numbers as resampling the units' rows.
"""

from __future__ import annotations

from sqlmetrics.binding import Binding, bootstrap
from sqlmetrics.binding.bootstrap import Bootstrap
from sqlmetrics.compose import shared_steps
from sqlmetrics.compose.intermediates import check_steps
from sqlmetrics.compose.statement import assemble, indent
from sqlmetrics.spec import MetricCall, SumsOfRows
from sqlmetrics.sqltext import templates

# the interval methods whose metric is the weighted mean of a row value (slope 1)
_MEANS = ("row_mean", "residual_mean")


def unit_sums(call: MetricCall) -> tuple[SumsOfRows, str] | None:
    """``call`` as a function of sums Σ w·a over the used rows where c: (its sums, with
    the call's parameters filled in, and c, SQL of a row's score and label); None for a
    metric of another form. A weighted mean over rows (its interval's row value, slope
    1) or declared sums (``Metric.sums``)."""
    if call.spec.sums is not None:
        params = {name: templates.literal(value) for name, value in call.params}
        summands = tuple(templates.fill(sql, params) for sql in call.spec.sums.summands)
        return SumsOfRows(summands, call.spec.sums.value), "TRUE"
    interval = call.spec.interval
    values = dict(interval.values) if interval is not None else {}
    if interval is not None and interval.name in _MEANS and values.get("slope") == "1":
        return SumsOfRows.ratio(values["value"], "1"), values["where"]
    return None


def sum_names(call_index: int, sums: SumsOfRows) -> dict[str, str]:
    """The columns holding call ``call_index``'s sums, by the names its value reads (s1, ...)."""
    return {f"s{j}": f"s_{call_index}_{j}" for j in range(1, len(sums.summands) + 1)}


def sums_per_unit(call: MetricCall) -> bool:
    """Whether a bootstrap by unit takes ``call`` from each unit's sums (a metric with
    companion columns, mape's skipped rows, is resampled with its rows)."""
    return unit_sums(call) is not None and not call.spec.outputs


def compose_unit_bootstrap(binding: Binding, source_sql: str, resampling: Bootstrap) -> str:
    """The statement of ``resampling`` (a bootstrap by unit) of ``binding``'s calls (every
    one ``sums_per_unit``; ``binding.cluster`` the unit, no bootstrap of its own): a row
    per slice and replicate (0: the data as it is) with each call's value, as the row
    bootstrap's statement gives them, once the input rules hold."""
    by = ", ".join(binding.slices)
    unit_columns, replicate_columns, values, totals = [], [], [], []
    for i, call in enumerate(binding.calls):
        sums, where = unit_sums(call)
        kept = f"w IS NOT NULL AND ({where})"
        names = sum_names(i, sums)
        for summand, name in zip(sums.summands, names.values()):
            unit_columns.append(f"SUM(CASE WHEN {kept} THEN w * ({summand}) END) AS {name}")
            replicate_columns.append(f"SUM(c * {name}) AS {name}")
            totals.append(name)
        values.append(f"{templates.fill(sums.value, names)} AS {call.column}")
    ctes = shared_steps(binding, source_sql)
    ctes |= {
        "units": (
            "-- each unit's sums (a row without a unit is not resampled, as in the row bootstrap) and its\n"
            "-- number, the row bootstrap's: the units in order (numbered here, before they are replicated)\n"
            f"SELECT {by}, unit_id, {', '.join(unit_columns)}, {bootstrap.unit_id_sql('unit_id', [])} AS unit_number\n"
            f"FROM input\nWHERE unit_id IS NOT NULL\nGROUP BY {by}, unit_id"
        ),
        "counted": _counted_sql(by, ", ".join(totals), resampling),
    }
    checks = check_steps(binding)
    summed = (
        f"SELECT {by}, replicate, {', '.join(replicate_columns)}\nFROM counted"
        + "".join(f"\nCROSS JOIN {name}" for name in checks)
        + "\nWHERE "
        + " AND ".join(f"{name}.failure IS NULL" for name in checks)
        + f"\nGROUP BY {by}, replicate"
    )
    slices = [f"{s} AS {templates.quote(user)}" for s, user in zip(binding.slices, binding.by)]
    columns = ", ".join([*slices, f"replicate AS {bootstrap.REPLICATE_SLICE}", *values])
    return assemble(ctes, f"SELECT {columns}\nFROM (\n{indent(summed)}\n) AS summed")


def _counted_sql(by: str, totals: str, resampling: Bootstrap) -> str:
    """Each unit's sums once per replicate, with its Poisson(1) count ``c``."""
    first, second, third = bootstrap.hash_steps_sql(resampling.seed)
    numbered = (
        f"SELECT u.*, r.replicate, {first.replace('unit_id', 'u.unit_number')} AS h1\n"
        f"FROM units AS u\nCROSS JOIN {bootstrap.replicates_sql(resampling.resamples)}"
    )
    first_hash = f"SELECT *, {second} AS h2\nFROM (\n{indent(numbered)}\n) AS first_hash"
    hashed = f"SELECT *, {third} AS h3\nFROM (\n{indent(first_hash)}\n) AS second_hash"
    return (
        f"-- each unit once per replicate: 0 as it is, 1..{resampling.resamples} with a Poisson(1) count hashed\n"
        "-- from its number, the replicate and the seed (sqlmetrics/binding/bootstrap.py)\n"
        f"SELECT {by}, replicate, {bootstrap.count_sql('h3')} AS c, {totals}\nFROM (\n{indent(hashed)}\n) AS hashed"
    )
