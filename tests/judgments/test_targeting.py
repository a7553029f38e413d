"""Targeting an effort: settle() on the store's own record of the pool's runs and the effort's labels."""

from __future__ import annotations

from pathlib import Path

import pytest

import judged
from judged.analysis.selection import next_documents
from judged.analysis.settle import settle
from judged.judgments.engine import reading
from judged.judgments.model import NewJudgment
from judged.judgments.targeting import label_state, pooled_runs, target
from judged.judgments.worklist import Worklist
from judged.measures import parse
from judged.rubric import Level, Rubric, load_rubric

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUNS = [EXAMPLES / "runs" / f"{name}.run" for name in ("bm25", "dense", "naive")]
BINARY = Rubric("docs", "1", (0, 1), (Level(0, "no", "no use"), Level(1, "yes", "of use")))


def _targeted(store, measure="nDCG@10", pool="default"):
    with reading(store.engine) as connection:
        return target(connection, pool, measure)


@pytest.fixture
def example_effort(store):
    """The bundled runs pooled at depth 10 (ties=trec), assigned to ann, who gave every pooled pair the example's
    grade where examples/qrels.txt has one (>= 0): what an effort looks like half way."""
    store.add_rubric(load_rubric(EXAMPLES / "rubric.toml"))
    runs = [judged.read_run(path) for path in RUNS]
    store.build_pool(runs, depth=10)
    store.assign(["ann"], overlap_queries=0)
    grades = {(q, d): g for q, d, g in judged.read_qrels(EXAMPLES / "qrels.txt").frame.select(
        "qid", "docid", "grade").iter_rows()}
    pooled = list(store.pool().select("qid", "docid").iter_rows())
    store.record_many([NewJudgment(q, d, "ann", grades[(q, d)]) for q, d in pooled if grades.get((q, d), -1) >= 0])
    return store, runs, grades, pooled


def test_the_pool_keeps_each_runs_top_k_exactly(example_effort):
    store, runs, _, _ = example_effort
    with reading(store.engine) as connection:
        recorded = pooled_runs(connection, "default", parse("nDCG@10"))
    assert [r.name for r in recorded] == ["bm25", "dense", "naive"]
    qrels = EXAMPLES / "qrels.txt"
    for original, rebuilt in zip(runs, recorded):
        # naive's tied block straddles rank 10 (examples/README.md): the trec tie rule decides it in both
        for measure in ("nDCG@10", "nDCG@3", "P@10"):
            assert (judged.evaluate(rebuilt, qrels, [measure]).values[parse(measure)].tolist()
                    == judged.evaluate(original, qrels, [measure]).values[parse(measure)].tolist())


def test_target_is_settle_on_the_efforts_labels(example_effort):
    store, runs, grades, pooled = example_effort
    t = _targeted(store)
    # the same computation from files: the pool's pairs, graded as ann graded them, the rest pooled (-1)
    nested: dict[str, dict[str, int]] = {}
    for q, d in pooled:
        nested.setdefault(q, {})[d] = grades.get((q, d), -1) if grades.get((q, d), -1) >= 0 else -1
    s = settle(runs, nested, "nDCG@10", pool=pooled, grades=range(4))
    assert [(p.a, p.b, p.minimum, p.maximum) for p in t.settlement.pairs] == [
        (p.a, p.b, p.minimum, p.maximum) for p in s.pairs]
    assert t.settlement.stopping == s.stopping and not t.can_stop
    graded = [g for docs in nested.values() for g in docs.values() if g >= 0]
    assert list(t.ranking) == next_documents(s, s.stopping.unjudged, graded)
    assert len(t.ranking) == s.stopping.could_matter and t.undecided == 0


def test_the_queue_follows_the_ranking_and_is_re_ranked_as_grades_arrive(example_effort):
    store, _, _, _ = example_effort
    t = _targeted(store)
    queue = store.queue("ann")
    ordered = t.order(queue)
    assert sorted(p.position for p in ordered) == sorted(p.position for p in queue)  # the same pairs, reordered
    ranked = [(p.qid, p.docid) for p in ordered[:len(t.ranking)]]
    assert ranked == [(q, d) for q, d, _ in t.ranking]
    queries = [q for q, _ in ranked]
    assert queries == sorted(queries, key=queries.index)  # each query's pairs together
    # judging the first pair changes the state and the ranking: it leaves, and the others are ranked anew
    first = ordered[0]
    store.record(first.qid, first.docid, assessor="ann", grade=0)
    again = _targeted(store)
    assert again.state[0] == t.state[0] + 1 and again.state[1] == t.state[1]
    assert (first.qid, first.docid) not in {(q, d) for q, d, _ in again.ranking}
    assert again.settlement.stopping.unjudged == t.settlement.stopping.unjudged - 1


def test_disagreement_is_undecided_until_adjudicated(sqlite_store):
    store = sqlite_store
    store.add_rubric(BINARY)
    runs = [judged.Run.from_dict({"q1": {"a": 3.0, "u": 2.0, "b": 1.0}}, name="A"),
            judged.Run.from_dict({"q1": {"b": 3.0, "u": 2.0, "a": 1.0}}, name="B")]
    store.build_pool(runs, depth=3)
    store.assign(["ana", "ben"], overlap_queries=1)
    for assessor in ("ana", "ben"):
        store.record("q1", "a", assessor=assessor, grade=1)
        store.record("q1", "u", assessor=assessor, grade=0)
    store.record("q1", "b", assessor="ana", grade=0)
    store.record("q1", "b", assessor="ben", grade=1)
    # b's grades disagree: its grade is still unknown, so A - B can go either way (a and b swap places)
    t = _targeted(store, "nDCG@3")
    assert t.undecided == 1 and not t.can_stop and [(q, d) for q, d, _ in t.ranking] == [("q1", "b")]
    store.adjudicate("q1", "b", 0, adjudicator="lead", note="the page is about something else")
    # b = 0: A = 1 (a at rank 1 is the ideal), B = (1 / log2 4) / 1 = 0.5, so A - B = 0.5 whatever else
    done = _targeted(store, "nDCG@3")
    assert done.undecided == 0 and done.can_stop and done.ranking == ()
    assert done.settlement.pairs[0].minimum == pytest.approx(0.5) and done.state[1] == t.state[1] + 1
    assert done.order(store.queue("ana", pending_only=False)) == store.queue("ana", pending_only=False)


def test_refusals_say_what_is_needed(sqlite_store):
    store = sqlite_store
    runs = [judged.Run.from_dict({"q1": {"a": 2.0, "b": 1.0}}, name="A"),
            judged.Run.from_dict({"q1": {"b": 2.0, "a": 1.0}}, name="B")]
    with pytest.raises(judged.UsageError, match="pool 'default' is empty or does not exist"):
        _targeted(store)
    store.build_pool(runs, depth=2)
    with pytest.raises(judged.UsageError, match="the store has no rubric"):
        _targeted(store, "nDCG@2")
    store.add_rubric(BINARY)
    with pytest.raises(judged.UsageError, match="needs a cutoff of at most 2: the pool holds each run's top 2 only"):
        _targeted(store, "nDCG@10")
    with pytest.raises(judged.UsageError, match="needs a cutoff of at most 2"):
        _targeted(store, "nDCG")
    with pytest.raises(judged.UsageError, match="ranked run 'A' with ties=trec"):
        _targeted(store, "nDCG(ties=input)@2")
    with pytest.raises(judged.UsageError, match="not for AP"):
        _targeted(store, "AP@2")
    assert _targeted(store, "P@2").settlement.measure.name == "P"  # every family with exact joint bounds targets
    t = _targeted(store, "nDCG@2")  # nothing assigned or judged yet: both documents may take either grade
    assert not t.can_stop and {(q, d) for q, d, _ in t.ranking} == {("q1", "a"), ("q1", "b")}


def test_label_state_counts_every_event(example_effort):
    store, _, _, pooled = example_effort
    with reading(store.engine) as connection:
        before = label_state(connection)
    assert before == (store.counts()["judgments"], 0)
    q, d = pooled[0]
    store.undo(q, d, assessor="ann")  # an undo is an event too: the label it withdraws changes the target
    store.adjudicate(q, d, 2, adjudicator="lead", note="checked")
    with reading(store.engine) as connection:
        assert label_state(connection) == (before[0] + 1, 1)


def test_an_effort_is_targeted_in_the_assignments_transaction(sqlite_store):
    store = sqlite_store
    store.add_rubric(BINARY)
    runs = [judged.Run.from_dict({"q1": {"a": 2.0, "b": 1.0}}, name="A"),
            judged.Run.from_dict({"q1": {"b": 2.0, "a": 1.0}}, name="B")]
    store.build_pool(runs, depth=2)
    # a measure the pool cannot serve is refused, and the assignment with it: nothing is written
    with pytest.raises(judged.UsageError, match="needs a cutoff of at most 2"):
        store.assign(["ana"], overlap_queries=0, target="nDCG@5")
    assert store.queue("ana") == [] and store.targets() == {}
    store.assign(["ana"], overlap_queries=0, target="nDCG@2")
    canonical = "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@2"
    assert store.targets() == {"default": canonical}
    assert str(store.target("default").settlement.measure) == canonical
    store.set_target("default", "nDCG(gain=exp)@1")  # retargeting: the latest setting is in force
    assert store.targets() == {"default": "nDCG(gain=exp,ideal=judged,unjudged=zero,ties=trec,norel=0)@1"}
    store.set_target("default", "off")
    assert store.targets() == {} and store.counts()["targeted_efforts"] == 3  # every setting stays on record
    with pytest.raises(judged.UsageError, match="is not targeted, so there is no targeting to stop"):
        store.set_target("default", "off")
    with pytest.raises(judged.UsageError, match="is not targeted; target it with"):
        store.target("default")


def test_cli_assign_target(tmp_path):
    from click.testing import CliRunner

    from judged.cli import main
    from judged.judgments import Store

    db = str(tmp_path / "judged.db")
    runner = CliRunner()
    with Store.open(db) as store:
        store.add_rubric(load_rubric(EXAMPLES / "rubric.toml"))
        store.build_pool([judged.read_run(path) for path in RUNS], depth=10)
    result = runner.invoke(main, ["assign", "--db", db, "-a", "ann", "--overlap-queries", "0", "--target", "nDCG@10"])
    assert result.exit_code == 0, result.output
    # nothing judged yet: every one of the 251 pooled pairs can move every pair's bound
    assert ("pool default: targeted on nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10; not yet: "
            "0 of 3 pairs settled") in result.output and "251 pooled documents unjudged, 251 of which" in result.output
    again = ["assign", "--db", db, "-a", "ann", "--overlap-queries", "0", "--target"]
    refused = runner.invoke(main, [*again, "AP@10"])
    assert refused.exit_code == 2 and "not for AP" in refused.output
    stopped = runner.invoke(main, [*again, "off", "--by", "lena"])
    assert stopped.exit_code == 0 and "pool default: no longer targeted" in stopped.output
    # the log says who set each target: --by's name, unknown (None) when it was not given
    with Store.open(db) as store:
        assert [(s.measure, s.changed_by) for s in Worklist(store).target_log("default")] == [
            ("nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10", None), (None, "lena")]
    alone = runner.invoke(main, ["assign", "--db", db, "-a", "ann", "--by", "lena"])
    assert alone.exit_code == 2 and "--by names who sets --target: give --target too." in alone.output
    blank = runner.invoke(main, [*again, "nDCG@5", "--by", " "])
    assert blank.exit_code == 2 and "--by needs a name (who sets --target). Got an empty one." in blank.output
    with Store.open(db) as store:
        assert len(Worklist(store).target_log("default")) == 2  # neither refusal wrote a setting
