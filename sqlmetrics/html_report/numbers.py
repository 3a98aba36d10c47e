"""How the report writes numbers: every float of a table to ``SIGNIFICANT`` significant
digits, counts in full with thousands separators, p-values to four decimals down to a
floor, an estimate with its interval (to fewer digits) in one cell.

>>> number(0.712345), number(123456.7), number(1e-12), number(1_234_567)
('0.7123', '123,457', '1.000e-12', '1,234,567')
>>> p_value(0.0123), p_value(3e-9), estimate(0.712345, 0.69991, 0.72449)
('0.0123', '< 0.0001', '0.7123 [0.700, 0.724]')
"""

from __future__ import annotations

import math

SIGNIFICANT = 4
INTERVAL_SIGNIFICANT = 3  # an interval's bounds: their last digits say less than the estimate's
SCIENTIFIC_BELOW = 1e-4  # smaller magnitudes in scientific notation (1.000e-12)
P_FLOOR = 1e-4  # p-values below it are shown as "< 0.0001"


def number(value: object, significant: int = SIGNIFICANT) -> str:
    """``value`` as a table cell: None as ``null``, NaN, ``inf``; an integer (a count) in
    full with thousands separators; a float to ``significant`` digits, trailing
    zeros kept so that a column's digits line up (``0.5000``), in plain notation from
    1e-4 up, in scientific notation below (``1.000e-12``), rounded to a whole number
    with separators from 10**significant up (``123,457``, never ``123,500``); 0 as
    ``0``. Anything else (text, dates) as ``str`` gives it."""
    if value is None:
        return "null"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if not isinstance(value, float):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "0"
    rounded = float(f"{value:.{significant - 1}e}")  # 9.99996 is 10.00: its digits count from 10
    if abs(rounded) >= 10**significant:
        return f"{value:,.0f}"
    if abs(rounded) < SCIENTIFIC_BELOW:
        return f"{value:.{significant - 1}e}"
    decimals = significant - 1 - math.floor(math.log10(abs(rounded)))
    return f"{value:,.{decimals}f}"


def p_value(value: object) -> str:
    """A p-value to four decimals (``0.0123``), ``< 0.0001`` below that; anything else
    (None, NaN) as ``number`` writes it. (A bootstrap's floor, a bound, is written by
    ``compare.p_value_text``.)"""
    if isinstance(value, float) and not math.isnan(value) and value < P_FLOOR:
        return f"< {P_FLOOR:.4f}"
    if isinstance(value, float) and not math.isnan(value):
        return f"{value:.4f}"
    return number(value)


def estimate(value: object, low: object, high: object) -> str:
    """A value and its interval in one cell, the bounds to INTERVAL_SIGNIFICANT digits:
    ``0.7123 [0.700, 0.725]``; ``[n/a]`` when
    the slice has no interval (too few rows), ``null`` alone for an undefined value."""
    if value is None:
        return "null"
    bounds = (number(bound, INTERVAL_SIGNIFICANT) for bound in (low, high))
    interval = "n/a" if low is None and high is None else ", ".join(bounds)
    return f"{number(value)} [{interval}]"
