"""Documentation generated from the registry, so that it cannot drift from the code.

``python -m sqlmetrics.docs`` prints the metrics table that README.md embeds between the
``<!-- metrics -->`` markers; ``python -m sqlmetrics.docs --write README.md`` puts it
there. A test checks that the README holds the current one.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sqlmetrics.registry import registry
from sqlmetrics.spec import Param

START, END = "<!-- metrics -->\n", "\n<!-- /metrics -->"


def _param(param: Param) -> str:
    text = f"`{param.name}` (required)" if param.required else f"`{param.name}={param.default}`"
    return text + (f" ({', '.join(param.choices)})" if param.choices else "")


def metrics_table() -> str:
    """A Markdown table, family by family: metric, parameters with defaults, what it
    computes, reference."""
    lines = ["| family | metric | parameters | computes | checked against |", "|---|---|---|---|---|"]
    for name, spec in sorted(registry().items(), key=lambda item: (item[1].family, item[0])):
        params = ", ".join(map(_param, spec.params))
        lines.append(f"| {spec.family} | `{name}` | {params or '—'} | {spec.summary} | `{spec.reference}` |")
    return "\n".join(lines)


def embedded_table(text: str) -> str:
    return text.split(START, 1)[1].split(END, 1)[0]


def write(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(embedded_table(text), metrics_table()), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        write(Path(sys.argv[2]))
    else:
        print(metrics_table())
