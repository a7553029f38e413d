"""Replay judging strategies on generated collections with complete judgments (docs/settle.md has the table).

Each collection: ``--queries`` queries; per query ``--docs`` documents with a
latent relevance r ~ N(0, 1) cut into grades 0..3 (about 79% 0, 13% 1, 6% 2,
2% 3); ``--systems`` runs of known, varied quality, run s scoring document d
as ``quality_s * r_d + shared_d + own_sd`` (``shared`` is one noise term all
runs see, which gives them realistic overlap; ``own`` is each run's own),
each retrieving its top ``--depth``. The collection is the union of what the
runs retrieve, every document of it judged: the depth-``depth`` pool is the
complete judgment set, and the full-judgment order is the order of the runs'
mean nDCG on it.

Each strategy of :mod:`judged.analysis.selection` starts with no judgment and
is replayed as an assessor who gives every proposed document its true grade.
After each step (one proposal round) the bench records whether the interim
order (means with unjudged as 0) equals the full-judgment order, whether the
stopping rule fires (every pair settled by :func:`judged.analysis.settle`),
and whether any settled pair contradicts the full-judgment order. Reported per
strategy, as the median over collections: judgments until the interim order
equals the full order for good, judgments until the stopping rule fires, the
share of checkpoints whose interim order was wrong, and the settled pairs that
were ever wrong (must be 0).

    python bench/judging_sim.py --collections 5 --queries 25 --systems 5
"""

from __future__ import annotations

import argparse
import time
from itertools import combinations

import numpy as np

import judged
from judged.analysis.selection import BoundDriven, DepthOrder, MaxMeanBandit, MoveToFront
from judged.analysis.settle import settle

GRADE_CUTS = (0.8, 1.4, 2.0)  # latent relevance above each cut: grade 1, 2, 3


def collection(seed: int, queries: int, docs: int, systems: int, depth: int):
    """Runs (as {qid: {docid: score}}) and the complete judgments of the union of their top ``depth``."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.3, 1.5, systems)
    runs: list[dict[str, dict[str, float]]] = [{} for _ in range(systems)]
    qrels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        qid = f"q{q:03d}"
        relevance = rng.normal(size=docs)
        grade = np.searchsorted(GRADE_CUTS, relevance)
        shared = rng.normal(size=docs)
        union = set()
        for s in range(systems):
            score = quality[s] * relevance + 0.8 * shared + rng.normal(size=docs)
            top = np.argsort(-score)[:depth]
            runs[s][qid] = {f"d{d:03d}": round(float(score[d]), 6) for d in top}
            union.update(int(d) for d in top)
        qrels[qid] = {f"d{d:03d}": int(grade[d]) for d in sorted(union)}
    names = [f"sys{s}" for s in range(systems)]
    return [judged.read_run(run, name=name) for run, name in zip(runs, names)], qrels


def _signs(means: np.ndarray) -> np.ndarray:
    return np.array([np.sign(means[a] - means[b]) for a, b in combinations(range(len(means)), 2)])


def replay(strategy, runs, truth: dict, measure: str, step: int | None):
    """Judgments until the interim order is right for good and until the stopping rule fires; wrong checkpoints."""
    pool = [(qid, docid) for qid, docs in truth.items() for docid in docs]
    full = _signs(np.array([judged.evaluate(run, truth, [measure]).aggregate[measure_key(measure)] for run in runs]))
    judged_so_far: dict[tuple[str, str], int] = {}
    right_since, stop_at, wrong_checks, checks, settled_wrong = None, None, 0, 0, 0
    while True:
        proposed = strategy.propose(judged_so_far, step) if step else strategy.propose(judged_so_far)
        if not proposed:
            break
        for pair in proposed:
            judged_so_far[pair] = truth[pair[0]][pair[1]]
        nested = {qid: {d: judged_so_far.get((qid, d), -1) for d in docs} for qid, docs in truth.items()}
        s = settle(runs, nested, measure, pool=pool, grades=range(4), samples=0, count_matter=False)
        interim = _signs(np.array([r.mean for r in s.runs]))
        checks += 1
        right = bool((interim == full).all())
        wrong_checks += not right
        right_since = (right_since or len(judged_so_far)) if right else None
        settled_wrong += sum(p.sign is not None and p.sign != f for p, f in zip(s.pairs, full))
        if s.stopping.fires and stop_at is None:
            stop_at = len(judged_so_far)
            if isinstance(strategy, BoundDriven):
                break
    return {"right": right_since, "stop": stop_at, "wrong": wrong_checks / max(checks, 1),
            "settled_wrong": settled_wrong, "judged": len(judged_so_far)}


def measure_key(measure: str):
    return judged.parse(measure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", type=int, default=5)
    parser.add_argument("--queries", type=int, default=25)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--measure", default="nDCG@10")
    parser.add_argument("--batch", type=int, default=5, help="documents per bound-driven step (one query)")
    args = parser.parse_args()
    rows: dict[str, list[dict]] = {}
    pools = []
    for c in range(args.collections):
        runs, truth = collection(c, args.queries, args.docs, args.systems, args.depth)
        pool = [(qid, docid) for qid, docs in truth.items() for docid in docs]
        depth = DepthOrder(runs, pool)
        pools.append(depth.depth_pool(args.depth))
        strategies = [(depth, args.queries), (MoveToFront(runs, pool), args.queries),
                      (MaxMeanBandit(runs, pool), args.queries),
                      (BoundDriven(runs, args.measure, pool, range(4), batch=args.batch), None)]
        for strategy, step in strategies:
            start = time.perf_counter()
            found = replay(strategy, runs, truth, args.measure, step)
            found["seconds"] = time.perf_counter() - start
            rows.setdefault(strategy.name, []).append(found)
            print(f"collection {c} {strategy.name}: {found}", flush=True)
    depth20 = float(np.median(pools))
    print(f"\n{args.collections} collections x {args.queries} queries, {args.systems} systems, depth {args.depth}; "
          f"median depth-{args.depth} pool {depth20:.0f} judgments ({args.measure})\n")
    print("| strategy | judgments until the order is right (share of depth-k pool) | until the stopping rule fires |"
          " checkpoints with a wrong order | settled pairs ever wrong |")
    print("|---|---|---|---|---|")
    for name, found in rows.items():
        right = [f["right"] for f in found if f["right"] is not None]
        stop = [f["stop"] for f in found if f["stop"] is not None]
        cell_right = f"{np.median(right):.0f} ({np.median(right) / depth20:.0%})" if right else "never"
        fired = "" if len(stop) == len(found) else f", fired in {len(stop)} of {len(found)}"
        cell_stop = f"{np.median(stop):.0f} ({np.median(stop) / depth20:.0%}){fired}" if stop else "never"
        wrong = np.mean([f["wrong"] for f in found])
        print(f"| {name} | {cell_right} | {cell_stop} | {wrong:.0%} | {sum(f['settled_wrong'] for f in found)} |")


if __name__ == "__main__":
    main()
