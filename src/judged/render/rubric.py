"""Text and JSON for ``judged rubric check``: one line per finding, ``path:line: grade G: rule: message: 'text'``."""

from __future__ import annotations

import json
from dataclasses import asdict

from judged.rubric import Finding, Rubric


def render_findings(rubric: Rubric, findings: tuple[Finding, ...]) -> str:
    """Compiler-style lines a user can jump to, then a one-line summary."""
    where = rubric.path or "<rubric>"
    lines = []
    for f in findings:
        place = f"{where}:{f.line}" if f.line is not None else where
        level = f" grade {f.grade}:" if f.grade is not None else ""
        shown = f.text if len(f.text) <= 100 else f.text[:97] + "..."
        lines.append(f"{place}:{level} {f.rule}: {f.message}" + (f": {shown!r}" if shown else ""))
    title = f"rubric {rubric.name}" + (f" v{rubric.version}" if rubric.version else "")
    grades = rubric.grades
    span = f"grades {grades[0]}..{grades[-1]}" if grades else "no grades"
    if findings:
        lines.append(f"{len(findings)} finding{'s' if len(findings) != 1 else ''} in {title} ({where})")
    else:
        lines.append(f"{title} ({where}) is clean: {len(rubric.levels)} levels, {span}")
    return "\n".join(lines) + "\n"


def render_findings_json(rubric: Rubric, findings: tuple[Finding, ...]) -> str:
    """``{"path", "name", "version", "grades", "clean", "findings": [...]}``."""
    record = {
        "path": rubric.path,
        "name": rubric.name,
        "version": rubric.version,
        "grades": list(rubric.grades),
        "clean": not findings,
        "findings": [asdict(f) for f in findings],
    }
    return json.dumps(record, indent=2) + "\n"
