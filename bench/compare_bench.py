"""Time ``judged compare`` against ``judged eval`` of the same runs: what the statistics add to the evaluation.

``--runs`` run files of ``--queries`` x ``--depth`` lines and one qrels are generated in a temporary folder (as
``many_runs_bench.py`` writes them); ``judged eval`` of all of them, ``judged compare`` (a paired randomization
test of every run against the first and bootstrap intervals of every mean, 10,000 of each) and ``judged compare
--tukey`` (the randomised Tukey HSD over all pairs besides) each run in a child process, nDCG@10. Wall and CPU
seconds (user + system, ``os.wait4``) are medians over ``--repeat``; the last column is each command's CPU over
``judged eval``'s.

Example: ``python bench/compare_bench.py --runs 10 --queries 10000 --depth 20``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from many_runs_bench import collection_arguments, timed, write_collection


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    collection_arguments(parser, runs=10, queries=10_000, depth=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        qrels, runs = write_collection(Path(folder), args.runs, args.queries, args.depth, args.judged, args.seed)
        judged = [sys.executable, "-c", "from judged.cli import main; main()"]
        common = [*map(str, runs), "--qrels", str(qrels), "-m", "nDCG@10"]
        commands = {"judged eval": [*judged, "eval", *common, "--no-judged"],
                    "judged compare": [*judged, "compare", *common],
                    "judged compare --tukey": [*judged, "compare", *common, "--tukey"]}
        times = {name: [timed([command]) for _ in range(args.repeat)] for name, command in commands.items()}
    medians = {name: [statistics.median(t[i] for t in runs) for i in range(2)] for name, runs in times.items()}
    pairs = args.runs * (args.runs - 1) // 2
    print(f"{args.runs} runs x {args.queries:,} queries x {args.depth} ({pairs} pairs); median of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| command | wall s | CPU s | CPU / judged eval's |\n|---|---|---|---|")
    base = medians["judged eval"][1]
    for name, (wall, cpu) in medians.items():
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {cpu / base:.2f}x |")


if __name__ == "__main__":
    main()
