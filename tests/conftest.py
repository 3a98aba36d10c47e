import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("sqlmetrics", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sqlmetrics")

ENGINES = ("duckdb", "polars")


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param
