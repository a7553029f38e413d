"""Reading runs and judgments with Spark: the local readers' rules and their exact error messages.

Every bad file is read by both engines and the two errors must be the same
text (``path:line: problem: 'line' (expected ...)``); a good file with
comments, tabs, runs of spaces and extra fields must give the same numbers,
run name, hashes and ``ties=input`` order as the local reader.
"""

from __future__ import annotations

import hashlib

import polars as pl
import pytest

import judged
from judged.errors import InputError, UsageError
from judged.spark import evaluate, read_qrels, read_run

QRELS = "q1 0 a 1\nq1 0 b 2\nq2 0 c 1\n"
RUN = "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 c 1 3.0 t\n"


def spark_error(spark, run_path, qrels_path) -> str:
    with pytest.raises(InputError) as caught:
        evaluate(read_run(spark, str(run_path)), read_qrels(spark, str(qrels_path)), ["nDCG@10"])
    return str(caught.value)


def local_error(run_path, qrels_path) -> str:
    with pytest.raises(InputError) as caught:
        judged.evaluate(judged.read_run(run_path), judged.read_qrels(qrels_path), ["nDCG@10"])
    return str(caught.value)


@pytest.mark.parametrize("run_text, message", [
    ("# header\n\nq1 Q0 a 1 2.0 t\nq1 Q0 b 2 oops t\n", ":4: score is not a number: 'q1 Q0 b 2 oops t'"),
    ("q1 Q0 a 1 2.0 t\nq1\tQ0  b 2\n", ":2: expected 6 columns, found 4"),
    ("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq1 Q0 a 3 nan t\n", ":3: score is NaN"),
    ("q1 Q0 a 1 2.0 t\nq2 Q0 c 1 3.0 t\nq1 Q0 a 3 0.5 t\n", ":3: document appears twice in the same query"),
    ("# only a comment\n\n", ": file has no data lines"),
])
def test_bad_run_files_fail_as_locally(spark, tmp_path, run_text, message):
    run, qrels = tmp_path / "bad.run", tmp_path / "qrels.txt"
    run.write_text(run_text)
    qrels.write_text(QRELS)
    expected = local_error(run, qrels)
    assert f"{run}{message}" in expected
    assert spark_error(spark, run, qrels) == expected


@pytest.mark.parametrize("qrels_text, message", [
    ("q1 0 a 1\nq1 0 b 1.5\n", ":2: grade is not an integer: 'q1 0 b 1.5'"),
    ("q1 0 a 1\nq1 0 b 1 extra\n", ":2: expected 4 columns, found 5"),
    ("q1 0 a 1\nq1 0 b 2\nq1 0 a 1\nq1 0 b 3\n", ":4: conflicting judgment"),
])
def test_bad_qrels_files_fail_as_locally(spark, tmp_path, qrels_text, message):
    run, qrels = tmp_path / "run.txt", tmp_path / "bad.qrels"
    run.write_text(RUN)
    qrels.write_text(qrels_text)
    expected = local_error(run, qrels)
    assert f"{qrels}{message}" in expected
    assert spark_error(spark, run, qrels) == expected


def test_a_parquet_row_is_named_by_its_number(spark, tmp_path):
    run, qrels = tmp_path / "run.parquet", tmp_path / "qrels.txt"
    frame = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": ["2", "x1", "3"]})
    frame.write_parquet(run)
    qrels.write_text(QRELS)
    expected = local_error(run, qrels)
    assert expected.startswith(f"{run}: score is not a number (row 2): 'x1' (expected a number")
    assert spark_error(spark, run, qrels) == expected


def test_a_dataframe_row_is_named_by_its_values(spark):
    """The local frame code refuses the row; its number within a bucket would mean nothing, so its values name it."""
    rows = [("q1", "a", "2.0"), ("q1", "b", "1.5d")]
    run = spark.createDataFrame(rows, ["qid", "docid", "score"])
    qrels = spark.createDataFrame([("q1", "a", 1)], ["qid", "docid", "grade"])
    with pytest.raises(InputError) as local:
        judged.evaluate(pl.DataFrame(rows, schema=["qid", "docid", "score"], orient="row"), {"q1": {"a": 1}}, ["P@1"])
    with pytest.raises(InputError) as caught:
        evaluate(run, qrels, ["P@1"])
    assert str(caught.value).startswith("run: score is not a number: 'q1 b 1.5d' (expected a number")
    assert caught.value.expected == local.value.expected
    assert local.value.problem == "score is not a number (row 2)"


def test_input_order_needs_a_column_that_numbers_the_rows(spark):
    run = spark.createDataFrame([("q1", "a", 1.0)], ["qid", "docid", "score"])
    qrels = spark.createDataFrame([("q1", "a", 1)], ["qid", "docid", "grade"])
    with pytest.raises(UsageError, match=r"has no row order; pass columns=\{'order': \.\.\.\}"):
        evaluate(run, qrels, ["nDCG(ties=input)@10"])


def test_a_messy_but_valid_trec_file_reads_as_locally(spark, tmp_path):
    """Comments, blank lines, tabs, runs of spaces, trailing fields; ties in file order; the tag names the run."""
    run, qrels = tmp_path / "messy.run", tmp_path / "qrels.txt"
    run.write_text(
        "# produced by a test\n"
        "q1 Q0 b 1 1.0 first extra fields\n"
        "q1\tQ0\ta\t2\t1.0\tsecond\n"
        "\n"
        "  q1  Q0 c 3 1.0 third  \n"
        "q2 Q0 z 1 0.5 tag\n"
    )
    qrels.write_text("q1 0 a 3\nq1 0 b 0\nq1 0 c 1\nq2 0 z -1\nq2 0 y 2\nq3 0 a 1\nq1 0 a 3\n")
    wanted = ["nDCG(ties=input)@2", "nDCG@2", "nDCG(ties=worst)@2", "AP(ties=input)", "Judged@1", "NumRel"]
    local = judged.evaluate(judged.read_run(run), judged.read_qrels(qrels), wanted, missing="zero")
    result = evaluate(read_run(spark, str(run)), read_qrels(spark, str(qrels)), wanted, missing="zero")
    assert result.run == local.run == "tag"
    assert result.aggregate == local.aggregate
    for record in ("run", "qrels"):
        assert result.provenance[record] == local.provenance[record]
    assert result.provenance["run"]["sha256"] == hashlib.sha256(run.read_bytes()).hexdigest()
    assert result.provenance["qrels"]["collapsed_duplicates"] == 1
    got = {(r.qid, r.measure): r.value for r in result.frame.collect()}
    assert got == {(q, str(m)): v for m in local.measures for q, v in zip(local.qids, local.values[m].tolist())}


def test_judgments_in_hand_keep_their_source(spark):
    """A frozen judgment set (read by the store on the driver) is handed to Spark with its name, path and hash."""
    from judged.io.inputs import Source
    from judged.spark.files import from_local

    source = Source("judged.db#nist@1", "judgment-set", "ab" * 32)
    qrels = judged.Qrels.from_dict({"q1": {"a": 2, "b": 0}, "q2": {"c": 1}}, "nist@1", source)
    run = {"q1": {"a": 1.0, "b": 2.0}, "q2": {"d": 1.0}}
    local = judged.evaluate(run, qrels, ["nDCG@2", "AP"])
    run_df = spark.createDataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                                   ["qid", "docid", "score"])
    result = evaluate(run_df, from_local(spark, qrels), ["nDCG@2", "AP"])
    assert result.aggregate == local.aggregate
    assert result.provenance["qrels"] == local.provenance["qrels"]
