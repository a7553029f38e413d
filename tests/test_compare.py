"""`judged compare`: means with CIs, corrected paired tests against a baseline, and every output format."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import judged
from judged.cli import main
from judged.compare import compare


def test_identical_systems_have_p_one_and_a_zero_difference(examples):
    run, qrels = examples / "runs" / "bm25.run", examples / "qrels.txt"
    a, b = judged.evaluate(run, qrels, ["nDCG@10"]), judged.evaluate(run, qrels, ["nDCG@10"])
    row = compare([a, b], permutations=999, resamples=999).measures[0].runs[1]
    assert row.p_value == 1.0 and row.p_adjusted == 1.0
    assert row.difference.low <= 0.0 <= row.difference.high and row.difference.estimate == 0.0
    assert (row.wins_ties_losses.wins, row.wins_ties_losses.losses) == (0, 0)


def test_holm_adjusts_across_the_runs_compared(examples):
    qrels = examples / "qrels.txt"
    results = [judged.evaluate(examples / "runs" / f"{n}.run", qrels, ["nDCG@10"]) for n in ("bm25", "dense", "naive")]
    rows = compare(results, baseline="bm25", permutations=2000, resamples=500).measures[0].runs
    raw = sorted(r.p_value for r in rows[1:])
    adjusted = sorted(r.p_adjusted for r in rows[1:])
    assert adjusted[0] == pytest.approx(min(1.0, 2 * raw[0]))  # Holm: smallest p times the number of tests
    assert adjusted[1] == pytest.approx(max(adjusted[0], raw[1]))


def test_refuses_results_under_different_conventions_and_unknown_baselines(examples):
    run, qrels = examples / "runs" / "bm25.run", examples / "qrels.txt"
    a, b = judged.evaluate(run, qrels, ["nDCG@10"]), judged.evaluate(run, qrels, ["nDCG(gain=exp)@10"])
    with pytest.raises(judged.UsageError, match="different conventions"):
        compare([a, b])
    with pytest.raises(judged.UsageError, match="baseline 'x' is not one of the runs"):
        compare([a, judged.evaluate(run, qrels, ["nDCG@10"])], baseline="x")


@pytest.mark.parametrize("fmt", ["table", "json", "tsv", "latex"])
def test_cli_formats(examples, fmt):
    runs = [str(examples / "runs" / f"{n}.run") for n in ("bm25", "dense")]
    result = CliRunner().invoke(main, ["compare", *runs, "--qrels", str(examples / "qrels.txt"), "-m", "nDCG@10",
                                       "--permutations", "500", "--resamples", "500", "-f", fmt])
    assert result.exit_code == 0, result.output
    if fmt == "json":
        data = json.loads(result.stdout)
        assert data["measures"][0]["baseline"] == "bm25" and len(data["measures"][0]["runs"]) == 2
    elif fmt == "tsv":
        assert result.stdout.splitlines()[2].startswith("nDCG(gain=linear") and "\tdense\t" in result.stdout
    elif fmt == "latex":
        assert "\\begin{tabular}" in result.stdout and "nDCG(gain=linear" in result.stdout
    else:
        assert "baseline bm25" in result.stdout and "Holm correction" in result.stdout


def test_notebook_html_escapes_and_lists_every_run(examples):
    qrels = examples / "qrels.txt"
    results = [judged.evaluate(examples / "runs" / f"{n}.run", qrels, ["nDCG@10"]) for n in ("bm25", "naive")]
    page = compare(results, permutations=200, resamples=200)._repr_html_()
    assert page.count("<tr>") == 3 and "<td>naive</td>" in page and "<th>share&lt;</th>" in page
    assert "<caption>nDCG(gain=linear" in page
