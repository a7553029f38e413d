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
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from judged.errors import InputError
from judged.io.inputs import QRELS_SCHEMA, RUN_SCHEMA, Qrels, RowProblem, Run, Source, check_run, dedupe_qrels
from judged.io.native import QRELS_FORMAT, RUN_FORMAT, TextShrank, TrecFormat, parse_trec
from judged.io.numbers import parse_grade, parse_score

_RUN_COLUMNS = ("qid", "Q0", "docid", "rank", "score", "tag")
_QRELS_COLUMNS = ("qid", "iter", "docid", "grade")
_GZIP_MAGIC = b"\x1f\x8b"
# In ASCII text, the bytes str.split() splits on besides ASCII whitespace, and NUL (refused): an ASCII line
# without them is split by str.split() exactly as by ASCII whitespace alone.
_SPLIT_APART = b"\x00\x1c\x1d\x1e\x1f"
_ASCII_SPACE = frozenset(b" \t\r\v\f")
_HASH = ord("#")
_BYTE_ORDER_MARKS = {b"\xef\xbb\xbf": "UTF-8", b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}


def read_trec_run(path: str | Path, name: str | None = None) -> Run:
    """Read a TREC run file.

    The run is named by ``name``, else its tag (the last line's, as trec_eval), else the file name.
    """
    path = str(path)
    source, frame = _fast(path, RUN_FORMAT)
    tag = _run_tag(path)
    if frame is not None:
        run = Run(frame, name or tag or Path(path).name, source)
        try:
            check_run(run)
            return run
        except RowProblem:
            pass
    frame, tag, lines = _strict(path, _RUN_COLUMNS, _run_row)
    run = Run(frame, name or tag or Path(path).name, source)
    try:
        check_run(run)
    except RowProblem as problem:
        raise _located(problem, path, lines[problem.row]) from None
    return run


def read_trec_qrels(path: str | Path, name: str | None = None) -> Qrels:
    """Read a TREC qrels file; exact repeats collapse, conflicting grades are an error."""
    path = str(path)
    source, frame = _fast(path, QRELS_FORMAT)
    lines = None
    if frame is None:
        frame, _, lines = _strict(path, _QRELS_COLUMNS, _qrels_row)
    try:
        frame, collapsed = dedupe_qrels(frame)
    except RowProblem as problem:
        if lines is None:
            _, _, lines = _strict(path, _QRELS_COLUMNS, _qrels_row)
        raise _located(problem, path, lines[problem.row]) from None
    return Qrels(frame, name or Path(path).name, source, collapsed)


def _located(problem: RowProblem, path: str, line: int) -> InputError:
    """The error for a row found bad after parsing, showing the file's own text of that line."""
    with _open(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if number == line:
                problem.text = raw.decode("utf-8", "replace").rstrip("\r\n")
                break
    return problem.at(path, line)


def _run_tag(path: str) -> str | None:
    """The run tag as trec_eval reports it: the last field of the last data line."""
    last = _last_data_line(path)
    fields = last.split() if last else []  # bytes.split(): ASCII whitespace only
    return fields[5].decode("utf-8", "replace") if len(fields) >= len(_RUN_COLUMNS) else None


def _fast(path: str, form: TrecFormat) -> tuple[Source, pl.DataFrame | None]:
    """The file's :class:`Source` and, when the native parser takes every line, its frame (else ``None``).

    A plain file is mapped into memory, not copied; a gzip file is inflated in
    memory. The file is hashed on a background thread once it is parsed (the
    parser has every core until then), while it is validated and ranked.
    """
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            frame = None
        elif handle.read(2) == _GZIP_MAGIC:
            handle.seek(0)
            frame = _inflated_frame(handle.read(), form)
        else:
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as text:
                try:
                    frame = _with_rows(parse_trec(text, form, mapped=True))
                except TextShrank:
                    raise InputError(
                        "file shrank while it was being read", path=path,
                        expected="a file that is not rewritten while judged reads it",
                    ) from None
        return Source.hashing(path, "trec", handle), frame


def _inflated_frame(packed: bytes, form: TrecFormat) -> pl.DataFrame | None:
    try:
        return _with_rows(parse_trec(gzip.decompress(packed), form))
    except (OSError, EOFError, ValueError):  # a damaged archive: the strict reader says where
        return None


def _with_rows(frame: pl.DataFrame | None) -> pl.DataFrame | None:
    """``frame`` unless it has no rows (the strict reader then names the problem)."""
    return frame if frame is not None and frame.height else None


def _last_data_line(path: str) -> bytes | None:
    """The last non-comment line, read from the end of the file (streamed for gzip)."""
    with open(path, "rb") as probe:
        gzipped = probe.read(2) == _GZIP_MAGIC
        if not gzipped:
            probe.seek(0, 2)
            size = probe.tell()
            probe.seek(max(0, size - 65536))
            tail = probe.read().splitlines()
    if gzipped:
        try:
            with gzip.open(path, "rb") as handle:
                tail = handle.read().splitlines()[-1024:]
        except (EOFError, OSError):  # a damaged archive: the strict reader says where it ends
            return None
    for raw in reversed(tail):
        if raw.strip() and not raw.lstrip().startswith(b"#"):  # a run's comment may be indented
            return raw
    return None


def _open(path: str):
    with open(path, "rb") as probe:
        magic = probe.read(2)
    return gzip.open(path, "rb") if magic == _GZIP_MAGIC else open(path, "rb")


def _strict(path: str, columns: tuple[str, ...], convert) -> tuple[pl.DataFrame, str | None, list[int]]:
    """Parse line by line, fields split on ASCII whitespace, raising :class:`InputError` at the first bad line."""
    rows: list[tuple] = []
    lines: list[int] = []
    tag = None
    exact = columns is _QRELS_COLUMNS
    for number, fields, text in trec_lines(path, indented_comments=columns is _RUN_COLUMNS):
        check_field_count(fields, columns, exact, path, number, text)
        rows.append(convert(fields, path, number, text))
        lines.append(number)
        if columns is _RUN_COLUMNS:
            tag = fields[5]
    if not rows:
        raise InputError("file has no data lines", path=path, expected=" ".join(columns) + " lines")
    schema = RUN_SCHEMA if len(columns) == 6 else QRELS_SCHEMA
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return frame, tag, lines


def trec_lines(path: str, *, indented_comments: bool) -> Iterator[tuple[int, list[str], str]]:
    """Each data line of a TREC-style file as (line number, fields, text), by the grammar of docs/formats.md.

    Fields are split on ASCII whitespace only; blank lines and ``#`` comments
    are skipped (``indented_comments``: also after leading whitespace, as
    trec_eval reads runs); a byte-order mark, a NUL byte, undecodable bytes or
    a damaged gzip raise a located :class:`InputError`. The other TREC-style
    formats (:mod:`judged.io.prefs`) read their lines here too.
    """
    number = 0
    try:
        with _open(path) as handle:
            for number, raw in enumerate(handle, start=1):
                if number == 1:
                    _refuse_byte_order_mark(raw, path)
                first = raw[0]
                if first == _HASH or (indented_comments and first in _ASCII_SPACE and raw.lstrip()[:1] == b"#"):
                    continue  # a comment, whatever its bytes: trec_eval never decodes one
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
                if fields:
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
            expected="a finite number in column 5 (ASCII digits, sign, point and exponent)",
        )
    if not math.isfinite(score):
        raise InputError(
            "score is not a finite number", path=path, line=number, text=text.rstrip("\r\n"),
            expected="a finite number in column 5",
        )
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
