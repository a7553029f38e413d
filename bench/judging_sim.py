"""Replay judging strategies on generated collections with complete judgments (docs/settle.md has the table).

Each collection: ``--queries`` queries; per query ``--docs`` documents with a
latent relevance r ~ N(0, 1) cut into grades 0..3 (about 79% 0, 13% 1, 6% 2,
2% 3; ``--relevance sparse`` cuts it higher, ``GRADE_CUTS``); ``--systems``
runs of known, varied quality, run s scoring document d as
``quality_s * r_d + shared_d + own_sd`` (``shared`` is one noise term all
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

Two rows say how far any strategy could go on the same collections, knowing
every grade: **oracle** is the bound-driven greedy told each document's true
grade (its expected shrink is the shrink), and **proof set** is the set an
omniscient chooser finds by starting from every document judged and dropping
documents, least important first, while every pair stays settled (an
achievable stopping point, not the least one). Under them, **floor** is
:func:`judged.analysis.floor.proof_floor`: proved, no strategy stops sooner.

    python bench/judging_sim.py --collections 5 --queries 20 --systems 5 --jobs 2
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations

import numpy as np

import judged
from judged.analysis.floor import proof_floor
from judged.analysis.selection import BoundDriven, DepthOrder, MaxMeanBandit, MoveToFront
from judged.analysis.settle import SETTLE_EPS, settle

#: latent relevance above each cut: grade 1, 2, 3. ``dense`` is the setting of the table in docs/settle.md (about
#: 79% 0, 13% 1, 6% 2, 2% 3); ``sparse`` a second one closer to TREC's pools (about 92% 0, 5% 1, 2% 2, 1% 3)
GRADE_CUTS = {"dense": (0.8, 1.4, 2.0), "sparse": (1.4, 1.9, 2.4)}


def collection(seed: int, queries: int, docs: int, systems: int, depth: int, relevance: str = "dense"):
    """Runs (as {qid: {docid: score}}) and the complete judgments of the union of their top ``depth``.

    The same seed draws the same runs under either ``relevance``: only the cut into grades differs.
    """
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.3, 1.5, systems)
    runs: list[dict[str, dict[str, float]]] = [{} for _ in range(systems)]
    qrels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        qid = f"q{q:03d}"
        latent = rng.normal(size=docs)
        grade = np.searchsorted(GRADE_CUTS[relevance], latent)
        shared = rng.normal(size=docs)
        union = set()
        for s in range(systems):
            score = quality[s] * latent + 0.8 * shared + rng.normal(size=docs)
            top = np.argsort(-score)[:depth]
            runs[s][qid] = {f"d{d:03d}": round(float(score[d]), 6) for d in top}
            union.update(int(d) for d in top)
        qrels[qid] = {f"d{d:03d}": int(grade[d]) for d in sorted(union)}
    names = [f"sys{s}" for s in range(systems)]
    return [judged.read_run(run, name=name) for run, name in zip(runs, names)], qrels


class Oracle(BoundDriven):
    """The bound-driven greedy told every document's true grade: its expected shrink is the actual shrink."""

    name = "oracle (bound-driven knowing the grades)"

    def __init__(self, truth: dict, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.truth = truth

    def chances(self, s, judged_so_far):
        position = {g: i for i, g in enumerate(s.data.grades)}
        found = []
        for qid, docs in zip(s.data.qids, s.data.pool):
            known = np.zeros((len(docs), len(position)))
            known[np.arange(len(docs)), [position[self.truth[qid][d]] for d in docs]] = 1.0
            found.append(known)
        return found


def proof_set(runs, truth: dict, measure: str) -> set[tuple[str, str]]:
    """Judgments kept by an omniscient chooser: all judged, then drop the least important while all stays settled.

    A document's importance is the most it can move a pair's binding side
    relative to that pair's margin: |discount difference| times the distance
    of its true gain from the adversary's (top gain against the true winner, 0
    for it), over the pair's true summed difference. Dropping one document
    changes only its query's ranges, so each try re-solves one query.
    """
    pool = [(qid, docid) for qid, docs in truth.items() for docid in docs]
    domain = range(max(g for docs in truth.values() for g in docs.values()) + 1)
    full = settle(runs, truth, measure, pool=pool, grades=domain, samples=0, count_matter=False)
    data = settle(runs, {q: {d: -1 for d in docs} for q, docs in truth.items()}, measure, pool=pool,
                  grades=domain, samples=0, count_matter=False).data
    low = np.array([p.low for p in full.pairs])
    high = np.array([p.high for p in full.pairs])
    margin = low.sum(axis=1)  # every document judged: each range is the true difference
    sign = np.sign(margin)
    index = {run: i for i, run in enumerate(data.runs)}
    pairs = [(index[p.a], index[p.b]) for p in full.pairs]
    gain = {g: float(v) for g, v in zip(data.grades, data.grade_gains)}
    top = max(gain.values())
    order = []
    for q, (qid, docs) in enumerate(zip(data.qids, data.pool)):
        for i, docid in enumerate(docs):
            true = gain[truth[qid][docid]]
            weight = 0.0
            for p, (a, b) in enumerate(pairs):
                c = sign[p] * (data.discount[q][a, i] - data.discount[q][b, i])
                weight = max(weight, abs(c) * (true if c > 0 else top - true) / max(abs(margin[p]), SETTLE_EPS))
            order.append((weight, q, qid, docid))
    named = [run.name for run in runs]
    one = {qid: [judged.read_run({qid: _query(run, qid)}, name=name) for run, name in zip(runs, named)]
           for qid in data.qids}
    judged_now = {qid: dict(docs) for qid, docs in truth.items()}
    n = len(data.qids)
    for _, q, qid, docid in sorted(order, key=lambda item: item[0]):
        grade = judged_now[qid].pop(docid)
        trial = {qid: {d: judged_now[qid].get(d, -1) for d in truth[qid]}}
        s = settle(one[qid], trial, measure, pool=[(qid, d) for d in truth[qid]], grades=domain, samples=0,
                   count_matter=False)
        new_low, new_high = low.copy(), high.copy()
        new_low[:, q] = [p.low[0] for p in s.pairs]
        new_high[:, q] = [p.high[0] for p in s.pairs]
        if all(new_low[p].sum() / n > SETTLE_EPS if sign[p] > 0 else new_high[p].sum() / n < -SETTLE_EPS
               for p in range(len(pairs)) if sign[p] != 0):
            low, high = new_low, new_high
        else:
            judged_now[qid][docid] = grade
    kept = {qid: {d: judged_now[qid].get(d, -1) for d in docs} for qid, docs in truth.items()}
    if not settle(runs, kept, measure, pool=pool, grades=domain, samples=0, count_matter=False).stopping.fires:
        raise SystemExit("proof_set: the pruned judgments do not settle every pair (a per-query range drifted)")
    return {(qid, docid) for qid, docs in judged_now.items() for docid in docs}


def _query(run, qid: str) -> dict[str, float]:
    frame = run.frame.filter(run.frame["qid"] == qid)
    return dict(zip(frame["docid"].to_list(), frame["score"].to_list()))


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
                break  # it proposes nothing once every pair is settled
    return {"right": right_since, "stop": stop_at, "wrong": wrong_checks / max(checks, 1),
            "settled_wrong": settled_wrong, "judged": len(judged_so_far)}


def measure_key(measure: str):
    return judged.parse(measure)


def one_collection(c: int, args) -> tuple[int, dict[str, dict]]:
    """Every strategy replayed on collection ``c``, the proof set and the floor."""
    runs, truth = collection(c, args.queries, args.docs, args.systems, args.depth, args.relevance)
    pool = [(qid, docid) for qid, docs in truth.items() for docid in docs]
    depth = DepthOrder(runs, pool)
    strategies = [(depth, args.queries), (MoveToFront(runs, pool), args.queries),
                  (MaxMeanBandit(runs, pool), args.queries),
                  (BoundDriven(runs, args.measure, pool, range(4), batch=args.batch), None),
                  (Oracle(truth, runs, args.measure, pool, range(4), batch=args.batch), None)]
    found: dict[str, dict] = {}
    for strategy, step in strategies:
        start = time.perf_counter()
        found[strategy.name] = replay(strategy, runs, truth, args.measure, step)
        found[strategy.name]["seconds"] = round(time.perf_counter() - start, 1)
        print(f"collection {c} {strategy.name}: {found[strategy.name]}", flush=True)
    start = time.perf_counter()
    kept = proof_set(runs, truth, args.measure)
    below = sum(1 for pair in kept if depth.best_rank[pair] >= (judged.parse(args.measure).cutoff or args.depth))
    found["proof set"] = {"stop": len(kept), "below the cutoff in every run": below,
                          "seconds": round(time.perf_counter() - start, 1)}
    found["floor"] = {"stop": proof_floor(runs, truth, args.measure, range(4)).judgments}
    print(f"collection {c}: proof set {found['proof set']}, floor {found['floor']}", flush=True)
    return depth.depth_pool(args.depth), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", type=int, default=5)
    parser.add_argument("--queries", type=int, default=25)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--measure", default="nDCG@10")
    parser.add_argument("--batch", type=int, default=5, help="documents per bound-driven step (one query)")
    parser.add_argument("--relevance", choices=sorted(GRADE_CUTS), default="dense",
                        help="how the latent relevance is cut into grades (GRADE_CUTS)")
    parser.add_argument("--jobs", type=int, default=1, help="collections replayed at once")
    args = parser.parse_args()
    with ProcessPoolExecutor(args.jobs) as workers:
        done = list(workers.map(one_collection, range(args.collections), [args] * args.collections))
    pools = [size for size, _ in done]
    rows: dict[str, list[dict]] = {}
    for _, found in done:
        for name, result in found.items():
            rows.setdefault(name, []).append(result)
    depth20 = float(np.median(pools))
    print(f"\n{args.collections} collections x {args.queries} queries, {args.systems} systems, depth {args.depth}; "
          f"median depth-{args.depth} pool {depth20:.0f} judgments ({args.measure}); per collection: "
          f"depth-{args.depth} pool {pools}, " + ", ".join(f"{name} {[r['stop'] for r in found]}"
                                                         for name, found in rows.items()) + "\n")
    print("| strategy | judgments until the order is right (share of depth-k pool) | until the stopping rule fires |"
          " checkpoints with a wrong order | settled pairs ever wrong |")
    print("|---|---|---|---|---|")
    for name, found in rows.items():
        stop = [f["stop"] for f in found if f["stop"] is not None]
        fired = "" if len(stop) == len(found) else f", fired in {len(stop)} of {len(found)}"
        cell_stop = f"{np.median(stop):.0f} ({np.median(stop) / depth20:.0%}){fired}" if stop else "never"
        if "right" not in found[0]:
            print(f"| {name} | | {cell_stop} | | |")
            continue
        right = [f["right"] for f in found if f["right"] is not None]
        cell_right = f"{np.median(right):.0f} ({np.median(right) / depth20:.0%})" if right else "never"
        wrong = np.mean([f["wrong"] for f in found])
        print(f"| {name} | {cell_right} | {cell_stop} | {wrong:.0%} | {sum(f['settled_wrong'] for f in found)} |")


if __name__ == "__main__":
    main()
