"""JSON and JSON Lines inputs.

JSON is the ``{qid: {docid: value}}`` shape pytrec_eval and ranx use. JSON
Lines holds one object a line, either a record (``{"qid": .., "docid": ..,
"score": ..}``, ``"grade"`` for qrels) or a ``{qid: {docid: value}}`` fragment.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from judged.errors import InputError
from judged.io.inputs import Qrels, Run, Source

_VALUE_KEYS = {"run": ("score",), "qrels": ("grade", "relevance", "rel", "label")}


def read_json(path: str | Path, kind: str, name: str | None = None) -> Run | Qrels:
    """Read a ``{qid: {docid: value}}`` JSON file as a run or qrels (``kind``)."""
    path = str(path)
    source = Source.of_file(path, "json")
    try:
        data = json.loads(_text(path))
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
    source = Source.of_file(path, "jsonl")
    nested: dict[str, dict] = {}
    value_keys = _VALUE_KEYS[kind]
    for number, line in enumerate(_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
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
    container = Run if kind == "run" else Qrels
    return container.from_dict(nested, name or Path(path).stem, source=source)


def _text(path: str) -> str:
    with open(path, "rb") as handle:
        raw = handle.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise InputError("undecodable bytes", path=path, line=line, expected="UTF-8 text") from None
