"""pytrec_eval's call shape over judged: change ``import pytrec_eval`` to ``from judged import pytrec_eval``.

:class:`RelevanceEvaluator` takes the judgments once and scores any number of
runs, returning pytrec_eval's nested dict under trec_eval's measure names. The
numbers are judged's under the conventions pytrec_eval applies without naming
them, named here: linear gain, ideal list from every judged document, ties
broken by docid descending, a query with no relevant judgment scored 0,
``relevance_level`` as ``rel``, ``judged_docs_only_flag`` as ``unjudged=drop``,
run scores compared as 32-bit floats, as pytrec_eval's bundled trec_eval
stores them (so scores equal after rounding to float32 tie, as they do there),
and recall levels met as that trec_eval 9 meets them (``rounding=v9``:
``iprec_at_recall`` and ``11pt_avg`` differ from trec_eval 10's there). One
number differs on purpose: where ``judged_docs_only_flag`` leaves a query
nothing judged, those two are 0 here and NaN (0 divided by 0) in pytrec_eval.

>>> from judged import pytrec_eval
>>> evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1, "d2": 0, "d3": 2}}, {"map", "ndcg_cut.3"})
>>> evaluator.evaluate({"q1": {"d1": 1.0, "d2": 2.0, "d3": 0.5}})
{'q1': {'map': 0.5833333333333333, 'ndcg_cut_3': 0.6199062332840657}}

Measures are the trec_eval entries judged computes (:data:`supported_measures`);
another trec_eval measure is refused with the list.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import polars as pl

from judged.engine.evaluate import evaluate
from judged.errors import InputError, NoJudgedQueriesError
from judged.io.inputs import Qrels, Run
from judged.measures.registry import GEOMETRIC_FLOOR
from judged.measures.spec import Measure
from judged.measures.trec_names import TABLE, from_trec_eval

#: The trec_eval measures (table entries) this call shape computes.
supported_measures: frozenset[str] = frozenset(TABLE)


class RelevanceEvaluator:
    """Judgments read and indexed once, then :meth:`evaluate` for each run, as in pytrec_eval.

    ``query_relevance`` is ``{qid: {docid: grade}}``; queries without a judgment
    are dropped, as pytrec_eval does. ``measures`` are trec_eval names with
    parameters: ``map``, ``P`` (every default cutoff), ``P_5``, ``ndcg_cut.5,10``,
    ``ndcg.1=1,2=3``.
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        judged_queries = {qid: docs for qid, docs in query_relevance.items() if len(docs)}
        self._qrels = Qrels.from_dict(judged_queries)
        self._judged = frozenset(str(qid) for qid in judged_queries)
        named: dict[Measure, str] = {}
        for name in sorted(set(measures)):
            for printed, measure in from_trec_eval(name, rel=relevance_level, judged_only=judged_docs_only_flag):
                if "rounding" in measure.family.params:  # the trec_eval 9 inside pytrec_eval meets levels its way
                    measure = dataclasses.replace(measure, rounding="v9")
                named.setdefault(measure, printed)
        self._names = named

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}`` for every query of ``scores`` that has judgments.

        A query of ``scores`` with no documents is scored as an empty ranking,
        as in pytrec_eval, unless no query of ``scores`` retrieves anything
        (then judged has nothing to rank and the answer is ``{}``).
        """
        run = float32_scores(Run.from_dict(scores))
        try:
            result = evaluate(run, self._qrels, list(self._names), missing="zero")
        except NoJudgedQueriesError:
            return {}
        asked = {str(qid) for qid in scores} & self._judged
        names = list(self._names.values())
        columns = [_as_pytrec_eval(m, result.values[m]).tolist() for m in self._names]
        return {qid: dict(zip(names, row)) for qid, *row in zip(result.qids, *columns) if qid in asked}


def _as_pytrec_eval(measure: Measure, values: np.ndarray) -> np.ndarray:
    """Per-query values as pytrec_eval hands them out: gm_map and gm_bpref as log(max(v, 1e-5)), the terms
    its compute_aggregated_measure averages and exponentiates."""
    if measure.family.aggregate == "gmean":
        return np.log(np.maximum(values, GEOMETRIC_FLOOR))
    return values


def parse_run(lines: Iterable[str]) -> dict[str, dict[str, float]]:
    """``{qid: {docid: score}}`` from TREC run lines (``qid Q0 docid rank score tag``), read by judged's reader."""
    frame = _read_lines(lines, "run").frame
    return _nested(frame, "score", float)


def parse_qrel(lines: Iterable[str]) -> dict[str, dict[str, int]]:
    """``{qid: {docid: grade}}`` from TREC qrels lines (``qid iter docid grade``), read by judged's reader."""
    frame = _read_lines(lines, "qrels").frame
    return _nested(frame, "grade", int)


def _read_lines(lines: Iterable[str], kind: str) -> Run | Qrels:
    """Read with judged's own TREC reader: an open file by its path, other lines through a temporary file."""
    from judged.io.trec import read_trec_qrels, read_trec_run

    read = read_trec_run if kind == "run" else read_trec_qrels
    path = getattr(lines, "name", None)
    if isinstance(path, str) and os.path.isfile(path):
        return read(path)
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / kind
        with copy.open("w", encoding="utf-8", newline="") as handle:
            for line in lines:
                handle.write(line if line.endswith("\n") else line + "\n")
        try:
            return read(copy)
        except InputError as err:
            raise InputError(err.problem, path=f"<{kind} lines>", line=err.line, text=err.text,
                             expected=err.expected) from None


def _nested(frame: pl.DataFrame, column: str, cast: type) -> dict:
    out: dict[str, dict] = {}
    for qid, docid, value in frame.select("qid", "docid", column).iter_rows():
        out.setdefault(qid, {})[docid] = cast(value)
    return out


def float32_scores(run: Run) -> Run:
    """``run`` with each score rounded to a 32-bit float, as trec_eval inside pytrec_eval stores it."""
    return run.with_scores(run.frame["score"].to_numpy().astype(np.float32).astype(np.float64))
