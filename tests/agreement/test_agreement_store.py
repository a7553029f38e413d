"""`judged agreement` and `judged assessors` reading the judgment store: the same numbers as from files, the
stored rubric's domain, the adjudicated and frozen sets, and FIELD.md's 0.713 -> 0.951 swing through the store."""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from click.testing import CliRunner

import judged
from judged.cli import main
from judged.judgments import Store
from judged.judgments.assessor_qrels import adjudicated_qrels, assessor_labels, assessor_qrels

EXP_NDCG = "nDCG(gain=exp)@10"
NDCG_KEY = "nDCG(gain=exp,ideal=judged,unjudged=zero,ties=trec,norel=0)@10"
RECALL_KEY = "R(rel=1,unjudged=zero,ties=trec,norel=0)@10"
# FIELD.md: grades in returned order; the second assessor grades rank 1 as 3 and rank 2 as 2
FIRST = [1, 3, 0, 2, 0, 0, 2, 0, 0, 1]
SECOND = [3, 2, 0, 2, 0, 0, 2, 0, 0, 1]


def _cli(*args, code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def _linear(pair: dict) -> float:
    return next(k["value"] for k in pair["kappas"] if k["weights"] == "linear")


@pytest.fixture
def examples_db(tmp_path, examples):
    """The examples' rubric and both assessors' qrels (a1, a2) in an SQLite store."""
    db = str(tmp_path / "judged.db")
    with Store.open(db) as store:
        store.add_rubric(judged.rubric.load_rubric(examples / "rubric.toml"))
        store.import_qrels(examples / "qrels.txt", assessor="a1", rubric="tidewater-docs")
        store.import_qrels(examples / "qrels.assessor2.txt", assessor="a2", rubric="tidewater-docs")
    return db


@pytest.fixture
def field_db(tmp_path):
    """FIELD.md's ranking as a run file, and the two assessors' qrels imported through the CLI."""
    run = tmp_path / "system.run"
    run.write_text("".join(f"q1 Q0 d{i:02d} {i} {11 - i}.0 system\n" for i in range(1, 11)))
    db = str(tmp_path / "field.db")
    for name, grades in (("first", FIRST), ("second", SECOND)):
        path = tmp_path / f"{name}.qrels"
        path.write_text("".join(f"q1 0 d{i:02d} {g}\n" for i, g in enumerate(grades, 1)))
        _cli("import", "qrels", path, "--assessor", name, "--db", db)
    return run, db


def test_store_agreement_equals_the_files_and_fails_the_gate_alike(examples_db, examples, monkeypatch):
    files = ["-a", f"a1={examples / 'qrels.txt'}", "-a", f"a2={examples / 'qrels.assessor2.txt'}",
             "--rubric", examples / "rubric.toml"]
    from_files = json.loads(_cli("agreement", *files, "-f", "json", code=3).stdout)
    from_store = json.loads(_cli("agreement", "--db", examples_db, "-f", "json", code=3).stdout)
    assert from_store.pop("domain") == f"rubric tidewater-docs v1, stored in sqlite:///{examples_db}"
    assert from_files.pop("domain").startswith("rubric tidewater-docs v1, ")
    assert from_store.pop("provenance")["inputs"] != from_files.pop("provenance")["inputs"]  # a store, two files
    assert from_store == from_files
    pair = from_store["pairs"][0]
    assert pair["pairs"] == 91 and round(_linear(pair), 3) == 0.729
    monkeypatch.setenv("JUDGED_DB", examples_db)   # no --db and no --assessor: $JUDGED_DB
    assert json.loads(_cli("agreement", "-f", "json", code=3).stdout)["pairs"] == from_files["pairs"]


def test_assessor_names_filter_and_order_the_store(examples_db, examples):
    with Store.open(examples_db) as store:
        store.import_qrels(examples / "qrels.txt", assessor="a3")
    data = json.loads(_cli("agreement", "--db", examples_db, "-a", "a3", "-a", "a1", "--resamples", "0",
                           "--min-pairs", "200", "-f", "json").stdout)   # the gate passes: exit 0
    assert data["assessors"] == ["a3", "a1"] and data["gate"]["passed"] is True
    assert data["pairs"][0]["pairs"] == 239 and _linear(data["pairs"][0]) == 1.0
    everyone = json.loads(_cli("agreement", "--db", examples_db, "--resamples", "0", "-f", "json", code=3).stdout)
    assert everyone["assessors"] == ["a1", "a2", "a3"]
    unknown = _cli("agreement", "--db", examples_db, "-a", "a1", "-a", "a11", code=2).output
    assert "no assessor 'a11' in the store" in unknown and "(assessors: a1, a2, a3). Did you mean 'a1'" in unknown
    alone = _cli("agreement", "--db", examples_db, "-a", "a1", code=2).output
    assert "agreement needs at least two assessors" in alone and "holds grades from a1." in alone


def test_no_stored_rubric_is_refused_unless_given(tmp_path, examples):
    db = str(tmp_path / "judged.db")
    with Store.open(db) as store:
        store.import_qrels({"q1": {"a": 0, "b": 1, "c": 2, "d": -1}}, assessor="ann")
        store.import_qrels({"q1": {"a": 0, "b": 2, "c": 2, "d": 3}}, assessor="bob")
    refused = _cli("agreement", "--db", db, code=2).output
    assert "holds no rubric, so the grade domain is unknown" in refused and "judged import rubric FILE" in refused
    data = json.loads(_cli("agreement", "--db", db, "--rubric", examples / "rubric.toml", "--resamples", "0",
                           "-f", "json", code=3).stdout)
    # d's -1 (pooled, not judged) is no grade: three pairs, positions over 0..3 though nobody used 3 on them
    assert data["grades"] == [0, 1, 2, 3] and data["pairs"][0]["pairs"] == 3
    # observed disagreement 1/3 of a step / 3; expected from the margins ann (1,1,1,0), bob (1,0,2,0)
    expected = sum(abs(i - j) / 3 * r * c for i, r in enumerate([1, 1, 1, 0]) for j, c in enumerate([1, 0, 2, 0])) / 9
    assert _linear(data["pairs"][0]) == pytest.approx(1 - (1 / 9) / expected)


def test_a_grade_outside_the_stored_rubric_names_the_store(examples_db):
    with Store.open(examples_db) as store:
        store.import_qrels({"q01": {"api/overview": 4}}, assessor="a3")
    error = _cli("agreement", "--db", examples_db, "-a", "a1", "-a", "a3", code=1).output
    assert f"Error: sqlite:///{examples_db}: grade 4 is not in the rubric's grades: 'q01 api/overview a3 4'" in error


def test_a_missing_default_store_recalls_the_file_form(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGED_DB", raising=False)
    error = _cli("agreement", code=2).output
    assert "no judgment store at judged.db" in error and "Without a store, --assessor takes NAME=FILE" in error
    assert not (tmp_path / "judged.db").exists()


def test_field_example_through_the_store(field_db):
    run, db = field_db
    data = json.loads(_cli("assessors", run, "--db", db, "-m", EXP_NDCG, "-m", "R@10", "-f", "json").stdout)
    assert data["assessors"] == ["first", "second"]
    ndcg, recall = data["measures"][NDCG_KEY]["runs"]["system"], data["measures"][RECALL_KEY]["runs"]["system"]
    # DCG@10 = 1 + 7/log2(3) + 3/log2(5) + 3/log2(8) + 1/log2(11) = 7.998; IDCG@10 = 7 + 3/log2(3) + 3 + ... = 11.210
    assert round(ndcg["means"]["first"], 3) == 0.713
    # DCG@10 = 7 + 3/log2(3) + 3/log2(5) + 3/log2(8) + 1/log2(11) = 11.474; IDCG@10 = 12.072: 0.9505 (FIELD: 0.951)
    assert round(ndcg["means"]["second"], 4) == 0.9505
    assert recall["means"] == {"first": 1.0, "second": 1.0} and recall["swing"] == 0.0
    table = _cli("assessors", run, "--db", db, "-m", EXP_NDCG).stdout
    assert "│ system │ 0.7134 │ 0.9505 │ 0.2371 │" in table


def test_adjudicated_labels_join_and_a_frozen_set_can_replace_them(field_db):
    run, db = field_db
    with Store.open(db) as store:
        store.adjudicate("q1", "d01", 2, adjudicator="lead", note="partial steps")
    refused = _cli("assessors", run, "--db", db, "-m", EXP_NDCG, code=2).output
    assert "1 pair(s) have disagreeing grades and no adjudication (q1 d02: first=3, second=2)" in refused
    data = json.loads(_cli("assessors", run, "--db", db, "-m", EXP_NDCG, "--resolve", "max", "-f", "json").stdout)
    assert data["assessors"] == ["first", "second", "adjudicated"]
    # grades 2 (adjudicated), 3 (max of 3 and 2), then as both gave: gains 3, 7, 0, 3, 0, 0, 3, 0, 0, 1
    dcg = 3 + 7 / math.log2(3) + 3 / math.log2(5) + 3 / math.log2(8) + 1 / math.log2(11)
    idcg = 7 + 3 / math.log2(3) + 3 / math.log2(4) + 3 / math.log2(5) + 1 / math.log2(6)
    assert data["measures"][NDCG_KEY]["runs"]["system"]["means"]["adjudicated"] == pytest.approx(dcg / idcg)
    _cli("freeze", "final", "--resolve", "min", "--db", db)
    frozen = json.loads(_cli("assessors", run, "--db", db, "-m", EXP_NDCG, "--final", "final", "-f", "json").stdout)
    assert frozen["assessors"] == ["first", "second", "final@1"]
    # frozen with min: d01 2 (adjudicated), d02 2 (min of 3 and 2): gains 3, 3, 0, 3, 0, 0, 3, 0, 0, 1
    dcg = 3 + 3 / math.log2(3) + 3 / math.log2(5) + 3 / math.log2(8) + 1 / math.log2(11)
    idcg = 3 + 3 / math.log2(3) + 3 / math.log2(4) + 3 / math.log2(5) + 1 / math.log2(6)
    assert frozen["measures"][NDCG_KEY]["runs"]["system"]["means"]["final@1"] == pytest.approx(dcg / idcg)
    renamed = _cli("assessors", run, "--db", db, "-m", EXP_NDCG, "--final", "final@1", "--final-name", "gold")
    assert "1 run under first, second, gold, on the 1 query" in renamed.stdout
    both = _cli("assessors", run, "--db", db, "--final", "final", "--resolve", "max", code=2).output
    assert "a frozen set (--final) is already settled" in both


def test_resolve_needs_the_stores_adjudications(field_db, tmp_path):
    run, db = field_db
    assert "has no adjudication" in _cli("assessors", run, "--db", db, "--resolve", "max", code=2).output
    qrels = tmp_path / "first.qrels"
    files = _cli("assessors", run, "-a", f"first={qrels}", "-a", f"again={qrels}", "--resolve", "max", code=2)
    assert "with qrels files, pass --final QRELS" in files.output


def test_store_assessors_equal_the_files(examples_db, examples):
    runs = [examples / "runs" / f"{name}.run" for name in ("bm25", "dense", "naive")]
    measures = ["-m", EXP_NDCG, "-m", "R@50", "-f", "json"]
    files = ["-a", f"a1={examples / 'qrels.txt'}", "-a", f"a2={examples / 'qrels.assessor2.txt'}"]
    from_files = json.loads(_cli("assessors", *runs, *files, *measures).stdout)
    from_store = json.loads(_cli("assessors", *runs, "--db", examples_db, *measures).stdout)
    assert from_store.pop("provenance")["measures"] == from_files.pop("provenance")["measures"]  # inputs differ
    assert from_store == from_files and from_store["left_out"] == {"a1": 9, "a2": 0}


def test_assessor_qrels_carry_the_hash_of_their_labels(examples_db, examples):
    with Store.open(examples_db) as store:
        found = assessor_qrels(store, ["a2", "a1"])
        assert list(found) == ["a2", "a1"]
        assert assessor_labels(store)["assessor"].unique(maintain_order=True).to_list() == ["a1", "a2"]
        assert adjudicated_qrels(store) is None
    a1 = found["a1"]
    # examples/qrels.txt is canonical qrels, so the labels' hash is the file's
    assert a1.source.sha256 == hashlib.sha256((examples / "qrels.txt").read_bytes()).hexdigest()
    assert (a1.name, a1.source.path, a1.source.format) == ("a1", f"sqlite:///{examples_db}#assessor:a1",
                                                           "assessor-labels")
    result = judged.evaluate(examples / "runs" / "bm25.run", a1, ["nDCG@10"])
    assert result.aggregate == judged.evaluate(examples / "runs" / "bm25.run", examples / "qrels.txt",
                                               ["nDCG@10"]).aggregate
    assert result.provenance["qrels"]["sha256"] == a1.source.sha256


def test_agreement_refuses_to_mix_rubric_versions(tmp_path, examples):
    from judged.errors import UsageError
    from judged.judgments import Store
    from judged.judgments.assessor_qrels import assessor_labels
    from judged.rubric import Level, Rubric

    levels = (Level(0, "no", "no help"), Level(1, "some", "partial"), Level(2, "yes", "finishes the task"))
    with Store.open(str(tmp_path / "judged.db")) as store:
        store.add_rubric(Rubric("docs", "1", (0, 2), levels))
        store.record("q1", "d1", assessor="ann", grade=2)
        store.record("q1", "d1", assessor="bob", grade=1)
        assert len(assessor_labels(store)) == 2  # one version: fine
        store.add_rubric(Rubric("docs", "2", (0, 2), levels))
        store.record("q1", "d2", assessor="bob", grade=0)  # under docs@2, the newest
        with pytest.raises(UsageError, match=r"2 rubric versions \(docs@1, docs@2\)"):
            assessor_labels(store)
