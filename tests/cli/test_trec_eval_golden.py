"""`judged trec_eval` against trec_eval 10's own output, stored: the whole stdout byte for byte, and the exit status.

tests/data/trec_eval_golden/ holds small collections and what trec_eval 10.0-rc3 (usnistgov/trec_eval commit
f425365) printed for each command line of its cases.json: -c's stand-in ranking, -J's unj and -nan, -l2 with
num_rel's recount, -Z with gm_map, a run read from standard input, and exit 4 after the lines printed before it.
Its README says how they were made; no binary is needed here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judged.cli import main

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "trec_eval_golden"
CASES = json.loads((GOLDEN / "cases.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_judged_trec_eval_prints_what_trec_eval_printed(case, monkeypatch):
    expected = (case["status"], (GOLDEN / f"{case['name']}.out").read_text())
    if case["stdin"]:  # a process of its own: CliRunner's standard input has no file descriptor
        done = subprocess.run([sys.executable, "-c", "from judged.cli import main; main()", "trec_eval",
                               *case["words"]], cwd=GOLDEN, input=(GOLDEN / case["stdin"]).read_text(),
                              capture_output=True, text=True)
        assert (done.returncode, done.stdout) == expected, done.stderr
        return
    monkeypatch.chdir(GOLDEN)
    result = CliRunner().invoke(main, ["trec_eval", *case["words"]])
    assert (result.exit_code, result.stdout) == expected, result.stderr
