"""Adjudication: disagreements listed with every label and note, final grades with a note, retries stored once."""

from __future__ import annotations

import json
import uuid

import pytest

from judged.errors import UsageError
from judged.judgments import AssessorLabel, Store
from judged.rubric import load_rubric

# examples/README.md: of the 23 disagreements between the two assessors, three are 2-vs-0, none wider.
TWO_APART = [("q01", "changelog/2024-03"), ("q02", "sdk/node/errors"), ("q04", "guides/slack-deploy-notifications")]


@pytest.fixture
def two_assessors(store, examples):
    store.import_qrels(examples / "qrels.txt", assessor="a1")
    store.import_qrels(examples / "qrels.assessor2.txt", assessor="a2")
    return store


def test_the_examples_disagreements_match_the_readme(two_assessors):
    wide = two_assessors.disagreements()
    assert [(d.qid, d.docid, d.difference) for d in wide] == [(q, d, 2) for q, d in TWO_APART]
    assert [[(label.assessor, label.grade) for label in d.labels] for d in wide] == [[("a1", 2), ("a2", 0)]] * 3
    assert len(two_assessors.disagreements(min_diff=1)) == 23


def test_an_adjudicated_pair_leaves_the_pending_list(two_assessors):
    decided = two_assessors.adjudicate("q01", "changelog/2024-03", 1, adjudicator="lead",
                                       note="mentions rotation only in passing")
    assert [(d.qid, d.docid) for d in two_assessors.disagreements()] == TWO_APART[1:]
    everything = two_assessors.disagreements(pending_only=False)
    assert everything[0].adjudication == decided and decided.grade == 1 and decided.adjudicator == "lead"


def test_labels_and_notes_are_shown_side_by_side(sqlite_store):
    sqlite_store.record("q1", "d1", assessor="ana", grade=3, note="has the exact steps")
    sqlite_store.record("q1", "d1", assessor="ben", grade=0, note="about the legacy console")
    sqlite_store.record("q1", "d1", assessor="cy", cannot_judge="link is dead")
    (found,) = sqlite_store.disagreements(min_diff=3)
    assert found.labels == (AssessorLabel("ana", 3, None, "has the exact steps"),
                            AssessorLabel("ben", 0, None, "about the legacy console"),
                            AssessorLabel("cy", None, "link is dead", None))
    assert sqlite_store.disagreements(min_diff=4) == []
    with pytest.raises(UsageError, match="min_diff must be an int >= 1"):
        sqlite_store.disagreements(min_diff=0)


def test_a_decision_needs_a_note_and_a_grade_of_the_rubric(sqlite_store, examples):
    sqlite_store.add_rubric(load_rubric(examples / "rubric.toml"))
    sqlite_store.record("q1", "d1", assessor="ana", grade=1)
    with pytest.raises(UsageError, match="needs a note"):
        sqlite_store.adjudicate("q1", "d1", 2, adjudicator="lead", note=" ")
    with pytest.raises(UsageError, match="grade 5 is not a level"):
        sqlite_store.adjudicate("q1", "d1", 5, adjudicator="lead", note="why")
    assert sqlite_store.adjudicate("q1", "d1", 2, adjudicator="lead", note="why").rubric == "tidewater-docs@1"


def test_a_retried_decision_is_stored_once(sqlite_store):
    sqlite_store.record("q1", "d1", assessor="ana", grade=1)
    ident = str(uuid.uuid4())
    first = sqlite_store.adjudicate("q1", "d1", 2, adjudicator="lead", note="why", event_id=ident)
    assert sqlite_store.adjudicate("q1", "d1", 2, adjudicator="lead", note="why", event_id=ident) == first
    with pytest.raises(UsageError, match="already stored for a different adjudication"):
        sqlite_store.adjudicate("q1", "d1", 1, adjudicator="lead", note="why", event_id=ident)


def test_a_file_of_decisions_is_one_transaction(tmp_path, examples):
    from click.testing import CliRunner

    from judged.cli import main

    db = str(tmp_path / "judged.db")
    runner = CliRunner()
    for args in (["import", "qrels", str(examples / "qrels.txt"), "-a", "a1"],
                 ["import", "qrels", str(examples / "qrels.assessor2.txt"), "-a", "a2"]):
        assert runner.invoke(main, [*args, "--db", db]).exit_code == 0
    listed = json.loads(runner.invoke(main, ["adjudicate", "list", "-f", "json", "--db", db]).output)
    good = "".join(f"{d['qid']}\t{d['docid']}\t1\tsplit the difference\n" for d in listed)
    decisions = tmp_path / "decisions.tsv"
    decisions.write_text("qid\tdocid\tgrade\tnote\n" + good + "q01\tno/such-doc\t1\ttypo\n")
    refused = runner.invoke(main, ["adjudicate", "apply", str(decisions), "--adjudicator", "lead", "--db", db])
    assert refused.exit_code == 2 and "no/such-doc" in refused.output
    with Store.open(db) as store:
        assert len(store.disagreements()) == len(listed) > 0  # nothing of the file was stored
    decisions.write_text(good)
    applied = runner.invoke(main, ["adjudicate", "apply", str(decisions), "--adjudicator", "lead", "--db", db])
    assert applied.exit_code == 0 and f"{len(listed)} decision(s) recorded" in applied.output
    with Store.open(db) as store:
        assert store.disagreements() == []
    decisions.write_text("q01\tx\tone\tnote\n")
    bad = runner.invoke(main, ["adjudicate", "apply", str(decisions), "--adjudicator", "lead", "--db", db])
    assert bad.exit_code == 1 and "decisions.tsv:1" in bad.output
