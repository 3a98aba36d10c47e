"""The parameters the off-policy metrics share, declared once."""

from __future__ import annotations

from sqlmetrics.spec import Param

# obp's lambda_ of IPW (clipping) and SwitchDoublyRobust (switching), which defaults to
# infinity there (no clipping: plain ips and dr); here a finite cap is asked for, its
# default 10 a common first choice, not a tuned one
CAP = Param(
    "cap",
    float,
    10.0,
    "the cap λ on the importance weight w = πₑ/π₀ (default 10: a first choice, not a tuned one)",
    low=0,
    low_open=True,
)
# obp's lambda_ of DoublyRobustWithShrinkage: λ → ∞ is dr, λ → 0 dm
SHRINKAGE = Param(
    "shrinkage",
    float,
    100.0,
    "the shrinkage λ of the weight, replaced by λw / (w² + λ) (default 100: weights up to a few units barely move)",
    low=0,
    low_open=True,
)
