"""`judged compare`: means with CIs, corrected paired tests against a baseline, and every output format."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import judged
from judged.cli import main
from judged.stats import holm, randomization_test
from judged.stats.compare import compare


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


GOLDEN = Path(__file__).parent / "golden" / "compare"


def _dict_results(per_query: dict[str, list[float]]) -> list[judged.Result]:
    """One RR result per named run: the relevant document at rank 1 (RR 1) or rank 2 (RR 0.5) on each query."""
    n = len(next(iter(per_query.values())))
    qrels = {f"q{i}": {"r": 1} for i in range(n)}
    runs = {name: {f"q{i}": {"r": 2.0, "n": 1.0} if rr == 1.0 else {"r": 1.0, "n": 2.0} for i, rr in enumerate(values)}
            for name, values in per_query.items()}
    return [judged.evaluate(judged.Run.from_dict(run, name=name), qrels, ["RR"]) for name, run in runs.items()]


BASE = [1, 1, .5, .5, .5, .5, .5, .5]
SYSTEM = [.5, 1, 1, 1, 1, 1, .5, .5]


def test_risk_against_the_baseline_by_hand():
    row = compare(_dict_results({"base": BASE, "sys": SYSTEM}), permutations=99, resamples=99,
                  risk_alpha=1.0).measures[0].runs[1]
    # d = [-.5, 0, .5, .5, .5, .5, 0, 0]; with alpha 1 the loss doubles: r = [-1, 0, .5, .5, .5, .5, 0, 0].
    r = [-1, 0, .5, .5, .5, .5, 0, 0]
    urisk = sum(r) / 8  # 0.125
    sd = math.sqrt(sum((x - urisk) ** 2 for x in r) / 7)  # sqrt(1.875 / 7)
    assert row.risk.urisk == pytest.approx(0.125)
    assert row.risk.trisk == pytest.approx(urisk / (sd / math.sqrt(8)))
    assert row.risk.trisk == pytest.approx(0.683130, abs=1e-6)
    assert (row.risk.wins, row.risk.losses) == (4, 1)


def test_planning_by_hand():
    row = compare(_dict_results({"base": BASE, "sys": SYSTEM}), permutations=99, resamples=99,
                  plan_delta=0.1).measures[0].runs[1]
    d = [-.5, 0, .5, .5, .5, .5, 0, 0]
    mean = sum(d) / 8
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / 7)  # 0.372012
    z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)  # 2.801585
    assert row.planning.minimum_detectable == pytest.approx(z * sd / math.sqrt(8))
    assert row.planning.minimum_detectable == pytest.approx(0.368482, abs=1e-6)
    assert row.planning.queries_needed == math.ceil((z * sd / 0.1) ** 2) == 109
    assert row.planning.queries == 8


def test_planning_when_the_differences_do_not_vary():
    rows = compare(_dict_results({"a": BASE, "b": BASE}), permutations=99, resamples=99, plan_delta=0.1)
    planning = rows.measures[0].runs[1].planning
    assert (planning.minimum_detectable, planning.queries_needed, planning.queries) == (None, None, 8)


def test_tukey_a_dominating_system_against_two_identical_ones():
    dominant = [1.0] * 40
    results = _dict_results({"b": [0.5] * 40, "a": dominant, "c": [0.5] * 40})
    m = compare(results, permutations=999, resamples=99, correction="tukey").measures[0]
    assert m.matrix.runs == ("b", "a", "c") and m.matrix.correction == "tukey"
    assert m.matrix.p_values == ((1.0, 0.001, 1.0), (0.001, 1.0, 0.001), (1.0, 0.001, 1.0))
    a, c = m.runs[1], m.runs[2]
    assert a.p_value == a.p_adjusted == 0.001  # 1 / (B + 1): no within-query shuffle reaches a gap of 0.5
    assert c.p_value == c.p_adjusted == 1.0


def test_corrections_none_and_bh_and_the_holm_matrix_over_all_pairs(examples):
    qrels = examples / "qrels.txt"
    results = [judged.evaluate(examples / "runs" / f"{n}.run", qrels, ["nDCG@10"]) for n in ("bm25", "dense", "naive")]
    none = compare(results, permutations=2000, resamples=99, correction="none").measures[0].runs
    assert [r.p_adjusted for r in none[1:]] == [r.p_value for r in none[1:]]
    bh = compare(results, permutations=2000, resamples=99, correction="bh").measures[0].runs
    (low, high) = sorted(r.p_value for r in bh[1:])
    assert sorted(r.p_adjusted for r in bh[1:]) == pytest.approx([min(2 * low, high), high])  # m p_(i) / i
    m = compare(results, permutations=2000, resamples=99, matrix=True).measures[0]
    raw = [none[1].p_value, none[2].p_value,
           randomization_test(results[1].values[results[1].measures[0]], results[2].values[results[2].measures[0]],
                              permutations=2000).p_value]
    p = m.matrix.p_values
    assert [p[0][1], p[0][2], p[1][2]] == pytest.approx(holm(raw).tolist())
    assert [p[1][0], p[2][0], p[2][1]] == [p[0][1], p[0][2], p[1][2]] and p[0][0] == p[1][1] == p[2][2] == 1.0
    assert m.matrix.correction == "holm"


def test_bad_statistics_options():
    results = _dict_results({"a": BASE, "b": SYSTEM})
    with pytest.raises(judged.UsageError, match=re.escape("correction must be one of holm|bh|none|tukey")):
        compare(results, correction="bonferroni")
    with pytest.raises(judged.UsageError, match="plan_delta must be a finite float > 0"):
        compare(results, plan_delta=0.0)


def test_cli_refuses_tukey_with_a_correction(examples):
    runs = [str(examples / "runs" / f"{n}.run") for n in ("bm25", "dense")]
    result = CliRunner().invoke(main, ["compare", *runs, "--qrels", str(examples / "qrels.txt"), "--tukey",
                                       "--correction", "bh"])
    assert result.exit_code == 2 and "--tukey adjusts for every pair of runs itself" in result.output


GOLDEN_CASES = {
    "table": ["--risk-alpha", "1", "--plan-delta", "0.05"],
    "json": ["--risk-alpha", "1", "--plan-delta", "0.05"],
    "tsv": ["--risk-alpha", "1", "--plan-delta", "0.05", "--correction", "bh"],
    "latex": ["--tukey"],
    "table-tukey": ["--tukey"],
}


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden_outputs(examples, case, monkeypatch):
    """Byte-for-byte outputs; regenerate with JUDGED_UPDATE_GOLDEN=1 after a deliberate change, and read the diff."""
    monkeypatch.setenv("COLUMNS", "150")
    monkeypatch.chdir(examples.parent)
    runs = [f"examples/runs/{n}.run" for n in ("bm25", "dense", "naive")]
    fmt = case.split("-")[0]
    result = CliRunner().invoke(main, ["compare", *runs, "--qrels", "examples/qrels.txt", "-m", "nDCG@10", "-m",
                                       "R@100", "--permutations", "999", "--resamples", "999", "-f", fmt,
                                       *GOLDEN_CASES[case]])
    assert result.exit_code == 0, result.output
    path = GOLDEN / f"{case}.{'txt' if fmt == 'table' else fmt}"
    if os.environ.get("JUDGED_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(result.stdout)
    assert result.stdout == path.read_text()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=2, max_size=12))
def test_corrections_keep_their_order_and_the_matrix_its_shape(found):
    """none = raw <= BH <= Holm for every run; every matrix is symmetric with 1 on the diagonal and p >= 1/(B+1)."""
    per_run = {name: [1.0 if row[i] else 0.5 for row in found] for i, name in enumerate(("a", "b", "c"))}
    results = _dict_results(per_run)
    runs = {c: compare(results, permutations=99, resamples=9, correction=c, matrix=True).measures[0]
            for c in ("none", "bh", "holm", "tukey")}
    for i in (1, 2):
        raw = runs["none"].runs[i].p_value
        assert runs["none"].runs[i].p_adjusted == raw
        assert raw <= runs["bh"].runs[i].p_adjusted <= runs["holm"].runs[i].p_adjusted + 1e-12
        assert runs["tukey"].runs[i].p_value == runs["tukey"].matrix.p_values[i][0]
    for m in runs.values():
        p = np.array(m.matrix.p_values)
        assert np.array_equal(p, p.T) and np.all(np.diag(p) == 1.0) and np.all(p >= 1 / 100) and np.all(p <= 1.0)
