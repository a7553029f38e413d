"""Data as a lake holds it: folders, globs, Parquet part files without a suffix, partition folders, gzip.

Each input is evaluated on Spark and compared with the local engine reading
the same rows from one file, so the numbers must be equal, not just close.
"""

from __future__ import annotations

import gzip
import shutil

import polars as pl
import pytest
from click.testing import CliRunner

import judged
from judged.cli import main
from judged.errors import InputError
from judged.spark import evaluate, read_qrels, read_run

MEASURES = ["nDCG@10", "AP", "P@5", "nDCG(ties=input)@5"]


@pytest.fixture
def local(examples):
    return judged.evaluate(examples / "runs" / "bm25.run", examples / "qrels.txt", MEASURES)


def split_by_query(source, folder, suffix=".run"):
    """The TREC file ``source`` as one file per query in ``folder`` (lines kept in their order)."""
    folder.mkdir()
    lines = source.read_text().splitlines(keepends=True)
    for qid in dict.fromkeys(line.split()[0] for line in lines):
        (folder / f"part-{qid}{suffix}").write_text("".join(line for line in lines if line.split()[0] == qid))
    return folder


def test_a_run_folder_and_a_glob_read_as_the_file(spark, examples, tmp_path, local):
    folder = split_by_query(examples / "runs" / "bm25.run", tmp_path / "bm25")
    for path in (folder, f"{folder}/part-*.run"):
        result = evaluate(read_run(spark, str(path)), read_qrels(spark, str(examples / "qrels.txt")), MEASURES)
        assert result.aggregate == local.aggregate
        assert result.run == "bm25"  # the tag of the last file's last line
        assert result.provenance["run"]["rows"] == local.provenance["run"]["rows"]
        assert result.provenance["run"]["sha256"] is None  # many files have no one hash


def test_a_parquet_folder_without_a_suffix_is_parquet_by_its_content(spark, examples, tmp_path, local):
    run = judged.read_run(examples / "runs" / "bm25.run")
    folder = tmp_path / "dt=2024-06-01"
    folder.mkdir()
    run.frame.with_row_index("n").filter(pl.col("n") < 700).drop("n").write_parquet(folder / "part-0000")
    run.frame.with_row_index("n").filter(pl.col("n") >= 700).drop("n").write_parquet(folder / "part-0001")
    spark_run = read_run(spark, str(folder))
    assert spark_run.format == "parquet"
    result = evaluate(spark_run, read_qrels(spark, str(examples / "qrels.txt")), MEASURES)
    assert result.aggregate == local.aggregate


def test_partition_folders_keep_query_ids_as_strings(spark, tmp_path):
    root = tmp_path / "run"
    rows = {"001": [("a", 2.0), ("b", 1.0)], "010": [("c", 1.0)]}
    for qid, docs in rows.items():
        (root / f"qid={qid}").mkdir(parents=True)
        pl.DataFrame({"docid": [d for d, _ in docs], "score": [s for _, s in docs]}).write_parquet(
            root / f"qid={qid}" / "part-0.parquet")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("001 0 a 1\n010 0 c 1\n1 0 a 1\n")
    result = evaluate(read_run(spark, str(root)), read_qrels(spark, str(qrels)), ["P@1"], missing="zero")
    assert result.local.qids == ("001", "010", "1")
    assert result.local.values[judged.parse("P@1")].tolist() == [1.0, 1.0, 0.0]


def test_a_gz_name_on_plain_text_is_read_as_text(spark, examples, tmp_path):
    run = tmp_path / "run.txt.gz"
    run.write_bytes((examples / "runs" / "bm25.run").read_bytes())
    result = evaluate(read_run(spark, str(run)), read_qrels(spark, str(examples / "qrels.txt")), ["P@5"])
    assert result.aggregate == judged.evaluate(run, examples / "qrels.txt", ["P@5"]).aggregate


def test_a_truncated_gz_file_is_one_line_naming_the_file(spark, examples, tmp_path):
    run = tmp_path / "run.txt.gz"
    run.write_bytes(gzip.compress(b"q1 Q0 a 1 2.0 t\n" * 1000)[:40])
    with pytest.raises(InputError) as caught:
        evaluate(read_run(spark, str(run)), read_qrels(spark, str(examples / "qrels.txt")), ["P@1"])
    with pytest.raises(InputError) as local:
        judged.evaluate(run, examples / "qrels.txt", ["P@1"])
    assert str(caught.value) == str(local.value) == (
        f"{run}: cannot read file after line 0: Compressed file ended before the end-of-stream marker was reached "
        "(expected the whole file; a .gz cut short in copying ends like this)")


def test_the_cli_reads_a_run_folder(spark, examples, tmp_path):
    folder = split_by_query(examples / "runs" / "bm25.run", tmp_path / "bm25")
    shutil.copy(examples / "qrels.txt", tmp_path / "qrels.txt")
    args = ["--qrels", str(tmp_path / "qrels.txt"), "-m", "nDCG@10", "-f", "json"]
    result = CliRunner().invoke(main, ["eval", str(folder), *args, "--engine", "spark"])
    assert result.exit_code == 0, result.output
    local = CliRunner().invoke(main, ["eval", str(examples / "runs" / "bm25.run"), *args])
    import json

    assert json.loads(result.stdout)["results"][0]["aggregate"] == json.loads(local.stdout)["results"][0]["aggregate"]


def test_a_document_repeated_across_two_files_of_a_folder_is_named_at_its_file_and_row(spark, examples, tmp_path):
    """Only the whole query shows it, so the bucket finds it with the local check and names the later file."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "part-a.run").write_text("q01 Q0 d1 1 2.0 t\nq01 Q0 d2 2 1.0 t\n")
    (folder / "part-b.run").write_text("q02 Q0 d1 1 2.0 t\nq01 Q0 d2 1 0.5 t\n")
    with pytest.raises(InputError) as caught:
        evaluate(read_run(spark, str(folder)), read_qrels(spark, str(examples / "qrels.txt")), ["P@1"])
    assert str(caught.value) == (f"{folder}/part-b.run: document appears twice in the same query of the run (row 2): "
                                 "'q01 d2 0.5' (expected each docid at most once per query)")


ODD_QIDS = ["a:b", "x/y", "50%", "k=v", "two words", "café", "日本"]


def _expected(run: pl.DataFrame, qrels, measures):
    return judged.evaluate(run, qrels, measures, missing="zero")


def test_partition_folders_written_by_pyarrow_with_odd_query_ids_read_as_the_rows(spark, tmp_path):
    """pyarrow's hive writer percent-encodes the values: the folders are opened as named and the values decoded."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = pl.DataFrame({"qid": [q for q in ODD_QIDS for _ in range(2)],
                          "docid": [f"d{i}" for i in range(2 * len(ODD_QIDS))],
                          "score": [2.0, 1.0] * len(ODD_QIDS)})
    pq.write_to_dataset(pa.Table.from_pandas(frame.to_pandas()), str(tmp_path / "lake"), partition_cols=["qid"])
    qrels = {q: {f"d{2 * i}": 1} for i, q in enumerate(ODD_QIDS)}
    result = evaluate(read_run(spark, str(tmp_path / "lake")), read_qrels_in_hand(spark, qrels), ["P@1", "AP"])
    assert sorted(result.local.qids) == sorted(ODD_QIDS)
    assert result.aggregate == _expected(frame, qrels, ["P@1", "AP"]).aggregate


def test_partition_folders_written_by_spark_with_odd_query_ids_read_as_the_rows(spark, tmp_path):
    """Spark's ``partitionBy`` escapes ``:``, ``/``, ``%``, ``=`` and more in folder names: the same rows come back."""
    rows = [(q, f"d{i}", float(2 - i % 2)) for i, q in enumerate(q for q in ODD_QIDS for _ in range(2))]
    spark.createDataFrame(rows, "qid string, docid string, score double").write.partitionBy("qid").parquet(
        str(tmp_path / "lake"))
    frame = pl.DataFrame(rows, schema=["qid", "docid", "score"], orient="row")
    qrels = {q: {f"d{2 * i}": 1} for i, q in enumerate(ODD_QIDS)}
    result = evaluate(read_run(spark, str(tmp_path / "lake")), read_qrels_in_hand(spark, qrels), ["P@1", "AP"])
    assert sorted(result.local.qids) == sorted(ODD_QIDS)
    assert result.aggregate == _expected(frame, qrels, ["P@1", "AP"]).aggregate


def read_qrels_in_hand(spark, qrels: dict):
    from judged.spark.files import from_local

    return from_local(spark, judged.Qrels.from_dict(qrels, "qrels"))


@pytest.mark.parametrize("name", ["run.csv", "run.tsv", "run.jsonl"])
def test_a_csv_is_a_csv_on_spark_as_locally(spark, examples, tmp_path, local, name):
    run = judged.read_run(examples / "runs" / "bm25.run")
    path = tmp_path / name
    {"run.csv": lambda: run.frame.write_csv(path), "run.tsv": lambda: run.frame.write_csv(path, separator="\t"),
     "run.jsonl": lambda: run.frame.write_ndjson(path)}[name]()
    assert judged.evaluate(path, examples / "qrels.txt", MEASURES).aggregate == local.aggregate
    spark_run = read_run(spark, str(path))
    assert spark_run.format == path.suffix.lstrip(".")
    result = evaluate(spark_run, read_qrels(spark, str(examples / "qrels.txt")), MEASURES)
    assert result.aggregate == local.aggregate


def test_an_empty_part_file_is_skipped_in_a_trec_folder_and_a_parquet_one(spark, examples, tmp_path, local):
    trec = split_by_query(examples / "runs" / "bm25.run", tmp_path / "trec")
    (trec / "part-0.run").write_bytes(b"")  # sorts first, as a job's empty first part does
    run = judged.read_run(examples / "runs" / "bm25.run")
    parquet = tmp_path / "parquet"
    parquet.mkdir()
    (parquet / "part-00000").write_bytes(b"")
    run.frame.write_parquet(parquet / "part-00001")
    qrels = read_qrels(spark, str(examples / "qrels.txt"))
    for folder, format in ((trec, "trec"), (parquet, "parquet")):
        spark_run = read_run(spark, str(folder))
        assert spark_run.format == format
        assert evaluate(spark_run, qrels, MEASURES).aggregate == local.aggregate


def test_a_folder_that_mixes_formats_is_refused_naming_both(spark, examples, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(examples / "runs" / "bm25.run", folder / "a.run")
    judged.read_run(examples / "runs" / "bm25.run").frame.write_parquet(folder / "b.parquet")
    with pytest.raises(InputError, match=r"b\.parquet: the folder mixes trec \(.*a\.run\) and parquet files"):
        read_run(spark, str(folder))
