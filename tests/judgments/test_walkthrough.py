"""The judging walk-through (docs/walkthrough.md), command by command as printed, ends in an agreement report."""

from __future__ import annotations

import glob
import shlex
import shutil
from pathlib import Path

from click.testing import CliRunner

from judged.cli import main

WALKTHROUGH = Path(__file__).parents[2] / "docs" / "walkthrough.md"


def _walkthrough() -> list[list[str]]:
    text = WALKTHROUGH.read_text()
    block = text.split("## Judgments: the store", 1)[1].split("```\n", 2)[1]
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.startswith("judged ")]


def test_the_walkthrough_runs_and_ends_in_an_agreement_report(tmp_path, examples, monkeypatch):
    shutil.copytree(examples, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGED_DB", raising=False)
    runner = CliRunner()
    commands = _walkthrough()
    assert commands[-1][:2] == ["judged", "agreement"]
    for command in commands:
        args = [part for word in command[1:] for part in (sorted(glob.glob(word)) if "*" in word else [word])]
        result = runner.invoke(main, args)
        expected = 3 if command[1] == "agreement" else 0  # the gate fails on purpose: 91 pairs < 300
        assert result.exit_code == expected, (command, result.output)
    assert "nist vs nist2: 91 pairs graded by both" in result.output
    assert "linear kappa" in result.output and "gate (at least 300 pairs" in result.output


def test_the_automatic_assessor_block_runs_after_the_walkthrough(tmp_path, examples, monkeypatch):
    """The block that imports the LLM judge, calibrates it and freezes with it, on the walk-through's store."""
    shutil.copytree(examples, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGED_DB", raising=False)
    section = WALKTHROUGH.read_text().split("## Judgments: the store", 1)[1]
    block = next(b for b in section.split("```\n")[1::2] if b.startswith("judged import automatic"))
    automatic = [shlex.split(line, comments=True) for line in block.replace("\\\n", " ").splitlines()]
    assert [c[:3] for c in automatic] == [["judged", "import", "automatic"], ["judged", "calibrate",
                                                                                "examples/runs/*.run"],
                                          ["judged", "freeze", "with-llm"]]
    runner = CliRunner()
    for command in _walkthrough() + automatic:
        args = [part for word in command[1:] for part in (sorted(glob.glob(word)) if "*" in word else [word])]
        result = runner.invoke(main, args)
        assert result.exit_code == (3 if command[1] == "agreement" else 0), (command, result.output)
    assert result.output.startswith("froze with-llm@1 sha256:")
