"""Time evaluating many small run files: one ``judged eval`` call against trec_eval once per run and pytrec_eval in
a loop (the qrels parsed once), on the same files.

``--runs`` run files of ``--queries`` x ``--depth`` lines each and one qrels (``--judged`` judgments a query) are
generated in a temporary folder; five measures (nDCG@10, AP, RR, P@10, R@100). Each tool's work runs in a child
process; the table gives its wall seconds, its CPU seconds (user + system, from ``os.wait4``: on a loaded machine
wall time measures the load, CPU time the work) and its peak memory, medians over ``--repeat``. trec_eval is used
when ``$TREC_EVAL`` or ``trec_eval`` on the PATH names it, and left out otherwise.

Example: ``python bench/many_runs_bench.py --runs 100 --queries 200 --depth 100``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

MEASURES = ("nDCG@10", "AP", "RR", "P@10", "R@100")
TREC_NAMES = ("ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100")

PYTREC_LOOP = """
import sys, pytrec_eval
qrels_path, *runs = sys.argv[1:]
with open(qrels_path) as f:
    evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(f), set({names!r}))
for path in runs:
    with open(path) as f:
        evaluator.evaluate(pytrec_eval.parse_run(f))
"""


def write_collection(folder: Path, runs: int, queries: int, depth: int, judged: int, seed: int) -> tuple[Path, list]:
    """A qrels and ``runs`` run files, each query's documents drawn from five times ``depth`` candidates."""
    rng = np.random.default_rng(seed)
    qrels = folder / "qrels"
    with qrels.open("w") as out:
        for q in range(queries):
            for d, g in zip(rng.choice(depth * 5, judged, replace=False), rng.integers(0, 4, judged)):
                out.write(f"q{q} 0 d{d} {g}\n")
    paths = []
    for r in range(runs):
        path = folder / f"run{r:04d}"
        with path.open("w") as out:
            for q in range(queries):
                docs = rng.choice(depth * 5, depth, replace=False)
                scores = np.sort(rng.random(depth))[::-1]
                out.writelines(f"q{q} Q0 d{d} {i + 1} {s:.6f} r{r}\n" for i, (d, s) in enumerate(zip(docs, scores)))
        paths.append(path)
    return qrels, paths


def timed(commands: list[list[str]]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak MB of running ``commands`` one after another (their output discarded)."""
    wall = cpu = peak = 0.0
    for command in commands:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise SystemExit(f"failed: {' '.join(command[:3])} ...")
        wall += time.perf_counter() - start
        cpu += usage.ru_utime + usage.ru_stime
        peak = max(peak, usage.ru_maxrss / 1024)
    return wall, cpu, peak


def collection_arguments(parser: argparse.ArgumentParser, *, runs: int, queries: int, depth: int) -> None:
    """The options of :func:`write_collection`'s collection and of the timing, with these defaults."""
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--queries", type=int, default=queries)
    parser.add_argument("--depth", type=int, default=depth)
    parser.add_argument("--judged", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    collection_arguments(parser, runs=100, queries=200, depth=100)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        qrels, runs = write_collection(Path(folder), args.runs, args.queries, args.depth, args.judged, args.seed)
        judged = [sys.executable, "-c", "from judged.cli import main; main()", "eval", *map(str, runs),
                  "--qrels", str(qrels), "--no-judged", *(a for m in MEASURES for a in ("-m", m))]
        tools = {"judged eval (one call)": [judged],
                 "pytrec_eval loop (one process)": [[sys.executable, "-c", PYTREC_LOOP.format(names=TREC_NAMES),
                                                     str(qrels), *map(str, runs)]]}
        trec_eval = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
        if trec_eval:
            flags = [a for m in TREC_NAMES for a in ("-m", m)]
            tools["trec_eval, once per run"] = [[trec_eval, *flags, str(qrels), str(run)] for run in runs]
        rows = {tool: [timed(commands) for _ in range(args.repeat)] for tool, commands in tools.items()}
    load = os.getloadavg()[0]
    print(f"{args.runs} runs x {args.queries * args.depth:,} lines; load average {load:.1f} on {os.cpu_count()} cores")
    print("| tool | wall s | CPU s | judged is (CPU) | peak MB |\n|---|---|---|---|---|")
    medians = {tool: [statistics.median(t[i] for t in times) for i in range(3)] for tool, times in rows.items()}
    judged_cpu = medians["judged eval (one call)"][1]
    for tool, (wall, cpu, peak) in medians.items():
        print(f"| {tool} | {wall:.2f} | {cpu:.2f} | {cpu / judged_cpu:.2f}x faster | {peak:.0f} |")


if __name__ == "__main__":
    main()
