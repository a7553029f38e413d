"""The seeded collections the preset tests draw (tests/presets/test_presets.py), shared with the generator of
TorchMetrics' recorded values (tests/data/torchmetrics/generate.py), which runs without judged's test extra.

Built to hit the edges: judged queries the run missed, a run-only query, queries with no relevant judgment,
negative grades (pooled but unjudged), retrieved documents never judged, judged documents never retrieved, and
docids whose byte order is not their numeric order. Scores are multiples of 1/8 or 1/4, exact in float32.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np


def collection(seed: int, *, ties: bool, queries: int = 30) -> tuple[dict, dict]:
    """``(run, qrels)`` dicts: ``queries`` judged queries, every 9th missing from the run, one run-only query.

    With ``ties`` the scores take four values (many ties); without, each query's
    scores are distinct. All scores are positive multiples of 1/8 (exact in float32).
    """
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for i in range(queries):
        qid = f"q{i:02d}"
        judged_docs = [f"d{j}" for j in rng.permutation(30)[: int(rng.integers(1, 16))]]
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged_docs))
        if i % 6 == 1:
            grades = np.minimum(grades, 0)  # no relevant judgment
        if grades.max() < 0:
            grades[0] = 0  # trec_eval misreads a query whose grades are all negative
        qrels[qid] = {d: int(g) for d, g in zip(judged_docs, grades)}
        if i % 9 == 4:
            continue  # judged, missing from the run
        retrieved = [f"d{j}" for j in rng.permutation(30)[: int(rng.integers(2, 21))]]
        if ties:
            scores = rng.integers(1, 5, size=len(retrieved)) / 4.0
        else:
            scores = (rng.permutation(len(retrieved)) + 1) / 8.0
        run[qid] = {d: float(s) for d, s in zip(retrieved, scores)}
    run["run_only"] = {"d1": 1.0, "d2": 0.5}
    return run, qrels


TIED = collection(1, ties=True)
TIE_FREE = collection(2, ties=False)

GAINS = {
    "linear": lambda g: float(g),
    "exp": lambda g: 2.0**g - 1.0,
    "{1:1,2:2.5,3:10}": lambda g: {1: 1.0, 2: 2.5, 3: 10.0}.get(g, float(g)),
}


def rows(run, qrels, gain=GAINS["linear"], drop=False, rel=None):
    """Per judged query in the run: (scores, relevance) of its candidates; relevance = gain, 0 if unjudged.

    With ``rel``, relevance is binary (grade >= rel). With ``drop``, unjudged
    candidates (and negative grades, pooled but unjudged) are left out.
    """
    out = {}
    for qid, docs in run.items():
        if qid not in qrels:
            continue
        scores, relevance = [], []
        for doc, score in docs.items():
            grade = qrels[qid].get(doc, -1)
            if drop and grade < 0:
                continue
            scores.append(score)
            if rel is not None:
                relevance.append(float(grade >= rel))
            else:
                relevance.append(gain(grade) if grade > 0 else 0.0)
        out[qid] = (np.array(scores), np.array(relevance))
    return out


def rows_digest(data: dict) -> str:
    """sha256 of candidate rows as :func:`rows` gives them: a recorded value holds only for the rows it was
    computed from, so the test compares this before it compares a number."""
    plain = {q: [scores.tolist(), relevance.tolist()] for q, (scores, relevance) in sorted(data.items())}
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode()).hexdigest()


def with_written(gain: str, drop: bool) -> str:
    """The parameter list a gain and ``unjudged=drop`` give a measure's name: ``""`` or ``"(gain=exp,...)"``."""
    params = [] if gain == "linear" else [f"gain={gain}"]
    if drop:
        params.append("unjudged=drop")
    return f"({','.join(params)})" if params else ""


#: TorchMetrics' retrieval_normalized_dcg cases: the measure's name (without parameters) and top_k.
TORCH_NDCG = {"nDCG@5": 5, "nDCG@10": 10, "nDCG": None}
#: The binary retrieval functions, by judged measure: (torchmetrics.functional.retrieval name, top_k, rel).
TORCH_BINARY = {
    "P@5": ("retrieval_precision", 5, 1), "P@30": ("retrieval_precision", 30, 1),
    "P": ("retrieval_precision", None, 1), "P(rel=2)@5": ("retrieval_precision", 5, 2),
    "RR": ("retrieval_reciprocal_rank", None, 1), "RR@3": ("retrieval_reciprocal_rank", 3, 1),
    "RR(rel=2)": ("retrieval_reciprocal_rank", None, 2), "Success@3": ("retrieval_hit_rate", 3, 1),
    "Success": ("retrieval_hit_rate", None, 1),
}
#: RetrievalNormalizedDCG(top_k=5)'s empty_target_action, by judged's norel.
TORCH_NOREL = {"0": "neg", "1": "pos", "skip": "skip"}

#: ranx's metric names, by the judged measure its presets map them from (tie-free: ranx orders ties arbitrarily).
RANX_PAIRS = {
    "nDCG@5": "ndcg@5", "nDCG": "ndcg", "nDCG(gain=exp)@5": "ndcg_burges@5", "nDCG(gain={1:0})@5": "ndcg@5-l2",
    "DCG@5": "dcg@5", "P@5": "precision@5", "P": "precision", "P(rel=2)@5": "precision@5-l2",
    "R@10": "recall@10", "R": "recall", "AP": "map", "AP@5": "map@5", "RR": "mrr", "RR@3": "mrr@3",
    "Success@3": "hit_rate@3", "Success": "hit_rate", "Rprec": "r-precision", "Rprec(rel=2)": "r-precision-l2",
}
RANX_BURGES_PAIRS = {"nDCG@5": "ndcg_burges@5", "nDCG": "ndcg_burges", "DCG@5": "dcg_burges@5",
                     "DCG": "dcg_burges"}


def collection_digest(run: dict, qrels: dict) -> str:
    """sha256 of a ``(run, qrels)`` pair of dicts, for values recorded from a library that read them whole."""
    return hashlib.sha256(json.dumps([run, qrels], sort_keys=True).encode()).hexdigest()
