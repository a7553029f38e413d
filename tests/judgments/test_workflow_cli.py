"""The documented judging workflow on the examples, through the CLI, on SQLite and PostgreSQL; and every
evaluating command reading a frozen set with --judgments, its id and hash in what it writes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.judgments import Store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

RUNS = ("bm25", "dense", "naive")
# The three pairs assessor 1 graded 2 and assessor 2 graded 0 (examples/qrels.txt, examples/qrels.assessor2.txt).
TWO_VS_ZERO = (("q01", "changelog/2024-03"), ("q02", "sdk/node/errors"), ("q04", "guides/slack-deploy-notifications"))


def _cli(*args, code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def judged(db_url, tmp_path, monkeypatch):
    """Commands against a fresh store on each backend, named by $JUDGED_DB, run in tmp_path."""
    monkeypatch.setenv("JUDGED_DB", db_url)
    monkeypatch.chdir(tmp_path)
    return _cli


def test_the_documented_workflow(judged, db_url, tmp_path):
    runs = [EXAMPLES / "runs" / f"{name}.run" for name in RUNS]
    assert "15 new of 15 queries" in judged("import", "queries", EXAMPLES / "queries.jsonl").output
    assert "150 new of 150 documents" in judged("import", "documents", EXAMPLES / "documents.jsonl").output
    judged("import", "rubric", EXAMPLES / "rubric.toml")
    pooled = judged("pool", *runs, "--depth", "10").output
    assert pooled.startswith("pool default: 251 pairs over 15 queries (top 10 of 3 runs, ties=trec)")
    assigned = judged("assign", "--assessor", "a1", "--assessor", "a2", "--overlap-queries", "6").output
    assert "6 overlap queries (q01, q04, q07, q10, q12, q15), seed 0" in assigned  # seed 0's sample of 6
    assert [line.split()[2] for line in assigned.splitlines()[2:]] == ["105", "105"]   # overlap pairs each
    judged("import", "qrels", EXAMPLES / "qrels.txt", "--assessor", "a1", "--rubric", "tidewater-docs")
    judged("import", "qrels", EXAMPLES / "qrels.assessor2.txt", "--assessor", "a2", "--rubric", "tidewater-docs")

    # docs/agreement.md: the examples fail the gate on overlap (91 pairs < 300) with linear kappa 0.729
    gate = judged("agreement", "--db", db_url, code=3).output
    assert "(rubric tidewater-docs v1, stored in " in gate.splitlines()[0]
    assert "a1 vs a2: 91 pairs graded by both, 68 identical (raw agreement 0.747)" in gate
    assert "│ linear     │ 0.729 │ 0.663 to 0.804 (95%, 2000 resamples) │" in gate  # resampling 6 queries
    assert "but only 91 pairs were" in gate and "gate (at least 300 pairs" in gate

    listed = judged("adjudicate", "list", "--min-diff", "2").output.splitlines()[1:]
    assert [tuple(line.split()[:3]) for line in listed] == [(q, d, "2") for q, d in TWO_VS_ZERO]
    assert all(line.split()[3:7] == ["a1:", "2;", "a2:", "0"] for line in listed)
    assert "how do i rotate" in listed[0].lower()  # the query's text beside the labels (examples/queries.jsonl)
    for qid, docid in TWO_VS_ZERO:
        judged("adjudicate", "set", qid, docid, "1", "--adjudicator", "lead", "--note", "partly useful")
    assert "no pair's grades differ by 2 or more (pending)" in judged("adjudicate", "list").output

    frozen = judged("freeze", "final", "--resolve", "assessor:a1").output
    assert frozen.startswith("froze final@1 sha256:") and "adjudicated  3" in frozen
    content_hash = frozen.split("sha256:")[1].split()[0]
    judged("export", "final", "-o", "final.qrels")
    assert hashlib.sha256((tmp_path / "final.qrels").read_bytes()).hexdigest() == content_hash
    sidecar = json.loads((tmp_path / "final.qrels.sidecar.json").read_text())
    assert sidecar["pool"]["pairs"] == 251 and sidecar["qrels"]["labels"]["adjudicated"] == 3

    measures = ("-m", "nDCG@10", "-m", "R@100", "-f", "json", "--per-query")
    from_file = json.loads(judged("eval", *runs, "--qrels", "final.qrels", *measures).stdout)["results"]
    from_store = json.loads(judged("eval", *runs, "--judgments", "final", *measures).stdout)["results"]
    for a, b in zip(from_file, from_store, strict=True):
        assert (a["run"], a["aggregate"], a["per_query"]) == (b["run"], b["aggregate"], b["per_query"])
        assert a["provenance"]["qrels"]["sha256"] == b["provenance"]["qrels"]["sha256"] == content_hash
    assert from_store[0]["provenance"]["qrels"]["name"] == "final@1"

    # the store's adjudicated labels, settled as the freeze settled them, are the frozen set
    sensitivity = ("-m", "nDCG@10", "-f", "json")
    adjudicated = json.loads(judged("assessors", *runs, "--resolve", "assessor:a1", *sensitivity).stdout)
    final = json.loads(judged("assessors", *runs, "--final", "final@1", *sensitivity).stdout)
    assert adjudicated["assessors"] == ["a1", "a2", "adjudicated"] and final["assessors"] == ["a1", "a2", "final@1"]
    ndcg_adjudicated = next(iter(adjudicated["measures"].values()))["runs"]
    ndcg_final = next(iter(final["measures"].values()))["runs"]
    for run in RUNS:
        assert ndcg_adjudicated[run]["means"]["adjudicated"] == ndcg_final[run]["means"]["final@1"]
        assert ndcg_adjudicated[run]["means"]["a1"] == ndcg_final[run]["means"]["a1"]


@pytest.fixture(scope="module")
def frozen(tmp_path_factory):
    """An SQLite store holding examples/qrels.txt frozen as nist@1, and that set exported to a file."""
    where = tmp_path_factory.mktemp("frozen")
    db = str(where / "judged.db")
    with Store.open(db) as store:
        store.import_qrels(EXAMPLES / "qrels.txt", assessor="nist")
        judgment_set = store.freeze("nist").judgment_set
        (where / "nist.qrels").write_text(store.export("nist@1")[0])
    return {"db": db, "file": str(where / "nist.qrels"), "id": judgment_set.id, "hash": judgment_set.content_hash,
            "head": judgment_set.head}


def _judgments_record(frozen) -> dict:
    """What an output says of the frozen set it read: the log has not moved since the freeze, so both heads agree."""
    return {"name": "nist@1", "path": f"sqlite:///{frozen['db']}#nist@1", "format": "judgment-set",
            "sha256": frozen["hash"], "heads": {"frozen_from": frozen["head"], "read_at": frozen["head"]}}


@pytest.mark.parametrize(("command", "args"), [
    ("compare", ["bm25", "naive", "-m", "nDCG@10", "--permutations", "200", "--resamples", "200"]),
    ("bounds", ["naive", "-m", "nDCG@10"]),
    ("sensitivity", ["bm25", "dense", "-m", "nDCG@10"]),
    ("explain", ["bm25", "--query", "q01", "--vs", "dense"]),
])
def test_a_frozen_set_gives_the_numbers_of_its_export_and_is_named_in_the_output(frozen, command, args):
    args = [str(EXAMPLES / "runs" / f"{a}.run") if a in RUNS else a for a in args]
    store = ("--judgments", "nist@1", "--db", frozen["db"])
    from_file = json.loads(_cli(command, *args, "--qrels", frozen["file"], "-f", "json").stdout)
    from_store = json.loads(_cli(command, *args, *store, "-f", "json").stdout)
    assert from_store.pop("judgments") == _judgments_record(frozen)
    # the provenance names each source (and the command line); the numbers and the judgments' sha256 agree
    stored, filed = from_store.pop("provenance"), from_file.pop("provenance")
    assert from_store == from_file and "judgments" not in from_file
    sha = {r["sha256"] for r in stored["inputs"] if r.get("format") == "judgment-set"}
    assert sha == {frozen["hash"]} == {r["sha256"] for r in filed["inputs"] if r.get("path") == frozen["file"]}
    table = _cli(command, *args, *store).output
    assert table.endswith(f"judgments: frozen set nist@1 (sha256 {frozen['hash'][:12]}) "
                          f"from sqlite:///{frozen['db']}#nist@1\n")


def test_the_report_records_the_frozen_set_in_its_provenance(frozen, tmp_path):
    page = tmp_path / "report.html"
    runs = [EXAMPLES / "runs" / f"{name}.run" for name in ("bm25", "dense")]
    _cli("report", *runs, "--judgments", "nist", "--db", frozen["db"], "-o", page, "--permutations", "99",
         "--resamples", "99")
    html = page.read_text()
    provenance = json.loads(html.split('<pre class="provenance">', 1)[1].split("</pre>", 1)[0].replace("&#34;", '"'))
    for record in provenance["runs"].values():
        shown = ("name", "path", "format", "sha256", "heads")
        assert {k: record["qrels"][k] for k in shown} == _judgments_record(frozen)
    assert "judgments <code>nist@1</code>" in html


def test_judgments_and_qrels_exclude_each_other(frozen):
    run = EXAMPLES / "runs" / "bm25.run"
    for command in ("compare", "bounds", "sensitivity", "explain"):
        extra = ["--query", "q01"] if command == "explain" else []
        both = _cli(command, run, *extra, "--qrels", frozen["file"], "-j", "nist", "--db", frozen["db"], code=2)
        assert "either --qrels FILE or --judgments NAME[@VERSION]" in both.output
        assert "either --qrels FILE" in _cli(command, run, *extra, code=2).output
    missing = _cli("bounds", run, "-j", "nist@2", "--db", frozen["db"], code=2).output
    assert "no judgment set 'nist@2' in the store (sets: nist)" in missing
