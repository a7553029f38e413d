"""Queries that are the same number written two ways (an integer Parquet column against text ``001``) match only
in part, as text: every evaluation says so, naming pairs and where each side's ids came from."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import judged
from judged.engine.matching import number_forms, reads_as_number


def test_an_integer_parquet_run_against_text_qrels_is_said(tmp_path):
    run = tmp_path / "run.parquet"
    frame = pl.DataFrame({"qid": [1, 1, 2, 10], "docid": ["a", "b", "a", "c"], "score": [2.0, 1.0, 1.0, 1.0]})
    frame.write_parquet(run)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("001 0 a 1\n002 0 a 1\n10 0 c 1\n")
    with pytest.warns(judged.UnmatchedQueriesWarning) as caught:
        result = judged.evaluate(run, qrels, ["P@1"])
    assert result.counts[result.measures[0]].scored == 1  # only "10" matched as text: said, not silent
    assert str(caught[0].message) == (
        "2 queries of run 'run' are judged queries of 'qrels.txt' written another way as a number ('1' and '001', "
        "'2' and '002'): ids match as text, so each counts as neither answered nor judged; write the qids alike on "
        "both sides (ids read from the run's columns 'qid' and 'docid', the judgments' TREC columns 1 and 3)")


def test_a_float_column_and_the_cli_say_it_too(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("qid,docid,score\n1.0,a,2.0\n3,b,1.0\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n3 0 b 1\n")
    with pytest.warns(judged.UnmatchedQueriesWarning, match=r"1 query of run 'run' is a judged query of 'qrels\.txt' "
                                                             r"written another way as a number \('1\.0' and '1'\)"):
        judged.evaluate(run, qrels, ["P@1"])
    from click.testing import CliRunner

    from judged.cli import main

    done = CliRunner().invoke(main, ["eval", str(run), "--qrels", str(qrels), "-m", "P@1"])
    assert done.exit_code == 0 and "written another way as a number ('1.0' and '1')" in done.output


def test_ids_written_alike_say_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        judged.evaluate({"1": {"a": 1.0}, "2": {"a": 1.0}}, {"1": {"a": 1}, "3": {"a": 1}}, ["P@1"])


_numbers = st.integers(0, 10**6)


@given(st.sets(_numbers, max_size=30), st.sets(_numbers, max_size=30), st.integers(0, 3))
def test_pairs_are_exactly_the_numbers_written_apart(run, judged_numbers, zeros):
    """With ``zeros`` leading zeros in the judgments: a pair for each number on both sides whose texts differ."""
    run_ids = [str(n) for n in run]
    judged_ids = ["0" * zeros + str(n) for n in judged_numbers]
    shared = set(run_ids) & set(judged_ids)
    pairs = number_forms([q for q in run_ids if q not in shared], [q for q in judged_ids if q not in shared])
    expected = sorted((str(n), "0" * zeros + str(n)) for n in run & judged_numbers if zeros)
    assert pairs == expected
    assert all(reads_as_number(q) for pair in pairs for q in pair)
