"""One rule of whose labels count: people's, and an automatic assessor's only when asked; each command says what
it left out. The bundled example: two people (a1, a2) and the deliberately biased llm-judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.errors import UsageError
from judged.judgments import Store

EXAMPLES = Path(__file__).parents[2] / "examples"
AUTOMATIC = EXAMPLES / "automatic"


@pytest.fixture
def db(tmp_path) -> str:
    path = str(tmp_path / "judged.db")
    runner = CliRunner()
    for args in (["import", "rubric", str(EXAMPLES / "rubric.toml")],
                 ["import", "qrels", str(EXAMPLES / "qrels.txt"), "-a", "a1", "--rubric", "tidewater-docs"],
                 ["import", "qrels", str(EXAMPLES / "qrels.assessor2.txt"), "-a", "a2", "--rubric", "tidewater-docs"],
                 ["import", "automatic", str(AUTOMATIC / "llm-judge.jsonl"), "-a", "llm-judge", "--model", "small-llm",
                  "--prompt", str(AUTOMATIC / "prompt.txt"), "--rubric", "tidewater-docs"]):
        done = runner.invoke(main, [*args, "--db", path])
        assert done.exit_code == 0, done.output
    return path


def _people_disagree(store: Store) -> set[tuple[str, str]]:
    """Pairs a1 and a2 grade differently, counted from their labels."""
    labels = {(q, d, a): g for q, d, a, g in store.current_labels(assessors=["a1", "a2"]).rows()}
    return {(q, d) for q, d, a in labels
            if a == "a1" and (q, d, "a2") in labels and labels[q, d, "a2"] != labels[q, d, a]}


def test_adjudicate_list_counts_people_as_freeze_does(db):
    with Store.open(db) as store:
        disagree = _people_disagree(store)
        listed = store.disagreements(min_diff=1)
        assert {(d.qid, d.docid) for d in listed} == disagree
        assert all({label.assessor for label in d.labels} <= {"a1", "a2"} for d in listed)
        with pytest.raises(UsageError, match=rf"^{len(disagree)} pair\(s\) have disagreeing grades"):
            store.freeze("final")
        everyone = store.disagreements(min_diff=1, include_automatic=True)
        assert (len(listed), len(everyone)) == (23, 104)  # the bundled example: people only, as freeze counts
        assert any("llm-judge" in {label.assessor for label in d.labels}
                                                   for d in everyone)
        counted = store.counted_assessors()
        assert counted.assessors == ["a1", "a2"]
        assert counted.left_out == {"llm-judge": len(store.current(assessors=["llm-judge"]))}


def test_each_command_says_how_many_labels_it_left_out(db):
    runner = CliRunner()
    with Store.open(db) as store:
        machine = len(store.current(assessors=["llm-judge"]))
        disagree = len(_people_disagree(store))
    note = f"left out automatic assessors' labels (llm-judge's {machine})"
    listed = runner.invoke(main, ["adjudicate", "list", "--min-diff", "1", "-f", "json", "--db", db])
    assert listed.exit_code == 0 and len(json.loads(listed.stdout)) == disagree
    assert listed.stderr == f"{note}: --include-automatic to count them\n"
    both = runner.invoke(main, ["adjudicate", "list", "--min-diff", "1", "-f", "json", "--include-automatic",
                                "--db", db])
    assert len(json.loads(both.stdout)) > disagree and both.stderr == ""
    runs = [str(EXAMPLES / "runs" / f"{n}.run") for n in ("bm25", "dense")]
    sensitivity = runner.invoke(main, ["assessors", *runs, "--db", db, "-f", "json"])
    assert sensitivity.exit_code == 0, sensitivity.output
    assert f"{note}: name them with --assessor to count them" in sensitivity.stderr
    assert "llm-judge" not in sensitivity.stdout.split('"provenance"')[0]
    agreement = runner.invoke(main, ["agreement", "--db", db, "--min-pairs", "1", "--resamples", "0"])
    assert f"{note}: name them with --assessor to count them" in agreement.stderr
    named = runner.invoke(main, ["agreement", "--db", db, "-a", "a1", "-a", "llm-judge", "--min-pairs", "1",
                                 "--resamples", "0"])
    assert "left out" not in named.stderr and "llm-judge" in named.stdout
    frozen = runner.invoke(main, ["freeze", "final", "--resolve", "assessor:a1", "--db", db])
    assert frozen.exit_code == 0 and f"{note}: --include-automatic to count them" in frozen.stderr


def test_an_automatic_assessors_name_is_reserved_for_its_own_imports(db, tmp_path):
    with Store.open(db) as store:
        before = len(store.current(assessors=["llm-judge"]))
        with pytest.raises(UsageError, match="'llm-judge' is an automatic assessor: its labels come only from"):
            store.record("q01", "api/overview", assessor="llm-judge", grade=3)
        with pytest.raises(UsageError, match="'llm-judge' is an automatic assessor"):
            store.import_qrels({"q01": {"api/overview": 3}}, assessor="llm-judge", mode="add")
        assert len(store.current(assessors=["llm-judge"])) == before
