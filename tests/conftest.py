import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("sqlmetrics", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# "fast": the same properties on fewer examples, for the run on the lowest declared
# versions (.ci/lowest), which checks that the code works there, not the formulas again.
settings.register_profile("fast", parent=settings.get_profile("sqlmetrics"), max_examples=8)
settings.load_profile(os.environ.get("SQLMETRICS_HYPOTHESIS_PROFILE", "sqlmetrics"))

ENGINES = ("duckdb", "polars")


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


@pytest.fixture(scope="session")
def spark_session():
    """The test run's one local Spark session (Spark needs Java; .ci/run installs it)."""
    pytest.importorskip("pyspark")
    from sql_engines import java_available

    if not java_available():
        pytest.skip("Spark needs a Java runtime: apt-get install openjdk-17-jre-headless (.ci/run does)")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("sqlmetrics-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def chdb_session():
    """The test run's one chdb session (embedded ClickHouse, started once: it takes seconds)."""
    pytest.importorskip("chdb")
    from chdb.session import Session

    session = Session()
    yield session
    session.close()


@pytest.fixture(scope="session")
def postgres_connection():
    """A connection to a private PostgreSQL server started for the test run."""
    psycopg = pytest.importorskip("psycopg")
    import postgres_server

    if postgres_server.binaries() is None:
        pytest.skip("PostgreSQL is not installed: apt-get install postgresql (.ci/run does)")
    with postgres_server.server() as dsn, psycopg.connect(dsn) as connection:
        yield connection
