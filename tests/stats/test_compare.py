"""`judged compare`: means with CIs, corrected paired tests against a baseline, and every output format."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.power import TTestPower

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


GOLDEN = Path(__file__).parents[1] / "golden" / "compare"


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
    power = TTestPower()  # the paired t-test's power: noncentral t with 7 degrees of freedom
    assert row.planning.minimum_detectable == pytest.approx(power.solve_power(nobs=8, alpha=0.05, power=0.8) * sd,
                                                            rel=1e-4)
    assert row.planning.minimum_detectable == pytest.approx(0.4301, abs=1e-4)  # the normal approximation: 0.3685
    needed = power.solve_power(effect_size=0.1 / sd, alpha=0.05, power=0.8)  # 110.6
    assert row.planning.queries_needed == math.ceil(needed) == 111  # the normal approximation said 109
    assert row.planning.queries == 8 and row.planning.minimum_queries == 6  # 2 / 2**6 <= 0.05 < 2 / 2**5


def test_planning_never_below_what_the_test_can_reach():
    # Five queries: the sign-flip test's smallest p is 2 / 2**5 = 0.0625, so nothing is detectable at 0.05, and a
    # huge difference still needs 6 queries (the t-test alone would say 3).
    rows = compare(_dict_results({"base": [.5] * 5, "sys": [1, 1, 1, 1, .5]}), permutations=999, resamples=99,
                   plan_delta=0.45).measures[0].runs
    planning = rows[1].planning
    assert rows[1].p_value > 0.05
    assert (planning.minimum_detectable, planning.minimum_queries, planning.queries_needed) == (None, 6, 6)
    with_holm = compare(_dict_results({"base": [.5] * 5, "a": [1, 1, 1, 1, .5], "b": [1] * 5}), permutations=99,
                        resamples=9, plan_delta=0.45).measures[0].runs[1].planning
    assert with_holm.minimum_queries == 7  # Holm over 2 tests: 2 * 2 / 2**6 = 0.0625, 2 * 2 / 2**7 = 0.031


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
    with pytest.raises(judged.UsageError, match="plan_delta must be a finite number > 0"):
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
    text = result.stdout
    if fmt == "json":  # the provenance records the time and the machine: checked in test_json_carries_provenance
        document = json.loads(text)
        assert "runs" in document.pop("provenance")
        text = json.dumps(document, indent=2) + "\n"
    path = GOLDEN / f"{case}.{'txt' if fmt == 'table' else fmt}"
    if os.environ.get("JUDGED_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()


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


def _without(path: Path, qid: str, out: Path) -> Path:
    out.write_text("".join(line for line in path.read_text().splitlines(keepends=True) if line.split()[0] != qid))
    return out


def test_every_number_of_a_row_is_over_the_same_queries(examples, tmp_path):
    """The issue's repro: drop q03 from naive; bm25's p10 and worst queries are over the 14 shared queries."""
    qrels = examples / "qrels.txt"
    naive = _without(examples / "runs" / "naive.run", "q03", tmp_path / "naive.run")
    results = [judged.evaluate(p, qrels, ["nDCG@10"]) for p in (examples / "runs" / "bm25.run", naive)]
    m = compare(results, permutations=99, resamples=99).measures[0]
    bm25 = results[0].values[results[0].measures[0]]
    shared = np.array([v for q, v in zip(results[0].qids, bm25) if q != "q03"])
    row = m.runs[0]
    assert m.queries == row.summary.queries == 14
    assert row.summary.p10 == pytest.approx(np.percentile(shared, 10))
    assert row.summary.p10 == pytest.approx(0.7248, abs=5e-5)  # 0.6606 over bm25's own 15 queries
    assert "q03" not in dict(row.summary.worst) and row.summary.mean == row.mean.estimate == shared.mean()
    assert m.left_out == (("not scored by naive (not answered, missing=skip)", 1),)
    data = json.loads(CliRunner().invoke(main, ["compare", str(examples / "runs" / "bm25.run"), str(naive), "-q",
                                                str(qrels), "--permutations", "99", "--resamples", "99",
                                                "-f", "json"]).stdout)
    record = data["measures"][0]["runs"][0]
    assert record["mean"]["estimate"] == record["summary"]["mean"]
    table = CliRunner().invoke(main, ["compare", str(examples / "runs" / "bm25.run"), str(naive), "-q", str(qrels),
                                      "--permutations", "99", "--resamples", "99"]).stdout
    assert "left out of the comparison: 1 not scored by naive (not answered, missing=skip)" in table


def test_the_difference_interval_is_the_tests_own(examples):
    """R@100 naive vs bm25: 4 losses and 11 ties. The sign-flip test cannot get below 2 / 2**4 = 0.125, so its interval
    holds 0, where a bootstrap percentile interval excluded it (every resample with a loss is negative)."""
    qrels = examples / "qrels.txt"
    results = [judged.evaluate(examples / "runs" / f"{n}.run", qrels, ["R@100"]) for n in ("bm25", "naive")]
    row = compare(results, permutations=2000, resamples=99).measures[0].runs[1]
    assert row.p_value == pytest.approx(0.125, abs=0.02)
    assert row.difference.low < 0.0 <= row.difference.high
    assert judged.stats.bootstrap_ci(results[1].values[results[1].measures[0]],
                                     results[0].values[results[0].measures[0]], resamples=2000).difference.high < 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=6, max_size=30), st.integers(0, 3))
def test_interval_excludes_zero_exactly_when_the_test_rejects(values, shift):
    base = [0.5] * len(values)
    system = [min(1.0, v + 0.25 * shift / 3) for v in values]
    results = _dict_results_scores({"base": base, "sys": system})
    row = compare(results, permutations=199, resamples=9).measures[0].runs[1]
    assert (row.p_value <= 0.05) == (not row.difference.low <= 0.0 <= row.difference.high)
    assert row.difference.low <= row.difference.estimate <= row.difference.high


def _dict_results_scores(per_query: dict[str, list[float]]) -> list[judged.Result]:
    """One P@4 result per run whose per-query values are the given quarters (0, 0.25, ... 1)."""
    n = len(next(iter(per_query.values())))
    qrels = {f"q{i}": {f"r{k}": 1 for k in range(4)} for i in range(n)}
    runs = {name: {f"q{i}": {f"r{k}" if k < round(v * 4) else f"n{k}": 10.0 - k for k in range(4)}
                   for i, v in enumerate(values)} for name, values in per_query.items()}
    return [judged.evaluate(judged.Run.from_dict(run, name=name), qrels, ["P@4"]) for name, run in runs.items()]


def test_holm_per_measure_or_across_measures(examples):
    qrels = examples / "qrels.txt"
    results = [judged.evaluate(examples / "runs" / f"{n}.run", qrels, ["nDCG@10", "R@100"])
               for n in ("bm25", "dense", "naive")]
    per = compare(results, permutations=999, resamples=9)
    across = compare(results, permutations=999, resamples=9, family="all")
    raw = [r.p_value for m in per.measures for r in m.runs[1:]]
    assert [r.p_adjusted for m in across.measures for r in m.runs[1:]] == pytest.approx(holm(raw).tolist())
    for m in per.measures:
        assert [r.p_adjusted for r in m.runs[1:]] == pytest.approx(holm([r.p_value for r in m.runs[1:]]).tolist())
    with pytest.raises(judged.UsageError, match="Tukey"):
        compare(results, correction="tukey", family="all")
    out = CliRunner().invoke(main, ["compare", *(str(examples / "runs" / f"{n}.run") for n in ("bm25", "dense")),
                                    "-q", str(qrels), "--family", "all", "-m", "nDCG@10", "-m", "R@100",
                                    "--permutations", "99", "--resamples", "9"]).stdout
    assert "over every run and measure compared" in " ".join(out.split())


def test_runs_sharing_a_tag_stay_apart_and_an_ambiguous_baseline_is_refused(examples, tmp_path):
    qrels = str(examples / "qrels.txt")
    copy = tmp_path / "bm25-copy.run"
    copy.write_text((examples / "runs" / "bm25.run").read_text())
    args = ["compare", str(examples / "runs" / "bm25.run"), str(copy), str(examples / "runs" / "dense.run"),
            "-q", qrels, "--permutations", "99", "--resamples", "9", "-f", "json"]
    data = json.loads(CliRunner().invoke(main, args).stdout)
    names = [r["run"] for r in data["measures"][0]["runs"]]
    assert names == [f"bm25 ({examples / 'runs' / 'bm25.run'})", f"bm25 ({copy})", "dense"]
    refused = CliRunner().invoke(main, [*args, "--baseline", "bm25"])
    assert refused.exit_code == 2 and "baseline 'bm25' names 2 runs" in refused.output
    chosen = json.loads(CliRunner().invoke(main, [*args, "--baseline", f"bm25 ({copy})"]).stdout)
    assert chosen["measures"][0]["baseline"] == f"bm25 ({copy})"
