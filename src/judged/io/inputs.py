"""Run and Qrels: the two validated, columnar inputs every evaluation starts from.

Both wrap a polars DataFrame in input order (``qid, docid, score`` or
``qid, docid, grade``) with a name and, when read from a file, its
:class:`Source`. They are never mutated; readers in :mod:`judged.io` build them.

Judgments have three states: a document listed with grade >= 1 is judged
relevant (at the default threshold), one listed with grade 0 is judged
non-relevant, and one not listed is unjudged. Negative grades are kept and,
as in trec_eval, mark a document that was pooled but not judged: it counts as
unjudged.

>>> run = Run.from_dict({"q1": {"d1": 2.0, "d2": 1.0}}, name="bm25")
>>> run.num_queries, len(run)
(1, 2)
>>> Qrels.from_dict({"q1": {"d1": 3, "d9": 0}}).num_judged
2
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from pathlib import Path
from typing import BinaryIO

import numpy as np
import polars as pl

from judged.errors import InputError
from judged.io.native import first_repeated_row, flatten_nested

NAN_SCORE = "score is NaN"
NAN_EXPECTED = "a number; NaN is neither above nor below any score, so it has no rank (inf and -inf are fine)"
RUN_SCHEMA = {"qid": pl.String, "docid": pl.String, "score": pl.Float64}
QRELS_SCHEMA = {"qid": pl.String, "docid": pl.String, "grade": pl.Int64}


@dataclass(frozen=True, eq=False, repr=False)
class Source:
    """Where an input came from: path, format and the sha256 of its bytes.

    The digest may still be in the making on a background thread (a large
    run is hashed while it is validated and ranked); :attr:`sha256` waits for
    it, and so do comparison, hashing, ``repr`` and pickling.

    >>> Source("run.txt", "trec", "ab" * 32) == Source("run.txt", "trec", "ab" * 32)
    True
    """

    path: str
    format: str
    digest: str | Future
    #: A frozen judgment set's heads of the store's log (``judged db head``): ``frozen_from``, the head it was
    #: derived from, and ``read_at``, the store's when it was read. Provenance records them; not compared.
    heads: Mapping[str, str | None] | None = None

    @property
    def sha256(self) -> str:
        """The hex sha256 of the input's bytes."""
        return self.digest if isinstance(self.digest, str) else self.digest.result()

    @classmethod
    def of_file(cls, path: str | Path, format: str) -> Source:
        with opened(path) as handle:
            return cls.of_handle(path, format, handle)

    @classmethod
    def of_handle(cls, path: str | Path, format: str, handle) -> Source:
        """A Source whose digest is taken now from ``handle`` (a file :func:`opened` gave), by position."""
        return cls(str(path), format, sha256_of(os.dup(handle.fileno())))

    @classmethod
    def hashing(cls, path: str | Path, format: str, handle) -> Source:
        """A Source whose digest is taken on a new background thread from a duplicate of ``handle``'s descriptor.

        A thread of its own, not a pool's: a pool's idle worker would not survive a fork.
        """
        descriptor = os.dup(handle.fileno())
        digest: Future[str] = Future()

        def work() -> None:
            try:
                digest.set_result(sha256_of(descriptor))
            except BaseException as error:  # handed to whoever asks for the digest
                digest.set_exception(error)

        threading.Thread(target=work, name="judged-sha256", daemon=True).start()
        return cls(str(path), format, digest)

    def _key(self) -> tuple[str, str, str]:
        return self.path, self.format, self.sha256

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Source) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Source(path={self.path!r}, format={self.format!r}, sha256={self.sha256!r})"

    def __reduce__(self):
        return Source, (*self._key(), None if self.heads is None else dict(self.heads))


def sha256_of(descriptor: int) -> str:
    """The hex sha256 of a file's bytes, read by position from ``descriptor`` (which this closes)."""
    digest = hashlib.sha256()
    piece = bytearray(1 << 22)
    offset = 0
    try:
        while read := os.preadv(descriptor, [piece], offset):
            digest.update(memoryview(piece)[:read])
            offset += read
    finally:
        os.close(descriptor)
    return digest.hexdigest()


@contextmanager
def opened(path: str | Path) -> Iterator[BinaryIO]:
    """The input at ``path`` as a seekable binary file, opened once: the file itself or, for a pipe, FIFO
    or ``-`` (standard input), an unnamed temporary copy of its bytes, read from the stream exactly once.

    The copy is on disk, not in memory, so every reader can map, seek and hash it like a file. A file that
    cannot be opened or read is an :class:`InputError` naming it and the reason.
    """
    shown = str(path)
    with _open_input(shown) as stream:
        if stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            yield stream
            return
        with tempfile.TemporaryFile(prefix="judged-input-") as copy:
            try:
                shutil.copyfileobj(stream, copy, 1 << 20)
            except OSError as err:
                raise unreadable(shown, err) from None
            copy.seek(0)
            yield copy


def _open_input(shown: str) -> BinaryIO:
    """``shown`` opened for reading (``-``: standard input, left open afterwards)."""
    if shown == "-":
        return open(sys.stdin.fileno(), "rb", closefd=False)
    try:
        return open(shown, "rb")
    except OSError as err:
        raise unreadable(shown, err) from None


def unreadable(shown: str, err: OSError) -> InputError:
    """The one-line error for a file the system will not let judged read, with the system's reason."""
    if isinstance(err, FileNotFoundError):
        return InputError("no such file", path=shown)
    reason = "is a directory, not a file" if isinstance(err, IsADirectoryError) else err.strerror or str(err)
    return InputError(f"cannot read file: {reason}", path=shown, expected="a readable file")


class RowProblem(Exception):
    """Internal: a validation failure at a 0-based row of a frame, turned into an InputError by the caller."""

    def __init__(self, row: int, problem: str, text: str, expected: str) -> None:
        super().__init__(problem)
        self.row, self.problem, self.text, self.expected = row, problem, text, expected

    def at(self, path: str | None, line: int | None) -> InputError:
        """The user-facing error, at a file line when known, else at the 1-based row."""
        problem = self.problem if line is not None else f"{self.problem} (row {self.row + 1})"
        return InputError(problem, path=path, line=line, text=self.text, expected=self.expected)


@dataclass(frozen=True, eq=False)
class Run:
    """Scored documents per query, in input order: columns ``qid``, ``docid``, ``score``.

    ``id_columns`` names the table columns the qids and docids were read from, when they came from a table.
    """

    frame: pl.DataFrame
    name: str
    source: Source | None = None
    id_columns: tuple[str, str] | None = None

    @classmethod
    def from_frame(cls, frame: pl.DataFrame, name: str, source: Source | None = None,
                   id_columns: tuple[str, str] | None = None) -> Run:
        """Validate a frame with the run schema; raises :class:`InputError` naming the row."""
        return cls._checked(frame.select(pl.col(c).cast(t) for c, t in RUN_SCHEMA.items()), name, source,
                            id_columns=id_columns)

    @classmethod
    def from_dict(
        cls, run: Mapping[str, Mapping[str, float]], name: str = "run", source: Source | None = None
    ) -> Run:
        """Build from the ``{qid: {docid: score}}`` shape of pytrec_eval and ranx (in C when keys are ``str``)."""
        flat = flatten_nested(run, "score")
        if flat is not None:
            return cls.from_flat(run, *flat, name=name, source=source)
        qids, docids, scores = _flatten(run)
        frame = pl.DataFrame({"qid": qids, "docid": docids, "score": np.asarray(scores, dtype=np.float64)})
        return cls.from_frame(frame, name, source)

    @classmethod
    def from_flat(cls, run: Mapping[str, object], frame: pl.DataFrame, lengths: np.ndarray, *, name: str = "run",
                  source: Source | None = None) -> Run:
        """Build from ``run`` flattened by :func:`~judged.io.native.flatten_nested` (``frame``, its scores
        possibly replaced, and each query's number of rows): a dict's keys are distinct, so no query repeats a
        docid, and the dict says where each query's rows are, so they are not looked for again."""
        checked = cls._checked(frame, name, source, distinct_pairs=True)
        answered = lengths > 0
        qids = pl.Series("qid", [qid for qid, n in zip(run, lengths.tolist()) if n], dtype=pl.String)
        checked.__dict__["blocks"] = (qids, lengths[answered])  # the cached property's own slot
        return checked

    @classmethod
    def _checked(cls, frame: pl.DataFrame, name: str, source: Source | None, distinct_pairs: bool = False,
                 id_columns: tuple[str, str] | None = None) -> Run:
        run = cls(frame, name, source, id_columns)
        try:
            check_run(run, distinct_pairs=distinct_pairs)
        except RowProblem as problem:
            raise problem.at(source.path if source else name, None) from None
        return run

    def with_scores(self, scores: np.ndarray) -> Run:
        """The same rows with other scores (not NaN): what is known of the rows' queries is carried over."""
        rescored = Run(self.frame.with_columns(pl.Series("score", scores, dtype=pl.Float64)), self.name, self.source,
                       self.id_columns)
        rescored.__dict__.update({k: v for k, v in self.__dict__.items() if k in ("blocks", "grouped")})
        return rescored

    def __len__(self) -> int:
        return self.frame.height

    @cached_property
    def num_queries(self) -> int:
        """Distinct queries, counted over runs of equal qids (a run is usually grouped by query)."""
        return self.blocks[0].n_unique()

    @cached_property
    def blocks(self) -> tuple[pl.Series, np.ndarray]:
        """The runs of equal qids in input order: their qids and their lengths."""
        runs = self.frame["qid"].rle()
        return runs.struct.field("value"), runs.struct.field("len").to_numpy().astype(np.int64)

    @cached_property
    def grouped(self) -> bool:
        """Whether each query's rows are contiguous (as a run file normally is): no qid starts two blocks."""
        qids = self.blocks[0]
        return qids.n_unique() == len(qids)

    @cached_property
    def pair_keys(self) -> np.ndarray:
        """64-bit hash of each row's (qid, docid), computed once for validation and the join of a run whose
        queries are not contiguous (a grouped run is checked and joined query by query, without it)."""
        return pair_hash(self.frame)


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgments in input order: columns ``qid``, ``docid``, ``grade`` (an integer).

    ``id_columns`` names the table columns the qids and docids were read from, when they came from a table.
    """

    frame: pl.DataFrame
    name: str = "qrels"
    source: Source | None = None
    collapsed_duplicates: int = 0
    id_columns: tuple[str, str] | None = None

    @classmethod
    def from_frame(cls, frame: pl.DataFrame, name: str = "qrels", source: Source | None = None,
                   id_columns: tuple[str, str] | None = None) -> Qrels:
        """Validate a frame with the qrels schema; identical repeated judgments collapse to one."""
        frame = frame.select(pl.col(c).cast(t) for c, t in QRELS_SCHEMA.items())
        try:
            frame, collapsed = dedupe_qrels(frame)
        except RowProblem as problem:
            raise problem.at(source.path if source else name, None) from None
        return cls(frame, name, source, collapsed, id_columns)

    @classmethod
    def from_dict(
        cls, qrels: Mapping[str, Mapping[str, int]], name: str = "qrels", source: Source | None = None
    ) -> Qrels:
        """Build from the ``{qid: {docid: grade}}`` shape; grades must be integers (in C when keys are ``str``)."""
        flat = flatten_nested(qrels, "grade")
        if flat is not None:  # a dict's keys are distinct: no judgment repeats
            return cls(flat[0], name, source)
        qids, docids, grades = _flatten(qrels)
        if not all(type(grade) is int for grade in grades):
            for i, grade in enumerate(grades):
                if not _is_integral(grade):
                    raise InputError(
                        "grade is not an integer",
                        path=source.path if source else name,
                        text=f"{qids[i]} {docids[i]} {grade!r}",
                        expected="an integer grade such as 0, 1, 2, 3 or -1",
                    )
            grades = [int(g) for g in grades]
        frame = pl.DataFrame({"qid": qids, "docid": docids, "grade": pl.Series(grades, dtype=pl.Int64)})
        return cls.from_frame(frame, name, source)

    def __len__(self) -> int:
        return self.frame.height

    @property
    def num_judged(self) -> int:
        return self.frame.height

    @property
    def num_queries(self) -> int:
        return self.frame["qid"].n_unique()

    @cached_property
    def pair_keys(self) -> np.ndarray:
        """64-bit hash of each row's (qid, docid), the same function as :attr:`Run.pair_keys`."""
        return pair_hash(self.frame)


def _is_integral(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, (float, np.floating)) and float(value).is_integer()


def _flatten(nested: Mapping[str, Mapping[str, object]]) -> tuple[pl.Series, pl.Series, list]:
    """The qid and docid columns and the values of a ``{qid: {docid: value}}`` mapping, in its order.

    Built by C-level iteration (a dict's keys and values chained, each qid repeated by a gather), not a
    Python loop per document: two million documents flatten in about a tenth of a second.
    """
    keys = list(nested)
    inner = list(nested.values())
    lengths = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    docids = list(chain.from_iterable(inner))
    values = list(chain.from_iterable(map(_values, inner)))
    qid_column = _strings("qid", keys).gather(np.repeat(np.arange(len(keys), dtype=np.int64), lengths))
    return qid_column, _strings("docid", docids), values


def _values(docs: Mapping[str, object]) -> Iterable[object]:
    return docs.values()


def _strings(name: str, items: list) -> pl.Series:
    """``items`` as a string column; ids that are not ``str`` (ints, numpy scalars) become their ``str()``."""
    try:
        return pl.Series(name, items, dtype=pl.String)
    except TypeError:
        return pl.Series(name, [str(item) for item in items], dtype=pl.String)


def pair_hash(frame: pl.DataFrame) -> np.ndarray:
    """A 64-bit hash of each (qid, docid) pair; equal pairs hash equal, collisions are checked by callers."""
    keys = frame.select(
        (pl.col("qid").hash(seed=17) * 0x9E3779B97F4A7C15).xor(pl.col("docid").hash(seed=29))
    )
    return keys.to_series().to_numpy()


def _repeated_rows(frame: pl.DataFrame, keys: np.ndarray) -> np.ndarray:
    """Row indices (sorted) whose (qid, docid) pair occurred on an earlier row; ``keys`` from :func:`pair_hash`."""
    if pl.Series(keys).n_unique() == frame.height:
        return np.empty(0, dtype=np.int64)
    exact = frame.select("qid", "docid").is_duplicated()
    first = frame.with_row_index("row").filter(exact).group_by(["qid", "docid"]).agg(pl.col("row").min())
    rows = np.flatnonzero(exact.to_numpy())
    return np.setdiff1d(rows, first["row"].to_numpy())


def _first_repeat(run: Run) -> int | None:
    """The first row repeating its query's docid: block by block in C when queries are contiguous."""
    if run.grouped:
        return first_repeated_row(run.frame["docid"], np.concatenate(([0], np.cumsum(run.blocks[1]))))
    repeated = _repeated_rows(run.frame, run.pair_keys)
    return int(repeated[0]) if len(repeated) else None


def _check_present(frame: pl.DataFrame) -> None:
    """Raise :class:`RowProblem` at the first row missing a value (a null, from a frame or a table file)."""
    for column in frame.columns:
        if frame[column].null_count():
            row = int(frame[column].is_null().arg_true()[0])
            raise RowProblem(row, f"{column} is missing", _row_text(frame, row), f"a {column} on every row")


def check_run(run: Run, *, distinct_pairs: bool = False) -> None:
    """Raise :class:`RowProblem` at the first missing value, NaN score or repeated document of a query
    (not looked for when the caller knows the pairs are ``distinct_pairs``, as a dict's keys are)."""
    frame = run.frame
    _check_present(frame)
    scores = frame["score"].to_numpy()
    bad = np.flatnonzero(np.isnan(scores))  # ±inf ranks as the float it is (rerankers mask with it); NaN has no rank
    if len(bad):
        row = int(bad[0])
        raise RowProblem(row, NAN_SCORE, _row_text(frame, row), NAN_EXPECTED)
    repeat = None if distinct_pairs else _first_repeat(run)
    if repeat is not None:
        raise RowProblem(
            repeat,
            "document appears twice in the same query of the run",
            _row_text(frame, repeat),
            "each docid at most once per query",
        )


def dedupe_qrels(frame: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """Drop exact repeats of a judgment; raise :class:`RowProblem` on a missing value or a conflicting repeat."""
    _check_present(frame)
    repeated = _repeated_rows(frame, pair_hash(frame))
    if not len(repeated):
        return frame, 0
    conflicts = frame.group_by(["qid", "docid"]).agg(pl.col("grade").n_unique().alias("n")).filter(pl.col("n") > 1)
    if conflicts.height:
        bad = frame.with_row_index("row").join(conflicts, on=["qid", "docid"])
        row = int(bad.group_by(["qid", "docid"]).agg(pl.col("row").sort().get(1)).select(pl.col("row").min()).item())
        raise RowProblem(
            row,
            "conflicting judgment: this document was already judged with a different grade",
            _row_text(frame, row),
            "one grade per (qid, docid)",
        )
    keep = np.ones(frame.height, dtype=bool)
    keep[repeated] = False
    return frame.filter(pl.Series(keep)), len(repeated)


def _row_text(frame: pl.DataFrame, row: int) -> str:
    return " ".join(str(v) for v in frame.row(row))
