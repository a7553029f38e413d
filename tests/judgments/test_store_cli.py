"""The store's commands through click: a whole judging workflow, exit codes, and `judged eval --judgments`."""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner

from judged.cli import main


@pytest.fixture
def judged(tmp_path, monkeypatch):
    """Run a command against a store in tmp_path, named by $JUDGED_DB as a user might."""
    monkeypatch.setenv("JUDGED_DB", str(tmp_path / "judged.db"))
    monkeypatch.chdir(tmp_path)

    def invoke(*args, code: int = 0):
        result = CliRunner().invoke(main, [str(a) for a in args])
        assert result.exit_code == code, result.output
        return result

    return invoke


def test_a_judging_workflow_from_import_to_evaluation(judged, examples, tmp_path):
    judged("import", "queries", examples / "queries.jsonl")
    judged("import", "documents", examples / "documents.jsonl")
    stored = judged("import", "rubric", examples / "rubric.toml").output
    assert "rubric tidewater-docs@1 stored (grades 0, 1, 2, 3)" in stored
    judged("pool", *(examples / "runs" / f"{n}.run" for n in ("bm25", "dense", "naive")), "--depth", "10")
    assert "239 label(s) recorded for a1" in judged("import", "qrels", examples / "qrels.txt", "-a", "a1").output
    assert "already a1's labels (239); nothing changed" in judged("import", "qrels", examples / "qrels.txt",
                                                                      "-a", "a1").output
    judged("import", "qrels", examples / "qrels.assessor2.txt", "-a", "a2", "--rubric", "tidewater-docs")

    listed = judged("adjudicate", "list").output.splitlines()
    assert listed[0].split() == ["qid", "docid", "diff", "labels", "adjudicated", "query", "title"]
    assert listed[1].split()[:7] == ["q01", "changelog/2024-03", "2", "a1:", "2;", "a2:", "0"] and len(listed) == 4
    judged("adjudicate", "set", "q01", "changelog/2024-03", "1", "--adjudicator", "lead", "--note", "in passing")
    assert len(json.loads(judged("adjudicate", "list", "--all", "-f", "json").output)) == 3

    refused = judged("freeze", "final", code=2)
    assert "23 pair(s) have disagreeing grades" not in refused.output and "22 pair(s)" in refused.output
    frozen = judged("freeze", "final", "--resolve", "assessor:a1").output
    assert frozen.startswith("froze final@1 sha256:")
    exported = judged("export", "final", "-o", "final.qrels")
    size = (tmp_path / "final.qrels").stat().st_size
    assert exported.stdout == "" and f"wrote final.qrels ({size:,} bytes)" in exported.stderr
    assert "wrote final.qrels.sidecar.json (" in exported.stderr
    content_hash = frozen.split("sha256:")[1].split()[0]
    assert hashlib.sha256((tmp_path / "final.qrels").read_bytes()).hexdigest() == content_hash
    sidecar = json.loads((tmp_path / "final.qrels.sidecar.json").read_text())
    assert sidecar["judgment_set"]["id"] == "final@1" and sidecar["qrels"]["labels"]["adjudicated"] == 1

    run = examples / "runs" / "bm25.run"
    from_store = json.loads(judged("eval", run, "--judgments", "final", "-m", "nDCG@10", "-f", "json").output)
    from_file = json.loads(judged("eval", run, "--qrels", "final.qrels", "-m", "nDCG@10", "-f", "json").output)
    record = from_store["results"][0]["provenance"]["qrels"]
    assert (record["name"], record["format"], record["sha256"]) == ("final@1", "judgment-set", content_hash)
    assert record["path"].endswith("judged.db#final@1")
    assert from_store["results"][0]["aggregate"] == from_file["results"][0]["aggregate"]
    assert from_file["results"][0]["provenance"]["qrels"]["sha256"] == content_hash

    status = judged("db", "status").output
    assert f"final@1       {content_hash}" in status


def test_judging_from_the_command_line(judged):
    first = judged("judge", "record", "q1", "d1", "2", "--assessor", "ana", "--note", "steps only").output
    assert first.startswith("#1 q1 d1: grade 2 by ana [event ")
    judged("judge", "record", "q1", "d1", "3", "-a", "ana")
    assert "undid event" in judged("judge", "undo", "q1", "d1", "-a", "ana").output
    judged("judge", "record", "q1", "d2", "--cannot-judge", "page does not load", "-a", "ana")
    history = judged("judge", "history", "q1", "d1").output.splitlines()
    assert [line.split()[3:5] for line in history[1:]] == [
        ["grade", "2"], ["grade", "3"], ["undo", history[2].split()[-1]]
    ]
    assert "steps only" in history[1]
    assert "cannot judge: page does not load" in judged("judge", "history", "q1", "d2").output
    judged("judge", "record", "q1", "d1", "-a", "ana", code=2)
    judged("judge", "record", "q1", "d1", "2", "--cannot-judge", "x", "-a", "ana", code=2)


def test_assign_and_queue(judged, examples):
    judged("pool", examples / "runs" / "bm25.run", "--depth", "2")
    judged("import", "queries", examples / "queries.tsv")
    out = judged("assign", "-a", "ana", "-a", "ben", "--overlap-queries", "2", "--seed", "1").output
    assert out.startswith("pool default: 2 overlap queries (q01, q05), seed 1")  # seed 1's sample of two
    queue = judged("judge", "queue", "-a", "ana").output.splitlines()
    assert queue[0].split() == ["#", "qid", "docid", "query", "title"]
    # a header, the two overlap queries, and seven of the other thirteen queries (two pairs each)
    assert "bm25" not in "".join(queue) and len(queue) == 1 + 2 * 2 + 7 * 2
    assert "nothing to assign" in judged("assign", "-a", "ana", "-a", "ben").output


def test_eval_needs_exactly_one_source_of_judgments(judged, examples, tmp_path):
    run = examples / "runs" / "bm25.run"
    assert "either --qrels FILE or --judgments" in judged("eval", run, code=2).output
    judged("eval", run, "--qrels", examples / "qrels.txt", "--judgments", "x", code=2)
    assert "no judgment store at" in judged("eval", run, "--judgments", "x", code=2).output
    assert not (tmp_path / "judged.db").exists()  # reading never creates a store
    judged("db", "upgrade")
    assert "no judgment set 'x' in the store (sets: none)" in judged("eval", run, "--judgments", "x", code=2).output


def test_bad_input_files_exit_1_naming_file_and_line(judged, tmp_path):
    (tmp_path / "q.jsonl").write_text('{"qid": "q1", "text": "a"}\n{"qid": "q2"}\n')
    result = judged("import", "queries", "q.jsonl", code=1)
    assert "Error: q.jsonl:2: missing field 'text'" in result.output
    (tmp_path / "bad.qrels").write_text("q1 0 d1 1\nq1 0 d2 one\n")
    assert "bad.qrels:2: grade is not an integer" in judged("import", "qrels", "bad.qrels", "-a", "x", code=1).output
    (tmp_path / "r.toml").write_text('name = "r"\nversion = 1\n[[level]\n')
    assert "r.toml:3: invalid TOML" in judged("import", "rubric", "r.toml", code=1).output


def test_reimporting_an_assessor_says_replace_or_add(judged, examples, tmp_path):
    judged("import", "qrels", examples / "qrels.txt", "--assessor", "nist")
    other = tmp_path / "other.qrels"
    other.write_text("q01 0 api/openapi-spec 3\nq99 0 new/doc 1\n")
    refused = judged("import", "qrels", other, "--assessor", "nist", code=2)
    assert "already has 239 label(s)" in refused.output and "--replace" in refused.output
    history = judged("judge", "history", "q01", "api/openapi-spec").output
    assert history.count("grade") == 1  # nothing of the refused file was stored
    added = judged("import", "qrels", other, "--assessor", "nist", "--add")
    assert "2 label(s) recorded" in added.output
    replaced = tmp_path / "replaced.qrels"
    replaced.write_text("q01 0 api/openapi-spec 2\n")
    judged("import", "qrels", replaced, "--assessor", "nist", "--replace")
    exported = judged("freeze", "after")
    assert "froze after@1" in exported.output
    assert judged("export", "after").output == "q01 0 api/openapi-spec 2\n"  # no mix of the two files
