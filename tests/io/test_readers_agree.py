"""The C reader and the strict Python reader read every file alike: the same frame and run name, or the same error.

Files are drawn the way the world writes them: CRLF and bare CR, a byte-order
mark, non-ASCII and invalid UTF-8 bytes, odd whitespace, indented comments,
infinite and huge scores, and files cut short at any byte.
"""

from __future__ import annotations

import gzip
import os
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judged.io.native as native
from judged.errors import InputError
from judged.io.trec import read_trec_qrels, read_trec_run

pytest.importorskip("judged._native", reason="the native reader is not built (docs/formats.md)")

_WORDS = st.one_of(
    st.sampled_from([b"q1", b"q2", b"d1", b"Q0", b"0", b"run", b"tag-\xc3\xa9", b"\xe6\x96\x87", b"doc#7",
                     b"a\xc2\xa0b"]),
    st.text(alphabet="abcXYZ09-_.#\u00e9\u6587\u00a0\u3000\x1c\x7f", min_size=1, max_size=6).map(str.encode),
)
_NUMBERS = st.sampled_from([b"1", b"-0.5", b"inf", b"-inf", b"+INF", b"Infinity", b"-infinity", b"nan", b"1e400",
                            b"-1e400", b"1" + b"0" * 400, b"1e-400", b".5", b"5.", b"0x1p3", b"1_0", b"infin", b"3"])
_SPACE = st.sampled_from([b" ", b"\t", b"  ", b"\v", b"\f", b"\r", b" \r "])
_END = st.sampled_from([b"\n", b"\r\n", b"\r\r\n", b" \n"])


@st.composite
def _line(draw, width: int, value: int) -> bytes:
    kind = draw(st.sampled_from(["data"] * 6 + ["comment", "indented", "blank", "short", "long"]))
    if kind == "comment":
        return b"#" + draw(st.binary(max_size=8)).replace(b"\n", b"")
    if kind == "indented":
        return b" \t# " + draw(_WORDS)
    if kind == "blank":
        return draw(st.sampled_from([b"", b" ", b"\r", b"\t\v"]))
    count = {"short": width - 1, "long": width + 2}.get(kind, width)
    fields = [draw(_NUMBERS) if i == value else draw(_WORDS) for i in range(count)]
    return draw(st.sampled_from([b"", b" "])) + b"".join(f + draw(_SPACE) for f in fields[:-1]) + fields[-1]


def _files(width: int, value: int):
    @st.composite
    def build(draw) -> bytes:
        lines = draw(st.lists(st.tuples(_line(width, value), _END), min_size=1, max_size=8))
        text = draw(st.sampled_from([b""] * 9 + [b"\xef\xbb\xbf"])) + b"".join(a + b for a, b in lines)
        return text[: draw(st.integers(0, len(text)))] if draw(st.booleans()) else text

    return build()


def _outcome(path: str, read, strict: bool):
    """What a reader makes of the file: (rows, name) or the error's text."""
    saved = native._native
    native._native = None if strict else saved
    try:
        result = read(path)
        return result.frame.rows(), result.name
    except InputError as err:
        return str(err)
    finally:
        native._native = saved


def _agree(text: bytes, read, packed: bool) -> None:
    descriptor, path = tempfile.mkstemp(suffix=".txt")
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(gzip.compress(text) if packed else text)
        assert _outcome(path, read, strict=False) == _outcome(path, read, strict=True)
    finally:
        os.unlink(path)


@settings(max_examples=300, deadline=None)
@given(_files(6, 4), st.booleans())
def test_both_readers_read_a_run_alike(text, packed):
    _agree(text, read_trec_run, packed)


@settings(max_examples=200, deadline=None)
@given(_files(4, 3), st.booleans())
def test_both_readers_read_qrels_alike(text, packed):
    _agree(text, read_trec_qrels, packed)
