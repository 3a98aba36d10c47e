"""TREC run and qrels files read back exactly what was written, and bad lines are named."""

from __future__ import annotations

import doctest
import io
import re

import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sqlmetrics as sm
import sqlmetrics.sources.trec

RUN_SCHEMA = {"query": pl.String, "item": pl.String, "score": pl.Float64, "rank": pl.Int64, "run": pl.String}
QRELS_SCHEMA = {"query": pl.String, "item": pl.String, "relevance": pl.Float64}

# Fields are split on ASCII whitespace only; anything else (even U+00A0 or U+2028) is part of
# a token. U+FEFF is left out: at the very start of a file it is read as a byte-order mark.
SEPARATORS = " \t\x0b\x0c\r\n"
tokens = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters=SEPARATORS + "\ufeff"), min_size=1, max_size=8
)
gaps = st.text(" \t\x0b\x0c", min_size=1, max_size=3)
edges = st.text(" \t\x0b\x0c", max_size=2)
endings = st.sampled_from(["\n", "\r\n"])
blank_lines = st.lists(st.text(" \t\x0b\x0c\r", max_size=3), max_size=2)
scores = st.floats(allow_nan=False)
ranks = st.integers(-(2**63), 2**63 - 1)
grades = st.integers(-2, 4)


@st.composite
def trec_text(draw, records, fields):
    """TREC-format text for ``records``, each line's fields from ``fields(record)``, with
    varied whitespace, line endings and blank lines between them."""
    out = []
    for record in records:
        out.extend(blank + draw(endings) for blank in draw(blank_lines))
        parts = fields(record)
        line = draw(edges) + parts[0]
        for part in parts[1:]:
            line += draw(gaps) + part
        out.append(line + draw(edges) + draw(endings))
    out.extend(draw(blank_lines))
    return "".join(out)


def as_source(text: str, kind: str, tmp_path):
    """The text as a file path, a binary stream or a text stream."""
    if kind == "path":
        path = tmp_path / "data.trec"
        path.write_bytes(text.encode("utf-8"))
        return path
    if kind == "str-path":
        path = tmp_path / "data.trec"
        path.write_bytes(text.encode("utf-8"))
        return str(path)
    if kind == "bytes":
        return io.BytesIO(text.encode("utf-8"))
    return io.StringIO(text, newline="")


source_kinds = st.sampled_from(["path", "str-path", "bytes", "text"])
run_records = st.lists(st.tuples(tokens, tokens, tokens, ranks, scores, tokens), max_size=30)
qrels_records = st.lists(st.tuples(tokens, tokens, tokens, grades), max_size=30)


def run_fields(record):
    query, q0, item, rank, score, tag = record
    return [query, q0, item, str(rank), repr(score), tag]


def qrels_fields(record):
    query, iteration, item, grade = record
    return [query, iteration, item, str(grade)]


@given(data=st.data(), records=run_records, kind=source_kinds)
def test_run_round_trips(tmp_path_factory, data, records, kind):
    text = data.draw(trec_text(records, run_fields))
    frame = sm.read_trec_run(as_source(text, kind, tmp_path_factory.mktemp("run")))
    expected = pl.DataFrame(
        {
            "query": [r[0] for r in records],
            "item": [r[2] for r in records],
            "score": [r[4] for r in records],
            "rank": [r[3] for r in records],
            "run": [r[5] for r in records],
        },
        schema=RUN_SCHEMA,
    )
    polars.testing.assert_frame_equal(frame, expected, check_exact=True)


@given(data=st.data(), records=qrels_records, kind=source_kinds)
def test_qrels_round_trip(tmp_path_factory, data, records, kind):
    text = data.draw(trec_text(records, qrels_fields))
    frame = sm.read_trec_qrels(as_source(text, kind, tmp_path_factory.mktemp("qrels")))
    expected = pl.DataFrame(
        {"query": [r[0] for r in records], "item": [r[2] for r in records], "relevance": [r[3] for r in records]},
        schema=QRELS_SCHEMA,
    )
    polars.testing.assert_frame_equal(frame, expected, check_exact=True)


BAD_RUN_LINES = {
    "q1 Q0 d1 1 0.5": r"expected 6 whitespace-separated fields \(qid Q0 docno rank score tag\), found 5",
    "q1 Q0 d1 1 0.5 bm25 extra": r"expected 6 whitespace-separated fields .*, found 7",
    "q1 Q0 d1 one 0.5 bm25": r"rank 'one' is not an integer",
    "q1 Q0 d1 1.0 0.5 bm25": r"rank '1\.0' is not an integer",
    "q1 Q0 d1 1 high bm25": r"score 'high' is not a number",
    "q1 Q0 d1 1 0,5 bm25": r"score '0,5' is not a number",
}
BAD_QRELS_LINES = {
    "q1 0 d1": r"expected 4 whitespace-separated fields \(qid iteration docno relevance\), found 3",
    "q1 0 d1 1 1": r"expected 4 whitespace-separated fields .*, found 5",
    "q1 0 d1 relevant": r"relevance 'relevant' is not a number",
}


@given(
    data=st.data(),
    records=run_records,
    bad=st.sampled_from(sorted(BAD_RUN_LINES)),
    later_bad=st.sampled_from(sorted(BAD_RUN_LINES)),
)
def test_first_bad_run_line_is_named_with_its_number_and_text(data, records, bad, later_bad):
    before = data.draw(trec_text(records, run_fields))
    after = data.draw(trec_text(records, run_fields))
    text = before + "\n" + bad + "\n" + after + "\n" + later_bad + "\n"
    line_no = before.count("\n") + 2
    message = rf"TREC run '<stream>', line {line_no}: {BAD_RUN_LINES[bad]}: {re.escape(repr(bad))}$"
    with pytest.raises(sm.SourceError, match=message):
        sm.read_trec_run(io.StringIO(text, newline=""))


@given(
    data=st.data(),
    records=qrels_records,
    bad=st.sampled_from(sorted(BAD_QRELS_LINES)),
)
def test_first_bad_qrels_line_is_named_with_its_number_and_text(data, records, bad):
    before = data.draw(trec_text(records, qrels_fields))
    text = before + "\n" + bad + "\r\n" + "q1 0 d1\n"
    line_no = before.count("\n") + 2
    message = rf"TREC qrels '<stream>', line {line_no}: {BAD_QRELS_LINES[bad]}: {re.escape(repr(bad))}$"
    with pytest.raises(sm.SourceError, match=message):
        sm.read_trec_qrels(io.BytesIO(text.encode()))


def test_error_names_the_file_path(tmp_path):
    path = tmp_path / "bm25.run"
    path.write_text("q1 Q0 d1 1 0.5 bm25\n\nq1 Q0 d2 2 x bm25\n")
    with pytest.raises(sm.SourceError, match=rf"TREC run '{re.escape(str(path))}', line 3: score 'x' is not a number"):
        sm.read_trec_run(path)


def test_source_error_is_a_sqlmetrics_error():
    with pytest.raises(sm.SqlMetricsError):
        sm.read_trec_qrels(io.StringIO("q1 0 d1 yes\n"))


def test_long_bad_line_is_shortened_in_the_message():
    line = "q1 Q0 d1 1 0.5 " + "x" * 1000 + " extra"
    with pytest.raises(sm.SourceError, match=r"found 7: 'q1 Q0 d1 1 0\.5 x+\.\.\.'$"):
        sm.read_trec_run(io.StringIO(line))


def test_missing_file_is_named(tmp_path):
    path = tmp_path / "nowhere.qrels"
    with pytest.raises(sm.SourceError, match=rf"TREC qrels file not found: '{re.escape(str(path))}'"):
        sm.read_trec_qrels(path)
    with pytest.raises(sm.SourceError, match=rf"TREC run file not found: '{re.escape(str(path))}'"):
        sm.read_trec_run(str(path))


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(sm.SourceError, match=rf"cannot read TREC run file '{re.escape(str(tmp_path))}'"):
        sm.read_trec_run(tmp_path)


def test_text_that_is_not_utf8_is_named_with_its_line(tmp_path):
    path = tmp_path / "latin1.qrels"
    path.write_bytes("q1 0 d1 1\nq1 0 caf\u00e9 2\n".encode("latin-1"))
    with pytest.raises(sm.SourceError, match=r"line 2: not UTF-8 text \(byte 0xe9\)"):
        sm.read_trec_qrels(path)


def test_lone_surrogate_in_a_text_stream_is_named_with_its_line():
    with pytest.raises(sm.SourceError, match=r"line 2: '\\ud800' is not a character UTF-8 can hold"):
        sm.read_trec_qrels(io.StringIO("q1 0 d1 1\nq1 0 \ud800 2\n"))


def test_empty_and_blank_files_give_empty_frames():
    for text in ["", "\n", " \t\r\n\n"]:
        assert sm.read_trec_run(io.StringIO(text)).schema == pl.Schema(RUN_SCHEMA)
        assert sm.read_trec_qrels(io.StringIO(text)).schema == pl.Schema(QRELS_SCHEMA)
        assert sm.read_trec_run(io.StringIO(text)).is_empty()


def test_values_are_kept_as_written():
    run = sm.read_trec_run(io.StringIO("007 anything 0042 3 1e-3 my-run\nq Q0 d 1 -inf r\nq Q0 e 2 nan r\n"))
    assert run.row(0) == ("007", "0042", 0.001, 3, "my-run")
    assert run["score"][1] == float("-inf")
    assert run["score"].is_nan()[2]  # the metrics reject NaN scores; reading keeps them
    qrels = sm.read_trec_qrels(io.StringIO("\ufeffq1 0 d1 -2\nq1 0 d2 1.5\n"))
    assert qrels.rows() == [("q1", "d1", -2.0), ("q1", "d2", 1.5)]


def test_docstring_examples_run():
    # the examples print frames in polars' default format: a display option another test
    # of the same worker left set (seen twice, hiding the shape line; not traced yet) must
    # not change them
    with pl.Config(restore_defaults=True):
        result = doctest.testmod(sqlmetrics.sources.trec, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
