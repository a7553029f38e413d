"""Spark says what the local engine says of a run whose documents are not the judgments' (the same counts)."""

from __future__ import annotations

import warnings

import judged
from judged.engine.matching import UnmatchedDocumentsWarning
from judged.spark import evaluate


def test_spark_warns_and_records_as_the_local_engine(spark):
    run = spark.createDataFrame([("q1", 0, 2.0), ("q1", 1, 1.0), ("q2", 2, 1.0)], ["query_id", "docid", "score"])
    qrels = spark.createDataFrame([("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d4", 1)], ["qid", "doc_id", "rel"])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = evaluate(run, qrels, ["AP"])
        local = judged.evaluate(run.toPandas(), qrels.toPandas(), ["AP"])
    messages = [str(w.message) for w in seen if issubclass(w.category, UnmatchedDocumentsWarning)]
    assert len(messages) == 2 and messages[0] == messages[1]
    assert messages[0].endswith("(ids read from the run's columns 'query_id' and 'docid', the judgments' columns "
                                "'qid' and 'doc_id')")
    assert result.provenance["documents"] == local.provenance["documents"] == {
        "shared_queries": 2, "retrieved": 3, "judged": 3, "retrieved_and_judged": 0, "could_match": 3,
        "unmatched": True}


def test_spark_says_what_the_local_engine_says_of_numbers_written_apart(spark, tmp_path):
    """An integer Parquet run against text qrels: the same warning on both engines, pairs found across buckets."""
    import polars as pl

    from judged.engine.matching import UnmatchedQueriesWarning
    from judged.spark import read_qrels, read_run

    run = tmp_path / "run.parquet"
    numbers = list(range(1, 40))
    pl.DataFrame({"qid": numbers, "docid": ["a"] * len(numbers), "score": [1.0] * len(numbers)}).write_parquet(run)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{n:03d} 0 a 1\n" for n in numbers if n % 2) + "".join(
        f"{n} 0 a 1\n" for n in numbers if not n % 2))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = evaluate(read_run(spark, str(run)), read_qrels(spark, str(qrels)), ["P@1"])
        local = judged.evaluate(run, qrels, ["P@1"])
    messages = [str(w.message) for w in seen if issubclass(w.category, UnmatchedQueriesWarning)]
    said = [m.split(" (ids read from")[0] for m in messages]  # Spark names a folder's columns in general words
    assert len(messages) == 2 and said[0] == said[1]
    assert messages[0].startswith("20 queries of run 'run' are judged queries of 'qrels.txt' written another way as "
                                  "a number ('1' and '001', '11' and '011', '13' and '013', ...)")
    assert result.aggregate == local.aggregate
