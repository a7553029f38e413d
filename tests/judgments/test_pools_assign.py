"""Pools (top-k union under judged's tie rule, extension by a new run) and assignments with an overlap set."""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from judged.cli import main
from judged.errors import UsageError
from judged.io import read_run
from judged.io.inputs import Run
from judged.judgments import AssignedPair
from judged.judgments.schema import assignments, pool_members

RUNS = ("bm25", "dense", "naive")


def _run_file_top(path, depth: int, ties: str) -> dict[str, list[str]]:
    """An independent top k: sort each query by score descending, then docid descending (trec) or file order."""
    rows: dict[str, list[tuple[float, str, int]]] = defaultdict(list)
    for n, line in enumerate(path.read_text().splitlines()):
        qid, _, docid, _, score, _ = line.split()
        rows[qid].append((float(score), docid, n))
    key = (lambda r: (-r[0], [-b for b in r[1].encode()])) if ties == "trec" else (lambda r: (-r[0], r[2]))
    return {qid: [docid for _, docid, _ in sorted(found, key=key)[:depth]] for qid, found in rows.items()}


def _pool_tsv(examples) -> dict[tuple[str, str], list[str]]:
    return {(q, d): runs.split(",") for q, d, runs in
            (line.split("\t") for line in (examples / "pool.tsv").read_text().splitlines())}


@pytest.fixture
def runs(examples):
    return [read_run(examples / "runs" / f"{name}.run") for name in RUNS]


def test_pooling_in_file_order_reproduces_examples_pool_tsv(examples, tmp_path):
    db = str(tmp_path / "j.db")
    cli = CliRunner()
    built = cli.invoke(main, ["pool", *(str(examples / "runs" / f"{n}.run") for n in RUNS), "--depth", "10",
                              "--ties", "input", "--db", db])
    assert built.exit_code == 0, built.output
    expected = _pool_tsv(examples)
    unique = {run: sum(1 for contributors in expected.values() if contributors == [run]) for run in RUNS}
    assert f"pool default: {len(expected)} pairs over 15 queries (top 10 of 3 runs, ties=input)" in built.output
    for run in RUNS:
        assert f"{run.ljust(5)}  150           {unique[run]}" in built.output
    shown = cli.invoke(main, ["pool", "show", "--db", db])
    assert shown.output == (examples / "pool.tsv").read_text()


def test_pooling_uses_the_order_evaluation_sees(sqlite_store, runs, examples):
    report = sqlite_store.build_pool(runs, depth=10)
    expected: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in RUNS:
        for qid, docids in _run_file_top(examples / "runs" / f"{name}.run", 10, "trec").items():
            for docid in docids:
                expected[(qid, docid)].append(name)
    assert {(q, d): r for q, d, r in sqlite_store.pool().iter_rows()} == dict(expected)
    assert report.total == len(expected)
    sizes = defaultdict(int)
    for qid, _ in expected:
        sizes[qid] += 1
    assert report.sizes == dict(sorted(sizes.items()))
    # bm25 and dense have no ties in their top 10, so their part of the pool is pool.tsv's (examples/README.md)
    in_file_order = _pool_tsv(examples)
    for name in ("bm25", "dense"):
        assert {p for p, r in expected.items() if name in r} == {p for p, r in in_file_order.items() if name in r}
    # naive's tied block straddles rank 10: in trec order its top 10 holds documents never pooled in file order
    assert {p for p, r in expected.items() if "naive" in r} - set(in_file_order)


def test_each_pooled_pair_records_its_run_rank_and_depth(sqlite_store, runs):
    sqlite_store.build_pool(runs[:1], depth=3)
    with sqlite_store.engine.connect() as connection:
        ranks = connection.execute(sa.select(pool_members.c.docid, pool_members.c.rank)
                                   .where(pool_members.c.qid == "q01").order_by(pool_members.c.rank)).all()
    assert ranks == [("auth/api-keys-rotation", 1), ("cli/keys-commands", 2), ("changelog/2024-03", 3)]
    assert [(r.run, r.depth) for r in sqlite_store.pool_report().runs] == [("bm25", 3)]


def test_ties_at_the_cutoff_are_broken_by_docid_descending(sqlite_store):
    run = Run.from_dict({"q1": {"a": 2.0, "b": 1.0, "c": 1.0, "d": 1.0}}, name="tied")
    sqlite_store.build_pool([run], depth=2)
    assert sqlite_store.pool()["docid"].to_list() == ["a", "d"]


def test_extending_adds_the_new_runs_unpooled_unjudged_top_k(sqlite_store, runs, examples):
    sqlite_store.build_pool(runs[:2], depth=10)
    sqlite_store.import_qrels(examples / "qrels.txt", assessor="nist")
    pooled = {(q, d) for q, d, _ in sqlite_store.pool().iter_rows()}
    judged = {(q, d) for q, d, _, _ in sqlite_store.current_labels().iter_rows()}
    top = [(q, d) for q, docids in _run_file_top(examples / "runs" / "naive.run", 10, "trec").items() for d in docids]
    added = sqlite_store.extend_pool(runs[2], depth=10)
    new = [p for p in top if p not in pooled and p not in judged]
    assert added.total_added == len(new) > 0
    assert added.already_pooled == sum(p in pooled for p in top)
    assert added.already_judged == sum(p not in pooled and p in judged for p in top)
    per_query = defaultdict(int)
    for qid, _ in new:
        per_query[qid] += 1
    assert added.added == dict(sorted(per_query.items()))
    assert {r.step for r in sqlite_store.pool_report().runs} == {"build", "extend"}
    with pytest.raises(UsageError, match="already in pool"):
        sqlite_store.extend_pool(runs[2], depth=10)


def test_pool_mistakes_are_usage_errors(sqlite_store, runs):
    with pytest.raises(UsageError, match="no pool 'default'"):
        sqlite_store.extend_pool(runs[0], depth=5)
    with pytest.raises(UsageError, match="two runs are named 'bm25'"):
        sqlite_store.build_pool([runs[0], runs[0]], depth=5)
    sqlite_store.build_pool(runs[:1], depth=5)
    with pytest.raises(UsageError, match="already exists"):
        sqlite_store.build_pool(runs[1:], depth=5)
    with pytest.raises(UsageError, match="depth must be an int >= 1"):
        sqlite_store.extend_pool(runs[1], depth=0)


@pytest.fixture
def pooled(sqlite_store, runs):
    sqlite_store.build_pool(runs, depth=10, ties="input")
    return sqlite_store


def test_overlap_queries_go_to_every_assessor_and_the_rest_to_one(pooled, examples):
    report = pooled.assign(["ana", "ben", "cy"], overlap_queries=3, seed=7)
    assert report.overlap_queries == ("q05", "q06", "q12")  # seed 7's sample, not the first three
    queues = {a: pooled.queue(a) for a in ("ana", "ben", "cy")}
    owners = defaultdict(set)
    for assessor, queue in queues.items():
        for pair in queue:
            owners[(pair.qid, pair.docid)].add(assessor)
            assert pair.overlap == (pair.qid in report.overlap_queries)
    assert set(owners) == set(_pool_tsv(examples))
    assert all(len(who) == (3 if q in report.overlap_queries else 1) for (q, _), who in owners.items())
    overlap_pairs = sum(1 for q, _ in owners if q in report.overlap_queries)
    assert all(share.overlap_pairs == overlap_pairs for share in report.shares.values())
    assert sum(s.pairs for s in report.shares.values()) == 3 * overlap_pairs + len(owners) - overlap_pairs
    loads = [s.pairs for s in report.shares.values()]
    assert max(loads) - min(loads) <= 23  # greedy by load: apart by at most one query's pool


def test_the_overlap_is_a_seeded_random_sample_recorded_with_the_assignments(tmp_path, runs):
    from judged.judgments import Store

    samples = set()
    for seed in range(20):
        with Store.open(str(tmp_path / f"s{seed}.db")) as other:
            other.build_pool(runs, depth=10, ties="input")
            report = other.assign(["ana", "ben"], overlap_queries=3, seed=seed)
            with other.engine.connect() as connection:
                stored = connection.execute(sa.select(assignments.c.qid, assignments.c.seed).where(
                    assignments.c.overlap)).all()
        assert {q for q, _ in stored} == set(report.overlap_queries) and {s for _, s in stored} == {seed}
        samples.add(report.overlap_queries)
    firsts = sum(1 for sample in samples if sample == ("q01", "q02", "q03"))
    assert len(samples) >= 15 and firsts <= 1  # 455 possible samples: 20 seeds rarely repeat one


def test_the_overlap_can_be_a_fraction_of_the_queries(pooled):
    report = pooled.assign(["ana", "ben"], overlap_fraction=0.2)
    assert len(report.overlap_queries) == math.ceil(0.2 * 15) == 3
    with pytest.raises(UsageError, match="not both"):
        pooled.assign(["ana", "ben"], overlap_queries=2, overlap_fraction=0.5)


def test_pairs_are_shown_without_runs_ranks_or_scores_in_a_seeded_order(pooled, runs, tmp_path):
    assert [f.name for f in dataclasses.fields(AssignedPair)] == ["position", "qid", "docid", "overlap"]
    assert not {"run", "rank", "score"} & set(assignments.c.keys())
    pooled.assign(["ana", "ben"], seed=3)
    first = pooled.queue("ana")
    from judged.judgments import Store

    with Store.open(str(tmp_path / "other.db")) as other:
        other.build_pool(runs, depth=10, ties="input")
        other.assign(["ana", "ben"], seed=3)
        assert other.queue("ana") == first
    with Store.open(str(tmp_path / "third.db")) as third:
        third.build_pool(runs, depth=10, ties="input")
        third.assign(["ana", "ben"], seed=4)
        assert [(p.qid, p.docid) for p in third.queue("ana")] != [(p.qid, p.docid) for p in first]
    order = [(p.qid, p.docid) for p in first]
    assert order != sorted(order) and [p.position for p in first] == list(range(1, len(first) + 1))
    qids = [qid for qid, _ in order]
    assert len({q for i, q in enumerate(qids) if i == 0 or qids[i - 1] != q}) == len(set(qids))  # query by query


def test_a_judged_pair_leaves_the_queue(pooled):
    pooled.assign(["ana", "ben"], overlap_queries=15)
    head = pooled.queue("ana")[0]
    pooled.record(head.qid, head.docid, assessor="ana", grade=1)
    assert pooled.queue("ana")[0] != head and pooled.queue("ana", pending_only=False)[0] == head
    assert pooled.queue("ben")[0].position == 1


def test_assigning_after_an_extension_keeps_each_query_with_its_assessors(sqlite_store, runs):
    sqlite_store.build_pool(runs[:2], depth=5)
    sqlite_store.assign(["ana", "ben"], overlap_queries=1)
    before = {a: {(p.qid, p.docid) for p in sqlite_store.queue(a)} for a in ("ana", "ben")}
    sqlite_store.extend_pool(runs[2], depth=5)
    sqlite_store.assign(["ana", "ben"], overlap_queries=1)
    for assessor in ("ana", "ben"):
        after = sqlite_store.queue(assessor)
        assert [p.position for p in after] == list(range(1, len(after) + 1))
        assert {q for q, _ in {(p.qid, p.docid) for p in after}} == {q for q, _ in before[assessor]}
    assert sqlite_store.assign(["ana", "ben"]).shares == {}


def test_a_single_assessor_needs_no_overlap(pooled):
    with pytest.raises(UsageError, match="overlap set needs two or more assessors"):
        pooled.assign(["ana"])
    assert pooled.assign(["ana"], overlap_queries=0).shares["ana"].pairs == 256


def test_a_new_rubric_version_can_put_older_grades_back_in_the_queue(sqlite_store):
    from judged.rubric import Level, Rubric

    levels = (Level(0, "no", "no help"), Level(1, "yes", "helps"))
    sqlite_store.build_pool([Run.from_dict({"q1": {"a": 2.0, "b": 1.0}}, name="r")], depth=2)
    sqlite_store.assign(["ana"], overlap_queries=0)
    sqlite_store.add_rubric(Rubric("docs", "1", (0, 1), levels))
    sqlite_store.record("q1", "a", assessor="ana", grade=1)
    sqlite_store.add_rubric(Rubric("docs", "2", (0, 1), levels))
    sqlite_store.record("q1", "b", assessor="ana", grade=0)  # under docs@2
    assert sqlite_store.queue("ana") == []
    assert [(p.qid, p.docid) for p in sqlite_store.queue("ana", rejudge_older=True)] == [("q1", "a")]
