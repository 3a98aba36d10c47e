"""Text generated from the registry, so that it cannot drift from the code.

* the metrics table that docs/metrics.md embeds between the ``<!-- metrics -->`` markers;
* the names ``sqlmetrics/polars.py`` defines, one per metric (written out, so editors
  and type checkers see them), between its ``# <metrics>`` markers;
* the roles' keywords of the public functions (``evaluate``, ``to_sql``, ``compare``,
  ``state``, ``report``), one per declared role (``registry.roles()``: the core's and
  each family's), between the ``# <roles>`` markers of each signature, so that a role
  is added in one place, its declaration, and every entry point shows its keyword.

``python -m sqlmetrics.docs`` prints the table; ``python -m sqlmetrics.docs --write``
writes both into place (after adding a metric). Tests check that both are current.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sqlmetrics.binding import Binding
from sqlmetrics.compose import reads
from sqlmetrics.compose.state import merges_from_base
from sqlmetrics.registry import registry, roles
from sqlmetrics.spec import CORE_ROLES, Metric, MetricCall, Param

ROOT = Path(__file__).resolve().parent
START, END = "<!-- metrics -->\n", "\n<!-- /metrics -->"
POLARS_START, POLARS_END = "# <metrics>: written by `python -m sqlmetrics.docs --write`\n", "\n# </metrics>"
# A signature's block of the roles' keywords; ``, without <role>, ...`` leaves roles out
# (``compare`` takes no class scores).
ROLES_BLOCK = re.compile(
    r"^(    # <roles>: written by `python -m sqlmetrics\.docs --write`(?:, without ([\w, ]+))?\n)"
    r"(.*?)(^    # </roles>$)",
    re.MULTILINE | re.DOTALL,
)
# The modules whose public functions write the roles' keywords.
SIGNATURES = ("api.py", "compare.py", "states/__init__.py", "html_report/__init__.py")
SLICES = "    by: str | Sequence[str] | None = None,"  # the slices' keyword, after the core's roles


def _param(param: Param) -> str:
    text = f"`{param.name}` (required)" if param.required else f"`{param.name}={param.default}`"
    return text + (f" ({', '.join(param.choices)})" if param.choices else "")


def _interval(spec: Metric) -> str:
    """The interval ``ci=`` gives the metric by default (docs/intervals.md)."""
    if spec.interval is not None:
        return spec.interval.method
    return "bootstrap" if spec.weighted else "—"


def _state(spec: Metric) -> str:
    """What a state keeps of the metric (``sm.state``, ``sm.rollup``; docs/guide.md)."""
    if spec.per_query is not None:
        return "per-query values"
    call = MetricCall(spec, tuple((param.name, param.default) for param in spec.params))
    if not merges_from_base(call, Binding((call,), {"label": "label", "score": "score"})):
        return "— (reads the rows)"
    kept = "score histogram" if reads("score_hist", spec.intermediates) else "sums"
    return kept + (" (its interval: W, mean and spread per slice)" if spec.interval and spec.interval.kept else "")


def metrics_table() -> str:
    """A Markdown table, family by family: metric, parameters with defaults, what it
    computes, its interval, what a state keeps of it, reference."""
    lines = [
        "| family | metric | parameters | computes | interval (`ci=`) | state (`sm.rollup`) | checked against |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, spec in sorted(registry().items(), key=lambda item: (item[1].family, item[0])):
        params = ", ".join(map(_param, spec.params))
        row = (
            f"| {spec.family} | `{name}` | {params or '—'} | {spec.summary} | {_interval(spec)} | {_state(spec)} "
            f"| `{spec.reference}` |"
        )
        lines.append(row)
    return "\n".join(lines)


def polars_names() -> str:
    """The body of ``sqlmetrics/polars.py``'s generated block: each metric module imported
    under a private alias, and its public name bound to its named expression or frame
    function (``precision@k`` is ``precision_at_k``)."""
    specs = registry().items()
    imports = [
        f"from {spec.module.__package__} import {spec.module.__name__.rsplit('.', 1)[1]} as _{attribute(name)}"
        for name, spec in specs
    ]
    names = []
    for name, spec in specs:
        wrapper, function = ("_expression", "expr") if spec.is_expression else ("_frame", "frame")
        names.append(f'{attribute(name)} = {wrapper}("{name}", _{attribute(name)}.{function})')
    listed = [f'    "{attribute(name)}",' for name, _ in specs]
    return "\n".join([*sorted(imports), "", *names, "", "__all__ = [", *listed, "]"])


def role_keywords(omitted: tuple[str, ...] = ()) -> str:
    """The body of a signature's ``# <roles>`` block: each declared role's keyword with its
    annotation and default, ``by`` after the core's roles; ``omitted`` left out."""
    lines = []
    for role in roles():
        if role.name not in omitted:
            default = f'"{role.default}"' if isinstance(role.default, str) else repr(role.default)
            lines.append(f"    {role.name}: {role.annotation} = {default},")
        if role.name == CORE_ROLES[-1].name:
            lines.append(SLICES)
    return "\n".join(lines) + "\n"


def with_role_keywords(text: str) -> str:
    """``text`` (a module's source) with each ``# <roles>`` block written anew."""

    def block(match: re.Match[str]) -> str:
        omitted = tuple(name.strip() for name in (match.group(2) or "").split(",") if name.strip())
        return match.group(1) + role_keywords(omitted) + match.group(4)

    return ROLES_BLOCK.sub(block, text)


def attribute(metric_name: str) -> str:
    """A metric's name in ``sqlmetrics.polars``: ``precision@k`` is ``precision_at_k``."""
    return metric_name.replace("@k", "_at_k")


def embedded(text: str, start: str = START, end: str = END) -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


def embedded_table(text: str) -> str:
    return embedded(text)


def write(metrics_page: Path = ROOT.parent / "docs" / "metrics.md", polars_module: Path = ROOT / "polars.py") -> None:
    """Write the metrics table into ``metrics_page`` and the names into ``polars_module``."""
    for path, generated, start, end in (
        (metrics_page, metrics_table(), START, END),
        (polars_module, polars_names(), POLARS_START, POLARS_END),
    ):
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace(start + embedded(text, start, end) + end, start + generated + end), encoding="utf-8"
        )
    for name in SIGNATURES:
        path = ROOT / name
        path.write_text(with_role_keywords(path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        write()
    else:
        print(metrics_table())
