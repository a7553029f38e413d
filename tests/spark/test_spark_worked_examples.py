"""The field's worked numbers, computed by judged.spark: one query per example, one job."""

from __future__ import annotations

import pytest

from judged.measures import parse
from judged.spark import evaluate

# Each query returns its documents in this order (scores descending) and every returned document is judged
# with the grade listed, so the judged set is the returned grades.
EXAMPLES = {
    "seed": [1, 3, 0, 2, 0, 0, 2, 0, 0, 1],
    "regraded": [3, 2, 0, 2, 0, 0, 2, 0, 0, 1],
    "short": [2, 0, 3, 1, 0],
    "linear": [3, 2, 3, 0, 1, 2],
    "three": [3, 0, 2],
}
EXPECTED = [
    ("seed", "nDCG(gain=exp)@10", 7.998 / 11.210, 1e-3),
    ("seed", "R@10", 1.0, 0),
    ("regraded", "nDCG(gain=exp)@10", 0.951, 1e-3),
    ("regraded", "R@10", 1.0, 0),
    ("short", "DCG(gain=exp)@5", 6.931, 1e-3),
    ("short", "nDCG(gain=exp)@5", 0.738, 1e-3),
    ("short", "nDCG(gain=exp)@3", 0.692, 1e-3),
    ("linear", "DCG@6", 6.86, 1e-2),
    ("linear", "nDCG@6", 0.96, 1e-2),
    ("three", "nDCG@1", 1.0, 0),
    ("three", "nDCG@2", 0.703918, 1e-6),
    ("three", "nDCG@3", 0.938557, 1e-6),
]


def test_worked_examples(spark):
    run = [(q, f"d{i}", float(len(grades) - i)) for q, grades in EXAMPLES.items() for i in range(len(grades))]
    qrels = [(q, f"d{i}", grade) for q, grades in EXAMPLES.items() for i, grade in enumerate(grades)]
    result = evaluate(spark.createDataFrame(run, ["qid", "docid", "score"]),
                      spark.createDataFrame(qrels, ["qid", "docid", "grade"]),
                      sorted({measure for _, measure, _, _ in EXPECTED}))
    values = {(row.qid, row.measure): row.value for row in result.per_query().collect()}
    for qid, measure, expected, tolerance in EXPECTED:
        assert values[(qid, str(parse(measure)))] == pytest.approx(expected, abs=tolerance), (qid, measure)
