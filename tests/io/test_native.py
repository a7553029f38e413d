"""The native reader and matcher (judged._native) against the strict Python parser and plain Python references."""

from __future__ import annotations

import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judged.engine.ranking import _matched_by_pair, _matched_by_query
from judged.errors import InputError
from judged.io.inputs import Qrels, Run, _flatten, opened
from judged.io.native import (
    QRELS_FORMAT,
    RUN_FORMAT,
    first_repeated_row,
    flatten_nested,
    match_judgments,
    order_tied,
    parse_trec,
)
from judged.io.trec import _QRELS_COLUMNS, _RUN_COLUMNS, _qrels_row, _run_row, _strict, read_trec_run

_native = pytest.importorskip("judged._native", reason="the native reader is not built (docs/formats.md)")

# Field text drawn to hit every rule the native parser must agree with the strict one on: long strings
# (outside the 12 inline bytes of a view), non-ASCII letters, non-ASCII whitespace that str.split() splits
# on, control bytes, and numbers written every way Python does or does not read them.
_WORDS = st.one_of(
    st.sampled_from(["q1", "q2", "d1", "d01", "Q0", "0", "run", "clueweb09-en0000-00-00000", "doc#7", "é", "文書"]),
    st.text(alphabet="abcdXYZ019-_.#é", min_size=1, max_size=20),
)
_ODD = st.sampled_from(["\u00a0", "\u2003", "\x1c", "\x00", "\x7f", "\u0085", "\ufeff"])
_NUMBERS = st.one_of(
    st.sampled_from(["1", "-0.5", "+3", "1e3", "1E-3", ".5", "5.", "1_0", "nan", "inf", "-Infinity", "0x1p3",
                     "1e400", "1e-400", "12345678901234567890", "0.1000000000000000055511151231257827", "1.", "-.0",
                     ".", "e5", "1e", "--1", "3.0", "7", "-2", "0009"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-(10**20), 10**20).map(str),
)
_SPACE = st.sampled_from([" ", "  ", "\t", " \t ", "\v", "\f"])


@st.composite
def _lines(draw, width: int, value: int) -> str:
    kind = draw(st.sampled_from(["data"] * 8 + ["comment", "blank", "short", "long", "odd"]))
    if kind == "comment":
        return "#" + draw(st.text(alphabet="ab #\t", max_size=10))
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t", "\r"]))
    count = {"short": width - 1, "long": width + 1}.get(kind, width)
    fields = [draw(_NUMBERS) if i == value else draw(_WORDS) for i in range(count)]
    if kind == "odd":
        at = draw(st.integers(0, count - 1))
        fields[at] += draw(_ODD) + draw(_WORDS)
    line = fields[0]
    for field in fields[1:]:
        line += draw(_SPACE) + field
    return draw(st.sampled_from(["", " ", "\t"])) + line + draw(st.sampled_from(["", " ", "\r"]))


def _files(width: int, value: int):
    return st.lists(_lines(width, value), min_size=1, max_size=12).map(
        lambda lines: "\n".join(lines).encode("utf-8") + b"\n"
    )


def _strict_frame(text: bytes, columns, convert) -> pl.DataFrame | None:
    handle, path = tempfile.mkstemp(suffix=".txt")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(text)
        with opened(path) as handle:
            return _strict(handle, path, columns, convert)[0]
    except InputError:
        return None
    finally:
        os.unlink(path)


@settings(max_examples=400)
@given(_files(6, 4))
def test_a_run_the_native_parser_takes_is_read_exactly_as_the_strict_parser_reads_it(text):
    native = parse_trec(text, RUN_FORMAT)
    strict = _strict_frame(text, _RUN_COLUMNS, _run_row)
    if native is None or native.height == 0:
        return
    assert strict is not None and native.equals(strict)
    assert [struct.pack("<d", x) for x in native["score"]] == [struct.pack("<d", x) for x in strict["score"]]


@settings(max_examples=400)
@given(_files(4, 3))
def test_qrels_the_native_parser_takes_are_read_exactly_as_the_strict_parser_reads_them(text):
    native = parse_trec(text, QRELS_FORMAT)
    strict = _strict_frame(text, _QRELS_COLUMNS, _qrels_row)
    if native is not None and native.height:
        assert strict is not None and native.equals(strict)


@pytest.mark.parametrize(
    "line",
    [
        "q1 Q0 d1 1 2.5",  # short
        "q1 Q0 d1 1 abc run",  # not a number
        "q1 Q0 d1 1 0x1p3 run",  # a hex float, which float() refuses
        "q1 Q0 d1 1 1_0 run",  # underscores, which float() takes: the strict parser decides
        "q1 Q0 d\x00x 1 2 run",  # a NUL byte, which the strict parser refuses
        "q1 Q0 d\x1cx 1 2 run",  # a control byte: part of the docid, read by the strict parser
        "q1 Q0 d\xff 1 2 run",  # not UTF-8 (written below as a raw byte)
    ],
)
def test_lines_the_native_parser_leaves_to_the_strict_parser(line):
    text = line.encode("utf-8").replace("\xff".encode(), b"\xff") + b"\n"
    assert parse_trec(b"q1 Q0 d0 1 3 run\n" + text, RUN_FORMAT) is None


@pytest.mark.parametrize("docid", ["d\u00a0x", "d\u3000x", "d\u2028x", "d\u0085x"])
def test_non_ascii_whitespace_is_part_of_a_docid_as_for_trec_eval(docid):
    text = f"q1 Q0 {docid} 1 2 run\n".encode()
    assert parse_trec(text, RUN_FORMAT).rows() == [("q1", docid, 2.0)]


@settings(max_examples=300)
@given(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["{!r}", "{:.17e}", "{:.6f}", "{:.3g}", "{:.25f}"]),
)
def test_scores_are_the_correctly_rounded_double_that_float_reads(value, style):
    text = style.format(value)
    frame = parse_trec(f"q Q0 d 1 {text} run\n".encode(), RUN_FORMAT)
    assert struct.pack("<d", frame["score"][0]) == struct.pack("<d", float(text))


def _big_run(rows: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(rows):
        docid = f"d{rng.integers(0, 10**6)}" if i % 3 else f"clueweb12-{rng.integers(0, 10**9):012d}"
        lines.append(f"q{i // 500:04d} Q0 {docid}-{i} {i % 500 + 1} {rng.normal():.6f} tag")
        if i % 997 == 0:
            lines.append("# a comment")
    return ("\n".join(lines)).encode()  # no final newline


def test_chunks_on_many_threads_read_what_one_thread_reads():
    text = _big_run(60_000, 7)
    assert len(text) > 1 << 20  # large enough to be split into one chunk a thread
    one = _native.parse_trec(text, 4, 6, 0, False, False, 1)
    many = _native.parse_trec(text, 4, 6, 0, False, False, 7)
    assert one[0] == many[0] == 60_000
    frame = parse_trec(text, RUN_FORMAT)
    assert frame.height == 60_000 and frame["docid"][1] == text.split(b"\n")[2].split()[2].decode()
    assert frame["score"].to_numpy()[-1] == float(text.rsplit(b"\n", 1)[1].split()[4])


def _grouped_run(draw_rows) -> Run:
    schema = {"qid": pl.String, "docid": pl.String, "score": pl.Float64}
    return Run(pl.DataFrame(draw_rows, schema=schema, orient="row"), "r")


_DOCIDS = st.sampled_from(["d1", "d2", "d3", "a-rather-long-document-id-1", "a-rather-long-document-id-2", "é文"])


@given(st.lists(st.lists(_DOCIDS, max_size=8), min_size=1, max_size=6), st.integers(0, 3))
def test_the_first_repeated_docid_of_a_query_is_found_as_python_finds_it(queries, cut):
    rows = [(f"q{i}", docid, 1.0) for i, docids in enumerate(queries) for docid in docids]
    docids = pl.Series("docid", ["pad"] * cut + [r[1] for r in rows]).slice(cut)  # a view with an offset
    lengths = np.array([len(d) for d in queries])
    expected = None
    for i, docids_of_query in enumerate(queries):
        seen = set()
        for j, docid in enumerate(docids_of_query):
            if docid in seen:
                expected = int(lengths[:i].sum()) + j
                break
            seen.add(docid)
        if expected is not None:
            break
    assert first_repeated_row(docids, np.concatenate(([0], np.cumsum(lengths)))) == expected


@given(
    st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.lists(_DOCIDS, unique=True, max_size=6)), max_size=4,
             unique_by=lambda q: q[0]),
    st.lists(st.tuples(st.sampled_from(["q1", "q2", "q4"]), _DOCIDS, st.integers(-1, 3)), max_size=12,
             unique_by=lambda j: j[:2]),
)
def test_judgments_matched_query_by_query_equal_the_hashed_join(queries, judgments):
    run = _grouped_run([(qid, docid, 1.0) for qid, docids in queries for docid in docids])
    qrels = Qrels(pl.DataFrame(judgments, schema={"qid": pl.String, "docid": pl.String, "grade": pl.Int64},
                               orient="row"))
    if not run.frame.height:
        return
    assert run.grouped
    by_query = sorted(zip(*_matched_by_query(run, qrels)))
    by_pair = sorted(zip(*_matched_by_pair(run, qrels)))
    expected = sorted(
        (i, j) for i, (q, d, _) in enumerate(run.frame.rows()) for j, (q2, d2, _) in enumerate(qrels.frame.rows())
        if (q, d) == (q2, d2)
    )
    assert by_query == by_pair == expected


def test_views_pointing_outside_their_buffers_are_refused_not_read():
    view = struct.pack("<i4sii", 20, b"abcd", 0, 1_000)  # 20 bytes at offset 1000 of a 10-byte buffer
    with pytest.raises(ValueError, match="outside"):
        _native.scan_queries(view, [b"0123456789"], np.array([0, 1]), None, None, None, None, None, True, 1)
    docids = pl.Series(["d1", "d2"])
    with pytest.raises(ValueError, match="ranges"):
        match_judgments(docids, np.array([0, 2]), docids, np.array([0, 5]), np.array([0]), np.array([2]))


def test_scores_past_the_fast_path_still_round_correctly():
    for text in [
        "12345678901234567890.5", "1e-320", "1.7976931348623157e308", "2.2250738585072011e-308", "9007199254740993",
    ]:
        frame = parse_trec(f"q Q0 d 1 {text} run\n".encode(), RUN_FORMAT)
        assert struct.pack("<d", frame["score"][0]) == struct.pack("<d", float(text)), text
    assert math.isinf(parse_trec(b"q Q0 d 1 1e400 run\n", RUN_FORMAT)["score"][0])


@given(
    st.lists(st.lists(st.tuples(_DOCIDS | st.text(alphabet="ab\u00e9\U0001f600", max_size=14), st.integers(-1, 3)),
                      min_size=1, max_size=5, unique_by=lambda t: t[0]), max_size=6),
    st.sampled_from([None, "worst", "best"]),
)
def test_tied_groups_are_ordered_as_a_sort_by_grade_then_docid_bytes_descending(groups, rule):
    docids = pl.Series([d for group in groups for d, _ in group], dtype=pl.String)
    grades = np.array([g for group in groups for _, g in group], dtype=np.int32)
    members = np.arange(len(docids))
    opens = np.array([i == 0 for group in groups for i in range(len(group))], dtype=bool)
    rows = order_tied(docids, members, opens, None if rule is None else grades, rule == "best")
    expected, start = [], 0
    for group in groups:
        rows_of_group = range(start, start + len(group))
        by_docid = sorted(rows_of_group, key=lambda r: docids[r].encode(), reverse=True)
        if rule is not None:  # stable: docid descending within each grade
            by_docid = sorted(by_docid, key=lambda r: -grades[r] if rule == "best" else grades[r])
        expected += by_docid
        start += len(group)
    assert rows.tolist() == expected


def _digest_in_child(path: str) -> str:
    return read_trec_run(path).source.sha256


def test_the_digest_taken_in_the_background_is_the_files_sha256_in_a_forked_child_and_after_pickling(tmp_path):
    import hashlib
    import multiprocessing
    import pickle

    path = tmp_path / "run.txt"
    path.write_bytes(_big_run(2_000, 3))
    source = read_trec_run(str(path)).source  # the parent has hashed on a thread of its own before forking
    assert source.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_digest_in_child, (str(path),)).get(timeout=60) == source.sha256
    assert pickle.loads(pickle.dumps(source)) == source and "sha256=" in repr(source)


@settings(max_examples=300)
@given(st.binary(max_size=300), st.integers(1, 4))
def test_any_bytes_give_a_frame_or_none_on_any_number_of_threads(text, threads):
    for value_field, least, most, integer in ((4, 6, 0, False), (3, 4, 4, True)):
        parsed = _native.parse_trec(text, value_field, least, most, integer, False, threads)
        assert parsed is None or parsed[0] == len(parsed[1]) // 16 == len(parsed[3]) // 8


@pytest.mark.parametrize("rule", [None, "worst", "best"])
def test_a_large_tied_group_is_merge_sorted_stably(rule):
    rng = np.random.default_rng(11)
    docids = pl.Series([f"d{rng.integers(0, 10**rng.integers(1, 18))}" for _ in range(700)]).unique(maintain_order=True)
    grades = rng.integers(-1, 4, len(docids)).astype(np.int32)
    opens = np.zeros(len(docids), dtype=bool)
    opens[[0, 3, 250]] = True  # groups of 3, 247 and the rest
    rows = order_tied(docids, np.arange(len(docids)), opens, None if rule is None else grades, rule == "best")
    expected = []
    for begin, end in ((0, 3), (3, 250), (250, len(docids))):
        group = sorted(range(begin, end), key=lambda r: docids[r].encode(), reverse=True)
        if rule is not None:
            group = sorted(group, key=lambda r: -grades[r] if rule == "best" else grades[r])
        expected += group
    assert rows.tolist() == expected


# A file mapping that another process rewrites in place (cp onto the file, dd conv=notrunc) changes under the
# parser between counting its lines and parsing them: from one line to millions here. Run in a child, as the
# parser used to write past the rows it counted (a crash, or a corrupt heap).
_REWRITTEN_WHILE_PARSED = """
import mmap, os, sys, threading
from judged import _native
path, size = sys.argv[1], 16 << 20
one = b"q Q0 d 1 1 r" + b" " * (size - 13) + b"\\n"
many = (b"q Q0 d 1 1 r\\n" * (size // 13 + 1))[:size]
with open(path, "wb") as out:
    out.write(one)
stop = False
def rewrite():
    handle, i = os.open(path, os.O_WRONLY), 0
    while not stop:
        os.pwrite(handle, (many, one)[i % 2], 0)  # drops the GIL
        i += 1
    os.close(handle)
writer = threading.Thread(target=rewrite)
writer.start()
try:
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as text:
        for _ in range(40):
            for threads in (1, 2):
                parsed = _native.parse_trec(text, 4, 6, 0, False, True, threads)
                assert parsed is None or parsed[0] == len(parsed[1]) // 16 == len(parsed[3]) // 8
finally:
    stop = True
    writer.join()
"""


def test_a_comment_is_skipped_whatever_its_bytes_by_both_parsers(tmp_path):
    text = b"# caf\xe9 in Latin-1\nq1 Q0 d1 1 2.5 run\n"
    assert parse_trec(text, RUN_FORMAT).rows() == [("q1", "d1", 2.5)]
    assert _strict_frame(text, _RUN_COLUMNS, _run_row).rows() == [("q1", "d1", 2.5)]
    path = tmp_path / "run.txt"
    path.write_bytes(text + b"q1 Q0 d2 1 1.5 run extra fields\n")
    assert read_trec_run(str(path)).frame.rows() == [("q1", "d1", 2.5), ("q1", "d2", 1.5)]


def test_a_file_rewritten_while_it_is_parsed_gives_a_frame_or_none_never_a_crash(tmp_path):
    child = subprocess.run([sys.executable, "-c", _REWRITTEN_WHILE_PARSED, str(tmp_path / "run.txt")],
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr[-2000:]


def test_a_huge_thread_count_runs_on_the_threads_there_are():
    text = _big_run(30_000, 5)
    assert len(text) > 1 << 20  # large enough for a chunk a thread
    assert _native.parse_trec(text, 4, 6, 0, False, False, 2**31 - 1)[0] == 30_000


def test_a_string_longer_than_a_view_can_hold_is_left_to_the_strict_parser():
    # a view holds its length as int32: a docid of 2^31 bytes used to come back as a view of length -2^31
    head, tail = b"q Q0 ", b" 1 1 r\n"
    text = np.full(len(head) + 2**31 + len(tail), ord("d"), dtype=np.uint8)  # one 2 GiB buffer, no copies
    text[: len(head)] = np.frombuffer(head, dtype=np.uint8)
    text[-len(tail) :] = np.frombuffer(tail, dtype=np.uint8)
    assert _native.parse_trec(text, 4, 6, 0, False, False, 1) is None


_IDS = st.one_of(_WORDS, st.text(min_size=0, max_size=30))  # any str: empty, control bytes, astral planes


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_IDS, st.dictionaries(_IDS, st.one_of(st.floats(allow_nan=False), st.integers(-(2**62), 2**62)),
                                             max_size=12), max_size=6))
def test_a_dict_of_dicts_flattens_in_c_exactly_as_the_python_loop_flattens_it(run):
    qids, docids, scores = _flatten(run)
    frame, lengths = flatten_nested(run, "score")
    assert frame["qid"].to_list() == qids.to_list()
    assert frame["docid"].to_list() == docids.to_list()
    assert frame["score"].to_list() == [float(s) for s in scores]
    assert lengths.tolist() == [len(docs) for docs in run.values()]


@given(st.dictionaries(_IDS, st.dictionaries(_IDS, st.integers(-(2**63), 2**63 - 1), max_size=8), max_size=4))
def test_grades_flatten_in_c_as_int64_exactly(qrels):
    frame, _ = flatten_nested(qrels, "grade")
    assert frame["grade"].to_list() == [g for docs in qrels.values() for g in docs.values()]


@pytest.mark.parametrize(
    ("nested", "column"),
    [
        ({1: {"d1": 1.0}}, "score"),  # an int qid: Python str()s it
        ({"q1": {2: 1.0}}, "score"),  # an int docid
        ({"q1": {"d1": np.float32(0.5)}}, "score"),  # a numpy scalar
        ({"q1": {"d1": True}}, "grade"),  # a bool is not a grade: Python refuses it with its line
        ({"q1": {"d1": 2.0}}, "grade"),  # an integral float: Python accepts it
        ({"q1": {"d1": 2**64}}, "grade"),  # past int64
        ({"q1": {"d1": 10**400}}, "score"),  # past a double
        ({"q1": {"\ud800": 1.0}}, "score"),  # a lone surrogate has no UTF-8
        ({"q1": [("d1", 1.0)]}, "score"),  # not a dict inside
    ],
)
def test_what_c_cannot_flatten_exactly_is_left_to_the_python_path(nested, column):
    assert flatten_nested(nested, column) is None


def test_a_dict_run_and_qrels_evaluate_the_same_through_c_and_through_python():
    import judged

    run = {"q1": {"d1": 3.0, "d2": 3.0, "a-document-id-longer-than-twelve": 1.0}, "q2": {"é": 0.5}, "q3": {}}
    qrels = {"q1": {"d2": 2, "a-document-id-longer-than-twelve": 1}, "q2": {"é": 1}}
    fast = judged.evaluate(run, qrels, ["nDCG@2", "AP", "P@1"])
    slow = judged.evaluate(Run.from_frame(pl.DataFrame(dict(zip(("qid", "docid", "score"), _flatten(run)))), "run"),
                           qrels, ["nDCG@2", "AP", "P@1"])
    assert fast.per_query().equals(slow.per_query())
    # q1: d1 and d2 tie at 3.0 and trec_eval's docid-descending rule puts d2 (grade 2) first, then d1 (unjudged)
    assert fast.value("nDCG@2", "q1") == pytest.approx(2 / (2 + 1 / np.log2(3)))
    assert fast.value("nDCG@2", "q2") == 1.0
