"""TREC run (``qid Q0 docid rank score tag``) and qrels (``qid iter docid grade``) files.

Each file is read twice only when it must be: a fast columnar parse (polars)
handles the common single-space or single-tab layout; anything it cannot take
(runs of whitespace, a bad line) is re-read by a strict line parser that
accepts any whitespace and, on bad input, names the file, line, offending
text and what was expected. Lines starting with ``#`` are comments, as in
trec_eval 10 (a ``#`` inside a docid is data). gzip is detected by its magic
bytes. The rank and iteration columns are ignored, as trec_eval ignores them.
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import polars as pl

from judged.errors import InputError
from judged.inputs import QRELS_SCHEMA, RUN_SCHEMA, Qrels, RowProblem, Run, Source, check_run, dedupe_qrels

_RUN_COLUMNS = ("qid", "Q0", "docid", "rank", "score", "tag")
_QRELS_COLUMNS = ("qid", "iter", "docid", "grade")
_GZIP_MAGIC = b"\x1f\x8b"


def read_trec_run(path: str | Path, name: str | None = None) -> Run:
    """Read a TREC run file; the run is named by ``name``, else its tag (the last line's, as trec_eval), else the file name."""
    path = str(path)
    source = Source.of_file(path, "trec")
    frame, tag = _fast_run(path)
    if frame is not None:
        try:
            check_run(frame)
        except RowProblem:
            frame = None
    if frame is None:
        frame, tag, lines = _strict(path, _RUN_COLUMNS, _run_row)
        try:
            check_run(frame)
        except RowProblem as problem:
            raise _located(problem, path, lines[problem.row]) from None
    return Run(frame, name or tag or Path(path).name, source)


def read_trec_qrels(path: str | Path, name: str | None = None) -> Qrels:
    """Read a TREC qrels file; exact repeats collapse, conflicting grades are an error."""
    path = str(path)
    source = Source.of_file(path, "trec")
    frame, _ = _fast(path, _QRELS_COLUMNS, {"grade": pl.Int64}, ("qid", "docid", "grade"))
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


def _fast_run(path: str) -> tuple[pl.DataFrame | None, str | None]:
    frame, tags = _fast(path, _RUN_COLUMNS, {"score": pl.Float64}, ("qid", "docid", "score", "tag"))
    if frame is None:
        return None, None
    tag = tags[0] if tags else None
    return frame.drop("tag"), tag


def _fast(
    path: str, columns: tuple[str, ...], types: dict, keep: tuple[str, ...]
) -> tuple[pl.DataFrame | None, list[str]]:
    """Columnar parse of a well-formed file, or ``None`` when the strict parser must decide."""
    head = _first_data_line(path)
    if head is None:
        return None, []
    separator = _separator(head, len(columns))
    if separator is None:
        return None, []
    schema = {c: types.get(c, pl.String) for c in columns}
    try:
        frame = pl.read_csv(
            path,
            separator=separator,
            has_header=False,
            quote_char=None,
            comment_prefix="#",
            schema=schema,
        ).select(keep)
    except (pl.exceptions.PolarsError, OSError, ValueError):
        return None, []
    blank = frame["qid"].is_null()
    if blank.any():
        frame = frame.filter(~blank)
    if frame.height == 0 or frame.null_count().sum_horizontal().item() > 0:
        return None, []
    last_tag = [frame["tag"][-1]] if "tag" in frame.columns else []
    return frame, last_tag


def _first_data_line(path: str) -> str | None:
    with _open(path) as handle:
        for raw in handle:
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                return None
            if line.strip() and not line.startswith("#"):
                return line
    return None


def _separator(line: str, width: int) -> str | None:
    for sep in (" ", "\t"):
        fields = line.split(sep)
        if len(fields) == width and all(fields):
            return sep
    return None


def _open(path: str):
    with open(path, "rb") as probe:
        magic = probe.read(2)
    return gzip.open(path, "rb") if magic == _GZIP_MAGIC else open(path, "rb")


def _strict(path: str, columns: tuple[str, ...], convert) -> tuple[pl.DataFrame, str | None, list[int]]:
    """Parse line by line with any whitespace, raising :class:`InputError` at the first bad line."""
    rows: list[tuple] = []
    lines: list[int] = []
    tag = None
    try:
        with _open(path) as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as err:
                    raise InputError(
                        f"undecodable bytes at byte {err.start} of the line",
                        path=path,
                        line=number,
                        text=raw.decode("utf-8", "replace").rstrip("\r\n"),
                        expected="UTF-8 text",
                    ) from None
                fields = text.split()
                if not fields or text.startswith("#"):
                    continue
                if len(fields) != len(columns):
                    raise InputError(
                        f"expected {len(columns)} columns, found {len(fields)}",
                        path=path,
                        line=number,
                        text=text.rstrip("\r\n"),
                        expected=" ".join(columns),
                    )
                rows.append(convert(fields, path, number, text))
                lines.append(number)
                if len(fields) == 6:
                    tag = fields[5]
    except (EOFError, OSError, gzip.BadGzipFile) as err:
        raise InputError(f"cannot read file: {err}", path=path) from None
    if not rows:
        raise InputError("file has no data lines", path=path, expected=" ".join(columns) + " lines")
    schema = RUN_SCHEMA if len(columns) == 6 else QRELS_SCHEMA
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return frame, tag, lines


def _run_row(fields: list[str], path: str, number: int, text: str) -> tuple[str, str, float]:
    try:
        score = float(fields[4])
    except ValueError:
        raise InputError(
            "score is not a number", path=path, line=number, text=text.rstrip("\r\n"),
            expected="a finite number in column 5",
        ) from None
    if not math.isfinite(score):
        raise InputError(
            "score is not a finite number", path=path, line=number, text=text.rstrip("\r\n"),
            expected="a finite number in column 5",
        )
    return fields[0], fields[2], score


def _qrels_row(fields: list[str], path: str, number: int, text: str) -> tuple[str, str, int]:
    try:
        grade = int(fields[3])
    except ValueError:
        raise InputError(
            "grade is not an integer", path=path, line=number, text=text.rstrip("\r\n"),
            expected="an integer grade in column 4 (fractional grades are not truncated)",
        ) from None
    return fields[0], fields[2], grade


__all__ = ["read_trec_qrels", "read_trec_run", "RowProblem"]
