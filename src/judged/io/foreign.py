"""Runs and judgments held in other IR libraries' objects: ranx ``Qrels``/``Run``, ir_datasets datasets (also
named ``irds:DATASET_ID``) and the iterables of their namedtuples.

Most teams get qrels and topics from ir_datasets (``qrels_iter()`` yields
``TrecQrel(query_id, doc_id, relevance, iteration)``, ``scoreddocs_iter()``
yields ``GenericScoredDoc(query_id, doc_id, score)``) and runs from ranx or
PyTerrier. These become the same rows a file or a frame gives, read by the
one table reader (:func:`judged.io.tabular.from_frame`), so ids, grades and
scores are checked and refused in the same words. Neither library is
imported unless such an input is given.

>>> from collections import namedtuple
>>> Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
>>> frame, source = rows_of([Qrel("q1", "d1", 2, "0"), Qrel("q1", "d2", 0, "0")], "qrels", "qrels")
>>> frame.columns, frame.rows(), source.format
(['query_id', 'doc_id', 'relevance'], [('q1', 'd1', 2), ('q1', 'd2', 0)], 'namedtuples')
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from typing import Any

import polars as pl

from judged.errors import InputError, UsageError
from judged.extras import require
from judged.io.inputs import Source

#: The prefix that names an ir_datasets dataset where a file path would go (``irds:vaswani``).
IRDS_PREFIX = "irds:"
#: The namedtuple field that holds each kind's value (ir_datasets' names).
_VALUE_FIELD = {"qrels": "relevance", "run": "score"}
_ITERATOR = {"qrels": "qrels_iter", "run": "scoreddocs_iter"}
#: How a dataset made by ``ir_datasets.create_dataset`` (it has no id) is named.
_UNNAMED_DATASET = "an ir_datasets dataset"


Foreign = tuple[Mapping | pl.DataFrame, str, Source | None]


def foreign_input(source: object, kind: str, name: str | None) -> Foreign | None:
    """``source`` as a mapping or a frame, its name and its source, when it is one of the objects above; else
    None (a path, a mapping or a frame, read as they always are)."""
    held = unwrapped(source, kind)
    if _as_given(source, held):
        return None
    if isinstance(held, Mapping):
        return held, name or getattr(source, "name", None) or kind, None
    dataset_id = _dataset_id(source)
    if dataset_id is None and _library(source) != "ir_datasets":
        frame, read = rows_of(held, kind, name or kind)  # type: ignore[arg-type]
        return frame, name or kind, read
    shown = IRDS_PREFIX + dataset_id if dataset_id else _UNNAMED_DATASET
    frame, read = rows_of(held, kind, shown, "ir_datasets")  # type: ignore[arg-type]
    return frame, name or dataset_id or kind, read


def unwrapped(source: object, kind: str) -> object:
    """What ``source`` holds for ``kind`` when it is another library's container: a ranx object's dict, an
    ir_datasets dataset's (or ``irds:`` id's) qrels or scored documents; anything else as it is.

    The drop-in modules read these as their references read dicts and namedtuple iterables.
    """
    if isinstance(source, str) and source.startswith(IRDS_PREFIX):
        dataset_id = source[len(IRDS_PREFIX):]
        return _iterate(load_dataset(dataset_id), kind, dataset_id)
    if _library(source) == "ranx" and hasattr(source, "to_dict"):
        return source.to_dict()
    if _library(source) == "ir_datasets" and hasattr(source, _ITERATOR[kind]):
        return _iterate(source, kind, _dataset_id(source) or _UNNAMED_DATASET)
    return source


def nested(source: object, kind: str) -> object:
    """``source`` as ``{qid: {docid: value}}`` where it is another library's container or an iterable of
    ir_datasets' namedtuples (a later listing of a pair replaces an earlier one, as a dict does); a dict or
    anything else as it is: pytrec_eval's call shape, which checks what it gets."""
    held = unwrapped(source, kind)
    if isinstance(held, Mapping) or _as_given(source, held):
        return held
    field = _VALUE_FIELD[kind]
    out: dict = {}
    for item in held:  # type: ignore[attr-defined]
        out.setdefault(item.query_id, {})[item.doc_id] = getattr(item, field)
    return out


def _as_given(source: object, held: object) -> bool:
    """Whether ``source`` is read as it is: no other library's container (``held`` is itself) nor an iterable
    of ir_datasets' namedtuples."""
    return held is source and not _is_namedtuples(source)


def _dataset_id(source: object) -> str | None:
    """An ir_datasets dataset's id (``irds:`` names carry theirs); None for one made by ``create_dataset``."""
    if isinstance(source, str) and source.startswith(IRDS_PREFIX):
        return source[len(IRDS_PREFIX):]
    known = getattr(source, "dataset_id", None) if _library(source) == "ir_datasets" else None
    return str(known()) if known is not None else None


def _library(source: object) -> str:
    """The top-level package that defines ``source``'s type (``ranx``, ``ir_datasets``, ``builtins``...)."""
    return type(source).__module__.split(".")[0]


def load_dataset(dataset_id: str) -> Any:
    """``ir_datasets.load(dataset_id)``, or a one-line error saying how to install ir_datasets or why it failed."""
    require("irds", f"reading {IRDS_PREFIX}{dataset_id}")
    import ir_datasets

    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise UsageError(f"ir_datasets has no dataset {dataset_id!r}; its ids are listed at "
                         "https://ir-datasets.com (such as msmarco-passage/dev/small).") from None


def _iterate(dataset: Any, kind: str, dataset_id: str) -> Iterable:
    """The dataset's qrels or scored documents, or a one-line error when it has none or cannot fetch them."""
    has = getattr(dataset, f"has_{'qrels' if kind == 'qrels' else 'scoreddocs'}", None)
    if has is not None and not has():
        what = "qrels" if kind == "qrels" else "scored documents (a run)"
        raise UsageError(f"ir_datasets' {dataset_id} has no {what}.")
    items = getattr(dataset, _ITERATOR[kind])()
    try:
        first = next(iter(items))
    except StopIteration:
        return ()
    except Exception as error:  # ir_datasets fetches on first use: no network, a checksum, a licence step
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UsageError(f"ir_datasets could not read {dataset_id}'s {kind} ({message}); fetch it where it can "
                         "(ir_datasets downloads on first use), or give the file.") from None
    return chain([first], items)


def _is_namedtuples(source: object) -> bool:
    """Whether ``source`` is an iterable (not a mapping, string, path or frame) whose items have ir_datasets'
    fields; a list or tuple is looked at, an iterator is not consumed (its items are checked as they are read)."""
    if isinstance(source, (str, bytes, Mapping)) or hasattr(source, "columns") or hasattr(source, "__fspath__"):
        return False
    if isinstance(source, (list, tuple)):
        return bool(source) and hasattr(source[0], "_fields") and "query_id" in source[0]._fields
    return isinstance(source, Iterator) or (hasattr(source, "__iter__") and _library(source) != "builtins")


def rows_of(items: Iterable, kind: str, shown: str, format: str = "namedtuples") -> tuple[pl.DataFrame, Source]:
    """The rows of ``items`` (namedtuples with ``query_id``, ``doc_id`` and ``relevance`` or ``score``) as a
    frame of those columns for the table reader, and their source: ``shown`` as its path, and the sha256 of
    the rows as read, one ``qid<TAB>docid<TAB>value`` line each in the iterable's order."""
    field = _VALUE_FIELD[kind]
    qids: list[object] = []
    docids: list[object] = []
    values: list[object] = []
    for number, item in enumerate(items, start=1):
        try:
            qids.append(item.query_id)
            docids.append(item.doc_id)
            values.append(getattr(item, field))
        except AttributeError:
            raise InputError(f"item {number} has no query_id, doc_id and {field}", path=shown,
                             text=repr(item)[:120], expected=f"namedtuples such as ir_datasets' "
                             f"{'TrecQrel' if kind == 'qrels' else 'GenericScoredDoc'}") from None
    digest = hashlib.sha256()
    for row in zip(qids, docids, values):
        digest.update("\t".join(map(str, row)).encode() + b"\n")
    frame = pl.DataFrame({"query_id": qids, "doc_id": docids, field: values}, strict=False)  # the fields' names
    return frame, Source(shown, format, digest.hexdigest())
