"""The bootstrap by unit of a ratio of sums over rows (``ci_unit=`` with
``ci_method="bootstrap"``: the weighted means logloss, brier, score_mean, label_mean,
mae, mse, mean_error, mape, calibration's Σ w·p / Σ w·y, and the shares of the
confusion counts at a threshold, accuracy, precision, recall, specificity, f1), from
each unit's sums rather than its rows.

All of a unit's rows share its Poisson count c, so a replicate's value is

    m_r = Σ_u c_ur·(Σ_k w·a) / Σ_u c_ur·(Σ_k w·b),

the sums over unit u's rows k of the metric's a and b (``unit_sums``: for a mean, its
interval's row value x and 1): the statement reads the rows once into one row per
slice and unit, then R rows per unit: R × units rather than R × rows. The counts are the
row bootstrap's (``sqlmetrics.bootstrap``: the same unit numbers, hash and seed), so
the replicates, and the interval, are the same numbers as resampling the units' rows.
"""

from __future__ import annotations

from sqlmetrics import bootstrap, templates
from sqlmetrics.binding import Binding
from sqlmetrics.bootstrap import Bootstrap
from sqlmetrics.compose import shared_steps
from sqlmetrics.compose.statement import assemble, indent
from sqlmetrics.rules.sql import check_steps
from sqlmetrics.spec import MetricCall

# the interval methods whose metric is the weighted mean of a row value (slope 1)
_MEANS = ("row_mean", "residual_mean")


def unit_sums(call: MetricCall) -> tuple[str, str, str] | None:
    """``call`` as Σ w·a / Σ w·b over the used rows where c: (a, b, c), SQL of a row's
    score and label; None for a metric of another form. A weighted mean over rows (its
    interval's row value, slope 1) or a declared ratio (``Metric.ratio``)."""
    if call.spec.ratio is not None:
        params = {name: templates.literal(value) for name, value in call.params}
        return (*(templates.fill(sql, params) for sql in call.spec.ratio), "TRUE")
    interval = call.spec.interval
    values = dict(interval.values) if interval is not None else {}
    if interval is not None and interval.name in _MEANS and values.get("slope") == "1":
        return values["value"], "1", values["where"]
    return None


def sums_per_unit(call: MetricCall) -> bool:
    """Whether a bootstrap by unit takes ``call`` from each unit's sums (a metric with
    companion columns, mape's skipped rows, is resampled with its rows)."""
    return unit_sums(call) is not None and not call.spec.outputs


def compose_unit_bootstrap(binding: Binding, source_sql: str, resampling: Bootstrap) -> str:
    """The statement of ``resampling`` (a bootstrap by unit) of ``binding``'s calls (every
    one ``sums_per_unit``; ``binding.cluster`` the unit, no bootstrap of its own): a row
    per slice and replicate (0: the data as it is) with each call's mean, as the row
    bootstrap's statement gives them, once the input rules hold."""
    by = ", ".join(binding.slices)
    sums = []
    for i, call in enumerate(binding.calls):
        numerator, denominator, where = unit_sums(call)
        kept = f"w IS NOT NULL AND ({where})"
        sums += [f"SUM(CASE WHEN {kept} THEN w * ({denominator}) END) AS w_{i}"]
        sums += [f"SUM(CASE WHEN {kept} THEN w * ({numerator}) END) AS wx_{i}"]
    totals = ", ".join(name for i in range(len(binding.calls)) for name in (f"w_{i}", f"wx_{i}"))
    ctes = shared_steps(binding, source_sql)
    ctes |= {
        "units": (
            "-- each unit's sums (a row without a unit is not resampled, as in the row bootstrap) and its\n"
            "-- number, the row bootstrap's: the units in order (numbered here, before they are replicated)\n"
            f"SELECT {by}, unit_id, {', '.join(sums)}, {bootstrap.unit_id_sql('unit_id', [])} AS unit_number\n"
            f"FROM input\nWHERE unit_id IS NOT NULL\nGROUP BY {by}, unit_id"
        ),
        "counted": _counted_sql(by, totals, resampling),
    }
    means = [
        f"SUM(c * wx_{i}) / CAST(NULLIF(SUM(c * w_{i}), 0) AS DOUBLE) AS {call.column}"
        for i, call in enumerate(binding.calls)
    ]
    slices = [f"{s} AS {templates.quote(user)}" for s, user in zip(binding.slices, binding.by)]
    columns = ", ".join([*slices, f"replicate AS {bootstrap.REPLICATE_SLICE}", *means])
    checks = check_steps(binding)
    final = (
        f"SELECT {columns}\nFROM counted"
        + "".join(f"\nCROSS JOIN {name}" for name in checks)
        + "\nWHERE "
        + " AND ".join(f"{name}.failure IS NULL" for name in checks)
        + f"\nGROUP BY {by}, replicate"
    )
    return assemble(ctes, final)


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
        "-- from its number, the replicate and the seed (sqlmetrics/bootstrap.py)\n"
        f"SELECT {by}, replicate, {bootstrap.count_sql('h3')} AS c, {totals}\nFROM (\n{indent(hashed)}\n) AS hashed"
    )
