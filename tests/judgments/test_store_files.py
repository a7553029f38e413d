"""Importing queries and documents from JSONL and TSV: what is read, and errors that name file and line."""

from __future__ import annotations

import json
import re

import pytest

from judged.errors import InputError, UsageError
from judged.judgments import Document, Query
from judged.judgments.files import read_documents, read_queries


def test_the_examples_read_the_same_from_jsonl_and_tsv(examples):
    from_jsonl, from_tsv = read_queries(examples / "queries.jsonl"), read_queries(examples / "queries.tsv")
    assert [(q.qid, q.text) for q in from_jsonl] == [(q.qid, q.text) for q in from_tsv]
    assert len(from_jsonl) == 15 and all(q.description for q in from_jsonl)
    assert all(q.description is None for q in from_tsv)
    documents = read_documents(examples / "documents.jsonl")
    assert len(documents) == 150 and documents[0].docid == "auth/overview" and documents[0].metadata is None


def _write(tmp_path, name: str, lines: list[str]):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("lines, message", [
    (['{"qid": "q1", "text": "a"}', '{"qid": "q2", "text": '],
     ("queries.jsonl:2: not valid JSON (Expecting value at column 23): '{\"qid\": \"q2\", \"text\": ' "
      "(expected one JSON object per line)")),
    (['{"qid": "q1"}'], "queries.jsonl:1: missing field 'text'"),
    (['{"qid": "q1", "text": "a", "desciption": "typo"}'], "queries.jsonl:1: unknown field 'desciption'"),
    (['{"qid": "q1", "text": "a"}', '{"qid": "q1", "text": "b"}'],
     "queries.jsonl:2: qid 'q1' already appeared on line 1"),
    (['{"qid": "q 1", "text": "a"}'], "queries.jsonl:1: bad qid"),
    (['{"qid": "q1", "text": 3}'], "queries.jsonl:1: field 'text' is not a string"),
    (['["q1", "a"]'], "queries.jsonl:1: not a JSON object"),
], ids=["json", "missing", "unknown", "repeated", "whitespace", "type", "array"])
def test_bad_query_lines_name_file_and_line(tmp_path, lines, message):
    path = _write(tmp_path, "queries.jsonl", lines)
    with pytest.raises(InputError) as err:
        read_queries(path)
    assert str(err.value).startswith(f"{tmp_path}/{message}")


def test_tsv_files_take_an_optional_header_and_check_the_field_count(tmp_path):
    path = _write(tmp_path, "queries.tsv", ["qid\ttext", "q1\tfirst", "q2\tsecond\tthe need"])
    assert read_queries(path) == [Query("q1", "first"), Query("q2", "second", "the need")]
    bad = _write(tmp_path, "bad.tsv", ["q1 first"])
    with pytest.raises(InputError, match=r"bad.tsv:1: expected 2 to 4 tab-separated fields, found 1"):
        read_queries(bad)
    docs = _write(tmp_path, "docs.tsv", ["d1\tTitle\t\thttps://example.org/d1", "d2\tOther\tSome text"])
    assert read_documents(docs) == [Document("d1", "Title", None, "https://example.org/d1"),
                                    Document("d2", "Other", "Some text")]
    empty = _write(tmp_path, "empty.tsv", ["d3\tTitle\t"])
    with pytest.raises(InputError, match=re.escape("empty.tsv:1: document has neither text nor url")):
        read_documents(empty)


def test_extra_document_fields_become_metadata(tmp_path):
    path = _write(tmp_path, "docs.jsonl", [json.dumps({"docid": "d1", "text": "t", "lang": "en",
                                                       "metadata": {"source": "wiki"}})])
    assert read_documents(path)[0].metadata == {"source": "wiki", "lang": "en"}
    clash = _write(tmp_path, "clash.jsonl", [json.dumps({"docid": "d1", "text": "t", "lang": "en",
                                                         "metadata": {"lang": "de"}})])
    clash_message = "clash.jsonl:1: field 'lang' appears both inside and outside 'metadata'"
    with pytest.raises(InputError, match=re.escape(clash_message)):
        read_documents(clash)
    with pytest.raises(InputError, match=re.escape("a .jsonl or .tsv file")):
        read_documents(tmp_path / "docs.csv")


def test_stored_texts_never_change_under_their_judgments(store):
    assert store.add_queries([Query("q1", "rotate a key"), Query("q2", "rate limits")]) == 2
    assert store.add_queries([Query("q1", "rotate a key")]) == 0
    with pytest.raises(UsageError, match="query 'q1' is already stored with a different text"):
        store.add_queries([Query("q1", "rotate an API key")])
    assert store.add_documents([Document("d1", "T", url="https://x/d1", metadata={"lang": "en"})]) == 1
    assert store.document("d1").metadata == {"lang": "en"} and store.query("q2").text == "rate limits"
    assert store.document("nope") is None and [q.qid for q in store.queries()] == ["q1", "q2"]
