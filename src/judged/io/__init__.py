"""Read runs and judgments from files and DataFrames.

The format follows the file name (``.json``, ``.jsonl``, ``.csv``, ``.tsv``,
``.parquet``, each optionally ``.gz``), else the first bytes (Parquet's magic
is Parquet; anything else is TREC) unless ``format=`` says otherwise
(:func:`detect_format`, the one rule every engine applies).

>>> from judged.io import read_run, read_qrels
>>> run = read_run("examples/runs/bm25.run")   # doctest: +SKIP
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal, overload

from judged.errors import UsageError
from judged.io.foreign import foreign_input
from judged.io.inputs import Qrels, Run, unreadable
from judged.io.jsonio import read_json, read_jsonl
from judged.io.tabular import from_frame, read_table
from judged.io.trec import read_trec_qrels, read_trec_run

FORMATS = ("trec", "json", "jsonl", "csv", "tsv", "parquet")


#: The first bytes of a Parquet file.
PARQUET_MAGIC = b"PAR1"


def named_format(path: str | Path) -> str | None:
    """The input format a file name implies (``.json``, ``.jsonl``, ``.csv``, ``.tsv``, ``.parquet``, ``.trec``,
    each optionally ``.gz``), or ``None`` when it implies none.

    >>> named_format("run.csv.gz"), named_format("part-00000"), named_format("bm25.run")
    ('csv', None, None)
    """
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1].lstrip(".") if suffixes else ""
    return last if last in FORMATS else None


def detect_format(path: str | Path, head: Callable[[], bytes] | None = None) -> str:
    """A file's input format, one rule for every engine: what its name implies, else Parquet when its first
    bytes are Parquet's magic (a part file is often named without a suffix), else TREC text.

    ``head()`` reads the file's first bytes, called only when the name implies nothing (Spark reads them
    through Hadoop's filesystem); by default they are read from ``path``.

    >>> detect_format("runs/part-00000", lambda: b"PAR1...."), detect_format("runs/part-00001", lambda: b"q1 Q0")
    ('parquet', 'trec')
    """
    named = named_format(path)
    if named is not None:
        return named
    first = head() if head is not None else _head(Path(path))
    return "parquet" if first.startswith(PARQUET_MAGIC) else "trec"


def _head(path: Path) -> bytes:
    """The first bytes of a regular file (none of a pipe or standard input, which are read once, as TREC)."""
    try:
        if str(path) == "-" or not stat.S_ISREG(path.stat().st_mode):
            return b""
        with path.open("rb") as handle:
            return handle.read(len(PARQUET_MAGIC))
    except OSError:
        return b""  # the reader names the file it cannot open


def read_run(source, *, format: str | None = None, name: str | None = None,
             columns: Mapping[str, str] | None = None) -> Run:
    """Read a run from a path, a DataFrame, a ``{qid: {docid: score}}`` mapping, a ranx ``Run``, an ir_datasets
    dataset's scored documents (the dataset, ``irds:DATASET_ID`` or its iterable: :mod:`judged.io.foreign`)."""
    return _read(source, "run", format, name, columns)


def read_qrels(source, *, format: str | None = None, name: str | None = None,
               columns: Mapping[str, str] | None = None) -> Qrels:
    """Read judgments from a path, a DataFrame, a ``{qid: {docid: grade}}`` mapping, a ranx ``Qrels``, an
    ir_datasets dataset's qrels (the dataset, ``irds:DATASET_ID`` or ``qrels_iter()``: :mod:`judged.io.foreign`)."""
    return _read(source, "qrels", format, name, columns)


def _check_is_file(path: Path) -> None:
    """Refuse, in one line naming the file and the reason, a path that is missing, a directory or unreachable."""
    try:
        mode = os.stat(path).st_mode
    except OSError as err:
        raise unreadable(str(path), err) from None
    if stat.S_ISDIR(mode):
        raise unreadable(str(path), IsADirectoryError(errno.EISDIR, "Is a directory"))


@overload
def _read(source, kind: Literal["run"], format: str | None, name: str | None, columns) -> Run: ...
@overload
def _read(source, kind: Literal["qrels"], format: str | None, name: str | None, columns) -> Qrels: ...
def _read(source, kind: str, format: str | None, name: str | None, columns) -> Run | Qrels:
    container = Run if kind == "run" else Qrels
    if isinstance(source, container):
        return source
    if isinstance(source, Mapping):
        return container.from_dict(source, name or kind)
    if hasattr(source, "columns") and not isinstance(source, (str, Path)):
        return from_frame(source, kind, name or kind, columns)
    foreign = foreign_input(source, kind, name)
    if foreign is not None:
        held, shown, origin = foreign
        if isinstance(held, Mapping):
            return container.from_dict(held, shown)
        return from_frame(held, kind, shown, None, origin)
    path = Path(source)
    if str(source) != "-":  # "-" is standard input, read once like any pipe
        _check_is_file(path)
    fmt = format or detect_format(path)
    if fmt not in FORMATS:
        raise UsageError(f"format must be one of {'|'.join(FORMATS)}. Got {fmt!r} instead.")
    if fmt == "trec":
        return read_trec_run(path, name) if kind == "run" else read_trec_qrels(path, name)
    if fmt == "json":
        return read_json(path, kind, name)
    if fmt == "jsonl":
        return read_jsonl(path, kind, name)
    return read_table(path, kind, fmt, name, columns)


__all__ = ["FORMATS", "PARQUET_MAGIC", "detect_format", "named_format", "read_qrels", "read_run"]
