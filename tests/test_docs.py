"""Documentation that is generated must be current, and the README's quick start must be true."""

from __future__ import annotations

from pathlib import Path

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
