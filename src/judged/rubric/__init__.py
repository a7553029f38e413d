"""Grading rubrics: load one (TOML, or YAML with PyYAML), use its fixed grade domain, lint its wording.

>>> from judged.rubric import Rubric, check_rubric
>>> r = Rubric.from_dict({"scale": [0, 1], "level": [
...     {"grade": 1, "label": "usable", "description": "The user can complete the task with it."},
...     {"grade": 0, "label": "not usable", "description": "The user cannot use it for the task."}]})
>>> r.grades, check_rubric(r)
((0, 1), ())
"""

from judged.rubric.lint import Finding, check_rubric
from judged.rubric.load import load_rubric
from judged.rubric.model import Level, Rubric

__all__ = ["Finding", "Level", "Rubric", "check_rubric", "load_rubric"]
