import os
import shutil
import signal
import threading

import pytest
from hypothesis import HealthCheck, settings

# The helpers' asserts report as the tests' own do: the values on failure, and each one
# counted by benchmarks/assertion_count.py.
pytest.register_assert_rewrite("dbt_render", "metric_tests", "ranking_reference", "sql_engines", "strategies")

# Hypothesis profiles (SQLMETRICS_HYPOTHESIS_PROFILE; docs/testing.md): how many examples a
# property runs, scaled in tests/strategies.examples by what it compares.
# "sqlmetrics", the default (the README's command and .ci/run): 15 examples a reference
# property, 8 an agreement property.
# "deep": 60, every property as many as it was written for: after a change to a formula.
# "fast": 8, for .ci/lowest, which checks that the code works on the lowest declared
# versions, not the formulas again.
settings.register_profile("deep", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("sqlmetrics", parent=settings.get_profile("deep"), max_examples=15)
settings.register_profile("fast", parent=settings.get_profile("deep"), max_examples=8)
settings.load_profile(os.environ.get("SQLMETRICS_HYPOTHESIS_PROFILE", "sqlmetrics"))

ENGINES = ("duckdb", "polars")


def pytest_configure(config: pytest.Config) -> None:
    """SIGTERM ends a run as Ctrl-C does (KeyboardInterrupt), so that its fixtures end
    what they started (the Spark session, the PostgreSQL server) and
    ``pytest_sessionfinish`` removes its folders, where the default action would stop
    the process at once. Only the main thread may set a handler (xdist's workers may run
    elsewhere: tests/postgres_server.py's watchdog covers them)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupted)


def _interrupted(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run cut short leaves no folders behind: its temporary folder (the scale tier's
    Parquet, states, Spark's scratch: up to 1.5 GB) is removed, as pytest removes a
    passing run's (``tmp_path_retention_policy``); a failing run's stays to be read. Not
    a folder given with ``--basetemp``, nor from a worker (the controller removes the
    whole folder, the workers' within it)."""
    factory = getattr(session.config, "_tmp_path_factory", None)  # pytest's own, as its tmpdir plugin reads it
    if exitstatus != pytest.ExitCode.INTERRUPTED or factory is None or hasattr(session.config, "workerinput"):
        return
    if factory._basetemp is not None and factory._given_basetemp is None:
        shutil.rmtree(factory._basetemp, ignore_errors=True)


# The engines tier's sessions, each started once a run: every test of a group runs on
# one worker (pytest-xdist's --dist loadgroup), so one worker holds the one Spark JVM
# and the other the PostgreSQL server and chdb, and the tier's two halves run side by side.
SPARK_GROUP, WAREHOUSE_GROUP = "spark", "warehouses"
_WAREHOUSES = {"postgres", "clickhouse"}


def engine_group(item: pytest.Item) -> str | None:
    """The xdist group of a test by the session it starts: Spark's, a warehouse's
    (PostgreSQL, chdb), or none. A session comes as a fixture (``spark_session``) or by a
    parameter naming the engine (``engine``, ``name``: the fixture looked up by name)."""
    callspec = getattr(item, "callspec", None)
    params = {value for value in (callspec.params.values() if callspec else ()) if isinstance(value, str)}
    if "spark_session" in item.fixturenames or "spark" in params:
        return SPARK_GROUP
    if {"postgres_connection", "chdb_session"} & set(item.fixturenames) or _WAREHOUSES & params:
        return WAREHOUSE_GROUP
    return None


# Every collected test's markers and xdist group, before -m and -k deselect any: what
# tests/test_tiers.py checks, when this run collected the whole suite.
COLLECTED = pytest.StashKey[dict]()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups, and before -m deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("engines") and (group := engine_group(item)):
            item.add_marker(pytest.mark.xdist_group(group))
    config.stash[COLLECTED] = {item.nodeid: markers_and_group(item) for item in items}


def markers_and_group(item: pytest.Item) -> tuple[set[str], str | None]:
    group = item.get_closest_marker("xdist_group")
    return {mark.name for mark in item.iter_markers()}, group.args[0] if group else None


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


@pytest.fixture(scope="session")
def spark_session(tmp_path_factory):
    """The test run's one local Spark session (Spark needs Java; .ci/run installs it), its
    scratch folders in the run's temporary folder (they go with it), its JVM's heap 1 GB
    (the tests' frames hold hundreds of rows: the heap holds plans, not data)."""
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
        .config("spark.driver.memory", "1g")
        .config("spark.local.dir", str(tmp_path_factory.mktemp("spark")))
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
