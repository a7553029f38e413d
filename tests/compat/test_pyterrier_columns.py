"""PyTerrier's frames name the document docno (doc_id after pt.model.to_ir_measures); docid is its index's integer."""

from __future__ import annotations

import pandas as pd
import pytest

import judged

QRELS = {"q1": {"d1": 1, "d2": 0}}


@pytest.mark.parametrize("names", [("query_id", "doc_id"), ("qid", "docno")])
def test_an_integer_docid_beside_the_named_document_is_not_the_document(names):
    qid, doc = names
    run = pd.DataFrame({qid: ["q1", "q1"], doc: ["d1", "d2"], "score": [2.0, 1.0], "docid": [0, 1]})
    result = judged.evaluate(run, QRELS, ["AP", "P@1"])
    assert list(result.aggregate.values()) == [1.0, 1.0]


def test_a_frame_with_docid_alone_still_reads_it():
    run = pd.DataFrame({"qid": ["q1", "q1"], "docid": ["d2", "d1"], "score": [2.0, 1.0]})
    assert list(judged.evaluate(run, QRELS, ["P@1"]).aggregate.values()) == [0.0]
