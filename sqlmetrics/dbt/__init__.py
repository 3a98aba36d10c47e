"""The dbt package: its hand-written files (``dbt_project.yml``, ``README.md``,
``macros/evaluate.sql``) beside its generator (``package``: ``sqlmetrics dbt --output DIR``)."""
