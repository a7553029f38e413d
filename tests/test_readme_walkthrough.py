"""The README's judgment-store walkthrough runs as written, end to end, on a fresh store (a user's first hour)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def walkthrough() -> list[str]:
    """The README's store commands, from `judged import queries` to the automatic assessor's freeze, one per
    entry (continuation lines joined), comments kept: a command whose comment says "exit N" must exit N."""
    blocks, inside = [], False
    for line in (ROOT / "README.md").read_text().splitlines(keepends=True):
        if line.startswith("```"):
            inside = not inside
            if inside:
                blocks.append("")
        elif inside:
            blocks[-1] += line
    start = next(i for i, b in enumerate(blocks) if b.startswith("judged import queries"))
    automatic = next(i for i, b in enumerate(blocks) if b.startswith("judged import automatic"))
    text = blocks[start] + blocks[automatic]
    return [line for line in text.replace("\\\n", " ").splitlines() if line.startswith("judged ")]


def test_the_store_walkthrough_runs_as_written(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {**os.environ, "JUDGED_DB": str(tmp_path / "judged.db"),
           "PATH": f"{Path(sys.executable).absolute().parent}{os.pathsep}{os.environ['PATH']}"}
    commands = walkthrough()
    assert len(commands) >= 20 and commands[-1].startswith("judged freeze with-llm")
    for command in commands:
        expected = int(found.group(1)) if (found := re.search(r"exit (\d+)", command)) else 0
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == expected, (command, done.stdout[-2000:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr, command
    assert (tmp_path / "qrels.txt").is_file() and (tmp_path / "qrels.txt.sidecar.json").is_file()
