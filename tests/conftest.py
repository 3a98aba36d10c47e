import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

ENGINES = ("duckdb", "polars")


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param
