"""Regenerate the golden outputs from a trec_eval binary: ``python generate.py /path/to/trec_eval [--inputs]``.

Runs every case of ``cases.json`` in this folder (its words are the binary's arguments, file names relative to
this folder; ``stdin`` names the file fed to standard input, for a results file ``-``) and writes its stdout to
``CASE.out`` and its exit status into ``cases.json``. ``--inputs`` first rewrites the collections ``c27`` and
``c84`` with the differential test's generator (``tests/cli/test_trec_eval_differential.py``, ``collection``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write_inputs() -> None:
    """The generated collections, seeds 27 and 84 (-nan under -J, queries the run lacks, -1 grades, ties)."""
    sys.path.insert(0, str(HERE.parents[1] / "cli"))
    from test_trec_eval_differential import collection

    for seed in (27, 84):
        folder = HERE / f"c{seed}"
        folder.mkdir(exist_ok=True)
        collection(seed, folder)
        for unused in ("groups", "prefs"):
            (folder / unused).unlink()


def main(binary: str, inputs: bool) -> None:
    if inputs:
        write_inputs()
    cases = json.loads((HERE / "cases.json").read_text())
    for case in cases:
        stdin = (HERE / case["stdin"]).read_text() if case["stdin"] else None
        done = subprocess.run([binary, *case["words"]], cwd=HERE, input=stdin, capture_output=True, text=True)
        (HERE / f"{case['name']}.out").write_text(done.stdout)
        case["status"] = done.returncode
    (HERE / "cases.json").write_text(json.dumps(cases, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], "--inputs" in sys.argv[2:])
