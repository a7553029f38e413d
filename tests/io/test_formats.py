"""Every input format yields the same run and judgments as the TREC files they were written from."""

from __future__ import annotations

import json

import pandas as pd
import polars as pl
import pytest

import judged
from judged import InputError
from judged.io import detect_format, read_qrels, read_run

RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 0.5}}
QRELS = {"q1": {"d1": 2, "d3": 0, "d9": 1}, "q2": {"d4": 3}}
MEASURES = ["nDCG@10", "AP", "P@2"]


def reference():
    return judged.evaluate(RUN, QRELS, MEASURES).aggregate


def flat(nested, value):
    return [{"qid": q, "docid": d, value: v} for q, docs in nested.items() for d, v in docs.items()]


def test_json(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps(RUN))
    (tmp_path / "qrels.json").write_text(json.dumps(QRELS))
    assert judged.evaluate(tmp_path / "run.json", tmp_path / "qrels.json", MEASURES).aggregate == reference()


def test_jsonl_records_and_fragments(tmp_path):
    (tmp_path / "run.jsonl").write_text("\n".join(json.dumps(r) for r in flat(RUN, "score")))
    (tmp_path / "qrels.jsonl").write_text("\n".join(json.dumps({q: d}) for q, d in QRELS.items()))
    assert judged.evaluate(tmp_path / "run.jsonl", tmp_path / "qrels.jsonl", MEASURES).aggregate == reference()


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_tables_with_named_columns(tmp_path, fmt):
    run, qrels = pl.DataFrame(flat(RUN, "score")), pl.DataFrame(flat(QRELS, "relevance"))
    for frame, name in ((run, "run"), (qrels, "qrels")):
        path = tmp_path / f"{name}.{fmt}"
        if fmt == "parquet":
            frame.write_parquet(path)
        else:
            frame.write_csv(path, separator="\t" if fmt == "tsv" else ",")
    assert judged.evaluate(tmp_path / f"run.{fmt}", tmp_path / f"qrels.{fmt}", MEASURES).aggregate == reference()


def test_dataframes_pandas_and_polars():
    run = pd.DataFrame(flat(RUN, "score")).rename(columns={"qid": "query_id", "docid": "doc_id"})
    qrels = pl.DataFrame(flat(QRELS, "grade"))
    assert judged.evaluate(run, qrels, MEASURES).aggregate == reference()


def test_explicit_column_mapping():
    run = pd.DataFrame(flat(RUN, "score")).rename(columns={"score": "bm25"})
    loaded = read_run(run, columns={"score": "bm25"})
    assert loaded.frame["score"].to_list() == [3.0, 2.0, 1.0, 0.5]


def test_missing_column_names_what_was_found():
    with pytest.raises(InputError, match=r"no score column: 'qid, docid, value' \(expected one of score"):
        read_run(pd.DataFrame({"qid": ["q"], "docid": ["d"], "value": [1.0]}))


def test_fractional_grade_in_csv_is_an_error(tmp_path):
    path = tmp_path / "qrels.csv"
    path.write_text("qid,docid,grade\nq1,d1,1\nq1,d2,1.7\n")
    with pytest.raises(InputError, match=r"qrels.csv: grade is not an integer \(row 2\): '1.7'"):
        read_qrels(path)


def test_json_grade_must_be_an_integer(tmp_path):
    (tmp_path / "q.json").write_text(json.dumps({"q1": {"d1": 1.5}}))
    with pytest.raises(InputError, match="grade is not an integer"):
        read_qrels(tmp_path / "q.json")


def test_nan_score_in_dataframe_names_the_row():
    frame = pd.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"], "score": [1.0, float("nan")]})
    with pytest.raises(InputError, match=r"score is NaN \(row 2\)"):
        read_run(frame)


@pytest.mark.parametrize(
    "name, fmt",
    [("run.txt", "trec"), ("run.json", "json"), ("x.jsonl.gz", "jsonl"), ("a.CSV", "csv"), ("b.parquet", "parquet"),
     ("qrels.test", "trec"), ("run.tsv.gz", "tsv")],
)
def test_format_from_name(name, fmt):
    assert detect_format(name) == fmt


def test_three_states_of_a_judgment():
    """Relevant (>=1), judged non-relevant (0) and unjudged (absent) are kept apart; negative = pooled, unjudged."""
    run = {"q": {"rel": 4.0, "nonrel": 3.0, "absent": 2.0, "pooled": 1.0}}
    qrels = {"q": {"rel": 1, "nonrel": 0, "pooled": -1}}
    r = judged.evaluate(run, qrels, ["Judged@4", "P@4", "NumRel", "P(unjudged=drop)@2", "Bpref"])
    assert r.value("Judged@4") == 2 / 4
    assert r.value("P@4") == 1 / 4
    assert r.value("NumRel") == 1
    assert r.value("P(unjudged=drop)@2") == 1 / 2  # condensed list: rel, nonrel
    assert r.value("Bpref") == 1.0


def test_a_missing_docid_or_qid_names_the_row(tmp_path):
    with pytest.raises(InputError, match=r"docid is missing \(row 2\)"):
        read_run(pl.DataFrame({"qid": ["q", "q"], "docid": ["a", None], "score": [2.0, 1.0]}))
    path = tmp_path / "qrels.csv"
    path.write_text("qid,docid,grade\nq1,d1,1\n,d2,0\n")
    with pytest.raises(InputError, match=r"qid is missing \(row 2\)"):
        read_qrels(path)


def test_a_parquet_file_named_without_a_suffix_is_read_as_parquet(tmp_path):
    """Part files are often named ``part-00000``: the first bytes decide where the name does not, on every
    engine (the Spark engine applies the same :func:`detect_format`)."""
    import polars as pl

    part = tmp_path / "part-00000"
    pl.DataFrame({"qid": ["q1", "q1"], "docid": ["d1", "d2"], "score": [2.0, 1.0]}).write_parquet(part)
    assert detect_format(part) == "parquet"
    assert read_run(part).frame.rows() == [("q1", "d1", 2.0), ("q1", "d2", 1.0)]
    text = tmp_path / "part-00001"
    text.write_bytes(b"q1 Q0 d1 1 2.0 tag\n")
    assert detect_format(text) == "trec" and read_run(text).name == "tag"
    assert detect_format(tmp_path / "missing") == "trec"  # the reader then names the missing file
