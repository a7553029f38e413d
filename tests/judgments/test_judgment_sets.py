"""Frozen judgment sets: byte-identical round trips, the content hash, versions, policies and the pool sidecar."""

from __future__ import annotations

import hashlib
import json
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judged.errors import UsageError
from judged.io import read_run
from judged.judgments import Store

GOLDEN = __import__("pathlib").Path(__file__).parent / "golden"

# The 17 pooled pairs assessor 1 left unjudged on purpose (examples/README.md, "Unjudged pooled pairs").
README_UNJUDGED = {
    "q01": ["api/overview", "auth/ip-allowlists"], "q03": ["api/list-filtering-sorting", "cli/env-command"],
    "q05": ["sdk/node/errors", "webhooks/delivery-retries", "webhooks/endpoint-disabled"],
    "q07": ["billing/usage-export", "sdk/go/retries"], "q09": ["cli/rollback-command"],
    "q10": ["cli/credentials", "sdk/node/typescript"], "q12": ["webhooks/testing-locally"],
    "q13": ["guides/ci-cd-gitlab", "webhooks/testing-locally"], "q14": ["sdk/telemetry"],
    "q15": ["sdk/node/debugging-requests"],
}


def _round_trip(store: Store, path) -> tuple[str, str]:
    store.import_qrels(path, assessor="nist")
    frozen = store.freeze("nist")
    text, _ = store.export(frozen.judgment_set.id)
    return text, frozen.judgment_set.content_hash


def test_examples_qrels_round_trip_byte_identical(store, examples):
    original = (examples / "qrels.txt").read_bytes()
    text, content_hash = _round_trip(store, examples / "qrels.txt")
    assert text.encode() == original
    assert content_hash == hashlib.sha256(original).hexdigest()


@pytest.mark.parametrize("name", ["qrels.test", "qrels-302.test", "qrels.rel_level"])
def test_trec_eval_test_qrels_round_trip_byte_identical(sqlite_store, conformance, name):
    """trec_eval's own canonical qrels, including qrels.rel_level's -1 (pooled, not judged) grades."""
    original = (conformance / name).read_bytes()
    text, content_hash = _round_trip(sqlite_store, conformance / name)
    assert text.encode() == original and content_hash == hashlib.sha256(original).hexdigest()


def test_a_non_canonical_file_exports_in_canonical_form(sqlite_store, tmp_path):
    path = tmp_path / "messy.qrels"
    path.write_text("# a comment\nq2\t0  d1 1\nq10 3 d2 0\nq1 0 b 2\nq1 0 a 0\n")
    text, _ = _round_trip(sqlite_store, path)
    assert text == "q1 0 a 0\nq1 0 b 2\nq10 0 d2 0\nq2 0 d1 1\n"


_IDS = st.text(alphabet="abcXYZ019-_./:é", min_size=1, max_size=6)
_QRELS = st.dictionaries(st.tuples(_IDS, _IDS), st.integers(-1, 4), min_size=1, max_size=30)


@pytest.fixture(scope="module")
def shared_store():
    with Store.open("sqlite://") as opened:
        yield opened


@settings(max_examples=40, deadline=None)
@given(labels=_QRELS)
def test_any_canonical_qrels_round_trips_and_hashes_its_bytes(shared_store, tmp_path_factory, labels):
    canonical = "".join(f"{q} 0 {d} {g}\n" for (q, d), g in sorted(labels.items()))
    path = tmp_path_factory.mktemp("qrels") / "qrels.txt"
    path.write_bytes(canonical.encode())
    assessor = f"a{uuid.uuid4().hex}"  # examples share one store; each freezes only its own assessor
    shared_store.import_qrels(path, assessor=assessor)
    frozen = shared_store.freeze(assessor, assessors=[assessor]).judgment_set
    assert shared_store.export(frozen.id)[0] == canonical
    assert frozen.content_hash == hashlib.sha256(canonical.encode()).hexdigest()


def test_freezing_again_makes_a_new_version_only_when_labels_change(store):
    store.record("q1", "d1", assessor="ana", grade=1)
    first = store.freeze("team")
    assert (first.new, first.judgment_set.id) == (True, "team@1")
    again = store.freeze("team")
    assert (again.new, again.judgment_set) == (False, first.judgment_set)
    store.record("q1", "d1", assessor="ana", grade=2)
    second = store.freeze("team")
    assert (second.new, second.judgment_set.id) == (True, "team@2")
    assert store.export("team@1")[0] == "q1 0 d1 1\n"
    assert store.export("team")[0] == "q1 0 d1 2\n"
    assert [s.id for s in store.judgment_sets()] == ["team@1", "team@2"]


def _disagreeing(store: Store) -> None:
    for assessor, grades in {"ana": (0, 3, 1), "ben": (2, 3, 1), "cy": (3, 3, None)}.items():
        for docid, grade in zip(("d1", "d2", "d3"), grades):
            if grade is not None:
                store.record("q1", docid, assessor=assessor, grade=grade)


def test_unadjudicated_disagreement_refuses_to_freeze(store):
    _disagreeing(store)
    with pytest.raises(UsageError, match=r"1 pair\(s\) have disagreeing grades and no adjudication "
                                         r"\(q1 d1: ana=0, ben=2, cy=3\)"):
        store.freeze("final")
    assert store.judgment_sets() == []


@pytest.mark.parametrize("policy, grade", [("min", 0), ("max", 3), ("median", 2), ("assessor:ben", 2)])
def test_a_named_policy_resolves_disagreements(sqlite_store, policy, grade):
    _disagreeing(sqlite_store)
    frozen = sqlite_store.freeze("final", resolve=policy).judgment_set
    assert sqlite_store.export(frozen.id)[0] == f"q1 0 d1 {grade}\nq1 0 d2 3\nq1 0 d3 1\n"
    assert frozen.counts == {"agreed": 2, "resolved": 1}
    assert frozen.policy == {"resolve": policy, "assessors": None, "adjudications": True}


def test_preferring_an_assessor_who_did_not_judge_the_pair_still_refuses(sqlite_store):
    _disagreeing(sqlite_store)
    sqlite_store.record("q1", "d4", assessor="ana", grade=1)
    sqlite_store.record("q1", "d4", assessor="cy", grade=2)
    with pytest.raises(UsageError, match=r"q1 d4: ana=1, cy=2\), and ben graded none of them\. Adjudicate"):
        sqlite_store.freeze("final", resolve="assessor:ben")
    with pytest.raises(UsageError, match="resolve must be one of"):
        sqlite_store.freeze("final", resolve="mean")


def test_preferring_an_assessor_who_graded_nothing_names_those_who_did(sqlite_store):
    _disagreeing(sqlite_store)
    with pytest.raises(UsageError) as refused:
        sqlite_store.freeze("final", resolve="assessor:nobody")
    assert str(refused.value) == ("--resolve assessor:nobody: nobody has no grade among the labels being frozen; "
                                  "the assessors here are ana, ben, cy.")
    assert sqlite_store.judgment_sets() == []


def test_adjudication_wins_and_the_latest_decision_counts(store):
    _disagreeing(store)
    store.adjudicate("q1", "d1", 1, adjudicator="lead", note="partial steps only")
    frozen = store.freeze("final").judgment_set
    assert frozen.counts == {"adjudicated": 1, "agreed": 2}
    assert store.export("final")[0] == "q1 0 d1 1\nq1 0 d2 3\nq1 0 d3 1\n"
    store.adjudicate("q1", "d1", 2, adjudicator="lead", note="on reflection, the key step")
    assert store.freeze("final").judgment_set.id == "final@2"
    assert store.export("final")[0].startswith("q1 0 d1 2\n")
    assert store.freeze("ana-only", assessors=["ana"], adjudications=False).judgment_set.counts == {"single": 3}


def test_examples_sidecar_keeps_pooled_unjudged_apart_from_never_pooled(sqlite_store, examples):
    runs = [read_run(examples / "runs" / f"{n}.run") for n in ("bm25", "dense", "naive")]
    sqlite_store.build_pool(runs, depth=10, ties="input")
    sqlite_store.import_qrels(examples / "qrels.txt", assessor="nist")
    sqlite_store.record("q02", "api/errors", assessor="ana", cannot_judge="page in Japanese")
    frozen = sqlite_store.freeze("nist", assessors=["nist", "ana"]).judgment_set
    text, sidecar_text = sqlite_store.export("nist@1")
    assert text.encode() == (examples / "qrels.txt").read_bytes()
    sidecar = json.loads(sidecar_text)
    assert sidecar["unjudged"]["pooled"] == README_UNJUDGED
    assert sidecar["unjudged"]["cannot_judge"] == {"q02": ["api/errors"]}
    assert sidecar["pool"]["pairs"] == 256 and sidecar["qrels"]["pairs"] == 239
    assert sidecar["judgment_set"]["content_hash"] == frozen.content_hash == sidecar["qrels"]["sha256"]
    pooled = {(q, d) for q, docs in sidecar["pool"]["pooled"].items() for d in docs}
    assert pooled == {tuple(line.split("\t")[:2]) for line in (examples / "pool.tsv").read_text().splitlines()}
    assert all(counts["judged_unpooled"] == 0 for counts in sidecar["queries"].values())
    assert sidecar["judgment_set"]["head"] == frozen.head and frozen.head.startswith("judgments@240:")
    sidecar["judgment_set"]["created"] = "<created>"
    sidecar["judgment_set"]["head"] = "<head>"  # chain hashes cover event times
    assert json.dumps(sidecar, indent=2, sort_keys=True) + "\n" == (GOLDEN / "examples.sidecar.json").read_text()
    assert sqlite_store.export("nist@1") == (text, sidecar_text)  # deterministic


def test_a_frozen_set_reads_as_qrels_carrying_its_id_and_hash(sqlite_store, examples):
    sqlite_store.import_qrels(examples / "qrels.txt", assessor="nist")
    frozen = sqlite_store.freeze("nist").judgment_set
    qrels = sqlite_store.qrels("nist")
    assert (qrels.name, qrels.source.format, qrels.source.sha256) == ("nist@1", "judgment-set", frozen.content_hash)
    assert qrels.source.path.endswith("judged.db#nist@1") and len(qrels) == 239


def test_unknown_sets_and_bad_names_are_usage_errors(sqlite_store):
    sqlite_store.record("q1", "d1", assessor="ana", cannot_judge="empty page")
    with pytest.raises(UsageError, match="nothing to freeze: no grade has been recorded"):
        sqlite_store.freeze("s")
    sqlite_store.record("q1", "d1", assessor="ana", grade=1)
    sqlite_store.freeze("s")
    with pytest.raises(UsageError, match=r"no judgment set 's@2' in the store \(sets: s\)"):
        sqlite_store.judgment_set("s@2")
    with pytest.raises(UsageError, match="integer version"):
        sqlite_store.export("s@latest")
    with pytest.raises(UsageError, match="cannot contain '@'"):
        sqlite_store.freeze("a@b")
