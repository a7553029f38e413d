"""`judged agreement` through click: the report, the gate's exit codes (0 pass, 3 fail), errors, the JSON golden."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judged.cli import main

GOLDEN = Path(__file__).parent / "golden"
ASSESSORS = ["-a", "a1=examples/qrels.txt", "-a", "a2=examples/qrels.assessor2.txt"]


@pytest.fixture(autouse=True)
def _at_repo_root(examples, monkeypatch):
    monkeypatch.chdir(examples.parent)


def run_cli(*args):
    return CliRunner().invoke(main, ["agreement", *args])


def test_examples_fail_the_gate_on_overlap_with_exit_3():
    result = run_cli(*ASSESSORS, "--rubric", "examples/rubric.toml")
    assert result.exit_code == 3, result.output
    out = result.stdout
    assert "over grades 0, 1, 2, 3 (rubric tidewater-docs v1, examples/rubric.toml)" in out
    assert "pairs: 246 graded by anyone, 91 by two or more assessors" in out
    assert "a1 vs a2: 91 pairs graded by both, 68 identical (raw agreement 0.747)" in out
    assert "│ linear     │ 0.729 │" in out
    assert "│ 1       │  7 │ 5 │ 5 │ 0 │" in out                       # a confusion-matrix row
    assert "gate (at least 300 pairs graded by both, linear kappa at least 0.6): FAIL" in out
    assert "only 91 pairs were graded by both" in " ".join(out.split())


def test_examples_pass_a_smaller_gate_with_exit_0():
    result = run_cli(*ASSESSORS, "--rubric", "examples/rubric.toml", "--min-pairs", "90", "--weights", "quadratic",
                     "--min-kappa", "0.8")
    assert result.exit_code == 0, result.output
    assert "quadratic kappa at least 0.8): PASS" in result.stdout


def test_json_matches_the_golden_file():
    result = run_cli(*ASSESSORS, "--rubric", "examples/rubric.toml", "--resamples", "0", "-f", "json")
    assert result.exit_code == 3
    expected = json.loads((GOLDEN / "agreement_examples.json").read_text())
    got = json.loads(result.stdout)
    provenance = got.pop("provenance")  # the record every JSON output carries (tests/test_provenance.py)
    assert [i["path"] for i in provenance["inputs"]] == ["examples/qrels.txt", "examples/qrels.assessor2.txt"]
    _same(got, expected)


def _same(got, expected, where="$"):
    """Equal structure and values; floats to 1e-12 (matrix products may differ in the last bit by platform)."""
    if isinstance(expected, float):
        assert got == pytest.approx(expected, abs=1e-12), where
    elif isinstance(expected, dict):
        assert list(got) == list(expected), where
        for key in expected:
            _same(got[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected)):
            _same(g, e, f"{where}[{i}]")
    else:
        assert got == expected, where


def test_json_intervals_are_seeded():
    first = json.loads(run_cli(*ASSESSORS, "--resamples", "300", "--seed", "5", "-f", "json").stdout)
    again = json.loads(run_cli(*ASSESSORS, "--resamples", "300", "--seed", "5", "-f", "json").stdout)
    first.pop("provenance"), again.pop("provenance")  # which records the time
    kappa = first["pairs"][0]["kappas"][1]
    assert kappa["weights"] == "linear" and kappa["resamples"] == 300
    assert kappa["low"] < kappa["value"] < kappa["high"]
    assert first == again


def test_without_a_rubric_the_domain_is_the_grades_seen_with_a_warning():
    result = run_cli(*ASSESSORS)
    assert result.exit_code == 3
    assert "warning: no --rubric, so the grade domain is the grades seen (0..3)" in result.stderr
    assert "(no rubric: the grades seen)" in result.stdout


def test_output_file_is_written(tmp_path):
    target = tmp_path / "agreement.json"
    result = run_cli(*ASSESSORS, "--resamples", "0", "-f", "json", "-o", str(target))
    assert result.exit_code == 3 and result.stdout == ""
    assert json.loads(target.read_text())["overlap"] == 91


@pytest.mark.parametrize("args, message", [
    (["-a", "a1"], "--assessor takes NAME=FILE"),
    (["-a", "a1=examples/qrels.txt"], "at least two assessors"),
    (["-a", "a1=examples/qrels.txt", "-a", "a1=examples/qrels.assessor2.txt"], "assessor 'a1' is given twice"),
    ([*ASSESSORS, "--weights", "cubic"], "Invalid value for '--weights'"),
])
def test_usage_errors_exit_2(args, message):
    result = run_cli(*args)
    assert result.exit_code == 2
    assert message in result.output


def test_grade_outside_the_rubric_names_file_and_line(tmp_path):
    rubric = tmp_path / "narrow.toml"
    rubric.write_text(Path("examples/rubric.toml").read_text().replace("scale = [0, 3]", "scale = [0, 2]"))
    result = run_cli(*ASSESSORS, "--rubric", str(rubric))
    assert result.exit_code == 1
    line = next(i for i, text in enumerate(Path("examples/qrels.txt").read_text().splitlines(), 1)
                if text.endswith(" 3"))
    assert f"Error: examples/qrels.txt:{line}: grade 3 is not in the rubric's grades" in result.output


def test_missing_qrels_file_is_an_input_error():
    result = run_cli("-a", "a1=examples/qrels.txt", "-a", "a2=nope.txt")
    assert result.exit_code == 1 and "nope.txt: no such file" in result.output
