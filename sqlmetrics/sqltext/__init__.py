"""The SQL text layer: the templates as text (``templates``: read, render with Jinja,
quote), their constant folding (``folding``) and the dialects they are rendered for
(``dialects``: sqlglot's transpilation and each target's quoting rules)."""
