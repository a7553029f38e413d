"""Read queries and documents (JSONL or TSV) for import into the store (rubrics: :func:`judged.rubric.load_rubric`).

Every problem is an :class:`~judged.InputError` naming the file, the line,
the offending text and what was expected.

* Queries, JSONL: one object per line with ``qid`` and ``text``, optionally
  ``description`` and ``narrative``. TSV: ``qid<TAB>text[<TAB>description[<TAB>narrative]]``.
* Documents, JSONL: ``docid``, ``title``, and ``text`` or ``url`` (or both);
  ``metadata`` (an object) and any other field go to the document's metadata.
  TSV: ``docid<TAB>title<TAB>text[<TAB>url]``.
* A TSV file may start with a header line (its first field ``qid`` or ``docid``).

>>> from pathlib import Path
>>> [q.qid for q in read_queries(Path("examples/queries.tsv"))][:3]
['q01', 'q02', 'q03']
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judged.errors import InputError
from judged.judgments.model import Document, Query

_QUERY_FIELDS = ("qid", "text", "description", "narrative")
_DOCUMENT_FIELDS = ("docid", "title", "text", "url")


def read_queries(path: str | Path) -> list[Query]:
    """Queries from a ``.jsonl`` or ``.tsv`` file (by its extension)."""
    return _read(Path(path), "qid", _query_from_json, _query_from_tsv)


def read_documents(path: str | Path) -> list[Document]:
    """Documents from a ``.jsonl`` or ``.tsv`` file (by its extension)."""
    return _read(Path(path), "docid", _document_from_json, _document_from_tsv)


def _read(path: Path, key: str, from_json: Callable, from_tsv: Callable) -> list:
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".tsv"):
        raise InputError("unknown file type", path=str(path), expected="a .jsonl or .tsv file")
    try:
        lines = [line.rstrip("\r") for line in path.read_text(encoding="utf-8").split("\n")]
    except FileNotFoundError:
        raise InputError("no such file", path=str(path)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read file: {err}", path=str(path), expected="UTF-8 text") from None
    items: list[Any] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip() or (suffix == ".tsv" and number == 1 and line.split("\t")[0] == key):
            continue
        where: dict[str, Any] = {"path": str(path), "line": number, "text": line}
        item = from_json(line, where) if suffix == ".jsonl" else from_tsv(line.split("\t"), where)
        ident = getattr(item, key)
        if not ident or re.search(r"\s", ident):
            raise InputError(f"bad {key}", expected=f"a non-empty {key} without whitespace", **where)
        if ident in seen:
            raise InputError(f"{key} {ident!r} already appeared on line {seen[ident]}", expected=f"each {key} once",
                             **where)
        seen[ident] = number
        items.append(item)
    if not items:
        raise InputError("file has no records", path=str(path))
    return items


def _object(line: str, where: dict) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON ({err.msg} at column {err.colno})", expected="one JSON object per line",
                         **where) from None
    if not isinstance(record, dict):
        raise InputError("not a JSON object", expected="one JSON object per line", **where)
    return record


def _strings(record: dict, fields: tuple[str, ...], required: tuple[str, ...], where: dict) -> dict:
    for field in required:
        if field not in record:
            raise InputError(f"missing field {field!r}", expected=f"fields {', '.join(fields)}", **where)
    for field in fields:
        if field in record and not isinstance(record[field], str) and record[field] is not None:
            raise InputError(f"field {field!r} is not a string", expected=f"{field} as a JSON string", **where)
    return {field: record.get(field) for field in fields}


def _query_from_json(line: str, where: dict) -> Query:
    record = _object(line, where)
    unknown = sorted(set(record) - set(_QUERY_FIELDS))
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r}", expected=f"only {', '.join(_QUERY_FIELDS)}", **where)
    return Query(**_strings(record, _QUERY_FIELDS, ("qid", "text"), where))


def _query_from_tsv(fields: list[str], where: dict) -> Query:
    if not 2 <= len(fields) <= 4:
        raise InputError(f"expected 2 to 4 tab-separated fields, found {len(fields)}",
                         expected="qid<TAB>text[<TAB>description[<TAB>narrative]]", **where)
    qid, text, *extra = fields
    description, narrative = (extra + ["", ""])[:2]
    return Query(qid, text, description or None, narrative or None)


def _document_from_json(line: str, where: dict) -> Document:
    record = _object(line, where)
    values = _strings(record, _DOCUMENT_FIELDS, ("docid",), where)
    metadata = record.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InputError("field 'metadata' is not an object", expected="metadata as a JSON object", **where)
    extra = {k: v for k, v in record.items() if k not in _DOCUMENT_FIELDS and k != "metadata"}
    clash = sorted(set(extra) & set(metadata))
    if clash:
        raise InputError(f"field {clash[0]!r} appears both inside and outside 'metadata'",
                         expected="each metadata field once", **where)
    return _document(Document(**values, metadata={**metadata, **extra} or None), where)


def _document_from_tsv(fields: list[str], where: dict) -> Document:
    if not 3 <= len(fields) <= 4:
        raise InputError(f"expected 3 or 4 tab-separated fields, found {len(fields)}",
                         expected="docid<TAB>title<TAB>text[<TAB>url]", **where)
    docid, title, text, url = (fields + [""])[:4]
    return _document(Document(docid, title or None, text or None, url or None), where)


def _document(document: Document, where: dict) -> Document:
    if not document.text and not document.url:
        raise InputError("document has neither text nor url", expected="a text or a url", **where)
    return document
