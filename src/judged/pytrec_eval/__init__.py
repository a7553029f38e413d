"""pytrec_eval's module over judged: change ``import pytrec_eval`` to ``from judged import pytrec_eval``.

The same names (:class:`RelevanceEvaluator`, :func:`parse_run`,
:func:`parse_qrel`, :func:`compute_aggregated_measure`,
:data:`supported_measures`, :data:`supported_nicknames`), the same measure
names, keys and numbers, and the same exceptions: ``ValueError`` for an
unsupported measure, ``TypeError`` for an argument of the wrong type (judged's
:class:`~judged.UsageError` and :class:`~judged.errors.InputTypeError`, which
are those too). The numbers are judged's under the conventions pytrec_eval
applies without naming them: linear gain, ideal list from every judged
document, ties broken by docid descending, a query with no relevant judgment
scored 0, ``relevance_level`` as ``rel``, ``judged_docs_only_flag`` as
``unjudged=drop``, run scores compared as 32-bit floats, as its bundled
trec_eval 9 stores them (so 1.0 and 1.0 + 1e-9 tie), and recall levels met as
that trec_eval meets them (``rounding=v9``).

>>> from judged import pytrec_eval
>>> evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1, "d2": 0, "d3": 2}}, {"map", "ndcg_cut.3"})
>>> evaluator.evaluate({"q1": {"d1": 1.0, "d2": 2.0, "d3": 0.5}})
{'q1': {'map': 0.5833333333333333, 'ndcg_cut_3': 0.6199062332840657}}

Ties go by docid descending: d2 ranks above the relevant d1 (reciprocal rank
1/2). An empty ranking is scored (num_rel keeps its count), and so is every
judged query of the run, as in pytrec_eval:

>>> evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1}, "q2": {"d1": 1}}, {"recip_rank", "num_rel"})
>>> evaluator.evaluate({"q1": {"d1": 1.0, "d2": 1.0}, "q2": {}, "q9": {"d1": 1.0}})
{'q1': {'num_rel': 1.0, 'recip_rank': 0.5}, 'q2': {'num_rel': 1.0, 'recip_rank': 0.0}}

What pytrec_eval accepts and handles in a way of its own is taken as it
takes it, and said once in an :class:`InputWarning`: a NaN score (ranked here
as -inf; pytrec_eval's place for it depends on its sort), a negative
``relevance_level`` (nothing is relevant), utility with other than four
coefficients (0.0). Where pytrec_eval stops the process (a gain map such as
``ndcg.1=3``, a cutoff 0) this module raises ``ValueError``; runid answers 0.0
(pytrec_eval leaves the slot unset). Beyond pytrec_eval, a ranx ``Qrels`` or
``Run`` and an ir_datasets dataset (or its ``qrels_iter()``,
``scoreddocs_iter()``, or ``irds:DATASET_ID``) are taken as the dicts they
hold (:func:`judged.io.foreign.nested`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping

import numpy as np

from judged.engine.matching import unshared_problem, warn_unshared
from judged.io.foreign import nested
from judged.io.inputs import Qrels
from judged.pytrec_eval import checks
from judged.pytrec_eval.files import parse_qrel, parse_run
from judged.pytrec_eval.names import NICKNAMES, SUPPORTED, combine, expand, resolve
from judged.pytrec_eval.values import per_query, pytrec_run

__all__ = ["parse_run", "parse_qrel", "supported_measures", "supported_nicknames", "RelevanceEvaluator"]  # noqa: RUF022 (pytrec_eval's order)

#: The pytrec_eval release whose behaviour this module reproduces.
__version__ = "0.5.11"

#: trec_eval's measures, as pytrec_eval names them (runid and relstring answer 0.0).
supported_measures: set[str] = set(SUPPORTED)

#: pytrec_eval's nicknames; ``all_prefs``, ``prefs`` and ``qrels_jg`` name measures it refuses.
supported_nicknames: dict[str, set[str]] = {name: set(members) for name, members in NICKNAMES.items()}


class InputWarning(UserWarning):
    """Input pytrec_eval accepts and treats its own way, taken as it takes it: said once per call, with counts."""


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """The value over queries, as pytrec_eval aggregates: num_* summed, gm_* as exp(mean), others the mean.

    >>> compute_aggregated_measure("num_rel", [1.0, 2.0]), compute_aggregated_measure("map", [0.5, 1.0])
    (3.0, 0.75)
    >>> round(compute_aggregated_measure("gm_map", [0.0, -1.0]), 6)  # gm_* values are already logs
    0.606531
    """
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


class RelevanceEvaluator:
    """Judgments checked and indexed once, then :meth:`evaluate` for each run, as in pytrec_eval.

    ``query_relevance`` is ``{qid: {docid: grade}}``; queries without a judgment
    are dropped, as pytrec_eval does. ``measures`` are trec_eval names with
    parameters or nicknames: ``map``, ``P`` (every default cutoff), ``P_5``,
    ``ndcg_cut.5,10``, ``official``.
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        query_relevance = nested(query_relevance, "qrels")  # type: ignore[assignment]  # ranx, ir_datasets: dicts
        names = list(measures)
        combine(expand(names))  # pytrec_eval reads the names, then drops empty judgments, then checks the rest
        checks.nonempty_queries(query_relevance)
        rel = checks.level(relevance_level)
        judged_only = checks.flag(judged_docs_only_flag)
        notes = []
        if rel < 0:
            notes.append(f"relevance_level {rel}: pytrec_eval counts no document relevant at a negative level")
            rel = 2**63 - 1
        resolved = resolve(names, rel, judged_only)
        judged = checks.judged_queries(query_relevance)
        _warn([*notes, *resolved.notes])
        self._qrels = Qrels.from_dict(judged)
        self._judged = frozenset(judged)
        self._keys = resolved.measures
        self._rel, self._judged_only = rel, judged_only

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}`` for every query of ``scores`` that has judgments, an empty one too."""
        scores = nested(scores, "run")  # type: ignore[assignment]
        if not scores:
            return {}
        run, nans = pytrec_run(scores)
        if nans:
            _warn([f"{nans} NaN score(s) ranked as -inf (pytrec_eval's place for a NaN depends on its sort)"])
        asked = [qid for qid in scores if qid in self._judged]
        if not asked:  # pytrec_eval answers {}: say it is for sharing no query
            warn_unshared(unshared_problem(len(scores), len(self._judged)))
        specs = list(dict.fromkeys(spec for _, spec in self._keys if spec is not None))
        if not asked or not specs:
            return {qid: {key: 0.0 for key, _ in self._keys} for qid in asked}
        qids, values = per_query(run, self._qrels, specs, self._rel, self._judged_only)
        row = {qid: i for i, qid in enumerate(qids)}
        columns = [(key, None if spec is None else values[spec].tolist()) for key, spec in self._keys]
        return {qid: {key: 0.0 if col is None else col[row[qid]] for key, col in columns} for qid in asked}


def _warn(notes: list[str]) -> None:
    """One :class:`InputWarning` for everything in ``notes``."""
    if notes:
        warnings.warn(InputWarning("pytrec_eval's own handling applied: " + "; ".join(notes) + "."), stacklevel=3)

