"""Time judged's randomization tests against ranx's ``compare`` (issue 4).

10 systems x N queries (default 10,000) of per-query scores in [0, 1],
correlated across systems through a shared per-query difficulty. Times:

* judged ``randomization_test`` for all 45 pairs,
* judged ``tukey_hsd_randomized`` on the (N x 10) matrix,
* ranx ``compare(..., stat_test="fisher")`` on 10 synthetic runs over the same
  N queries (10 candidate docs a query, metric ndcg@10). ranx's figure
  includes its metric evaluation; it is measured warm (a small call first so
  numba has compiled).

Each ranx call runs in a subprocess with a timeout so a slow peer cannot stall
the benchmark. ``--competitors C`` times judged's two tests a second time
with C CPU-bound processes running beside them (what losing the cores costs),
and every row states the load average it started under, since a shared
machine's other work moves every figure; a plain Python loop timed alone and
beside the same competitors calibrates what the scheduler alone does to a
CPU-bound task. Usage: ``python3 bench/stats_bench.py
[--queries N] [--permutations B] [--ranx-queries N ...] [--timeout S]
[--competitors C] [--skip-ranx]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import time

import numpy as np

K = 10  # systems
DOCS = 10  # candidate docs per query for ranx


def scores(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 3, size=(n, 1))
    gaps = np.linspace(0.0, 0.03, K)
    return np.clip(difficulty + gaps + rng.normal(0, 0.1, size=(n, K)), 0.0, 1.0)


def _busy() -> None:
    """A CPU-bound competitor: spins until killed."""
    while True:
        pass


def _plain_loop() -> tuple[str, str, float]:
    """A pure-Python loop on one core: what the machine's scheduler alone does to a CPU-bound task (calibration)."""
    started, t = _load(), time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return ("python", f"a plain loop of 10,000,000 additions, the calibration ({started})", time.perf_counter() - t)


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def time_judged(n: int, permutations: int, label: str = "") -> list[tuple[str, str, float]]:
    """Both tests once, each row naming the load average it started under (and ``label``)."""
    from judged.stats import randomization_test, tukey_hsd_randomized

    x = scores(n)

    def note() -> str:
        return f"{label}, {_load()}" if label else _load()

    rows = []
    started, t, cpu = note(), time.perf_counter(), time.process_time()
    for i, j in itertools.combinations(range(K), 2):
        randomization_test(x[:, i], x[:, j], permutations=permutations, seed=0)
    rows.append(("judged", f"randomization_test, 45 pairs, {n:,} q, {permutations:,} perms ({started}; "
                 f"{time.process_time() - cpu:.1f} s CPU)", time.perf_counter() - t))
    started, t, cpu = note(), time.perf_counter(), time.process_time()
    tukey_hsd_randomized(x, permutations=permutations, seed=0)
    rows.append(("judged", f"tukey_hsd_randomized, 10 systems, {n:,} q, {permutations:,} perms ({started}; "
                 f"{time.process_time() - cpu:.1f} s CPU)", time.perf_counter() - t))
    return rows


def _ranx_child(n: int, permutations: int) -> None:
    """Runs in a subprocess: build Qrels/Runs, warm up numba, time compare."""
    from ranx import Qrels, Run, compare

    rng = np.random.default_rng(1)
    difficulty = rng.beta(2, 3, size=n)

    def build(nq: int):
        qids = [f"q{q}" for q in range(nq)]
        docs = [f"d{d}" for d in range(DOCS)]
        # Each query: 3 relevant docs among 10 with graded relevance.
        qrels = {
            q: {docs[d]: int(1 + (d % 2)) for d in rng.choice(DOCS, 3, replace=False)}
            for q in qids
        }
        runs = []
        for s in range(K):
            run = {}
            for qi, q in enumerate(qids):
                # Better systems / easier queries push relevant docs up.
                boost = difficulty[qi % n] + 0.03 * s
                sc = rng.random(DOCS)
                for d in range(DOCS):
                    if docs[d] in qrels[q]:
                        sc[d] += boost
                run[q] = {docs[d]: float(sc[d]) for d in range(DOCS)}
            runs.append(Run(run, name=f"sys{s}"))
        return Qrels(qrels), runs

    small_qrels, small_runs = build(50)
    compare(
        small_qrels,
        small_runs,
        metrics=["ndcg@10"],
        stat_test="fisher",
        n_permutations=100,
        max_p=0.05,
    )
    qrels, runs = build(n)
    t = time.perf_counter()
    compare(
        qrels,
        runs,
        metrics=["ndcg@10"],
        stat_test="fisher",
        n_permutations=permutations,
        max_p=0.05,
    )
    print(json.dumps({"seconds": time.perf_counter() - t}))


def time_ranx(n: int, permutations: int, timeout: float) -> tuple[str, str, float | None]:
    task = f"compare fisher, ndcg@10, 10 runs (45 pairs), {n:,} q, {permutations:,} perms"
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--ranx-child", str(n), str(permutations)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ},
        )
    except subprocess.TimeoutExpired:
        return ("ranx", task + f" (timed out after {timeout:.0f} s)", None)
    if out.returncode != 0:
        return ("ranx", task + f" (failed: {out.stderr.strip()[-200:]})", None)
    return ("ranx", task, json.loads(out.stdout.strip().splitlines()[-1])["seconds"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument(
        "--ranx-queries",
        type=int,
        nargs="*",
        default=None,
        help="query counts for ranx (default: 1,000 and --queries)",
    )
    ap.add_argument("--timeout", type=float, default=180.0, help="per ranx call, seconds")
    ap.add_argument("--skip-ranx", action="store_true")
    ap.add_argument("--competitors", type=int, default=0,
                    help="also time judged with this many CPU-bound processes beside it")
    ap.add_argument("--ranx-child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ranx_child:
        _ranx_child(*args.ranx_child)
        return

    rows = time_judged(args.queries, args.permutations)
    if args.competitors:
        rows.append(_plain_loop())
        import multiprocessing

        busy = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.competitors)]
        for process in busy:
            process.start()
        try:
            rows += time_judged(args.queries, args.permutations, f"{args.competitors} CPU-bound beside it")
            loop = _plain_loop()
            rows.append((loop[0], loop[1].replace("calibration (", f"calibration ({args.competitors} CPU-bound "
                                                                   "beside it, "), loop[2]))
        finally:
            for process in busy:
                process.terminate()
                process.join()
    if not args.skip_ranx:
        sizes = args.ranx_queries or sorted({min(1_000, args.queries), args.queries})
        for n in sizes:
            rows.append(time_ranx(n, args.permutations, args.timeout))
    print(f"machine: {os.cpu_count()} cores\n")
    print("| tool | task | seconds |\n|---|---|---:|")
    for tool, task, sec in rows:
        print(f"| {tool} | {task} | {'-' if sec is None else f'{sec:.2f}'} |")


if __name__ == "__main__":
    main()
