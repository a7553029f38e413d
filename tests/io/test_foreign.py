"""Runs and judgments in other IR libraries' objects: ir_datasets datasets, their iterables and ``irds:`` ids,
and ranx ``Qrels``/``Run``, read equal to the same rows from a file, by judged and both drop-in modules."""

from __future__ import annotations

import sys
import types
from collections import namedtuple
from pathlib import Path

import pytest
from click.testing import CliRunner

import judged
from judged import ir_measures as shim_ir_measures
from judged import pytrec_eval as shim_pytrec_eval
from judged.cli import main
from judged.errors import InputError, UsageError

EXAMPLES = Path(__file__).parents[2] / "examples"
RUN, QRELS = EXAMPLES / "runs" / "bm25.run", EXAMPLES / "qrels.txt"
MEASURES = ["nDCG@10", "AP", "P@5"]

ir_datasets = pytest.importorskip("ir_datasets")  # in the test extra (judged[irds])


@pytest.fixture(scope="module")
def dataset():
    """The bundled qrels as an ir_datasets dataset made from the local file (no download), registered by id."""
    made = ir_datasets.create_dataset(qrels_trec=str(QRELS))
    if "judged-test/example" not in ir_datasets.registry:
        ir_datasets.registry.register("judged-test/example", made)
    return made


def test_a_dataset_its_iterable_and_its_id_read_as_the_file(dataset):
    expected = judged.evaluate(RUN, QRELS, MEASURES)
    for qrels in (dataset, dataset.qrels_iter(), "irds:judged-test/example", list(dataset.qrels_iter())):
        result = judged.evaluate(RUN, qrels, MEASURES)
        assert result.aggregate == expected.aggregate
        assert result.provenance["qrels"]["rows"] == expected.provenance["qrels"]["rows"]
    by_id = judged.evaluate(RUN, "irds:judged-test/example", MEASURES).provenance["qrels"]
    assert (by_id["name"], by_id["path"], by_id["format"]) == ("judged-test/example", "irds:judged-test/example",
                                                               "ir_datasets")
    assert by_id["sha256"] == judged.evaluate(RUN, dataset, MEASURES).provenance["qrels"]["sha256"]


def test_scored_documents_read_as_a_run():
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    run = judged.read_run(RUN)
    docs = [ScoredDoc(q, d, s) for q, d, s in run.frame.rows()]
    assert judged.evaluate(iter(docs), QRELS, MEASURES).aggregate == judged.evaluate(RUN, QRELS, MEASURES).aggregate


def test_both_drop_ins_take_a_dataset(dataset):
    run = {q: dict(rows) for q, rows in judged.read_run(RUN).frame.rows_by_key("qid").items()}
    qrels = {q: dict(rows) for q, rows in judged.read_qrels(QRELS).frame.rows_by_key("qid").items()}
    plain = shim_pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10"}).evaluate(run)
    assert shim_pytrec_eval.RelevanceEvaluator(dataset, {"map", "ndcg_cut.10"}).evaluate(run) == plain
    measures = [shim_ir_measures.parse_measure(m) for m in ("nDCG@10", "AP")]
    expected = shim_ir_measures.calc_aggregate(measures, shim_ir_measures.read_trec_qrels(str(QRELS)), run)
    assert shim_ir_measures.calc_aggregate(measures, dataset, run) == expected
    assert shim_ir_measures.calc_aggregate(measures, dataset.qrels_iter(), run) == expected


def test_an_unknown_dataset_or_a_missing_library_is_one_line(monkeypatch):
    with pytest.raises(UsageError, match=r"^ir_datasets has no dataset 'no/such-set'"):
        judged.read_qrels("irds:no/such-set")
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # as where it is not installed
    with pytest.raises(UsageError, match=r"reading irds:msmarco-passage/dev needs judged's irds extra .*"
                                         r"pip install 'judged\[irds\]'"):
        judged.read_qrels("irds:msmarco-passage/dev")


def test_the_cli_reads_qrels_by_dataset_id(dataset):
    done = CliRunner().invoke(main, ["eval", str(RUN), "--qrels", "irds:judged-test/example", "-m", "nDCG@10"])
    assert done.exit_code == 0, done.output
    plain = CliRunner().invoke(main, ["eval", str(RUN), "--qrels", str(QRELS), "-m", "nDCG@10"])
    assert done.output.splitlines()[-1] == plain.output.splitlines()[-1]


def test_items_without_the_fields_are_refused_naming_the_item():
    with pytest.raises(InputError, match=r"item 2 has no query_id, doc_id and relevance"):
        judged.read_qrels(iter([namedtuple("Q", "query_id doc_id relevance")("q1", "d1", 1), ("q1", "d2", 0)]))


def test_ranx_objects_are_read_as_their_dicts(monkeypatch):
    """A stand-in with ranx's module and ``to_dict`` (ranx itself is not in the test extra: see the next test)."""
    fake = types.ModuleType("ranx")

    class Qrels:
        __module__ = "ranx.data_structures.qrels"

        def to_dict(self):
            return {"q1": {"d1": 1, "d2": 0}}

    class Run(Qrels):
        __module__ = "ranx.data_structures.run"
        name = "mine"

        def to_dict(self):
            return {"q1": {"d1": 1.0, "d2": 2.0}}

    monkeypatch.setitem(sys.modules, "ranx", fake)
    result = judged.evaluate(Run(), Qrels(), ["AP"])
    assert (result.run, result.value("AP")) == ("mine", 0.5)


def test_real_ranx_objects_where_ranx_is_installed():
    ranx = pytest.importorskip("ranx")
    run = ranx.Run({"q1": {"d1": 1.0, "d2": 2.0}}, name="mine")
    qrels = ranx.Qrels({"q1": {"d1": 1, "d2": 0}})
    assert judged.evaluate(run, qrels, ["AP"]).value("AP") == 0.5
    assert shim_pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run) == {"q1": {"map": 0.5}}
