"""Documentation generated from the registry, so that it cannot drift from the code.

``python -m sqlmetrics.docs`` prints the metrics table that README.md embeds between the
``<!-- metrics -->`` markers; a test checks that the README holds the current one.
"""

from __future__ import annotations

from sqlmetrics.registry import registry


def metrics_table() -> str:
    """A Markdown table: metric, parameters with defaults, what it computes, reference."""
    lines = ["| metric | parameters | computes | checked against |", "|---|---|---|---|"]
    for name, spec in registry().items():
        params = ", ".join(
            f"`{p.name}={p.default}`" + (f" ({', '.join(p.choices)})" if p.choices else "") for p in spec.params
        )
        lines.append(f"| `{name}` | {params or '—'} | {spec.summary} | `{spec.reference}` |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(metrics_table())
