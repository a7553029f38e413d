"""Automatic assessors: labels with their metadata, kept out of frozen sets and agreement unless named, and the
calibration report on the bundled, deliberately biased judge (examples/automatic)."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from scipy import stats as scipy_stats

from judged import evaluate, read_run
from judged.agreement.calibration import calibrate
from judged.cli import main
from judged.errors import InputError, UsageError
from judged.io.inputs import Qrels
from judged.judgments import Store
from judged.judgments.assessor_qrels import assessor_labels
from judged.judgments.automatic import AutomaticAssessor
from judged.judgments.schema import automatic_labels
from judged.rubric import load_rubric
from judged.stats.paired import t_test

AUTOMATIC = Path(__file__).parents[2] / "examples" / "automatic"
PROMPT = hashlib.sha256((AUTOMATIC / "prompt.txt").read_bytes()).hexdigest()
JUDGE = AutomaticAssessor("llm-judge", "small-llm", PROMPT, {"temperature": "0"}, "tidewater-docs@1")


@pytest.fixture
def judged_store(tmp_path, examples):
    with Store.open(str(tmp_path / "judged.db")) as store:
        store.add_rubric(load_rubric(examples / "rubric.toml"))
        store.import_qrels(examples / "qrels.txt", assessor="nist")
        store.import_automatic(AUTOMATIC / "llm-judge.jsonl", JUDGE)
        yield store


def test_automatic_labels_keep_their_metadata_and_import_once(judged_store):
    assert judged_store.automatic_assessors() == ["llm-judge"]
    with judged_store.engine.connect() as connection:
        rows = connection.execute(sa.select(automatic_labels)).mappings().all()
        profile = connection.exec_driver_sql("SELECT model, prompt_sha256 FROM automatic_assessors").one()
    assert len(rows) == 239 and tuple(profile) == ("small-llm", PROMPT)
    first = json.loads((AUTOMATIC / "llm-judge.jsonl").read_text().splitlines()[0])
    assert any(r["confidence"] == first["confidence"] and r["rationale"] == first["rationale"] for r in rows)
    cannot = [e for e in judged_store.current(assessors=["llm-judge"]) if e.kind == "cannot_judge"]
    assert len(cannot) == 8 and cannot[0].reason == "the page text is too short to decide"
    assert judged_store.import_automatic(AUTOMATIC / "llm-judge.jsonl", JUDGE).inserted == 0
    with pytest.raises(UsageError, match="a changed judge is a new assessor"):
        judged_store.import_automatic(AUTOMATIC / "llm-judge.jsonl", AutomaticAssessor(
            "llm-judge", "bigger-llm", PROMPT, {"temperature": "0"}, "tidewater-docs@1"))
    with pytest.raises(UsageError, match="already labelled as a person"):
        judged_store.import_automatic(AUTOMATIC / "llm-judge.jsonl", AutomaticAssessor("nist", "m", PROMPT))


def test_a_bad_label_line_is_named(tmp_path, judged_store):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "q1", "docid": "d1", "grade": 1}\n{"qid": "q1", "docid": "d2", "grade": 1, '
                   '"confidence": 1.5}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:2.*confidence 1.5 is not in \[0, 1\]"):
        judged_store.import_automatic(bad, AutomaticAssessor("other", "m", PROMPT))


def test_automatic_labels_enter_neither_a_frozen_set_nor_agreement_unless_named(judged_store, examples):
    people_only = judged_store.freeze("nist").judgment_set
    assert judged_store.export("nist@1")[0] == (examples / "qrels.txt").read_text()
    assert "automatic" not in people_only.policy and people_only.policy["assessors"] == ["nist"]
    with pytest.raises(UsageError, match="llm-judge: automatic, so not frozen unless --include-automatic"):
        judged_store.freeze("machine", assessors=["llm-judge"])
    machine = judged_store.freeze("machine", assessors=["llm-judge"], include_automatic=True).judgment_set
    assert machine.policy["automatic"] == ["llm-judge"]
    assert json.loads(judged_store.export("machine@1")[1])["judgment_set"]["policy"]["automatic"] == ["llm-judge"]
    assert assessor_labels(judged_store)["assessor"].unique().to_list() == ["nist"]
    assert set(assessor_labels(judged_store, ["nist", "llm-judge"])["assessor"]) == {"nist", "llm-judge"}


def test_the_calibration_of_the_biased_judge(judged_store, examples):
    runs = [read_run(examples / "runs" / f"{name}.run") for name in ("bm25", "dense", "naive")]
    c = calibrate(judged_store.current_labels(), "llm-judge", "nist", grades=[0, 1, 2, 3], runs=runs,
                  measures=["nDCG@10", "P@5"], resamples=500)
    labels = judged_store.current_labels()
    both = {(q, d): g for q, d, a, g in labels.rows() if a == "nist"}
    auto = {(q, d): g for q, d, a, g in labels.rows() if a == "llm-judge" and (q, d) in both}
    assert c.pair.pairs == len(auto) == 239 - 8  # the eight cannot-judge pairs have no automatic grade
    for b in c.bias:  # recount by hand from the two label sets
        given = [auto[p] for p in auto if both[p] == b.human_grade]
        assert b.pairs == len(given) and b.mean_automatic == pytest.approx(np.mean(given))
        assert b.higher == pytest.approx(np.mean([g > b.human_grade for g in given]))
    assert all(b.lower == 0 for b in c.bias) and c.bias[0].higher > 0.4  # it only ever over-grades
    assert all(r.mean_difference > 0.3 for r in c.runs)
    for m in c.measures:  # orderings (scipy) and significance (judged.stats) recomputed on the same per-query values
        values = {}
        for column, grades in (("human", both), ("auto", auto)):
            qrels = Qrels.from_dict(_nested({p: grades[p] for p in auto}), column)
            values[column] = {r.name: evaluate(r, qrels, [m.measure]).values for r in runs}
        names = [r.name for r in runs]
        means_h = [m.human[n] for n in names]
        means_a = [m.automatic[n] for n in names]
        assert m.kendall_tau == pytest.approx(scipy_stats.kendalltau(means_h, means_a).statistic)
        for x, y in itertools.combinations(names, 2):
            significant = {}
            for column in ("human", "auto"):
                a, b = (next(iter(values[column][n].values())) for n in (x, y))
                significant[column] = t_test(a, b).p_value < 0.05
            assert ((x, y) in m.vanish) == (significant["human"] and not significant["auto"])
            assert ((x, y) in m.appear) == (significant["auto"] and not significant["human"])
    assert c.measures[0].vanish == (("bm25", "dense"),)  # over-grading hides dense's lead over bm25


def _nested(grades: dict) -> dict:
    out: dict = {}
    for (qid, docid), grade in grades.items():
        out.setdefault(qid, {})[docid] = grade
    return out


def test_the_calibrate_command_on_the_bundled_example(tmp_path, examples):
    db = str(tmp_path / "judged.db")
    runner = CliRunner()
    for args in (["import", "rubric", str(examples / "rubric.toml")],
                 ["import", "qrels", str(examples / "qrels.txt"), "-a", "nist"],
                 ["import", "automatic", str(AUTOMATIC / "llm-judge.jsonl"), "-a", "llm-judge", "--model", "small-llm",
                  "--prompt", str(AUTOMATIC / "prompt.txt"), "--rubric", "tidewater-docs", "--param", "temperature=0"]):
        assert runner.invoke(main, [*args, "--db", db]).exit_code == 0
    runs = [str(examples / "runs" / f"{n}.run") for n in ("bm25", "dense", "naive")]
    result = runner.invoke(main, ["calibrate", *runs, "--automatic", "llm-judge", "--db", db, "--resamples", "300"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("calibration of llm-judge (automatic) against nist: 231 pairs graded by both")
    assert "it over-grades" in result.output and "significant differences that vanish: bm25 vs dense" in result.output
    wrong = runner.invoke(main, ["calibrate", "--automatic", "nist", "--db", db])
    assert wrong.exit_code == 2 and "not an automatic assessor" in wrong.output


def test_the_command_line_and_the_leads_page_give_one_kappa_interval(tmp_path, examples):
    """Both default to the same resamples and seed, so the same labels print the same interval."""
    from judged.agreement.calibration import RESAMPLES
    from judged.web.effort import calibrations

    db = str(tmp_path / "judged.db")
    runner = CliRunner()
    for args in (["import", "rubric", str(examples / "rubric.toml")],
                 ["import", "qrels", str(examples / "qrels.txt"), "-a", "nist"],
                 ["import", "automatic", str(AUTOMATIC / "llm-judge.jsonl"), "-a", "llm-judge", "--model", "small-llm",
                  "--prompt", str(AUTOMATIC / "prompt.txt"), "--rubric", "tidewater-docs"]):
        assert runner.invoke(main, [*args, "--db", db]).exit_code == 0
    with Store.open(db) as store:
        page = calibrations(store.current_labels(), store.automatic_assessors(), [0, 1, 2, 3])
    linear = next(k for k in page[0].pair.kappas if k.weights == "linear")
    assert linear.resamples == RESAMPLES
    printed = runner.invoke(main, ["calibrate", "--automatic", "llm-judge", "--db", db]).output
    assert f"linear kappa {linear.value:.3f} (95% CI {linear.low:.3f} to {linear.high:.3f}" in printed
    assert f"default: {RESAMPLES}" in " ".join(runner.invoke(main, ["calibrate", "--help"]).output.split())
