"""The input rules: what a call's data must be before any number is trusted, each rule
written once with its message and its forms for every engine.

* ``schema``: the source's columns, from its schema alone (present, numeric, classes of
  one kind), checked before a statement is composed;
* ``columns``: the row rules on a column of the source (``Check``: a label of 0 or 1, a
  finite score, a weight >= 0, ...), as a SQL row condition and a polars expression;
* ``tables``: the rules on a second table (judgments, long class scores) and the rows it
  serves (``TableRule``), as SQL counting the breaking rows and as polars;
* ``sql``: the SQL forms of both put into the statement's steps (``checks``,
  ``run_checks``, ``class_checks``), which raise ``error()`` on the first broken rule.

The composer (``sqlmetrics/compose/``) places those steps and the polars engine raises
from the polars forms; this layer imports neither (``tests/test_imports.py``).
"""
