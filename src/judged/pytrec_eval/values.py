"""Per-query values as pytrec_eval hands them out, from judged's kernels.

Each judged query of the run is scored, an empty ranking too (as a query the
run did not answer: judged's ``missing=zero``); a query with no relevant
judgment scores 0. Three habits of pytrec_eval's trec_eval are kept: gm_map
and gm_bpref are handed out as ``log(max(v, 1e-5))``, the terms its
``compute_aggregated_measure`` averages and exponentiates; num_q is 1 per
query; and where nothing is retrieved (or, with ``judged_docs_only_flag``,
nothing judged) iprec_at_recall divides 0 by 0 at each level met by the 0th
relevant document ((long)(level R + 0.9) = 0), so those levels, and an
11pt_avg over them, are NaN.

>>> import math
>>> from judged.measures.trec_names import from_trec_eval
>>> iprec = dict(from_trec_eval("iprec_at_recall"))["iprec_at_recall_0.00"]
>>> empty_ranking_nan(iprec, retrieved=0, relevant=2), empty_ranking_nan(iprec, retrieved=3, relevant=2)
(True, False)
"""

from __future__ import annotations

import numpy as np

from judged.engine.evaluate import query_values
from judged.io.inputs import Qrels, Run
from judged.measures.registry import GEOMETRIC_FLOOR
from judged.measures.spec import Measure
from judged.measures.trec_names import from_trec_eval


def float32_scores(run: Run) -> Run:
    """``run`` with each score rounded to a 32-bit float, as trec_eval inside pytrec_eval stores it.

    A score beyond float32's range becomes ±inf there, and here (without numpy's overflow warning).
    """
    with np.errstate(over="ignore"):
        scores = run.frame["score"].to_numpy().astype(np.float32).astype(np.float64)
    return run.with_scores(scores)


def per_query(run: Run, qrels: Qrels, measures: list[Measure], rel: int,
              judged_only: bool) -> tuple[tuple[str, ...], dict[Measure, np.ndarray]]:
    """Every judged query's value of each of ``measures``, as pytrec_eval hands it out."""
    retrieved = from_trec_eval("num_ret", judged_only=judged_only)[0][1]  # under -J: judged documents retrieved
    relevant = from_trec_eval("num_rel", rel=rel)[0][1]
    asked = list(dict.fromkeys([*measures, retrieved, relevant]))
    found = query_values(run, qrels, asked)
    values = {m: _with_norel(found.raw[m], m) for m in asked}
    out = {}
    for m in measures:
        column = values[m]
        if m.family.aggregate == "gmean":
            column = np.log(np.maximum(column, GEOMETRIC_FLOOR))
        nan = [empty_ranking_nan(m, r, n) for r, n in zip(values[retrieved].tolist(), values[relevant].tolist())]
        out[m] = np.where(nan, np.nan, column)
    return found.qids, out


def _with_norel(raw: np.ndarray, measure: Measure) -> np.ndarray:
    """The kernel's values with a query that has no relevant judgment (NaN there) scored ``norel``."""
    values = raw.copy()
    if measure.norel != "skip":
        values[np.isnan(raw)] = float(measure.norel)
    return values


def empty_ranking_nan(measure: Measure, retrieved: float, relevant: float) -> bool:
    """Whether pytrec_eval's trec_eval 9 answers NaN: nothing retrieved, and a recall level met at 0 relevant."""
    if retrieved or measure.name not in ("IPrec", "IPrec11pt"):
        return False
    levels = [measure.recall] if measure.name == "IPrec" else list(measure.levels)
    return any(int(float(level) * relevant + 0.9) == 0 for level in levels)
