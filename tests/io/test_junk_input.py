"""Junk is refused at its first line in bounded memory: a file of NUL bytes, or one endless line of text, is never
read whole (bench/junk_bench.py times a 2 GB one beside ir_measures' reader)."""

from __future__ import annotations

import gzip
import tracemalloc

import pytest

import judged
from judged.errors import InputError
from judged.io import native
from judged.io.trec import MAX_LINE

SIZE = 48 << 20  # 48 MiB: 48 times the longest line read


@pytest.fixture(scope="module")
def nul_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("junk") / "zeros.run"
    with open(path, "wb") as out:
        out.truncate(SIZE)  # a sparse file of NUL bytes, as a failed copy leaves
    return path


def peak_while(read) -> tuple[Exception, int]:
    """The error ``read`` raises and the most Python memory it held (after a first call, which imports)."""
    with pytest.raises(InputError):
        read()
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            read()
        return caught.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("reader", [judged.read_run, judged.read_qrels])
def test_a_file_of_nul_bytes_is_refused_at_line_1_without_reading_it_whole(nul_file, reader):
    error, peak = peak_while(lambda: reader(nul_file, format="trec"))
    assert error.line == 1 and "NUL byte at byte 0 of the line" in str(error) and str(nul_file) in str(error)
    assert peak < 12 * MAX_LINE, f"{peak:,} bytes held reading a {SIZE:,}-byte file"  # reading it whole: > 48 MiB


def test_one_endless_line_of_text_is_refused_by_its_length(tmp_path):
    path = tmp_path / "one-line.run"
    path.write_bytes(b"q1 Q0 " + b"d" * (3 * MAX_LINE) + b" 1 1.0 tag\n")
    error, peak = peak_while(lambda: judged.read_run(path, format="trec"))
    assert error.line == 1 and f"line is longer than {MAX_LINE:,} bytes" in str(error)
    assert "is this a TREC file?" in str(error)
    assert peak < 12 * MAX_LINE


def test_gzip_of_nul_bytes_is_refused_too(tmp_path):
    path = tmp_path / "zeros.run.gz"
    path.write_bytes(gzip.compress(bytes(4 * MAX_LINE)))
    with pytest.raises(InputError, match="NUL byte at byte 0") as caught:
        judged.read_run(path, format="trec")
    assert caught.value.line == 1


def test_a_long_line_just_under_the_limit_is_still_read(tmp_path):
    docid = "d" * (MAX_LINE - 40)
    path = tmp_path / "long-docid.run"
    path.write_text(f"q1 Q0 {docid} 1 1.0 tag\n")
    assert judged.read_run(path, format="trec").frame["docid"].to_list() == [docid]


@pytest.mark.parametrize("extra", [0, 1])
def test_the_limit_is_the_same_for_both_readers_to_the_byte(tmp_path, extra, monkeypatch):
    """A line of MAX_LINE bytes (its newline not counted) is read; one byte more is refused, with or without
    the C reader."""
    head, tail = "q1 Q0 ", " 1 1.0 tag"
    line = head + "d" * (MAX_LINE - len(head) - len(tail) + extra) + tail
    path = tmp_path / "edge.run"
    path.write_text(line + "\n")
    for reader in (native._native, None):
        monkeypatch.setattr(native, "_native", reader)
        if extra:
            with pytest.raises(InputError, match="line is longer than"):
                judged.read_run(path, format="trec")
        else:
            assert judged.read_run(path, format="trec").frame.height == 1


def test_the_c_reader_declares_the_same_limit():
    built = pytest.importorskip("judged._native")
    assert built.MAX_LINE == MAX_LINE
