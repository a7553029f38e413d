"""`judged rubric check`: the bundled rubric is clean; every rule fires on a bad rubric, at the right line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from judged.cli import main
from judged.errors import InputError
from judged.rubric import Rubric, check_rubric, load_rubric
from judged.rubric.wording import COMPARATIVE_PHRASES, COMPARATIVE_WORDS

GOLDEN = Path(__file__).parents[1] / "agreement" / "golden"

BAD_TOML = '''\
name = "bad"
version = "2"
scale = [0, 3]

[[level]]
grade = 3
label = "best answer"
description = """
The user can complete the task; it is the most \\
relevant page of all."""

[[level]]
grade = 2
label = "partial"
description = "Highly relevant document."

[[level]]
grade = 2
label = "Best answer"
description = "The user can use part of it, better than the others."

[[level]]
grade = 5
label = "off the scale"
description = "The user can do nothing."
'''


def _write(tmp_path: Path, text: str, name: str = "rubric.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _findings(path: Path):
    return [(f.rule, f.grade, f.line, f.text) for f in check_rubric(load_rubric(path))]


def test_bundled_rubric_is_clean(examples):
    rubric = load_rubric(examples / "rubric.toml")
    assert rubric.grades == (0, 1, 2, 3)
    assert [level.grade for level in rubric.levels] == [0, 1, 2, 3]
    assert [level.line for level in rubric.levels] == [41, 31, 22, 14]
    assert rubric.levels[3].label == "completes the task"
    assert check_rubric(rubric) == ()
    result = CliRunner().invoke(main, ["rubric", "check", str(examples / "rubric.toml")])
    assert result.exit_code == 0, result.output
    assert result.output == "rubric tidewater-docs v1 (" + str(examples / "rubric.toml") + \
        ") is clean: 4 levels, grades 0..3\n"


def test_every_rule_fires_at_its_line(tmp_path):
    path = _write(tmp_path, BAD_TOML)
    assert _findings(path) == [
        ("missing-level", 0, 3, "scale = [0, 3]"),
        ("missing-level", 1, 3, "scale = [0, 3]"),
        ("comparative", 3, 7, "best"),
        ("comparative", 3, 9, "most relevant"),          # the phrase is split by a TOML line continuation
        ("no-user-ability", 2, 15, "Highly relevant document."),
        ("duplicate-grade", 2, 18, "2"),
        ("duplicate-label", 2, 19, "Best answer"),       # same label as grade 3, up to case
        ("comparative", 2, 19, "best"),
        ("comparative", 2, 20, "better"),
        ("outside-scale", 5, 23, "5"),
    ]


def test_cli_reports_findings_with_path_and_line_and_exits_1(tmp_path):
    path = _write(tmp_path, BAD_TOML)
    result = CliRunner().invoke(main, ["rubric", "check", str(path)])
    assert result.exit_code == 1
    expected = (GOLDEN / "rubric_check.txt").read_text().replace("{path}", str(path))
    assert result.output == expected


def test_cli_json(tmp_path):
    path = _write(tmp_path, BAD_TOML)
    result = CliRunner().invoke(main, ["rubric", "check", str(path), "--format", "json"])
    assert result.exit_code == 1
    record = json.loads(result.output)
    assert record["clean"] is False and record["grades"] == [0, 1, 2, 3] and record["version"] == "2"
    assert record["findings"][2] == {"rule": "comparative", "grade": 3, "line": 7, "text": "best",
                                     "message": record["findings"][2]["message"]}


def test_yaml_rubric_has_the_same_findings_at_yaml_lines(tmp_path):
    path = _write(tmp_path, """\
name: bad
scale: [0, 2]
level:
  - grade: 2
    label: ideal page
    description: >
      The user can complete the task
      with the top result.
  - grade: 0
    label: off topic
    description: The user cannot use it.
""", "rubric.yaml")
    assert _findings(path) == [
        ("missing-level", 1, 2, "scale = [0, 2]"),
        ("comparative", 2, 5, "ideal"),
        ("comparative", 2, 8, "top"),
    ]


def test_no_scale_uses_the_levels_and_says_so(tmp_path):
    rubric = Rubric.from_dict({"level": [
        {"grade": 0, "label": "no", "description": "The user cannot use it."},
        {"grade": 2, "label": "yes", "description": "The user can finish the task."}]})
    assert rubric.grades == (0, 1, 2)
    assert [f.rule for f in check_rubric(rubric)] == ["no-scale"]


def test_empty_label_and_description_and_ability_without_user():
    rubric = Rubric.from_dict({"scale": [0, 1], "level": [
        {"grade": 0, "description": ""},
        {"grade": 1, "label": "ok", "description": "Can be completed quickly."}]})
    found = {(f.rule, f.grade): f for f in check_rubric(rubric)}
    assert set(found) == {("empty-label", 0), ("empty-description", 0), ("no-user-ability", 1)}
    assert found[("no-user-ability", 1)].message.endswith("it does not name the user, their need or their task")


@pytest.mark.parametrize("text, problem, line", [
    ('scale = [0, 3\n', "invalid TOML", 1),
    ('name = "x"\nversion = = 2\n[[level]]\ngrade = 1\n', "invalid TOML", 2),
    ('scale = [3, 0]\n[[level]]\ngrade = 1\n', "scale is not [lowest, highest]", 1),
    ('scale = [0, 1]\n\n[[level]]\nlabel = "x"\n', "level has no integer grade", 3),
    ('scale = [0, 1]\n[[level]]\ngrade = true\n', "level has no integer grade", 2),
    ('scale = [0, 1]\n[[level]]\ngrade = 1\nlabel = 3\n', "level 1: label is not text", 2),
    ('name = "x"\n', "the rubric has no levels", None),
])
def test_structural_errors_name_file_and_line(tmp_path, text, problem, line):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as err:
        load_rubric(path)
    assert err.value.problem.startswith(problem) and err.value.line == line and err.value.path == str(path)
    result = CliRunner().invoke(main, ["rubric", "check", str(path)])
    assert result.exit_code == 1 and "Error: " + str(path) in result.output


def test_missing_file_is_an_input_error(tmp_path):
    result = CliRunner().invoke(main, ["rubric", "check", str(tmp_path / "nope.toml")])
    assert result.exit_code == 1 and "no such rubric file" in result.output


CLEAN_LEVEL = ('[[level]]\ngrade = {g}\nlabel = "level {g}"\n'
               'description = """\nThe user can {words}\\\n  finish the task."""\n')


@settings(max_examples=40, deadline=None)
@given(term=st.sampled_from(COMPARATIVE_PHRASES + COMPARATIVE_WORDS), level=st.integers(0, 2),
       upper=st.booleans())
def test_any_comparative_term_is_found_at_its_line(tmp_path_factory, term, level, upper):
    words = " \\\n".join((term.upper() if upper else term).split()) + " "
    body = "scale = [0, 2]\n" + "".join(
        CLEAN_LEVEL.format(g=g, words=words if g == level else "") for g in range(3))
    path = tmp_path_factory.mktemp("r") / "rubric.toml"
    path.write_text(body)
    # each level block is 6 lines after the scale line; the term starts on the description's second line
    assert _findings(path) == [("comparative", level, 2 + 6 * level + 4, term)]
