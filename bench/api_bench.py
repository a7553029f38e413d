"""Time judged's Python call shapes against pytrec_eval, ir_measures and ranx, in-process, on the same data.

Cases (five measures: nDCG@10, AP, RR, P@10, R@100):

* ``dicts``: one run of ``--queries`` x ``--depth`` documents as ``{qid: {docid: score}}``;
* ``polars`` / ``pandas``: the same run as a frame (judged reads it; the peers get the dicts);
* ``many``: ``--runs`` runs of ``--many-lines`` lines each against one judgments set prepared once
  (pytrec_eval's ``RelevanceEvaluator`` pattern; judged's through :mod:`judged.pytrec_eval`).

Each (case, tool) runs in a child process that builds the data and makes one warm-up call (neither
timed), then times the evaluation (median of ``--repeat``); peak memory is the child's ``ru_maxrss``,
data included (the same data for every tool).
Example: ``python bench/api_bench.py --queries 2000 --depth 1000 --repeat 3``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

MEASURES = ("nDCG@10", "AP", "RR", "P@10", "R@100")
TREC_NAMES = ("ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100")
TOOLS = {
    "dicts": ("judged", "judged.pytrec_eval", "pytrec_eval", "ir_measures", "ranx"),
    "polars": ("judged",),
    "pandas": ("judged",),
    "many": ("judged.pytrec_eval", "pytrec_eval", "ir_measures"),
}


def collection(queries: int, depth: int, seed: int) -> tuple[dict, dict]:
    """A run and judgments as dicts: ``depth`` scored documents and ``depth // 10`` judgments per query."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(queries):
        docs = rng.choice(depth * 5, depth, replace=False)
        run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, rng.random(depth))}
        judged = rng.choice(docs, max(1, depth // 10), replace=False)
        qrels[f"q{q}"] = {f"d{d}": int(g) for d, g in zip(judged, rng.integers(0, 4, len(judged)))}
    return run, qrels


def evaluation(tool: str, case: str, run: dict, qrels: dict, runs: list[dict]):
    """The timed call for ``tool`` on ``case``, as a function of no arguments."""
    if case == "many":
        if tool == "judged.pytrec_eval":
            from judged import pytrec_eval as shim

            return lambda: [e.evaluate(r) for e in [shim.RelevanceEvaluator(qrels, TREC_NAMES)] for r in runs]
        if tool == "pytrec_eval":
            import pytrec_eval

            return lambda: [e.evaluate(r) for e in [pytrec_eval.RelevanceEvaluator(qrels, TREC_NAMES)] for r in runs]
        import ir_measures

        measures = [ir_measures.parse_measure(m) for m in MEASURES]
        return lambda: [e.calc_aggregate(r) for e in [ir_measures.evaluator(measures, qrels)] for r in runs]
    if tool == "judged":
        import judged

        source = run
        if case in ("polars", "pandas"):
            import polars as pl

            frame = pl.DataFrame({"qid": [q for q, d in run.items() for _ in d],
                                  "docid": [x for d in run.values() for x in d],
                                  "score": [s for d in run.values() for s in d.values()]})
            source = frame.to_pandas() if case == "pandas" else frame
        return lambda: judged.evaluate(source, qrels, MEASURES)
    if tool == "judged.pytrec_eval":
        from judged import pytrec_eval as shim

        return lambda: shim.RelevanceEvaluator(qrels, TREC_NAMES).evaluate(run)
    if tool == "pytrec_eval":
        import pytrec_eval

        return lambda: pytrec_eval.RelevanceEvaluator(qrels, TREC_NAMES).evaluate(run)
    if tool == "ir_measures":
        import ir_measures

        measures = [ir_measures.parse_measure(m) for m in MEASURES]
        return lambda: ir_measures.calc_aggregate(measures, qrels, run)
    import ranx

    # ranx's names for the five measures; its Qrels and Run are built inside the timing, as judged's are
    return lambda: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["ndcg@10", "map", "mrr", "precision@10",
                                                                     "recall@100"])


def child(args: argparse.Namespace) -> None:
    """Build the data, time the call ``--repeat`` times, print one JSON line."""
    if args.case == "many":
        lines_per_query = 100
        queries = max(1, args.many_lines // lines_per_query)
        runs = [collection(queries, lines_per_query, args.seed + i)[0] for i in range(args.runs)]
        _, qrels = collection(queries, lines_per_query, args.seed)
        run: dict = {}
    else:
        run, qrels = collection(args.queries, args.depth, args.seed)
        runs = []
    call = evaluation(args.tool, args.case, run, qrels, runs)
    call()  # warm: imports, lazy loading and ranx's numba compilation are not what is measured
    times, cpu = [], []
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": statistics.median(times), "cpu": statistics.median(cpu), "peak_mb": peak}))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--many-lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", default=",".join(TOOLS))
    parser.add_argument("--child", nargs=2, metavar=("CASE", "TOOL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        args.case, args.tool = args.child
        child(args)
        return
    passed = [f"--{k.replace('_', '-')}={v}" for k, v in vars(args).items()
              if k in ("queries", "depth", "runs", "many_lines", "repeat", "seed")]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU = user + system seconds of the "
          "process (all its threads)")
    print("| case | tool | seconds | vs pytrec_eval | CPU s | vs pytrec_eval (CPU) | peak MB |\n"
          "|---|---|---|---|---|---|---|")
    for case in args.cases.split(","):
        rows = {}
        for tool in TOOLS[case]:
            done = subprocess.run([sys.executable, __file__, "--child", case, tool, *passed],
                                  capture_output=True, text=True)
            if done.returncode:
                rows[tool] = None
                print(f"| {case} | {tool} | failed: {done.stderr.strip().splitlines()[-1]} | | | | |")
                continue
            rows[tool] = json.loads(done.stdout.strip().splitlines()[-1])
        base = rows.get("pytrec_eval") or (_pytrec_dicts(passed) if case in ("polars", "pandas") else None)
        for tool, row in rows.items():
            if row is None:
                continue
            speedup = f"{base['seconds'] / row['seconds']:.2f}x" if base else ""
            cpu_speedup = f"{base['cpu'] / row['cpu']:.2f}x" if base else ""
            print(f"| {case} | {tool} | {row['seconds']:.3f} | {speedup} | {row['cpu']:.3f} | {cpu_speedup} | "
                  f"{row['peak_mb']:.0f} |")


def _pytrec_dicts(passed: list[str]) -> dict | None:
    """pytrec_eval on the equivalent dicts, the baseline of the frame cases."""
    done = subprocess.run([sys.executable, __file__, "--child", "dicts", "pytrec_eval", *passed],
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None


if __name__ == "__main__":
    main()
