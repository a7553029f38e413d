"""Time and peak memory to refuse a file of NUL bytes (a failed copy, a sparse file), judged beside its peers.

Usage: ``python3 bench/junk_bench.py [--gigabytes 2] [--tools judged_eval,judged_trec_eval,pytrec_eval,ir_measures]``

Each tool reads the same sparse file of NUL bytes as a TREC run in a fresh process and must fail; the table
gives its wall time, peak RSS and the first line of what it said. A peer that runs past ``--timeout`` seconds
is stopped and shown as such. docs/formats.md ("Line length") says what judged promises.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QRELS = ROOT / "examples" / "qrels.txt"
PEER = ("import sys\n"
        "if sys.argv[1] == 'pytrec_eval':\n"
        "    import pytrec_eval; pytrec_eval.parse_run(open(sys.argv[2]))\n"
        "else:\n"
        "    import ir_measures; list(ir_measures.read_trec_run(sys.argv[2]))\n")


def command(tool: str, run: str) -> list[str]:
    judged = str(Path(sys.executable).with_name("judged"))
    return {
        "judged_eval": [judged, "eval", run, "--qrels", str(QRELS)],
        "judged_trec_eval": [judged, "trec_eval", str(QRELS), run],
        "pytrec_eval": [sys.executable, "-c", PEER, "pytrec_eval", run],
        "ir_measures": [sys.executable, "-c", PEER, "ir_measures", run],
    }[tool]


def measure(argv: list[str], timeout: float) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB (this child's alone, from wait4) and the last line of its stderr."""
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
        timer = threading.Timer(timeout, child.kill)
        timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        stopped = not timer.is_alive()
        timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().strip().splitlines()
    said = f"stopped after {timeout:.0f} s" if stopped else (lines or [f"exit {child.returncode}"])[-1][:70]
    return seconds, usage.ru_maxrss / 1024, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=2.0)
    parser.add_argument("--tools", default="judged_eval,judged_trec_eval,pytrec_eval,ir_measures")
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        run = os.path.join(folder, "zeros.run")
        with open(run, "wb") as out:
            out.truncate(int(args.gigabytes * (1 << 30)))
        print(f"| tool | seconds | peak RSS (MB) | what it said ({args.gigabytes:g} GB of NUL bytes) |")
        print("|---|---:|---:|---|")
        for tool in args.tools.split(","):
            seconds, megabytes, said = measure(command(tool, run), args.timeout)
            print(f"| {tool} | {seconds:.2f} | {megabytes:,.0f} | {said} |", flush=True)


if __name__ == "__main__":
    main()
