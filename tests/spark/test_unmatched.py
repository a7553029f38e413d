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
