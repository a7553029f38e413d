"""JSON and JSON Lines inputs.

JSON is the ``{qid: {docid: value}}`` shape pytrec_eval and ranx use. JSON
Lines holds one object a line, either a record (``{"qid": .., "docid": ..,
"score": ..}``, ``"grade"`` for qrels) or a ``{qid: {docid: value}}`` fragment.

Values are JSON numbers (ASCII by JSON's own grammar; a number in a string is
refused), and ``Infinity``/``-Infinity`` (what Python's :mod:`json` writes for
an infinite score, and reads back) are scores like any other; ``NaN`` is
refused as a run's score. An integer too long for 64 bits becomes a float, never a crash
(Python's ``int()`` stops at 4,300 digits): a fine score, an out-of-range grade.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import BinaryIO

from judged.errors import InputError
from judged.io.inputs import Qrels, Run, Source, opened
from judged.io.numbers import parse_grade

_VALUE_KEYS = {"run": ("score",), "qrels": ("grade", "relevance", "rel", "label")}


def read_json(path: str | Path, kind: str, name: str | None = None) -> Run | Qrels:
    """Read a ``{qid: {docid: value}}`` JSON file as a run or qrels (``kind``)."""
    path = str(path)
    with opened(path) as handle:
        source, text = Source.of_handle(path, "json", handle), _text(handle, path)
    try:
        data = _loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON: {err.msg}", path=path, line=err.lineno, expected="a JSON object") from None
    if not isinstance(data, dict):
        raise InputError("top level is not an object", path=path, text=type(data).__name__,
                         expected='{"qid": {"docid": value}}')
    nested = {}
    for qid, docs in data.items():
        if not isinstance(docs, dict):
            raise InputError(f"query {qid!r} does not map to an object", path=path,
                             text=json.dumps(docs)[:80], expected='{"docid": value}')
        nested[qid] = docs
    return _build(nested, kind, path, name, source)


def read_jsonl(path: str | Path, kind: str, name: str | None = None) -> Run | Qrels:
    """Read JSON Lines of records or ``{qid: {docid: value}}`` fragments."""
    path = str(path)
    with opened(path) as handle:
        source, text = Source.of_handle(path, "jsonl", handle), _text(handle, path)
    nested: dict[str, dict] = {}
    value_keys = _VALUE_KEYS[kind]
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = _loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"invalid JSON: {err.msg}", path=path, line=number, text=line) from None
        if not isinstance(obj, dict):
            raise InputError("line is not a JSON object", path=path, line=number, text=line)
        if "qid" in obj and "docid" in obj:
            key = next((k for k in value_keys if k in obj), None)
            if key is None:
                raise InputError("record has no value", path=path, line=number, text=line,
                                 expected=f"a {' or '.join(value_keys)} field")
            docs = nested.setdefault(str(obj["qid"]), {})
            if str(obj["docid"]) in docs and kind == "run":
                raise InputError("document appears twice in the same query of the run",
                                 path=path, line=number, text=line, expected="each docid at most once per query")
            docs[str(obj["docid"])] = obj[key]
        else:
            for qid, docs in obj.items():
                if not isinstance(docs, dict):
                    raise InputError(f"query {qid!r} does not map to an object", path=path, line=number,
                                     text=line, expected='{"qid": {"docid": value}}')
                nested.setdefault(str(qid), {}).update(docs)
    return _build(nested, kind, path, name, source)


def _build(nested: dict, kind: str, path: str, name: str | None, source: Source) -> Run | Qrels:
    if not nested:
        raise InputError("file has no data", path=path, expected='{"qid": {"docid": value}}')
    for qid, docs in nested.items():
        for docid, value in docs.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InputError(f"value for query {qid!r}, document {docid!r} is not a number", path=path,
                                 text=json.dumps(value), expected="a number")
            if kind == "qrels" and not math.isnan(value) and not -(2**63) <= value < 2**63:
                raise InputError(f"grade for query {qid!r}, document {docid!r} is out of range", path=path,
                                 text=json.dumps(value), expected="an integer grade that fits in 64 bits")
    container = Run if kind == "run" else Qrels
    return container.from_dict(nested, name or Path(path).stem, source=source)


def _json_integer(text: str) -> int | float | None:
    """A JSON integer: exact when it fits in 64 bits, else the nearest float.

    ``None`` (refused as not a number) for text that is not a grade's; json's C scanner hands
    only ASCII digits, its pure-Python fallback also other Unicode digits after the first.
    """
    try:
        return parse_grade(text)
    except OverflowError:
        return float(text)


def _loads(text: str):
    return json.loads(text, parse_int=_json_integer)


def _text(handle: BinaryIO, path: str) -> str:
    """The UTF-8 text of a file :func:`opened` gave, inflated when gzip."""
    handle.seek(0)
    raw = handle.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise InputError("undecodable bytes", path=path, line=line, expected="UTF-8 text") from None
