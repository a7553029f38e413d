"""Time one small evaluation as a whole process, as a shell loop over runs or folds pays it each time.

``judged trec_eval -m map`` on trec_eval's own small test files (tests/data/trec_eval: 4 queries, 600 run lines)
against the trec_eval binary on the same files, pytrec_eval doing the same in a fresh interpreter, and the floors
a Python tool stands on: the interpreter alone and ``import numpy``, ``import polars``, ``import pyarrow``. Each
row is a fresh child process; wall and CPU seconds (user + system, ``os.wait4``) are medians over ``--repeat``
(no peak memory: a forked child's high-water mark starts at this process's size). trec_eval is used when
``$TREC_EVAL`` or ``trec_eval`` on the PATH names it.

Example: ``python bench/cold_start_bench.py --repeat 20``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

from many_runs_bench import timed

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "trec_eval"
PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
values = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
print("map", "all", sum(v["map"] for v in values.values()) / len(values))
"""


def commands() -> dict[str, list[str]]:
    """Each row's command line, in the order printed."""
    qrels, run = str(DATA / "qrels.test"), str(DATA / "results.test")
    rows = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
        "python -c 'import pyarrow'": [sys.executable, "-c", "import pyarrow"],
        "python -c 'import polars'": [sys.executable, "-c", "import polars"],
        "judged trec_eval -m map": [sys.executable, "-c", "from judged.cli import main; main()", "trec_eval",
                                    "-m", "map", qrels, run],
        "pytrec_eval (fresh interpreter)": [sys.executable, "-c", PYTREC, qrels, run],
    }
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if binary:
        rows["trec_eval -m map (C binary)"] = [binary, "-m", "map", qrels, run]
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args(argv)
    rows = commands()
    for command in rows.values():  # warm: compiled bytecode and the page cache are not what is measured
        timed([command])
    times = {name: [timed([command]) for _ in range(args.repeat)] for name, command in rows.items()}
    medians = {name: [statistics.median(t[i] for t in runs) for i in range(3)] for name, runs in times.items()}
    numpy_cpu = medians["python -c 'import numpy'"][1]
    print(f"median of {args.repeat}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| process | wall s | CPU s | CPU / import numpy's |\n|---|---|---|---|")
    for name, (wall, cpu, _) in medians.items():
        print(f"| {name} | {wall:.3f} | {cpu:.3f} | {cpu / numpy_cpu:.2f}x |")


if __name__ == "__main__":
    main()
