"""The rubric as data: its levels (grade, label, description) and the fixed grade domain they define.

The domain is what agreement statistics are computed over: every grade of the
declared ``scale``, used or not, so that an unused middle grade still counts
as a step between its neighbours.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Level:
    """One grade of the rubric: what the grade is called and what the user can do with such a document.

    ``line`` is the line of the file where the level starts (None when built in memory).
    """

    grade: int
    label: str
    description: str
    line: int | None = None


@dataclass(frozen=True)
class Rubric:
    """A versioned grading rubric; ``levels`` are sorted by grade, ``grades`` is the full domain.

    >>> r = Rubric.from_dict({"name": "docs", "version": 2, "scale": [0, 2], "level": [
    ...     {"grade": 2, "label": "done", "description": "The user can complete the task."},
    ...     {"grade": 0, "label": "no use", "description": "The user cannot use it."}]})
    >>> [level.grade for level in r.levels], r.grades
    ([0, 2], (0, 1, 2))
    """

    name: str
    version: str
    scale: tuple[int, int] | None
    levels: tuple[Level, ...]
    path: str | None = None
    text: str | None = field(default=None, repr=False, compare=False)
    scale_line: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", tuple(sorted(self.levels, key=lambda level: level.grade)))

    @property
    def grades(self) -> tuple[int, ...]:
        """Every grade from the lowest to the highest of the scale (of the levels when no scale is declared)."""
        if self.scale is not None:
            low, high = self.scale
        elif self.levels:
            low, high = self.levels[0].grade, self.levels[-1].grade
        else:
            return ()
        return tuple(range(low, high + 1))

    @classmethod
    def from_dict(cls, data: dict, path: str | None = None) -> Rubric:
        """Build from the parsed file's mapping (``name``, ``version``, ``scale``, ``level`` list)."""
        from judged.rubric.load import rubric_from_data

        return rubric_from_data(data, path=path, text=None)
