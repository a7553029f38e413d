"""The TREC grammar (tests/io/grammar_cases.py, docs/formats.md) through both readers, and the native
reader's safety: absent, it changes nothing; a mapped file that shrinks is an error, not SIGBUS."""

from __future__ import annotations

import gzip
import mmap
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from grammar_cases import CASES, Case  # tests/io is on sys.path under pytest (no __init__.py)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judged.io.native as native
import judged.io.trec as trec
from judged.errors import InputError
from judged.io.native import QRELS_FORMAT, RUN_FORMAT, TextShrank, parse_trec
from judged.io.trec import read_trec_qrels, read_trec_run

REPO = Path(__file__).resolve().parents[2]
NATIVE_BUILT = native._native is not None
needs_native = pytest.mark.skipif(not NATIVE_BUILT, reason=f"native reader {native.NATIVE_STATUS}")


@pytest.fixture(params=["strict", "native"])
def reader(request, monkeypatch) -> str:
    """Which reader reads: ``strict`` with the extension switched off, ``native`` with it on."""
    if request.param == "native" and not NATIVE_BUILT:
        pytest.skip(f"native reader {native.NATIVE_STATUS}")
    if request.param == "strict":
        monkeypatch.setattr(native, "_native", None)
    return request.param


def _read(case: Case, path: Path) -> list[tuple]:
    if case.kind == "run":
        return read_trec_run(path).frame.rows()
    return read_trec_qrels(path).frame.rows()


def _write(tmp_path: Path, text: bytes, packed: bool) -> Path:
    path = tmp_path / ("input.gz" if packed else "input.txt")
    path.write_bytes(gzip.compress(text) if packed else text)
    return path


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_both_readers_follow_the_grammar_table(case, reader, packed, tmp_path):
    path = _write(tmp_path, case.text, packed)
    if case.rows is not None:
        assert _read(case, path) == list(case.rows)
        return
    with pytest.raises(InputError) as caught:
        _read(case, path)
    message = str(caught.value)
    assert case.error in message
    where = f"{path}:{case.line}: " if case.line is not None else f"{path}: "
    assert message.startswith(where), message


@needs_native
@pytest.mark.parametrize("case", [c for c in CASES if c.rows is not None], ids=lambda c: c.name)
def test_the_native_parser_takes_the_accepted_files_it_promises_to(case):
    frame = parse_trec(case.text, RUN_FORMAT if case.kind == "run" else QRELS_FORMAT)
    if case.native:
        assert frame is not None and frame.rows() == list(case.rows)
    else:
        assert frame is None


def test_a_byte_order_mark_no_longer_becomes_part_of_the_first_qid(tmp_path):
    path = tmp_path / "bm25.run"
    path.write_bytes(b"\xef\xbb\xbf" + (REPO / "examples/runs/bm25.run").read_bytes())
    with pytest.raises(InputError, match=r"bm25\.run:1: file starts with a UTF-8 byte-order mark.*remove it"):
        read_trec_run(path)


# ---- the two readers agree on any file -------------------------------------------------------------

_FIELD = st.text(alphabet="ab#\u00e9\u00a0\u2003\u3000\u0085\x1c\x1f\x01\ufeff_\u0663", min_size=1, max_size=6)
_NUMBER = st.sampled_from(["1", "-2", "+3", ".5", "5.", "1e3", "1_0", "\u0663", "inf", "nan", "1e400", "0x1p3",
                           "9223372036854775807", "9223372036854775808", "1.0", "12345678901234567890"])
_SPACE = st.sampled_from([" ", "\t", "\v", "\f", "\r", "  ", "\u00a0"])


@st.composite
def _files(draw, width: int, value: int) -> bytes:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        count = draw(st.sampled_from([width, width, width, width - 1, width + 1]))
        fields = [draw(_NUMBER) if i == value else draw(_FIELD) for i in range(count)]
        line = fields[0] + "".join(draw(_SPACE) + field for field in fields[1:])
        lines.append(draw(st.sampled_from(["", "#", " "])) + line + draw(st.sampled_from(["", "\r", " "])))
    text = "\n".join(lines).encode("utf-8")
    return draw(st.sampled_from([b"", b"\xef\xbb\xbf"])) + text + draw(st.sampled_from([b"", b"\n"]))


def _outcome(read, path: Path, strict: bool) -> object:
    saved = native._native
    if strict:
        native._native = None
    try:
        return read(path).frame.rows()
    except InputError as err:
        return str(err)
    finally:
        native._native = saved


@needs_native
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=_files(6, 4), qrels=_files(4, 3))
def test_the_native_and_strict_readers_agree_on_every_file(run, qrels, tmp_path):
    for text, read in ((run, read_trec_run), (qrels, read_trec_qrels)):
        path = tmp_path / "input.txt"
        path.write_bytes(text)
        assert _outcome(read, path, strict=False) == _outcome(read, path, strict=True)


# ---- the native reader is optional -----------------------------------------------------------------


def _judged(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from judged.cli import main; main()", *args],
                          capture_output=True, text=True, cwd=REPO, env={**os.environ, **env}, timeout=120)


def test_judged_says_whether_the_native_reader_is_used_and_evaluates_the_same_without_it():
    on = _judged("--version", env={})
    off = _judged("--version", env={"JUDGED_NATIVE": "0"})
    assert on.stdout.splitlines()[0] == off.stdout.splitlines()[0] == "judged, version " + _version()
    assert on.stdout.splitlines()[1] == f"native reader: {native.NATIVE_STATUS}"
    assert off.stdout.splitlines()[1] == "native reader: disabled by JUDGED_NATIVE=0"
    evaluate = ("eval", "examples/runs/bm25.run", "--qrels", "examples/qrels.txt", "-m", "nDCG@10", "-m", "RR")
    with_native, without = _judged(*evaluate, env={}), _judged(*evaluate, env={"JUDGED_NATIVE": "0"})
    assert with_native.returncode == without.returncode == 0
    assert "0.7622" in with_native.stdout and with_native.stdout == without.stdout


def _version() -> str:
    from judged.version import __version__

    return __version__


@needs_native
@settings(max_examples=100, deadline=None)
@given(
    blocks=st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "long-document-name-1"]), max_size=6),
                    min_size=1, max_size=5),
    judged=st.lists(st.lists(st.sampled_from(["a", "c", "e", "x", "long-document-name-1"]), unique=True, max_size=4),
                    min_size=5, max_size=5),
)
def test_the_polars_fallbacks_answer_as_the_c_loops(blocks, judged):
    docids = pl.Series([d for block in blocks for d in block], dtype=pl.String)
    offsets = np.concatenate(([0], np.cumsum([len(b) for b in blocks]))).astype(np.int64)
    judged = judged[: len(blocks)]
    flat = [d for block in judged for d in block]
    stored = pl.Series(flat[::-1], dtype=pl.String)  # judgments stored in another order than grouped
    rows = np.arange(len(flat), dtype=np.int64)[::-1].copy()  # judgment k of the grouped list is row rows[k]
    ends = np.cumsum([len(b) for b in judged]).astype(np.int64)
    starts = ends - np.array([len(b) for b in judged], dtype=np.int64)
    assert native.first_repeated_row(docids, offsets) == native._first_repeated_row_polars(docids, offsets)
    c_rows, c_judged = native.match_judgments(docids, offsets, stored, rows, starts, ends)
    p_rows, p_judged = native._match_judgments_polars(docids, offsets, stored, rows, starts, ends)
    assert c_rows.tolist() == p_rows.tolist() and c_judged.tolist() == p_judged.tolist()
    members = np.arange(len(docids), dtype=np.int64)
    opens = np.zeros(len(docids), dtype=bool)
    opens[offsets[:-1][offsets[:-1] < len(docids)]] = True
    grades = np.array([hash(d) % 3 for d in docids], dtype=np.int32)
    for given_grades, best in ((None, False), (grades, False), (grades, True)):
        assert (native.order_tied(docids, members, opens, given_grades, best).tolist()
                == native._order_tied_polars(docids, members, opens, given_grades, best).tolist())


NATIVE_SOURCES = REPO / "src" / "judged" / "_native_src"
#: What judged._native offers, whichever of its parts defines it (module.c lists them).
NATIVE_NAMES = ("parse_trec", "flatten_nested", "scan_queries", "order_by_score", "order_tied", "tukey_ranges",
                "running_sums", "resampled_means", "trec_block", "TextShrank", "MAX_LINE")


def test_the_extension_is_built_from_every_part_of_its_source_folder():
    """A part left out of pyproject's list still links (a shared object may hold undefined symbols) but fails
    to import, and the optional extension would then vanish without a word: the list is the folder."""
    (extension,) = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["ext-modules"]
    assert extension["name"] == "judged._native" and extension["optional"] is True
    assert sorted(extension["sources"]) == sorted(str(p.relative_to(REPO)) for p in NATIVE_SOURCES.glob("*.c"))
    assert extension["depends"] == [str(p.relative_to(REPO)) for p in NATIVE_SOURCES.glob("*.h")]


def _wheel(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, list[str], Path]:
    """A wheel of a copy of the checkout (no built extension in it), its build log and file names."""
    copy = tmp_path / "judged"
    shutil.copytree(REPO / "src", copy / "src", ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, copy / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", ".", "--no-deps", "--no-build-isolation",
         "-w", str(tmp_path / "dist")],
        cwd=copy, capture_output=True, text=True, env={**os.environ, **env}, timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("judged-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "judged/io/native.py" in names
    assert not [n for n in names if n.startswith("judged/_native_src")]  # compiled in, not shipped as data
    return built, names, wheel


@pytest.mark.skipif(shutil.which("pip") is None and shutil.which("pip3") is None, reason="no pip")
def test_installing_without_a_compiler_builds_judged_without_the_native_reader(tmp_path):
    built, names, _ = _wheel(tmp_path, {"CC": "/bin/false"})
    assert "building extension \"judged._native\" failed" in built.stdout + built.stderr
    assert not [n for n in names if n.startswith("judged/_native") and n.endswith(".so")]


@needs_native  # a compiler was at hand when this checkout was installed
@pytest.mark.skipif(shutil.which("pip") is None and shutil.which("pip3") is None, reason="no pip")
def test_a_wheel_built_with_a_compiler_holds_the_extension_with_every_entry_point(tmp_path):
    _, names, wheel = _wheel(tmp_path, {})
    (library,) = [n for n in names if n.startswith("judged/_native") and n.endswith(".so")]
    zipfile.ZipFile(wheel).extractall(tmp_path / "installed")
    offered = subprocess.run(
        [sys.executable, "-c", "import judged._native as n; print(n.__file__); print(*sorted(dir(n)))"],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path / "installed")},
        timeout=60,
    )
    assert offered.returncode == 0, offered.stderr[-2000:]  # an undefined symbol would fail here
    where, found = offered.stdout.splitlines()
    assert where == str(tmp_path / "installed" / library)
    assert set(NATIVE_NAMES) == {name for name in found.split() if not name.startswith("__")}


# ---- a mapped file that shrinks --------------------------------------------------------------------


@needs_native
@pytest.mark.parametrize("left", [0, 100, 4_000_000, 7_000_000])
def test_a_mapped_file_that_shrinks_before_it_is_parsed_is_an_error_not_sigbus(left, tmp_path):
    path = tmp_path / "big.run"
    path.write_bytes(b"q1 Q0 d1 1 2.5 run\n" * 400_000)  # 7.6 MB: two chunks, each on its own thread
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as text:
        os.truncate(path, left)
        with pytest.raises(TextShrank, match="shrank"):
            parse_trec(text, RUN_FORMAT, mapped=True)
    assert parse_trec(b"q Q0 d 1 1 r\n", RUN_FORMAT).rows() == [("q", "d", 1.0)]  # the guard is gone again


@needs_native
def test_the_reader_names_a_file_that_shrank_while_it_was_read(tmp_path, monkeypatch):
    path = tmp_path / "big.run"
    path.write_bytes(b"q1 Q0 d1 1 2.5 run\n" * 400_000)

    def shrinking(text, form, mapped=False):
        os.truncate(path, 1000)  # between mapping the file and parsing it: deterministic
        return parse_trec(text, form, mapped)

    monkeypatch.setattr(trec, "parse_trec", shrinking)
    with pytest.raises(InputError, match=r"big\.run: file shrank while it was being read"):
        read_trec_run(path)


# ---- trec_eval itself, where a binary is at hand ---------------------------------------------------

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")


def trec_eval_counts(qrels, run) -> tuple[dict[tuple[str, str], int], str]:
    """trec_eval's per-query num_ret and num_rel_ret, keyed by (measure, qid), and its output."""
    out = subprocess.run([TREC_EVAL, "-q", "-m", "num_ret", "-m", "num_rel_ret", str(qrels), str(run)],
                         capture_output=True, text=True, check=True).stdout
    return {(measure, qid): int(value) for measure, qid, value in (line.split() for line in out.splitlines())}, out


@pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary (put it on PATH or set TREC_EVAL)")
@pytest.mark.parametrize("case", [c for c in CASES if c.kind == "run" and c.rows], ids=lambda c: c.name)
def test_trec_eval_splits_every_accepted_run_into_the_same_documents(case, tmp_path):
    """Judging exactly the documents of the table's rows, trec_eval must retrieve them all and nothing else."""
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    run.write_bytes(case.text)
    qrels.write_bytes(b"".join(f"{qid} 0 {docid} 1\n".encode() for qid, docid, _ in case.rows))
    counts, out = trec_eval_counts(qrels, run)
    for qid in {qid for qid, _, _ in case.rows}:
        expected = sum(row[0] == qid for row in case.rows)
        assert counts[("num_ret", qid)] == counts[("num_rel_ret", qid)] == expected, (case.name, qid, out)


@pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary (put it on PATH or set TREC_EVAL)")
@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.kind == "qrels" and c.rows  # a run cannot name query '#q' (it starts a comment), and
     and not any(q.startswith("#") or abs(g) >= 2**31 for q, _, g in c.rows)],  # trec_eval sizes arrays by grade
    ids=lambda c: c.name,
)
def test_trec_eval_reads_every_accepted_qrels_into_the_same_judgments(case, tmp_path):
    """Retrieving exactly the table's documents, trec_eval must count as relevant those graded 1 or more."""
    run, qrels = tmp_path / "run", tmp_path / "qrels"
    qrels.write_bytes(case.text)
    run.write_bytes(b"".join(f"{qid} Q0 {docid} 1 1 r\n".encode() for qid, docid, _ in case.rows))
    counts, out = trec_eval_counts(qrels, run)
    for qid in {qid for qid, _, _ in case.rows}:
        rows = [row for row in case.rows if row[0] == qid]
        assert counts[("num_ret", qid)] == len(rows), (case.name, out)
        assert counts[("num_rel_ret", qid)] == sum(grade >= 1 for _, _, grade in rows), (case.name, out)
