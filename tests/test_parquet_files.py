"""Parquet files as sources: NaN inside files, directories of files with several schemas,
files that are not Parquet.

NaN: the same data as an in-memory frame is the reference for the message (the frame
path's NaN rules are tested in test_bad_input, test_one_vs_rest and test_curves); a file
must give the same error, whoever wrote it: file statistics leave NaN out, and DuckDB
trusted them (``isnan`` folded to false). Mixed files: numbers against scikit-learn over
all rows, errors naming the column, the files and their types, the same in both engines.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import sqlmetrics as sm
import sqlmetrics.polars as smp
from sqlmetrics import cli

NAN = float("nan")


def write_polars(frame: pl.DataFrame, path: Path) -> None:
    frame.write_parquet(path)


def write_pyarrow(frame: pl.DataFrame, path: Path) -> None:
    pq.write_table(frame.to_arrow(), path)


def write_pyarrow_without_statistics(frame: pl.DataFrame, path: Path) -> None:
    pq.write_table(frame.to_arrow(), path, write_statistics=False)


def write_duckdb(frame: pl.DataFrame, path: Path) -> None:
    with duckdb.connect() as con:
        con.register("frame", frame.to_arrow())
        con.execute(f"COPY frame TO '{path}' (FORMAT parquet)")


WRITERS = [write_polars, write_pyarrow, write_pyarrow_without_statistics, write_duckdb]

# Six rows of every role: binary label, scores, a regression target, weights, graded
# relevance by query, classes with wide and long class scores, a run's items.
ROWS = pl.DataFrame(
    {
        "id": [1, 2, 3, 4, 5, 6],
        "label": [0, 1, 0, 1, 1, 0],
        "score": [0.1, 0.7, 0.3, 0.8, 0.6, 0.2],
        "target": [1.0, 2.0, 1.5, 3.0, 4.0, 5.0],
        "w": [1.0, 2.0, 1.0, 0.5, 1.0, 1.0],
        "q": [1, 1, 1, 2, 2, 2],
        "item": ["d1", "d2", "d3", "d1", "d2", "d3"],
        "rel": [0.0, 2.0, 1.0, 1.0, 0.0, 3.0],
        "cls": ["a", "b", "c", "a", "b", "c"],
        "p_a": [0.6, 0.2, 0.1, 0.5, 0.3, 0.2],
        "p_b": [0.3, 0.5, 0.2, 0.3, 0.4, 0.3],
        "p_c": [0.1, 0.3, 0.7, 0.2, 0.3, 0.5],
    }
)
WIDE = {"a": "p_a", "b": "p_b", "c": "p_c"}
WIDE_COLUMNS = tuple(WIDE.values())
LONG = (
    ROWS.select("id", *WIDE_COLUMNS)
    .unpivot(list(WIDE_COLUMNS), index="id", variable_name="cls", value_name="p")
    .with_columns(pl.col("cls").str.strip_prefix("p_"))
)
QRELS = ROWS.select("q", "item", "rel")


def with_nan(frame: pl.DataFrame, column: str) -> pl.DataFrame:
    """``frame`` with its second row's ``column`` NaN (statistics then hold the others)."""
    return frame.with_columns(pl.when(pl.int_range(pl.len()) == 1).then(NAN).otherwise(pl.col(column)).alias(column))


# name -> (poisoned table: "source" or "second", column, the call on (source, second, engine))
Call = Callable[[object, object, str], object]
NAN_CASES: dict[str, tuple[str, str, Call]] = {
    "score_auc": ("source", "score", lambda s, _, e: sm.evaluate(s, ["auc"], engine=e)),
    "score_logloss": ("source", "score", lambda s, _, e: sm.evaluate(s, ["logloss"], engine=e)),
    "target_mae": ("source", "target", lambda s, _, e: sm.evaluate(s, ["mae"], label="target", engine=e)),
    "weight": ("source", "w", lambda s, _, e: sm.evaluate(s, ["auc", "logloss"], weight="w", engine=e)),
    "relevance": ("source", "rel", lambda s, _, e: sm.evaluate(s, ["ndcg@3"], label="rel", query="q", engine=e)),
    "wide_class_scores": (
        "source",
        "p_b",
        lambda s, _, e: sm.evaluate(s, ["auc"], label="cls", class_scores=WIDE, engine=e),
    ),
    "long_class_scores": (
        "second",
        "p",
        lambda s, t, e: sm.evaluate(
            s, ["auc"], label="cls", class_scores=sm.long_scores(t, row_id="id", class_="cls", score="p"), engine=e
        ),
    ),
    "judgments": (
        "second",
        "rel",
        lambda s, t, e: sm.evaluate(s, ["ndcg@3"], label="rel", query="q", item="item", judgments=t, engine=e),
    ),
    "roc_curve": ("source", "score", lambda s, _, e: sm.roc_curve(s, engine=e)),
    "pr_curve": ("source", "score", lambda s, _, e: sm.pr_curve(s, engine=e)),
    "calibration_curve": ("source", "score", lambda s, _, e: sm.calibration_curve(s, engine=e)),
}


def error_of(call: Callable[[], object]) -> tuple[type, str]:
    with pytest.raises(sm.SqlMetricsError) as error:
        call()
    return type(error.value), str(error.value)


@pytest.mark.parametrize("case", NAN_CASES)
@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.__name__.removeprefix("write_"))
def test_nan_in_a_file_is_the_frames_error(case, writer, engine, tmp_path):
    call = NAN_CASES[case][2]
    source, second = nan_tables(case)
    writer(source, tmp_path / "source.parquet")
    second_path = None
    if second is not None:
        writer(second, tmp_path / "second.parquet")
        second_path = tmp_path / "second.parquet"
    assert error_of(lambda: call(tmp_path / "source.parquet", second_path, engine)) == frame_error(case, engine)


def nan_tables(case: str) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The case's source and second table (long class scores, judgments or None), one NaN in them."""
    poisoned, column, _ = NAN_CASES[case]
    second = LONG if case == "long_class_scores" else QRELS if case == "judgments" else None
    source = ROWS.drop("rel") if case == "judgments" else ROWS  # a run: its relevance comes from the judgments
    if poisoned == "source":
        return with_nan(source, column), second
    return source, with_nan(second, column)


@functools.cache
def frame_error(case: str, engine: str) -> tuple[type, str]:
    """The error of the case's tables as frames: a NaN rule's."""
    expected = error_of(lambda: NAN_CASES[case][2](*nan_tables(case), engine))
    assert expected[0] is sm.InvalidInputError and ("NaN" in expected[1] or "finite" in expected[1]), expected
    return expected


def test_sql_reads_parquet_with_nan():
    """The statement ``sm.to_sql`` shows reads files as ``evaluate`` does; other dialects
    read tables, never paths."""
    sql = sm.to_sql(["auc"], source="logs/*.parquet")
    assert "FROM read_parquet('logs/*.parquet', can_have_nan = true)" in sql
    assert "can_have_nan" in sm.curve_sql("roc", source="logs/x.parquet")
    with pytest.raises(sm.SourceError, match="SQL for spark reads a table or view"):
        sm.to_sql(["auc"], source="logs/*.parquet", dialect="spark")
    assert "can_have_nan" not in sm.to_sql(["auc"], source="logs.impressions", dialect="spark")


# --- directories of files with several schemas ---------------------------------------


def write_files(directory: Path, *tables: dict) -> Path:
    """Each table (column -> pyarrow array) as ``<i>.parquet`` in ``directory``."""
    directory.mkdir(exist_ok=True)
    for i, table in enumerate(tables):
        pq.write_table(pa.table(table), directory / f"{i}.parquet")
    return directory


def auc_of_all_rows(directory: Path, weight: str | None = None) -> float:
    """scikit-learn's AUC over every file's rows, each column read as float64 by pyarrow."""
    tables = [pq.read_table(path) for path in sorted(directory.glob("*.parquet"))]

    def column(name: str) -> np.ndarray:
        return np.concatenate([table.column(name).to_numpy().astype(np.float64) for table in tables])

    weights = column(weight) if weight else None
    return roc_auc_score(column("label"), column("score"), sample_weight=weights)


def both_engines(source: object, metrics: list[str], **kwargs) -> list[pl.DataFrame]:
    return [sm.evaluate(source, metrics, engine=engine, **kwargs) for engine in ("duckdb", "polars")]


@pytest.mark.parametrize("float_first", [False, True])
def test_integer_and_float_scores_are_read_as_floats(tmp_path, float_first):
    integers = {"label": pa.array([0, 1, 0, 1, 1]), "score": pa.array([1, 2, 3, 4, 2]), "note": pa.array(["x"] * 5)}
    floats = {"label": pa.array([0, 1, 1, 0]), "score": pa.array([0.5, 2.5, 3.5, 1.9]), "note": pa.array([1] * 4)}
    floats["only_here"] = pa.array([True] * 4)  # an unread column in one file only
    tables = (floats, integers) if float_first else (integers, floats)
    directory = write_files(tmp_path / "it's [mixed]", *tables)  # a quote for SQL, brackets for globs
    duck, polars = both_engines(directory, ["auc"])
    assert duck["n_rows"].item() == polars["n_rows"].item() == 9
    assert duck["auc"].item() == pytest.approx(auc_of_all_rows(directory), abs=1e-12)
    assert polars["auc"].item() == pytest.approx(auc_of_all_rows(directory), abs=1e-12)


def test_integers_of_several_widths_and_float32_combine(tmp_path):
    first = {
        "label": pa.array([0, 1, 0, 1], pa.int8()),
        "score": pa.array([3, 2**20, 7, 9], pa.int32()),  # exact in float32 (<= 2^24)
        "w": pa.array([1, 2, 3, 4], pa.uint32()),
    }
    second = {
        "label": pa.array([1, 0, 1], pa.int64()),
        "score": pa.array([0.25, 8.5, 6.75], pa.float32()),
        "w": pa.array([5, 1, 2], pa.int16()),
    }
    directory = write_files(tmp_path / "widths", first, second)
    reference = auc_of_all_rows(directory, weight="w")
    for result in both_engines(directory, ["auc"], weight="w"):
        assert result["auc"].item() == pytest.approx(reference, abs=1e-12)


def test_regression_target_of_integers_and_floats(tmp_path):
    first = {"label": pa.array([1, 2, 3], pa.int16()), "score": pa.array([1.5, 2.5, 2.0])}
    second = {"label": pa.array([4.5, 0.25]), "score": pa.array([4, 1], pa.uint8())}
    directory = write_files(tmp_path / "regression", first, second)
    expected = np.mean(np.abs(np.array([1, 2, 3, 4.5, 0.25]) - np.array([1.5, 2.5, 2.0, 4, 1])))
    for result in both_engines(directory, ["mae"]):
        assert result["mae"].item() == pytest.approx(expected, abs=1e-12)


def test_second_tables_of_mixed_files_read_like_the_frame(tmp_path):
    """Judgments and long class scores in files of several types read as the same rows in
    one frame (whose numbers are tested against references elsewhere)."""
    qrels = QRELS.with_columns(pl.col("rel").cast(pl.Int64))
    qrels.head(3).write_parquet(write_files(tmp_path / "qrels") / "0.parquet")
    qrels.tail(3).with_columns(pl.col("rel").cast(pl.Float32)).write_parquet(tmp_path / "qrels" / "1.parquet")
    long = LONG.with_columns(pl.col("p").cast(pl.Float32))
    long.head(9).write_parquet(write_files(tmp_path / "long") / "0.parquet")
    long.tail(9).with_columns(pl.col("p").cast(pl.Float64), pl.col("id").cast(pl.Int32)).write_parquet(
        tmp_path / "long" / "1.parquet"
    )
    run = ROWS.drop("rel")
    for engine in ("duckdb", "polars"):
        judged = {"label": "rel", "query": "q", "item": "item", "engine": engine}
        expected = sm.evaluate(run, ["ndcg@3", "map"], judgments=qrels, **judged)
        assert_frame_equal(sm.evaluate(run, ["ndcg@3", "map"], judgments=tmp_path / "qrels", **judged), expected)
        scores = {"row_id": "id", "class_": "cls", "score": "p"}
        expected = sm.evaluate(ROWS, ["auc"], label="cls", class_scores=sm.long_scores(long, **scores), engine=engine)
        from_files = sm.long_scores(tmp_path / "long", **scores)
        assert_frame_equal(sm.evaluate(ROWS, ["auc"], label="cls", class_scores=from_files, engine=engine), expected)


def test_string_types_and_dictionaries_combine(tmp_path):
    """Strings, large strings and dictionary-encoded strings are all strings (classes)."""
    first = {"y": pa.array(["a", "b", "a"]).dictionary_encode(), "p": pa.array(["a", "a", "a"], pa.large_string())}
    second = {"y": pa.array(["b", "b"]), "p": pa.array(["b", "a"])}
    directory = write_files(tmp_path / "strings", first, second)
    labels, predictions = ["a", "b", "a", "b", "b"], ["a", "a", "a", "b", "a"]
    expected = sum(y == p for y, p in zip(labels, predictions)) / len(labels)
    for result in both_engines(directory, ["accuracy"], label="y", prediction="p"):
        assert result["accuracy"].item() == pytest.approx(expected, abs=1e-12)


def test_a_file_of_only_nulls_combines_with_any_type(tmp_path):
    """An empty file written from an empty frame has Null-typed columns (polars and pyarrow
    write them so), as has a file whose column is all NULL: they blocked a whole dataset.
    A NULL changes no value: the column takes the other files' type, its rows excluded."""
    rows = {"label": pa.array([0, 1, 1, 0]), "score": pa.array([0.1, 0.9, 0.4, 0.3]), "day": pa.array([1, 1, 2, 2])}
    empty = {"label": pa.array([], pa.null()), "score": pa.array([], pa.null()), "day": pa.array([], pa.null())}
    nulls = {"label": pa.array([1, 0]), "score": pa.array([None, None], pa.null()), "day": pa.array([None, None])}
    directory = write_files(tmp_path / "nulls", rows, empty, nulls)
    for result in both_engines(directory, ["auc"], by="day"):
        assert result["day"].to_list() == [1, 2, None]
        assert result["n_rows"].to_list() == [2, 2, 0] and result["n_excluded"].to_list() == [0, 0, 2]
        assert result["auc"].to_list() == [1.0, 1.0, None]  # 0.9 > 0.1; 0.4 > 0.3; no rows


def refusal(source: object, metrics: list[str], **kwargs) -> str:
    """The one message both engines refuse ``source`` with (a SourceError)."""
    messages = set()
    for engine in ("duckdb", "polars"):
        with pytest.raises(sm.SourceError) as error:
            sm.evaluate(source, metrics, engine=engine, **kwargs)
        messages.add(str(error.value))
    assert len(messages) == 1, messages
    return messages.pop()


def test_boolean_and_integer_labels_are_refused(tmp_path):
    booleans = {"label": pa.array([True, False]), "score": pa.array([0.1, 0.2])}
    integers = {"label": pa.array([2, 5]), "score": pa.array([0.3, 0.4])}
    directory = write_files(tmp_path / "labels", booleans, integers)
    assert refusal(directory, ["auc"]) == (
        f"column 'label' has types that cannot be combined without changing values: bool in "
        f"'{directory}/0.parquet', int64 in '{directory}/1.parquet'; rewrite the files with one type for it"
    )


def test_string_and_number_scores_are_refused(tmp_path):
    directory = write_files(
        tmp_path / "scores",
        {"label": pa.array([0, 1]), "score": pa.array([0.1, 0.2])},
        {"label": pa.array([0, 1]), "score": pa.array(["0.3", "0.4"])},
        {"label": pa.array([0, 1]), "score": pa.array([0.5, 0.6])},
    )
    assert refusal(directory, ["auc"]) == (
        f"column 'score' has types that cannot be combined without changing values: double in "
        f"'{directory}/0.parquet' (and 1 more file), string in '{directory}/1.parquet'; "
        "rewrite the files with one type for it"
    )


def test_a_bound_column_missing_from_a_file_is_refused(tmp_path):
    with_weight = {"label": pa.array([0, 1]), "score": pa.array([0.1, 0.2]), "w": pa.array([1.0, 2.0])}
    without = {"label": pa.array([0, 1]), "score": pa.array([0.3, 0.4])}
    directory = write_files(tmp_path / "weights", with_weight, without)
    assert refusal(directory, ["auc"], weight="w") == (
        f"column 'w' is missing from '{directory}/1.parquet' but is double in '{directory}/0.parquet': "
        "every file must have the columns the call reads"
    )
    both_engines(directory, ["auc"])  # unweighted, the column is not read: no error


def test_integers_that_would_round_as_floats_are_refused(tmp_path):
    big = 2**53 + 1  # the first integer float64 does not hold
    directory = write_files(
        tmp_path / "big",
        {"label": pa.array([0, 1]), "score": pa.array([3, big])},
        {"label": pa.array([0, 1]), "score": pa.array([0.5, 0.25])},
    )
    assert refusal(directory, ["auc"]) == (
        f"column 'score' is int64 in '{directory}/0.parquet', double in '{directory}/1.parquet': its value {big} "
        f"in '{directory}/0.parquet' would round as double (integers are exact only up to {2**53}); "
        "rewrite the files with one type for it"
    )


def test_integer_range_is_read_from_the_column_without_statistics(tmp_path):
    directory = tmp_path / "nostats"
    directory.mkdir()
    pq.write_table(
        pa.table({"label": [0, 1], "score": [3, 2**24 + 1]}), directory / "0.parquet", write_statistics=False
    )
    pq.write_table(pa.table({"label": [1, 0], "score": pa.array([0.5, 0.25], pa.float32())}), directory / "1.parquet")
    assert f"its value {2**24 + 1} in '{directory}/0.parquet' would round as float" in refusal(directory, ["auc"])


# --- files that are not Parquet ------------------------------------------------------


@pytest.fixture
def spark_directory(tmp_path: Path) -> Path:
    """A directory as Spark writes it: part files, their .crc files, a _SUCCESS marker."""
    directory = tmp_path / "spark"
    directory.mkdir()
    for i, half in enumerate((ROWS.head(3), ROWS.tail(3))):
        half.select("label", "score").write_parquet(directory / f"part-0000{i}.snappy.parquet")
        (directory / f".part-0000{i}.snappy.parquet.crc").write_bytes(b"crc\x00\x01")
    (directory / "_SUCCESS").write_bytes(b"")
    return directory


def test_a_directory_reads_only_its_parquet_files(spark_directory, engine):
    directory = spark_directory.rename(
        spark_directory.with_name("spark's [out]")
    )  # a quote for SQL, brackets for globs
    result = sm.evaluate(directory, ["auc"], engine=engine)
    assert result["n_rows"].item() == ROWS.height
    assert result["auc"].item() == pytest.approx(roc_auc_score(ROWS["label"], ROWS["score"]), abs=1e-12)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", " as Parquet: Parquet file size is 0 bytes"),
        (b"label,score\n0,0.1\n1,0.2\n", ": it is not a Parquet file (it does not start with Parquet's magic bytes)"),
    ],
    ids=["empty", "csv"],
)
def test_a_file_that_is_not_parquet_is_named(spark_directory, content, reason):
    bad = spark_directory / "sub" / "part-00009.parquet"
    bad.parent.mkdir()
    bad.write_bytes(content)
    assert refusal(spark_directory, ["auc"]).startswith(f"cannot read '{bad}'{reason}")
    assert refusal(bad, ["auc"]).startswith(f"cannot read '{bad}'{reason}")


def test_a_truncated_file_is_named(spark_directory):
    part = spark_directory / "part-00000.snappy.parquet"
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    assert refusal(spark_directory, ["auc"]).startswith(f"cannot read '{part}' as Parquet: ")


def corrupt_pages(path: Path) -> None:
    """Overwrite the first half of the file's pages (its footer, at the end, stays sound)."""
    data = bytearray(path.read_bytes())
    for i in range(100, len(data) // 2):
        data[i] = (data[i] * 7 + 13) % 256
    path.write_bytes(bytes(data))


def test_corrupt_pages_behind_a_sound_footer_are_named(tmp_path):
    """The engines fail while reading rows; the file is then found by reading each with pyarrow."""
    rng = np.random.default_rng(3)
    index = np.arange(20_000)  # (query, item) pairs all distinct: a valid run and valid judgments
    rows = pl.DataFrame({"q": index // 10, "item": index % 10, "label": index % 2, "score": rng.random(20_000)})
    directory = tmp_path / "corrupt"
    directory.mkdir()
    rows.head(10_000).write_parquet(directory / "0.parquet", compression="snappy")
    rows.tail(10_000).write_parquet(directory / "1.parquet", compression="snappy")
    corrupt_pages(directory / "1.parquet")
    expected = f"cannot read '{directory}/1.parquet' as Parquet: "
    assert refusal(directory, ["auc"]).startswith(expected)
    for engine in ("duckdb", "polars"):
        with pytest.raises(sm.SourceError, match=f"^{expected}"):
            sm.roc_curve(directory, engine=engine)
    judged = {"query": "q", "item": "item", "judgments": directory / "1.parquet"}  # a run with corrupt judgments
    assert refusal(directory / "0.parquet", ["ndcg@3"], **judged).startswith(expected)


def test_a_glob_matching_other_files_names_them(spark_directory):
    """A glob skips the .crc files and _SUCCESS (their names start with '.' and '_') but
    names any other file it matches that is not Parquet."""
    notes = spark_directory / "notes.txt"
    with pytest.warns(sm.SkippedFilesWarning, match=r"skipped 3 files"):
        assert sm.evaluate(f"{spark_directory}/*", ["auc"])["n_rows"].item() == ROWS.height
    notes.write_text("not Parquet")
    assert refusal(f"{spark_directory}/*", ["auc"]).startswith(f"cannot read '{notes}': it is not a Parquet file")


def test_file_names_are_not_globs(tmp_path, engine):
    """A directory named ``g[ab]`` is read, not ``ga`` next to it (brackets, stars and question
    marks in the names of matched files are literal)."""
    for name, rows in (("g[ab] *?", ROWS.head(3)), ("ga x", ROWS), ("g[ab] x", ROWS)):
        (tmp_path / name).mkdir()
        rows.write_parquet(tmp_path / name / "part.parquet")
    result = sm.evaluate(tmp_path / "g[ab] *?", ["auc"], engine=engine)
    assert result["n_rows"].item() == 3
    assert result["auc"].item() == pytest.approx(roc_auc_score(ROWS["label"][:3], ROWS["score"][:3]), abs=1e-12)


def test_a_directory_without_parquet_files(tmp_path):
    (tmp_path / "_SUCCESS").write_bytes(b"")
    assert refusal(tmp_path, ["auc"]) == f"no Parquet files (*.parquet) in the directory '{tmp_path}'"


def test_the_cli_reports_a_bad_directory_without_a_traceback(tmp_path, capsys):
    directory = write_files(
        tmp_path / "labels",
        {"label": pa.array([True, False]), "score": pa.array([0.1, 0.2])},
        {"label": pa.array([2, 5]), "score": pa.array([0.3, 0.4])},
    )
    for engine in ("duckdb", "polars"):
        code = cli.main(["eval", str(directory), "-m", "auc", "--engine", engine])
        err = capsys.readouterr().err
        assert code != 0
        assert "Traceback" not in err
        assert err.strip() == (
            "sqlmetrics: error: column 'label' has types that cannot be combined without changing values: "
            f"bool in '{directory}/0.parquet', int64 in '{directory}/1.parquet'; rewrite the files with one type for it"
        )


def test_an_existing_file_is_read_whatever_its_name(tmp_path, engine):
    """A path naming a file is that file, even when its name reads as a glob: ``[ack]``
    would match one of ``a``, ``c``, ``k`` and ``*`` anything; ``a1.parquet`` next to
    ``a[1].parquet`` is the file ``a[1]`` would match as a glob."""
    ROWS.head(3).write_parquet(tmp_path / "a1.parquet")
    for name in ("f br[ack]ets.parquet", "st*r?.parquet", "a[1].parquet"):
        ROWS.write_parquet(tmp_path / name)
        result = sm.evaluate(tmp_path / name, ["auc"], engine=engine)
        assert result["n_rows"].item() == ROWS.height, name
        assert result["auc"].item() == pytest.approx(roc_auc_score(ROWS["label"], ROWS["score"]), abs=1e-12)
        assert sm.evaluate(str(tmp_path / name), ["auc"], engine=engine)["n_rows"].item() == ROWS.height


def test_a_path_holding_a_newline_is_read(tmp_path, engine):
    """The path is bound, not pasted into the statement (whose lines are indented)."""
    directory = tmp_path / "logs\n  of\nmay"
    directory.mkdir()
    ROWS.write_parquet(directory / "part\n  0.parquet")
    for source in (directory, directory / "part\n  0.parquet"):
        result = sm.evaluate(source, ["auc"], engine=engine)
        assert result["n_rows"].item() == ROWS.height
        assert result["auc"].item() == pytest.approx(roc_auc_score(ROWS["label"], ROWS["score"]), abs=1e-12)


@pytest.mark.parametrize(
    ("name", "content", "advice"),
    [
        ("scores.csv", b"label,score\n0,0.1\n1,0.2\n", "pl.scan_csv('{path}')"),
        ("scores.json", b'[{"label": 0, "score": 0.1}]', "pl.read_json('{path}')"),
        ("scores.jsonl", b'{"label": 0, "score": 0.1}\n', "pl.scan_ndjson('{path}')"),
        ("scores.txt", b"0 0.1\n1 0.2\n", "pl.scan_csv('{path}')"),
    ],
)
def test_a_file_of_another_format_says_what_a_source_is(tmp_path, name, content, advice):
    path = tmp_path / name
    path.write_bytes(content)
    message = refusal(path, ["auc"])
    assert message.startswith(f"cannot read '{path}': it is not a Parquet file (")
    assert "a source is Parquet files, a polars DataFrame or LazyFrame, a pyarrow Table" in message
    assert advice.format(path=path) in message


def test_the_cli_says_how_to_convert_a_file_of_another_format(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    path.write_text("label,score\n0,0.1\n1,0.2\n")
    assert cli.main(["eval", str(path), "-m", "auc"]) == 1
    assert capsys.readouterr().err == (
        f"sqlmetrics: error: cannot read '{path}': it is not a Parquet file (it does not start with Parquet's magic "
        "bytes); SOURCE is Parquet files or a table (--table): convert it first, "
        f"e.g. duckdb -c \"COPY (FROM '{path}') TO 'out.parquet'\"\n"
    )


# --- Spark's and Hive's leftovers -----------------------------------------------------


def spark_leftovers(directory: Path, rows: pl.DataFrame) -> list[Path]:
    """``rows`` in ``part-00000.parquet``, and a failed attempt's copies of it where Spark
    leaves them: under ``_temporary``, as a hidden ``.part`` file, a ``_SUCCESS`` marker."""
    attempt = directory / "_temporary" / "0" / "_temporary" / "attempt_1"
    attempt.mkdir(parents=True)
    rows.write_parquet(directory / "part-00000.parquet")
    leftovers = [attempt / "part-00000.parquet", directory / ".part-00001.parquet"]
    for path in leftovers:
        rows.write_parquet(path)
    (directory / "_SUCCESS").write_bytes(b"")
    return leftovers


def test_files_below_names_starting_with_underscore_or_dot_are_skipped(tmp_path, engine):
    """1000 rows in the part file; the leftovers hold 2000 more, which were counted."""
    rng = np.random.default_rng(8)
    rows = pl.DataFrame({"label": rng.integers(0, 2, 1000), "score": rng.random(1000)})
    leftovers = spark_leftovers(tmp_path / "out", rows)
    expected = roc_auc_score(rows["label"], rows["score"])
    for source in (tmp_path / "out", f"{tmp_path}/out/**/*.parquet", f"{tmp_path}/out/*"):
        with pytest.warns(sm.SkippedFilesWarning, match=r"skipped \d files? below .* starting with '_' or '\.'"):
            result = sm.evaluate(source, ["auc"], engine=engine)
        assert result["n_rows"].item() == 1000, source
        assert result["auc"].item() == pytest.approx(expected, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a file named on its own is read, whatever its name, without a notice
        assert sm.evaluate(leftovers[1], ["auc"], engine=engine)["n_rows"].item() == 1000


def test_the_cli_says_which_files_it_skipped(tmp_path, capsys):
    spark_leftovers(tmp_path / "out", ROWS.select("label", "score"))
    assert cli.main(["eval", str(tmp_path / "out"), "-m", "auc", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].startswith(f"{ROWS.height},0,")
    assert captured.err == (
        f"sqlmetrics: warning: skipped 2 files below '{tmp_path}/out' whose path has a file or folder name "
        "starting with '_' or '.' (temporary and hidden files, as Spark, Hive and pyarrow skip them), "
        f"e.g. '{tmp_path}/out/.part-00001.parquet'\n"
    )


def test_the_cli_report_says_once_which_files_it_skipped(tmp_path, capsys):
    # the report reads the source for each of its parts; the notice was swallowed with its
    # other warnings, and is now said once
    spark_leftovers(tmp_path / "out", ROWS.select("label", "score"))
    output = tmp_path / "report.html"
    assert cli.main(["report", str(tmp_path / "out"), "-m", "auc", "--output", str(output)]) == 0
    notices = [line for line in capsys.readouterr().err.splitlines() if "skipped 2 files" in line]
    assert len(notices) == 1 and notices[0].startswith("sqlmetrics: warning: ")


def test_only_skipped_files_is_no_files(tmp_path):
    spark_leftovers(tmp_path / "out", ROWS)
    (tmp_path / "out" / "part-00000.parquet").unlink()
    assert refusal(tmp_path / "out", ["auc"]) == (
        f"no Parquet files (*.parquet) in the directory '{tmp_path}/out' (2 files skipped: names starting with "
        "'_' or '.' are temporary or hidden)"
    )


# --- Hive-partitioned directories ----------------------------------------------------

# Two days of impressions: the date, an hour and a model version live in the folders.
IMPRESSIONS = pl.DataFrame(
    {
        "date": [date(2026, 11, 1)] * 6 + [date(2026, 11, 2)] * 6,
        "model": ["a", "a", "b", "b", "b", "a", "a", "b", "a", "b", "a", "b"],
        "label": [0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0],
        "score": [0.1, 0.7, 0.3, 0.8, 0.6, 0.2, 0.9, 0.4, 0.35, 0.5, 0.45, 0.05],
    }
)


def partition_polars(frame: pl.DataFrame, directory: Path, by: list[str]) -> None:
    frame.write_parquet(directory, partition_by=by)


def partition_pyarrow(frame: pl.DataFrame, directory: Path, by: list[str]) -> None:
    pq.write_to_dataset(frame.to_arrow(), directory, partition_cols=by)


def partition_duckdb(frame: pl.DataFrame, directory: Path, by: list[str]) -> None:
    with duckdb.connect() as con:
        con.register("frame", frame.to_arrow())
        con.execute(f"COPY frame TO '{directory}' (FORMAT parquet, PARTITION_BY ({', '.join(by)}))")


PARTITION_WRITERS = [partition_polars, partition_pyarrow, partition_duckdb]


@pytest.mark.parametrize("writer", PARTITION_WRITERS, ids=lambda w: w.__name__.removeprefix("partition_"))
def test_partition_folders_are_columns(tmp_path, writer, engine):
    """``date=2026-11-01/model=a/...``: the keys are columns of every engine, a date a date
    and a string a string, as in the frame the files were written from (the reference)."""
    writer(IMPRESSIONS, tmp_path / "logs", ["date", "model"])
    assert (
        sorted(p.parent.parent.name for p in (tmp_path / "logs").rglob("*.parquet"))
        == ["date=2026-11-01"] * 2 + ["date=2026-11-02"] * 2
    )
    expected = sm.evaluate(IMPRESSIONS, ["auc", "logloss"], by=["date", "model"], engine=engine)
    for source in (tmp_path / "logs", f"{tmp_path}/logs/*/*/*.parquet", f"{tmp_path}/logs/date=*/**/*.parquet"):
        result = sm.evaluate(source, ["auc", "logloss"], by=["date", "model"], engine=engine)
        assert_frame_equal(result, expected, check_exact=False, rel_tol=1e-12)
    by_label = sm.evaluate(tmp_path / "logs", ["auc"], label="label", score="score", by="model", engine=engine)
    assert_frame_equal(by_label, sm.evaluate(IMPRESSIONS, ["auc"], by="model", engine=engine), rel_tol=1e-12)


def test_a_label_or_score_may_be_a_partition_key(tmp_path, engine):
    """Files split by label (``label=0/``, ``label=1/``) and scores bucketed by folder."""
    partition_polars(IMPRESSIONS, tmp_path / "by_label", ["label"])
    result = sm.evaluate(tmp_path / "by_label", ["auc"], by="date", engine=engine)
    assert_frame_equal(result, sm.evaluate(IMPRESSIONS, ["auc"], by="date", engine=engine), rel_tol=1e-12)
    bucketed = IMPRESSIONS.with_columns(pl.col("score").round(1))
    partition_polars(bucketed, tmp_path / "by_score", ["score"])
    result = sm.evaluate(tmp_path / "by_score", ["auc", "brier"], engine=engine)
    assert_frame_equal(result, sm.evaluate(bucketed, ["auc", "brier"], engine=engine), rel_tol=1e-12)


def partitioned(directory: Path, folders: list[str], frame: pl.DataFrame = IMPRESSIONS) -> Path:
    """``frame``'s rows dealt over ``folders`` (paths below ``directory``), one file each."""
    for i, folder in enumerate(folders):
        (directory / folder).mkdir(parents=True)
        frame.gather_every(len(folders), offset=i).write_parquet(directory / folder / "part-0.parquet")
    return directory


@pytest.mark.parametrize(
    ("values", "dtype", "slices"),
    [
        (["1", "02", "-3"], pl.Int64, [-3, 1, 2]),
        (["0.5", "1", "2e3"], pl.Float64, [0.5, 1.0, 2000.0]),
        (
            ["2026-11-01", "2026-11-02", "2026-12-31"],
            pl.Date,
            [date(2026, 11, d) for d in (1, 2)] + [date(2026, 12, 31)],
        ),
        (
            ["2026-11-01 10%3A00%3A00", "2026-11-01T11:30:00", "2026-11-02 00:00:00.5"],
            pl.Datetime("us"),
            [datetime(2026, 11, 1, 10), datetime(2026, 11, 1, 11, 30), datetime(2026, 11, 2, 0, 0, 0, 500_000)],
        ),
        (["1", "x", "2026-11-01"], pl.String, ["1", "2026-11-01", "x"]),
        (["a%2Fb", "__HIVE_DEFAULT_PARTITION__", "c d"], pl.String, ["a/b", "c d", None]),
        (["7", "__HIVE_DEFAULT_PARTITION__", ""], pl.Int64, [7, None]),
    ],
    ids=["integers", "floats", "dates", "timestamps", "mixed", "escaped_and_null", "null_integers"],
)
def test_partition_values_have_one_type_in_every_engine(tmp_path, values, dtype, slices, engine):
    """A key is an integer (int64) when every value is one, else a float (float64), a date,
    a timestamp, else a string; values are %-decoded; __HIVE_DEFAULT_PARTITION__ and an
    empty value are NULL."""
    partitioned(tmp_path / "logs", [f"k={value}" for value in values])
    result = sm.evaluate(tmp_path / "logs", ["auc"], by="k", engine=engine)
    assert result.schema["k"] == dtype
    assert result["k"].to_list() == slices
    assert result["n_rows"].sum() == IMPRESSIONS.height


def test_folders_above_the_source_are_not_partitions(tmp_path, engine):
    """Only folders below the directory (or the glob's fixed part) are partitions, as Spark,
    pyarrow and polars read them: a day's folder given as the source has no key."""
    day = partitioned(tmp_path / "date=2026-11-01", ["hour=1", "hour=2"])
    for source in (day, f"{day}/*/*.parquet", day / "hour=1" / "part-0.parquet"):
        result = sm.evaluate(source, ["auc"], by="date", engine=engine)  # the files' own date column
        assert result["date"].to_list() == [date(2026, 11, 1), date(2026, 11, 2)]
        with pytest.raises(sm.ColumnNotFoundError, match="by column 'day' not found"):
            sm.evaluate(source, ["auc"], by="day", engine=engine)
    assert sm.evaluate(day, ["auc"], by="hour", engine=engine)["hour"].to_list() == [1, 2]


def test_a_key_also_in_the_files_must_hold_the_folders_value(tmp_path, engine):
    agreeing = partitioned(tmp_path / "agree", ["date=2026-11-01", "date=2026-11-02"], IMPRESSIONS.sort("date"))
    for path in agreeing.rglob("*.parquet"):  # each file's rows are of its folder's date
        day = date.fromisoformat(path.parent.name.removeprefix("date="))
        IMPRESSIONS.filter(pl.col("date") == day).write_parquet(path)
    result = sm.evaluate(agreeing, ["auc"], by="date", engine=engine)
    assert_frame_equal(result, sm.evaluate(IMPRESSIONS, ["auc"], by="date", engine=engine), rel_tol=1e-12)
    disagreeing = partitioned(tmp_path / "disagree", ["date=2026-11-01", "date=2026-11-02"])
    message = (
        f"column 'date' is both a partition folder and a column of the files, with other values: "
        f"'{disagreeing}/date=2026-11-01/part-0.parquet' is below 'date=2026-11-01' "
        "but holds 2026-11-01 to 2026-11-02; rename the column or the folder"
    )
    with pytest.raises(sm.SourceError) as error:
        sm.evaluate(disagreeing, ["auc"], by="date", engine=engine)
    assert str(error.value) == message
    assert sm.evaluate(disagreeing, ["auc"], engine=engine)["n_rows"].item() == IMPRESSIONS.height  # date unread


def test_a_key_in_the_files_is_compared_as_the_folder_writes_it(tmp_path, engine):
    """``day=01`` over files whose ``day`` holds the text '01' agree: the folder's text is
    read as the file column's type (it was read as the integer 1, then compared as '1',
    and refused with a message that said ``day=1``)."""
    frame = IMPRESSIONS.head(8)
    for folder in ["day=01", "day=02"]:
        (tmp_path / "logs" / folder).mkdir(parents=True)
        frame.with_columns(day=pl.lit(folder.removeprefix("day="))).write_parquet(
            tmp_path / "logs" / folder / "p.parquet"
        )
    result = sm.evaluate(tmp_path / "logs", ["auc"], by="day", engine=engine)
    assert result["day"].to_list() == [1, 2]  # the folder's value, typed from all folders
    assert result["n_rows"].to_list() == [8, 8]
    frame.with_columns(day=pl.lit("1")).write_parquet(tmp_path / "logs" / "day=02" / "p.parquet")
    with pytest.raises(sm.SourceError, match=r"is below 'day=02' but holds 1; rename"):
        sm.evaluate(tmp_path / "logs", ["auc"], by="day", engine=engine)


def test_files_partitioned_differently_are_refused(tmp_path):
    directory = partitioned(tmp_path / "logs", ["date=2026-11-01/hour=1", "date=2026-11-02"])
    assert refusal(directory, ["auc"]) == (
        f"the files below '{directory}' are partitioned differently: "
        f"'{directory}/date=2026-11-01/hour=1/part-0.parquet' is below date, hour, "
        f"'{directory}/date=2026-11-02/part-0.parquet' below date; every file needs the same key=value folders"
    )


def test_partitions_of_files_with_odd_names(tmp_path, engine):
    """Brackets, quotes and a newline in folder and file names: each file is joined to its
    own partition values in both engines."""
    directory = partitioned(tmp_path / "it's [odd]", ["k=a [1]", "k=b'\n2", "k=c*?"])
    result = sm.evaluate(directory, ["auc"], by="k", engine=engine)
    assert result["k"].to_list() == ["a [1]", "b'\n2", "c*?"]
    expected = [IMPRESSIONS.gather_every(3, offset=i) for i in range(3)]
    assert result["n_rows"].to_list() == [rows.height for rows in expected]
    for value, rows in zip(result["auc"], expected):
        if rows["label"].n_unique() == 1:  # the third folder's rows are all negatives: AUC is undefined
            assert value is None
        else:
            assert value == pytest.approx(roc_auc_score(rows["label"], rows["score"]), abs=1e-12)


def test_polars_users_scan_the_same_columns(tmp_path):
    """``smp.scan_parquet`` is the LazyFrame the polars engine reads: partition keys as
    columns, leftovers skipped."""
    partition_pyarrow(IMPRESSIONS, tmp_path / "logs", ["date", "model"])
    IMPRESSIONS.write_parquet(tmp_path / "logs" / ".hidden.parquet")
    with pytest.warns(sm.SkippedFilesWarning):
        lf = smp.scan_parquet(tmp_path / "logs")
    assert lf.collect_schema() == pl.Schema(
        {"label": pl.Int64, "score": pl.Float64, "date": pl.Date, "model": pl.String}
    )
    got = lf.group_by("date", "model").agg(smp.auc("score", "label")).sort("date", "model").collect()
    want = IMPRESSIONS.group_by("date", "model").agg(smp.auc("score", "label")).sort("date", "model")
    assert_frame_equal(got, want)


# --- files that change while they are read -------------------------------------------


def vanishing(monkeypatch, module: object, name: str, path: Path) -> None:
    """``module.name`` (a step of the call) removes ``path`` once it has run."""
    step = getattr(module, name)

    def then_remove(*args, **kwargs):
        result = step(*args, **kwargs)
        if path.exists():
            path.unlink()
        return result

    monkeypatch.setattr(module, name, then_remove)


@pytest.mark.parametrize(
    ("engine", "removed_after"),
    # the polars engine reads the schema from the footers read with the listing: no step between
    [("duckdb", "listing"), ("polars", "listing"), ("duckdb", "schema")],
)
def test_a_file_removed_while_the_call_reads_it(tmp_path, monkeypatch, engine, removed_after):
    """The files were listed (and, on DuckDB, the schema read) before the file went."""
    import sqlmetrics.engines.duckdb_engine as duckdb_engine
    import sqlmetrics.sources as sources

    directory = write_files(tmp_path / "logs", *[{"label": [0, 1], "score": [0.1, 0.2]}] * 2)
    step = (sources, "read_parquet_files") if removed_after == "listing" else (duckdb_engine, "_schema")
    vanishing(monkeypatch, *step, directory / "1.parquet")
    with pytest.raises(sm.SourceError) as error:
        sm.evaluate(directory, ["auc"], engine=engine)
    message = str(error.value)
    assert message.startswith(f"cannot read '{directory}': a file was removed or replaced while it was read (")
    assert f"{directory}/1.parquet" in message and message.endswith("; run again once no job is writing the files")
    assert "\n" not in message
