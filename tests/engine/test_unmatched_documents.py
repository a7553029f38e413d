"""Never a silent zero: a run whose documents are not the judgments' is named, in one line, at every entry point."""

from __future__ import annotations

import json
import warnings

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import judged
from judged.cli import main
from judged.engine.matching import FEW, Matching, UnmatchedDocumentsWarning

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 0}}


def caught(call):
    """The judged.UnmatchedDocumentsWarning messages ``call()`` raises, and its value."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = call()
    return [str(w.message) for w in seen if issubclass(w.category, UnmatchedDocumentsWarning)], value


def test_pyterriers_integer_docid_read_for_the_document_is_named_with_its_columns():
    # The frame's documents are numbered, not named: every measure would be 0.
    frame = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": [0, 1, 2], "score": [2.0, 1.0, 1.0]})
    messages, result = caught(lambda: judged.evaluate(frame, QRELS, ["AP", "P@1"]))
    assert result.value("AP") == 0.0
    assert len(messages) == 1
    assert messages[0].startswith("run 'run' retrieves none of the judged documents it could (0 of 3 in the "
                                  "2 queries shared with 'qrels'; 3 retrieved, 5 judged)")
    assert messages[0].endswith("(ids read from the run's columns 'qid' and 'docid', the judgments' mapping keys)")
    assert result.provenance["documents"] == {"shared_queries": 2, "retrieved": 3, "judged": 5,
                                              "retrieved_and_judged": 0, "could_match": 3, "unmatched": True}
    assert result.provenance["run"]["ids"] == "columns 'qid' and 'docid'"


def test_a_frame_with_docno_is_read_by_its_docno_and_matches():
    frame = pl.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "docid": [0, 1], "score": [2.0, 1.0]})
    messages, result = caught(lambda: judged.evaluate(frame, QRELS, ["AP"]))
    assert messages == [] and result.value("AP") == 0.5  # d1 at 1; d3 (grade 2) not retrieved
    assert result.provenance["documents"]["unmatched"] is False


def test_almost_none_is_under_one_percent_of_what_could_match():
    qrels = {"q": {f"d{i}": 1 for i in range(300)}}
    one_of_200 = {"q": {**{f"x{i}": float(-i) for i in range(199)}, "d0": -500.0}}
    messages, _ = caught(lambda: judged.evaluate(one_of_200, qrels, ["P@10"]))
    assert len(messages) == 1 and "retrieves almost none of the judged documents it could (1 of 200" in messages[0]
    two_of_100 = {"q": {**{f"x{i}": float(-i) for i in range(98)}, "d0": -500.0, "d1": -501.0}}
    messages, result = caught(lambda: judged.evaluate(two_of_100, qrels, ["P@10"]))
    assert messages == [] and result.provenance["documents"]["retrieved_and_judged"] == 2


def test_a_run_that_matches_is_quiet_and_recorded(examples):
    messages, result = caught(lambda: judged.evaluate(examples / "runs" / "bm25.run", examples / "qrels.txt",
                                                      ["nDCG@10"]))
    assert messages == []
    documents = result.provenance["documents"]
    assert 0 < documents["retrieved_and_judged"] <= documents["could_match"] <= documents["retrieved"]
    assert documents["unmatched"] is False


def test_a_run_that_retrieves_nothing_is_not_an_id_mismatch():
    messages, result = caught(lambda: judged.evaluate({"q1": {}, "q2": {"d4": 1.0}}, QRELS, ["P@1"]))
    assert messages == [] and result.provenance["documents"]["shared_queries"] == 1


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=8))
def test_matching_counts_are_bounded_as_sets_are(rows):
    # a query with r retrieved, j judged and m <= min(r, j) of them both
    counts = np.array([(r, min(m, r, j), j) for r, j, m in rows], dtype=np.int64)
    matching = Matching.of(counts)
    answered = counts[counts[:, 0] > 0]
    assert matching.queries == len(answered)
    assert matching.matched <= matching.possible <= min(matching.retrieved, matching.judged)
    assert matching.unmatched == (matching.possible > 0 and matching.matched < FEW * matching.possible)


@given(st.dictionaries(st.sampled_from(["q1", "q2", "q3"]),
                       st.dictionaries(st.sampled_from([f"d{i}" for i in range(8)] + ["D1", "é"]),
                                       st.floats(-3, 3, allow_nan=False), max_size=8), min_size=1))
def test_the_record_equals_counting_the_dicts(run):
    qrels = {"q1": {"d1": 1, "d2": 0, "D1": 2}, "q2": {"é": 1, "d7": -1}, "q3": {"d3": 0}}
    if not any(docs and q in qrels for q, docs in run.items()):
        return
    record = caught(lambda: judged.evaluate(run, qrels, ["P@5"], missing="zero"))[1].provenance["documents"]
    shared = [q for q, docs in run.items() if q in qrels and docs]
    judged_of = {q: {d for d, g in qrels[q].items() if g >= 0} for q in qrels}
    assert record["shared_queries"] == len(shared)
    assert record["retrieved"] == sum(len(run[q]) for q in shared)
    assert record["judged"] == sum(len(judged_of[q]) for q in shared)
    assert record["retrieved_and_judged"] == sum(len(judged_of[q] & set(run[q])) for q in shared)
    assert record["could_match"] == sum(min(len(run[q]), len(judged_of[q])) for q in shared)


@pytest.fixture
def mismatched(tmp_path):
    """A TREC run numbering its documents and TREC judgments naming them."""
    (tmp_path / "run").write_text("q1 Q0 0 1 2.0 r\nq1 Q0 1 2 1.0 r\nq2 Q0 2 1 1.0 r\n")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d4 1\n")
    return tmp_path


WARNING = ("warning: run 'r' retrieves none of the judged documents it could (0 of 3 in the 2 queries shared with "
           "'qrels'; 3 retrieved, 3 judged): its measures are about 0 for that reason, not for its ranking; check "
           "that both name documents alike (ids read from the run's TREC columns 1 and 3, the judgments' TREC "
           "columns 1 and 3)\n")


@pytest.mark.parametrize("command", [
    ["eval", "{run}", "--qrels", "{qrels}", "-m", "AP"],
    ["eval", "{run}", "--qrels", "{qrels}", "-m", "AP", "-f", "json"],
    ["trec_eval", "-m", "map", "{qrels}", "{run}"],
    ["trec_eval", "-q", "-c", "-m", "all_trec", "{qrels}", "{run}"],
])
def test_the_command_line_says_it_once_on_stderr_and_leaves_stdout_alone(mismatched, command):
    args = [a.format(run=mismatched / "run", qrels=mismatched / "qrels") for a in command]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert out.stderr.count("warning: run 'r' retrieves none") == 1
    assert WARNING in out.stderr
    assert "retrieves" not in out.stdout
    if "json" in command:
        assert json.loads(out.stdout)["results"][0]["provenance"]["documents"]["unmatched"] is True


def test_compare_names_the_run_that_does_not_match(mismatched, examples):
    (mismatched / "good").write_text("q1 Q0 d1 1 2.0 g\nq1 Q0 d2 2 1.0 g\nq2 Q0 d4 1 1.0 g\n")
    out = CliRunner().invoke(main, ["compare", str(mismatched / "good"), str(mismatched / "run"),
                                    "--qrels", str(mismatched / "qrels"), "-m", "AP"])
    assert out.exit_code == 0, out.output
    assert out.stderr.count("warning: run 'r' retrieves none") == 1 and "run 'g'" not in out.stderr


def test_both_drop_in_modules_warn():
    from judged import ir_measures, pytrec_eval

    run = {"q1": {"0": 2.0, "1": 1.0}, "q2": {"2": 1.0}}
    messages, values = caught(lambda: pytrec_eval.RelevanceEvaluator(QRELS, {"map"}).evaluate(run))
    assert values["q1"]["map"] == 0.0 and len(messages) == 1 and "mapping keys" in messages[0]
    messages, aggregate = caught(lambda: ir_measures.calc_aggregate([ir_measures.AP], QRELS, run))
    assert aggregate[ir_measures.AP] == 0.0 and len(messages) == 1


def test_trec_eval_c_prints_trec_evals_zeros_for_a_run_sharing_no_query_and_says_why(tmp_path):
    # trec_eval 10 -c prints these bytes for this run and these judgments (exit 0)
    (tmp_path / "run").write_text("q9 Q0 d1 1 2.0 r\n")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    out = CliRunner().invoke(main, ["trec_eval", "-c", "-m", "map", "-m", "P.5", "-m", "num_q",
                                    str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert out.exit_code == 0
    assert out.stdout == ("num_q                 \tall\t1\n"
                          "map                   \tall\t0.0000\n"
                          "P_5                   \tall\t0.0000\n")
    assert out.stderr == ("warning: run 'r' shares no query with the judgments 'qrels' (1 run queries, 1 judged "
                          "queries): every value is 0 for that reason, not for its ranking\n")
    corrected = CliRunner().invoke(main, ["trec_eval", "-c", "--judged-definitions", "-m", "map",
                                          str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert corrected.exit_code == 7 and corrected.stdout == ""


def test_both_drop_in_modules_say_when_a_run_shares_no_query():
    from judged import ir_measures, pytrec_eval

    run = {"q9": {"d1": 1.0}}
    messages, values = caught(lambda: pytrec_eval.RelevanceEvaluator(QRELS, {"map"}).evaluate(run))
    assert values == {} and messages == [
        "the run shares no query with the judgments (1 run queries, 2 judged queries): every value is 0 for that "
        "reason, not for its ranking"]
    messages, aggregate = caught(lambda: ir_measures.calc_aggregate([ir_measures.AP], QRELS, run))
    assert aggregate == {ir_measures.AP: 0.0} and len(messages) == 1 and "shares no query" in messages[0]
