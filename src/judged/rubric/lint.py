"""``judged rubric check``: the findings that make a rubric's grades unrepeatable, each located in the file.

Rules (``Finding.rule``):

- ``no-scale``: no ``scale = [lowest, highest]``, so a missing level cannot be seen;
- ``missing-level``: a grade of the scale has no level;
- ``outside-scale``: a level's grade is not in the scale;
- ``duplicate-grade`` / ``duplicate-label``: two levels share a grade or a label;
- ``empty-label`` / ``empty-description``;
- ``no-user-ability``: the description names no user (or their need or task), or
  no ability or action, so it does not say what the user can do with the document;
- ``comparative``: comparative wording (best, better, most relevant, top, ...) in a
  label or description.

The word lists are in :mod:`judged.rubric.wording`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judged.rubric.model import Level, Rubric
from judged.rubric.wording import (
    COMPARATIVE,
    comparative_terms,
    names_ability,
    names_user,
)


@dataclass(frozen=True)
class Finding:
    """One problem: the rule, a plain message, the level's grade, the file line and the offending text."""

    rule: str
    message: str
    grade: int | None
    line: int | None
    text: str


def check_rubric(rubric: Rubric) -> tuple[Finding, ...]:
    """Every finding in ``rubric``, in file order (then by grade; findings without a line last); empty when clean.

    >>> from judged.rubric import Rubric
    >>> r = Rubric.from_dict({"scale": [0, 1], "level": [
    ...     {"grade": 1, "label": "best", "description": "The user can complete the task."},
    ...     {"grade": 0, "label": "off topic", "description": "Not about the query."}]})
    >>> [(f.rule, f.grade, f.text) for f in check_rubric(r)]
    [('no-user-ability', 0, 'Not about the query.'), ('comparative', 1, 'best')]
    """
    locate = _Locator(rubric)
    findings: list[Finding] = []
    findings += _scale_findings(rubric, locate)
    findings += _duplicate_findings(rubric, locate)
    for level in rubric.levels:
        findings += _level_findings(level, locate)
    return tuple(sorted(findings, key=lambda f: (f.line is None, f.line or 0, f.grade is None, f.grade or 0)))


def _scale_findings(rubric: Rubric, locate: _Locator) -> list[Finding]:
    if rubric.scale is None:
        return [Finding("no-scale", "no scale declared: write scale = [lowest, highest] so a missing level shows",
                        None, None, "")]
    low, high = rubric.scale
    used = {level.grade for level in rubric.levels}
    text = f"scale = [{low}, {high}]"
    findings = [Finding("missing-level", f"grade {g} of the scale has no level", g, rubric.scale_line, text)
                for g in range(low, high + 1) if g not in used]
    findings += [Finding("outside-scale", f"grade {level.grade} is outside the scale {low}..{high}", level.grade,
                         locate.key(level, "grade"), str(level.grade))
                 for level in rubric.levels if not low <= level.grade <= high]
    return findings


def _duplicate_findings(rubric: Rubric, locate: _Locator) -> list[Finding]:
    findings = []
    grades: dict[int, Level] = {}
    labels: dict[str, Level] = {}
    for level in sorted(rubric.levels, key=lambda lv: (lv.line or 0)):
        if level.grade in grades:
            findings.append(Finding("duplicate-grade", f"grade {level.grade} is defined twice", level.grade,
                                    locate.key(level, "grade"), str(level.grade)))
        grades.setdefault(level.grade, level)
        key = " ".join(level.label.casefold().split())
        if key and key in labels:
            findings.append(Finding("duplicate-label",
                                    f"label already used by grade {labels[key].grade}", level.grade,
                                    locate.key(level, "label"), level.label))
        labels.setdefault(key, level)
    return findings


def _level_findings(level: Level, locate: _Locator) -> list[Finding]:
    findings = []
    for key in ("label", "description"):
        value = getattr(level, key)
        if not value:
            findings.append(Finding(f"empty-{key}", f"the level has no {key}", level.grade, level.line, ""))
            continue
        for term, occurrence in comparative_terms(value):
            findings.append(Finding("comparative", f"comparative wording in the {key}: grade the document on "
                                    "its own, by what the user can do with it", level.grade,
                                    locate.term(level, key, term, occurrence), term))
    description = level.description
    user, ability = names_user(description), names_ability(description)
    if description and not (user and ability):
        if not user and not ability:
            gap = "it names neither the user (or their need or task) nor an ability or action"
        elif not user:
            gap = "it does not name the user, their need or their task"
        else:
            gap = "it has no word of ability or action (can, cannot, help, use, complete, ...)"
        findings.append(Finding("no-user-ability", f"the description does not say what the user can do with the "
                                f"document: {gap}", level.grade, locate.key(level, "description"), description))
    return findings


class _Locator:
    """Finds the file line of a level's key and of the n-th match of a term in that key's value."""

    def __init__(self, rubric: Rubric) -> None:
        self.text = rubric.text or ""
        self.offsets = [0] + [m.end() for m in re.finditer("\n", self.text)]
        yaml = (rubric.path or "").lower().endswith((".yaml", ".yml"))
        self.key_line = re.compile(r"^[ \t]*(?:-[ \t]+)?([A-Za-z_][\w-]*)[ \t]*" + (":" if yaml else "="),
                                   re.MULTILINE)
        self.starts = sorted(level.line for level in rubric.levels if level.line is not None)

    def _region(self, start: int) -> tuple[int, int]:
        """The text of the level starting on line ``start``: up to the next level's line, or the end."""
        after = [line for line in self.starts if line > start]
        return self.offsets[start - 1], self.offsets[after[0] - 1] if after else len(self.text)

    def _value_span(self, level: Level, key: str) -> tuple[int, int] | None:
        if not self.text or level.line is None:
            return None
        start, end = self._region(level.line)
        keys = list(self.key_line.finditer(self.text, start, end))
        for i, match in enumerate(keys):
            if match.group(1) == key:
                return match.start(), keys[i + 1].start() if i + 1 < len(keys) else end
        return None

    def _line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def key(self, level: Level, key: str) -> int | None:
        """The line of ``key`` in the level, else the level's first line."""
        span = self._value_span(level, key)
        return self._line(span[0]) if span else level.line

    def term(self, level: Level, key: str, term: str, occurrence: int) -> int | None:
        """The line of the ``occurrence``-th match of ``term`` in the value of ``key``."""
        span = self._value_span(level, key)
        if span is None:
            return level.line
        pattern = dict(COMPARATIVE)[term]
        matches = list(pattern.finditer(self.text, span[0], span[1]))
        chosen = matches[occurrence] if occurrence < len(matches) else None
        return self._line(chosen.start()) if chosen else self._line(span[0])
