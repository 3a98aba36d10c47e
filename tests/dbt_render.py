"""Rendering the dbt package's ``evaluate`` with plain jinja2, as dbt would for a dialect:
``adapter.dispatch`` finds ``<dialect>__<name>``, ``sqlmetrics.<macro>`` is the package's
own, and the dbt globals the package reads (``fromjson``, ``exceptions``, ``modules.re``)
are stood in for."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import jinja2


class CompilerError(Exception):
    pass


def _raise_compiler_error(message: str) -> None:
    raise CompilerError(message)


def evaluate_sql(package: Path, dialect: str, relation: str, **call) -> str:
    """The SQL ``{{ sqlmetrics.evaluate(relation, **call) }}`` compiles to for ``dialect``."""
    return str(_package(Path(package), dialect).evaluate(relation, **call))


@cache
def _package(package: Path, dialect: str):
    """The package's macros as one jinja2 module, for ``dialect``."""
    text = "\n".join(path.read_text() for path in sorted((package / "macros").glob("*.sql")))
    env = jinja2.Environment(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)
    module = SimpleNamespace(macros=None)

    class Namespace:  # sqlmetrics.<macro>, resolved once the module exists
        def __getattr__(self, name):
            return getattr(module.macros, name)

    def dispatch(name: str, namespace: str):
        return getattr(module.macros, f"{dialect}__{name}")

    env.globals.update(
        fromjson=json.loads,
        exceptions=SimpleNamespace(raise_compiler_error=_raise_compiler_error),
        adapter=SimpleNamespace(dispatch=dispatch),
        modules={"re": {name: getattr(re, name) for name in re.__all__}},  # as dbt's context gives it
        sqlmetrics=Namespace(),
    )
    module.macros = env.from_string(text).module
    return module.macros
