"""The one number rule (judged.io.numbers) and the readers besides TREC that use it: CSV/TSV/Parquet and JSON."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from judged.errors import InputError
from judged.io import read_qrels, read_run
from judged.io.numbers import parse_grade, parse_score

_ASCII_NUMBERISH = st.text(alphabet="0123456789+-.eE_xp infatyINFATY", max_size=12)


@given(_ASCII_NUMBERISH)
def test_the_rule_is_python_float_less_underscores_on_ascii_text_without_whitespace(text):
    """On the fields a TREC line splits into, the rule refuses exactly what float() would read through '_'."""
    try:
        python = float(text)
    except ValueError:
        python = None
    if text.strip() != text or not text:
        return
    assert _same(parse_score(text), None if "_" in text else python)


@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["{!r}", "{:.17e}", "{:.6f}", "{:.3g}"]))
def test_every_decimal_python_writes_is_read_back_exactly(value, form):
    text = form.format(value)
    assert parse_score(text) == float(text)


@given(st.integers(-(2**63), 2**63 - 1))
def test_every_64_bit_grade_is_read_exactly(grade):
    assert parse_grade(str(grade)) == grade
    assert parse_grade("+" + str(grade) if grade >= 0 else str(grade)) == grade


@pytest.mark.parametrize(
    "text", ["1_0", "\u0663", "\uff13", " 1", "1 ", "0x1p3", "1e", ".", "", "--1", "1\n", "\u00a01"],
)
def test_what_python_float_reads_but_the_rule_does_not(text):
    assert parse_score(text) is None


@pytest.mark.parametrize("text", ["1" + "0" * 5000, "9" * 20, "9223372036854775808", "-9223372036854775809"])
def test_a_grade_past_64_bits_is_out_of_range_whatever_its_length(text):
    with pytest.raises(OverflowError):
        parse_grade(text)


def _same(a: float | None, b: float | None) -> bool:
    return a is b or (a is not None and b is not None and (a == b or (math.isnan(a) and math.isnan(b))))


@pytest.mark.parametrize(
    "score, problem",
    [("1_0", "score is not a number"), ("\u0663", "score is not a number"), ("0x1p3", "score is not a number"),
     ("", "score is not a number")],
)
def test_csv_scores_follow_the_number_rule(score, problem, tmp_path):
    path = tmp_path / "run.csv"
    path.write_text(f"qid,docid,score\nq1,d1,1.5\nq1,d2,{score}\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"run\.csv: {problem} \(row 2\)"):
        read_run(path)


def test_csv_scores_in_every_accepted_form(tmp_path):
    path = tmp_path / "run.tsv"
    path.write_text("qid\tdocid\tscore\nq\ta\t+3\nq\tb\t.5\nq\tc\t5.\nq\td\t-1E3\n")
    assert read_run(path).frame["score"].to_list() == [3.0, 0.5, 5.0, -1000.0]


@pytest.mark.parametrize(
    "grade, problem",
    [("1_0", "grade is not an integer"), ("\u0663", "grade is not an integer"), ("1.0", "grade is not an integer"),
     ("9" * 5000, "grade is out of range"), ("9223372036854775808", "grade is out of range")],
)
def test_csv_grades_follow_the_number_rule(grade, problem, tmp_path):
    path = tmp_path / "qrels.csv"
    path.write_text(f"qid,docid,grade\nq1,d1,1\nq1,d2,{grade}\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"qrels\.csv: {problem} \(row 2\)"):
        read_qrels(path)


def test_csv_grades_keep_all_64_bits(tmp_path):
    path = tmp_path / "qrels.csv"
    path.write_text("qid,docid,grade\nq,a,9223372036854775807\nq,b,-2\nq,c,+3\n")
    assert read_qrels(path).frame["grade"].to_list() == [2**63 - 1, -2, 3]


def test_a_parquet_string_column_follows_the_rule_and_a_numeric_one_is_taken_as_is(tmp_path):
    path = tmp_path / "qrels.parquet"
    pl.DataFrame({"qid": ["q"], "docid": ["a"], "grade": ["1_0"]}).write_parquet(path)
    with pytest.raises(InputError, match="grade is not an integer"):
        read_qrels(path)
    pl.DataFrame({"qid": ["q"], "docid": ["a"], "grade": [2.0]}).write_parquet(path)
    assert read_qrels(path).frame["grade"].to_list() == [2]


def test_a_json_integer_of_thousands_of_digits_is_a_score_or_an_out_of_range_grade_not_a_crash(tmp_path):
    huge = "1" + "0" * 5000
    run, qrels = tmp_path / "run.json", tmp_path / "qrels.jsonl"
    run.write_text(f'{{"q": {{"a": {huge}, "b": 1}}}}')
    qrels.write_text(f'{{"qid": "q", "docid": "a", "grade": {huge}}}\n')
    assert read_run(run).frame["score"].to_list() == [math.inf, 1.0]  # 10**5000 as a float is inf, as atof reads it
    with pytest.raises(InputError, match=r"grade for query 'q', document 'a' is out of range"):
        read_qrels(qrels)
    run.write_text('{"q": {"a": 123456789012345678901234567890, "b": 1}}')
    assert read_run(run).frame["score"].to_list() == [1.2345678901234568e29, 1.0]
