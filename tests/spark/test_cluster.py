"""On a real multi-process cluster: ``local-cluster[2,1,1024]`` starts two executor JVMs, each with its own
Python workers, which import judged as installed (editable here), exactly as a cluster's executors must.

The command line is run in a fresh process (a cluster master cannot join the
tests' own local session) and must print the local engine's numbers, write
the same per-query values and end without an ERROR line in its log.
"""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl

import judged

MEASURES = ["nDCG@10", "AP", "nDCG(ties=input)@5", "P(ties=worst)@5"]


def test_a_local_cluster_gives_the_local_numbers_and_a_clean_log(examples, tmp_path):
    out = tmp_path / "values.parquet"
    runs = [examples / "runs" / "bm25.run", examples / "runs" / "naive.run"]
    measures = [a for m in MEASURES for a in ("-m", m)]
    code = "import sys; from judged.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "eval", *map(str, runs), "--qrels", str(examples / "qrels.txt"), *measures,
         "--no-judged", "-f", "json", "--engine", "spark", "--master", "local-cluster[2,1,1024]", "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "ERROR" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    results = json.loads(done.stdout)["results"]
    for path, result in zip(runs, results):
        local = judged.evaluate(path, examples / "qrels.txt", MEASURES)
        assert result["aggregate"] == {str(m): v for m, v in local.aggregate.items()}
        assert result["provenance"]["engine"]["master"] == "local-cluster[2,1,1024]"
    written = pl.read_parquet(out / "*.parquet").sort("run", "qid", "measure")
    expected = pl.concat([judged.evaluate(p, examples / "qrels.txt", MEASURES).per_query() for p in runs])
    assert written.equals(expected.sort("run", "qid", "measure"))


def test_lake_layouts_on_a_local_cluster_read_as_the_rows(spark, tmp_path):
    """Partition folders of odd qids (pyarrow's hive writer, Spark's partitionBy) with an empty part, read by the
    executors of a real cluster: the local engine's numbers for the same rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    qids = ["a:b", "x/y", "50%", "k=v", "two words", "café", "日本"]
    rows = [(q, f"d{i}", float(2 - i % 2)) for i, q in enumerate(q for q in qids for _ in range(2))]
    frame = pl.DataFrame(rows, schema=["qid", "docid", "score"], orient="row")
    pq.write_to_dataset(pa.Table.from_pandas(frame.to_pandas()), str(tmp_path / "hive"), partition_cols=["qid"])
    (tmp_path / "hive" / "part-empty").write_bytes(b"")
    spark.createDataFrame(rows, "qid string, docid string, score double").write.partitionBy("qid").parquet(
        str(tmp_path / "spark"))
    qrels = tmp_path / "qrels.parquet"
    pl.DataFrame({"qid": qids, "docid": [f"d{2 * i}" for i in range(len(qids))], "grade": [1] * len(qids)}
                 ).write_parquet(qrels)
    code = "import sys; from judged.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "eval", str(tmp_path / "hive"), str(tmp_path / "spark"), "--qrels", str(qrels),
         "-m", "P@1", "-m", "AP", "--no-judged", "-f", "json", "--engine", "spark",
         "--master", "local-cluster[2,1,1024]"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    local = judged.evaluate(frame, qrels, ["P@1", "AP"])
    for result in json.loads(done.stdout)["results"]:
        assert result["aggregate"] == {str(m): v for m, v in local.aggregate.items()}
        assert result["provenance"]["run"]["queries"] == len(qids)
