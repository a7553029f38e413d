"""Documentation that is generated must be current, and the README's quick start must be true."""

from __future__ import annotations

import glob
import re
import shlex
import shutil
from pathlib import Path

from click.testing import CliRunner

from judged.cli import main
from judged.measures.reference import measures_text

ROOT = Path(__file__).resolve().parents[1]


def test_measures_reference_is_current():
    committed = (ROOT / "docs" / "measures.md").read_text()
    assert committed == measures_text() + "\n", "docs/measures.md is stale: run `judged measures > docs/measures.md`"


def test_readme_quick_start_has_exactly_two_commands():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip() and not line.startswith("#")]
    assert len(commands) == 2
    assert "judged eval" in commands[0] and "pytest" in commands[1]


def _readme_blocks(language: str) -> list[str]:
    """The README's example code blocks in ``language`` (``""`` for shell), between the quick start and Development."""
    text = (ROOT / "README.md").read_text().split("## A screen of examples", 1)[1].split("\n## Development", 1)[0]
    blocks: list[tuple[str, list[str]]] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("```"):
            if not inside:
                blocks.append((line[3:], []))
            inside = not inside
        elif inside:
            blocks[-1][1].append(line)
    return ["\n".join(lines) + "\n" for opened, lines in blocks if opened == language]


def _run_readme_commands(block: str) -> list[tuple[list[str], int, str]]:
    """Each ``judged`` command of ``block`` run in order (``&&`` chains split), with its exit status and output."""
    runner = CliRunner()
    outcomes = []
    for line in block.replace("&& judged", "\njudged").splitlines():
        words = shlex.split(line, comments=True)
        if not words or words[:2] == ["judged", "serve"]:  # the server runs until stopped: tests/web drive it
            continue
        args = [part for word in words[1:] for part in (sorted(glob.glob(word)) if "*" in word else [word])]
        result = runner.invoke(main, args)
        outcomes.append((words, result.exit_code, result.output))
    return outcomes


def test_the_readme_examples_run_as_written(tmp_path, examples, monkeypatch):
    shutil.copytree(examples, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGED_DB", raising=False)
    commands, effort = _readme_blocks("")[:2]
    outcomes = _run_readme_commands(commands) + _run_readme_commands(effort)
    assert [(words[1], code) for words, code, _ in outcomes if code != 0] == []
    assert len(outcomes) == 6 + 8  # `judged serve` left out
    assert (tmp_path / "report.html").stat().st_size > 0
    assert ("judgment sets: 1 checked, 1 re-derived from the log up to their head\n"
            "ok: the history is the one the store wrote") in outcomes[-1][2]


def test_the_readme_python_example_runs_as_written(examples, monkeypatch):
    monkeypatch.chdir(examples.parent)
    (code,) = _readme_blocks("python")
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert 0 < namespace["result"].value("nDCG@10") < 1  # type: ignore[attr-defined]


def test_every_relative_link_in_the_readme_and_docs_resolves():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = [(page.name, target) for page in pages
              for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text())
              if "://" not in target and not (page.parent / target).exists()]
    assert broken == []


def test_the_docs_index_lists_every_page():
    index = (ROOT / "docs" / "index.md").read_text()
    pages = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "index.md"]
    assert [name for name in pages if f"({name})" not in index] == []
