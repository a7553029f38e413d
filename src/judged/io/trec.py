"""TREC run (``qid Q0 docid rank score tag``) and qrels (``qid iter docid grade``) files.

The grammar is docs/formats.md; in short, as trec_eval reads them: fields are
separated by ASCII whitespace only (space, tab, ``\\v``, ``\\f``, ``\\r``; a
no-break space is part of a docid), lines starting with ``#`` are comments
(in a run also after leading whitespace, as trec_eval reads runs but not
qrels; a ``#`` inside a docid is data), scores and grades are ASCII numbers
(:mod:`judged.io.numbers`), gzip is detected by its magic bytes, and a file
starting with a byte-order mark is refused rather than read into the first
qid. The rank and iteration columns are ignored, as trec_eval ignores them,
and so are fields after a run's tag (trec_eval allows them); a qrels line has
exactly four fields.

Each file is read twice only when it must be: the native parser
(:mod:`judged.io.native`, on every core, while another thread takes the file's
sha256) reads the lines it is sure of and gives up on the first it is not;
then a strict line parser re-reads the file and, on bad input, names the
file, line, offending text and what was expected.
"""

from __future__ import annotations

import gzip
import math
import mmap
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, BinaryIO, cast

import polars as pl

from judged.errors import InputError
from judged.io.inputs import (
    NAN_EXPECTED,
    NAN_SCORE,
    QRELS_SCHEMA,
    RUN_SCHEMA,
    Qrels,
    RowProblem,
    Run,
    Source,
    check_run,
    dedupe_qrels,
    opened,
)
from judged.io.native import QRELS_FORMAT, RUN_FORMAT, TextShrank, TrecFormat, parse_trec
from judged.io.numbers import parse_grade, parse_score

_RUN_COLUMNS = ("qid", "Q0", "docid", "rank", "score", "tag")
_QRELS_COLUMNS = ("qid", "iter", "docid", "grade")
_GZIP_MAGIC = b"\x1f\x8b"
# In ASCII text, the bytes str.split() splits on besides ASCII whitespace, and NUL (refused): an ASCII line
# without them is split by str.split() exactly as by ASCII whitespace alone.
_SPLIT_APART = b"\x00\x1c\x1d\x1e\x1f"
_ASCII_SPACE = frozenset(b" \t\r\v\f")
_MAYBE_NOT_DATA = _ASCII_SPACE | frozenset(b"#\n")  # the first bytes of a blank or comment line
_BYTE_ORDER_MARKS = {b"\xef\xbb\xbf": "UTF-8", b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}


def read_trec_run(path: str | Path, name: str | None = None) -> Run:
    """Read a TREC run file (a pipe, FIFO or ``-`` for standard input too, read once).

    The run is named by ``name``, else its tag (the last data line's, as trec_eval), else the file name.
    """
    shown = str(path)
    with opened(path) as handle:
        source, frame, tag = _fast(handle, shown, RUN_FORMAT)
        if frame is not None:
            run = Run(frame, name or tag or Path(shown).name, source)
            try:
                check_run(run)
                return run
            except RowProblem:
                pass
        frame, tag, lines = _strict(handle, shown, _RUN_COLUMNS, _run_row)
        run = Run(frame, name or tag or Path(shown).name, source)
        try:
            check_run(run)
        except RowProblem as problem:
            raise _located(problem, handle, shown, lines[problem.row]) from None
        return run


def read_trec_qrels(path: str | Path, name: str | None = None) -> Qrels:
    """Read a TREC qrels file (a pipe, FIFO or ``-`` too); exact repeats collapse, conflicting grades are an error."""
    shown = str(path)
    with opened(path) as handle:
        source, frame, _ = _fast(handle, shown, QRELS_FORMAT)
        lines = None
        if frame is None:
            frame, _, lines = _strict(handle, shown, _QRELS_COLUMNS, _qrels_row)
        try:
            frame, collapsed = dedupe_qrels(frame)
        except RowProblem as problem:
            if lines is None:
                _, _, lines = _strict(handle, shown, _QRELS_COLUMNS, _qrels_row)
            raise _located(problem, handle, shown, lines[problem.row]) from None
        return Qrels(frame, name or Path(shown).name, source, collapsed)


def _located(problem: RowProblem, handle: BinaryIO, shown: str, line: int) -> InputError:
    """The error for a row found bad after parsing, showing the file's own text of that line."""
    with _text_of(handle) as text:
        for number, raw in enumerate(text, start=1):
            if number == line:
                problem.text = raw.decode("utf-8", "replace").rstrip("\r\n")
                break
    return problem.at(shown, line)


def run_tag(last_line_first: Iterable[bytes]) -> str | None:
    """The run's name as trec_eval's ``runid`` reports it: the sixth field of the last data line.

    ``last_line_first`` is the file's lines (split on ``\\n`` only, as trec_eval splits them), last first;
    a data line is one :func:`_is_data` keeps. ``None`` when that line has fewer than six fields.
    """
    for raw in last_line_first:
        if _is_data(raw, indented_comments=True):
            fields = raw.split()  # bytes.split(): ASCII whitespace only
            return fields[5].decode("utf-8", "replace") if len(fields) >= len(_RUN_COLUMNS) else None
    return None


def _is_data(raw: bytes, *, indented_comments: bool) -> bool:
    """Whether a line holds data: not blank, not a ``#`` comment (also after leading whitespace when
    ``indented_comments``, as trec_eval reads runs)."""
    first = raw[:1]
    if first == b"#" or not raw or raw.isspace():  # bytes.isspace(): ASCII whitespace, as trec_eval's isspace
        return False
    return not (indented_comments and first[0] in _ASCII_SPACE and raw.lstrip()[:1] == b"#")


def lines_backwards(read_at: Callable[[int, int], bytes], size: int) -> Iterator[bytes]:
    """The lines of ``size`` bytes split on ``\\n`` only, last first; ``read_at(offset, length)`` reads them.

    Blocks double as they go back, so a last line of any length costs time in proportion to it.
    """
    end, block, pending = size, 1 << 16, b""
    while end > 0:
        start = max(0, end - block)
        lines = (read_at(start, end - start) + pending).split(b"\n")
        pending = lines[0]
        yield from reversed(lines[1:])
        end, block = start, block * 2
    yield pending


def _fast(handle: BinaryIO, shown: str, form: TrecFormat) -> tuple[Source, pl.DataFrame | None, str | None]:
    """The file's :class:`Source`, its frame when the native parser takes every line (else ``None``), and a
    run's tag (:func:`run_tag`).

    A plain file is mapped into memory, not copied; a gzip file is inflated in
    memory. The file is hashed on a background thread once it is parsed (the
    parser has every core until then), while it is validated and ranked.
    """
    descriptor = handle.fileno()
    size = os.fstat(descriptor).st_size
    frame = tag = None
    if size and os.pread(descriptor, 2, 0) == _GZIP_MAGIC:
        text = _inflated(handle)
        if text is not None:
            frame = _with_rows(parse_trec(text, form))
            if frame is not None:  # else the strict reader finds the tag, or the first bad line
                tag = _tag_if_run(form, lambda at, n: text[at:at + n], len(text))
    elif size and _first_line_fits(descriptor):
        with mmap.mmap(descriptor, 0, access=mmap.ACCESS_READ) as mapped:
            try:
                frame = _with_rows(parse_trec(mapped, form, mapped=True))
            except TextShrank:
                raise InputError(
                    "file shrank while it was being read", path=shown,
                    expected="a file that is not rewritten while judged reads it",
                ) from None
        if frame is not None:  # a file of one endless line is never read back whole for its tag
            tag = _tag_if_run(form, lambda at, n: os.pread(descriptor, n, at), size)  # a shrunk file reads short
    return Source.hashing(shown, "trec", handle), frame, tag


def _first_line_fits(descriptor: int) -> bool:
    """Whether the file's first line is at most :data:`MAX_LINE` bytes: a file of NUL bytes or a binary file,
    one endless line, then goes straight to the strict reader, which refuses it having read 1 MiB, instead of
    the C reader scanning all of it first."""
    head = os.pread(descriptor, MAX_LINE + 1, 0)
    return len(head) <= MAX_LINE or b"\n" in head


def _tag_if_run(form: TrecFormat, read_at: Callable[[int, int], bytes], size: int) -> str | None:
    return run_tag(lines_backwards(read_at, size)) if form is RUN_FORMAT else None


def _inflated(handle: BinaryIO) -> bytes | None:
    """The inflated bytes of a gzip file, or ``None`` for a damaged archive (the strict reader says where)."""
    handle.seek(0)
    try:
        return gzip.decompress(handle.read())
    except (OSError, EOFError, ValueError):
        return None


def _with_rows(frame: pl.DataFrame | None) -> pl.DataFrame | None:
    """``frame`` unless it has no rows (the strict reader then names the problem)."""
    return frame if frame is not None and frame.height else None


@contextmanager
def _text_of(handle: BinaryIO) -> Iterator[IO[bytes]]:
    """The bytes of ``handle`` from its start, inflated when gzip; ``handle`` itself stays open."""
    descriptor = handle.fileno()
    os.lseek(descriptor, 0, os.SEEK_SET)
    with open(descriptor, "rb", closefd=False) as plain:
        if os.pread(descriptor, 2, 0) != _GZIP_MAGIC:
            yield plain
            return
        with gzip.GzipFile(fileobj=plain) as inflated:
            yield cast(IO[bytes], inflated)


def _strict(handle: BinaryIO, shown: str, columns: tuple[str, ...], convert
            ) -> tuple[pl.DataFrame, str | None, list[int]]:
    """Parse line by line, fields split on ASCII whitespace, raising :class:`InputError` at the first bad line."""
    rows: list[tuple] = []
    lines: list[int] = []
    tag = None
    exact = columns is _QRELS_COLUMNS
    for number, fields, text in trec_lines(shown, indented_comments=columns is _RUN_COLUMNS, handle=handle):
        check_field_count(fields, columns, exact, shown, number, text)
        rows.append(convert(fields, shown, number, text))
        lines.append(number)
        if columns is _RUN_COLUMNS:
            tag = fields[5]  # the last data line's: the same line and field run_tag takes
    if not rows:
        raise InputError("file has no data lines", path=shown, expected=" ".join(columns) + " lines")
    schema = RUN_SCHEMA if len(columns) == 6 else QRELS_SCHEMA
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return frame, tag, lines


def trec_lines(path: str | Path, *, indented_comments: bool, handle: BinaryIO | None = None
               ) -> Iterator[tuple[int, list[str], str]]:
    """Each data line of a TREC-style file as (line number, fields, text), by the grammar of docs/formats.md.

    Fields are split on ASCII whitespace only; blank lines and ``#`` comments
    are skipped (``indented_comments``: also after leading whitespace, as
    trec_eval reads runs); a byte-order mark, a NUL byte, undecodable bytes or
    a damaged gzip raise a located :class:`InputError`. The other TREC-style
    formats (:mod:`judged.io.prefs`) read their lines here too. ``handle``: the
    file :func:`opened` gave for ``path``, else ``path`` is opened (once).
    """
    if handle is None:
        with opened(path) as own:
            yield from trec_lines(path, indented_comments=indented_comments, handle=own)
        return
    path = str(path)
    number = 0
    try:
        with _text_of(handle) as stream:
            for number, raw in enumerate(iter(lambda: stream.readline(MAX_LINE + 1), b""), start=1):
                if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                    raise _overlong(raw, path, number)
                if number == 1:
                    _refuse_byte_order_mark(raw, path)
                if raw[0] in _MAYBE_NOT_DATA and not _is_data(raw, indented_comments=indented_comments):
                    continue  # blank, or a comment whatever its bytes: trec_eval never decodes one
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as err:
                    raise _bad_bytes(raw, err.start, path, number) from None
                if raw.isascii() and len(raw.translate(None, _SPLIT_APART)) == len(raw):
                    fields = text.split()  # here the same fields as ASCII whitespace gives, and faster
                else:
                    if b"\x00" in raw:  # trec_eval's strings would end at it
                        raise _bad_bytes(raw, raw.index(0), path, number)
                    fields = [field.decode("utf-8") for field in raw.split()]  # ASCII whitespace only
                yield number, fields, text
    except (EOFError, OSError, gzip.BadGzipFile) as err:
        raise InputError(f"cannot read file after line {number}: {err}", path=path,
                         expected="the whole file; a .gz cut short in copying ends like this") from None


def check_field_count(fields: list[str], columns: tuple[str, ...], exact: bool, path: str, number: int,
                      text: str) -> None:
    """Refuse a line with fewer fields than ``columns`` (or more, when ``exact``), naming the columns expected."""
    if len(fields) < len(columns) or (exact and len(fields) > len(columns)):
        raise InputError(
            f"expected {len(columns)} columns, found {len(fields)}",
            path=path,
            line=number,
            text=text.rstrip("\r\n"),
            expected=" ".join(columns),
        )


def _refuse_byte_order_mark(first: bytes, path: str) -> None:
    """Refuse a file that starts with a byte-order mark: trec_eval would read it into the first qid."""
    for mark, encoding in _BYTE_ORDER_MARKS.items():
        if first.startswith(mark):
            raise InputError(
                f"file starts with a {encoding} byte-order mark",
                path=path,
                line=1,
                text=first.decode("utf-8", "replace").rstrip("\r\n"),
                expected=(
                    "UTF-8 text without a byte-order mark; remove it, e.g. with sed -i '1s/^\\xEF\\xBB\\xBF//' FILE"
                )
                if encoding == "UTF-8"
                else "UTF-8 text; convert it, e.g. with iconv -f UTF-16 -t UTF-8 FILE",
            )


#: The longest line read, in bytes, its newline not counted (the C reader's MAX_LINE too). A TREC line is a few
#: short fields; a file that is one endless line (NUL bytes, a binary file) is refused once this much of it is
#: read, not read whole into memory.
MAX_LINE = 1 << 20


def _overlong(raw: bytes, path: str, number: int) -> InputError:
    """The error for a line longer than :data:`MAX_LINE`: its first NUL byte when it has one, else its length."""
    if 0 in raw:
        return _bad_bytes(raw[:raw.index(0) + 1], raw.index(0), path, number)
    return InputError(
        f"line is longer than {MAX_LINE:,} bytes", path=path, line=number,
        text=raw[:80].decode("utf-8", "replace"),
        expected="lines of a few whitespace-separated fields; is this a TREC file?",
    )


def _bad_bytes(raw: bytes, at: int, path: str, number: int) -> InputError:
    """The error for a line that is not UTF-8 text without NUL bytes, naming the first bad byte."""
    problem = "NUL byte" if raw[at] == 0 else "undecodable bytes"
    return InputError(
        f"{problem} at byte {at} of the line",
        path=path,
        line=number,
        text=raw.decode("utf-8", "replace").rstrip("\r\n"),
        expected="text without NUL bytes" if raw[at] == 0 else "UTF-8 text",
    )


def _run_row(fields: list[str], path: str, number: int, text: str) -> tuple[str, str, float]:
    score = parse_score(fields[4])
    if score is None:
        raise InputError(
            "score is not a number", path=path, line=number, text=text.rstrip("\r\n"),
            expected="a number in column 5 (ASCII digits, sign, point and exponent, or inf)",
        )
    if math.isnan(score):  # inf, -inf and overflow (1e400) rank as the floats they are, as atof reads them
        raise InputError(NAN_SCORE, path=path, line=number, text=text.rstrip("\r\n"), expected=NAN_EXPECTED)
    return fields[0], fields[2], score


def _qrels_row(fields: list[str], path: str, number: int, text: str) -> tuple[str, str, int]:
    try:
        grade = parse_grade(fields[3])
    except OverflowError:
        raise InputError(
            "grade is out of range", path=path, line=number, text=text.rstrip("\r\n"),
            expected="an integer grade in column 4 that fits in 64 bits",
        ) from None
    if grade is None:
        raise InputError(
            "grade is not an integer", path=path, line=number, text=text.rstrip("\r\n"),
            expected="an integer grade in column 4 (ASCII digits and sign; fractional grades are not truncated)",
        )
    return fields[0], fields[2], grade


__all__ = ["RowProblem", "check_field_count", "read_trec_qrels", "read_trec_run", "trec_lines"]
