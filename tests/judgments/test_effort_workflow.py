"""A second time round: freezing one effort, typos refused with "Did you mean", no adjudication of a phantom pair."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.errors import UsageError
from judged.io import read_run
from judged.io.inputs import Run
from judged.judgments import Query


@pytest.fixture
def two_efforts(store, examples):
    """334 labels from an earlier effort (nist's qrels), and a new two-pair effort assigned to ana and ben."""
    store.import_qrels(examples / "qrels.txt", assessor="ana")
    store.build_pool([Run.from_dict({"q01": {"api/openapi-spec": 2.0, "new/doc": 1.0}}, name="tiny")], depth=2,
                     pool="tiny")
    store.assign(["ana", "ben"], pool="tiny", overlap_queries=1)
    store.record("q01", "api/openapi-spec", assessor="ben", grade=0)
    store.record("q01", "new/doc", assessor="ana", grade=2)
    store.record("q01", "new/doc", assessor="ben", grade=2)
    store.adjudicate("q02", store.current_labels().filter(qid="q02")["docid"][0], 3, adjudicator="lead",
                     note="outside the effort")
    return store


def test_freezing_an_effort_freezes_its_pairs_only(two_efforts):
    frozen = two_efforts.freeze("tiny", effort="tiny").judgment_set
    assert two_efforts.export("tiny@1")[0] == "q01 0 api/openapi-spec 0\nq01 0 new/doc 2\n"  # agreed, both 0 and 2
    assert frozen.counts == {"agreed": 2}
    assert frozen.policy == {"resolve": "refuse", "assessors": ["ana", "ben"], "adjudications": True,
                             "effort": "tiny"}
    assert frozen.pool == "tiny"
    everything = two_efforts.freeze("all", resolve="max").judgment_set
    assert sum(everything.counts.values()) == 240  # without --effort: every label and adjudication


def test_an_effort_without_assignments_cannot_be_frozen(store):
    store.build_pool([Run.from_dict({"q1": {"d1": 1.0}}, name="r")], depth=1, pool="lonely")
    with pytest.raises(UsageError, match="no assessors assigned"):
        store.freeze("x", effort="lonely")


def test_adjudicating_a_pair_in_no_pool_and_never_labelled_is_refused(two_efforts):
    with pytest.raises(UsageError, match=r"q01 new/dox is in no pool .* Did you mean 'new/doc'\?"):
        two_efforts.adjudicate("q01", "new/dox", 1, adjudicator="lead", note="typo")
    assert two_efforts.adjudicate("q01", "new/doc", 1, adjudicator="lead", note="pooled").grade == 1


def test_judge_record_and_adjudicate_set_refuse_names_the_store_does_not_know(tmp_path, examples):
    db = str(tmp_path / "judged.db")
    runner = CliRunner()

    def judged(*args):
        return runner.invoke(main, [*args, "--db", db])

    assert judged("import", "queries", str(examples / "queries.jsonl")).exit_code == 0
    assert judged("import", "documents", str(examples / "documents.jsonl")).exit_code == 0
    assert judged("judge", "record", "q01", "api/openapi-spec", "1", "-a", "ana").exit_code == 0  # the first
    second = judged("judge", "record", "q01", "api/openapi-spec", "2", "-a", "ben")
    assert second.exit_code == 2 and "the store knows no assessor 'ben'" in second.output
    assert "--new-assessor" in second.output
    assert judged("judge", "record", "q01", "api/openapi-spec", "2", "-a", "ben", "--new-assessor").exit_code == 0
    for args, message in (
        (("judge", "record", "Q01", "api/openapi-spec", "1", "-a", "ana"), "no query 'Q01'. Did you mean 'q01'"),
        (("judge", "record", "q01", "api/openapi-spek", "1", "-a", "ana"), "Did you mean 'api/openapi-spec'"),
        (("judge", "record", "q01", "api/openapi-spec", "1", "-a", "anna"), "no assessor 'anna'. Did you mean 'ana'"),
        (("adjudicate", "set", "Q01", "api/openapi-spec", "1", "--adjudicator", "lead", "--note", "n"),
         "Did you mean 'q01'"),
    ):
        result = judged(*args)
        assert result.exit_code == 2 and message in result.output, result.output
    with_store = judged("judge", "history", "q01", "api/openapi-spec")
    assert [" ".join(line.split()[2:5]) for line in with_store.output.splitlines()[1:]] == [
        "ana grade 1", "ben grade 2"]  # nothing of the refused commands reached the log


def test_the_known_names_include_the_pool(sqlite_store, examples):
    run = read_run(examples / "runs" / "bm25.run")
    sqlite_store.build_pool([run], depth=1)
    sqlite_store.add_queries([Query("q99", "only stored")])
    sqlite_store.check_known(qid="q01", docid=next(iter(sqlite_store.pool()["docid"])))  # pooled, not stored
    with pytest.raises(UsageError, match="no query 'q0'"):
        sqlite_store.check_known(qid="q0")
