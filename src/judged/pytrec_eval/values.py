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

>>> from judged.measures.trec_names import from_trec_eval
>>> iprec = dict(from_trec_eval("iprec_at_recall"))["iprec_at_recall_0.00"]
>>> _nan_mask(iprec, retrieved=np.array([0.0, 3.0, 0.0]), relevant=np.array([2.0, 2.0, 0.0])).tolist()
[True, False, True]
"""

from __future__ import annotations

import numpy as np
import polars as pl

from judged.engine.evaluate import query_values
from judged.engine.matching import Matching, warn_if_unmatched
from judged.io.inputs import Qrels, Run
from judged.io.native import flatten_nested
from judged.measures.registry import GEOMETRIC_FLOOR
from judged.measures.spec import Measure
from judged.measures.trec_names import from_trec_eval
from judged.pytrec_eval import checks
from judged.pytrec_eval.names import Levels


def pytrec_run(scores: object) -> tuple[Run, int]:
    """``scores`` as the run pytrec_eval ranks, and how many of its scores were NaN (ranked as -inf).

    Checked as pytrec_eval's extension checks a run (:func:`~judged.pytrec_eval.checks.checked_scores`),
    except where the C extension flattens it: exact ``str`` keys, ``dict`` queries and ``float`` or ``int``
    scores are all what pytrec_eval takes, so nothing is left to check and no Python loop runs per score.
    Each score is rounded to a 32-bit float, as trec_eval inside pytrec_eval stores it; one beyond float32's
    range becomes ±inf there, and here (without numpy's overflow warning).

    >>> run, nans = pytrec_run({"q1": {"d1": 0.1, "d2": float("nan")}})
    >>> run.frame["score"].to_list(), nans
    ([0.10000000149011612, -inf], 1)
    """
    flat = flatten_nested(scores, "score")
    if flat is None:
        checked, nans = checks.checked_scores(scores)
        if nans:
            checked = {q: {d: -np.inf if s != s else s for d, s in docs.items()} for q, docs in checked.items()}
        run = Run.from_dict(checked)
        return run.with_scores(_float32(run.frame["score"].to_numpy())), nans
    frame, lengths = flat
    score = frame["score"].to_numpy()
    nan = np.isnan(score)
    rounded = _float32(np.where(nan, -np.inf, score))
    return Run.from_flat(scores, frame.with_columns(pl.Series("score", rounded)), lengths), int(nan.sum())  # type: ignore[arg-type]


def _float32(scores: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return scores.astype(np.float32).astype(np.float64)


def per_query(run: Run, qrels: Qrels, specs: list[Measure | Levels], rel: int,
              judged_only: bool) -> tuple[tuple[str, ...], dict[Measure | Levels, np.ndarray]]:
    """Every judged query's value of each of ``specs``, as pytrec_eval hands it out.

    A run whose documents are not the judgments' (none or almost none retrieved is judged) is said in an
    :class:`~judged.UnmatchedDocumentsWarning`, as :func:`judged.evaluate` says it.
    """
    retrieved = from_trec_eval("num_ret", judged_only=judged_only)[0][1]  # under -J: judged documents retrieved
    relevant = from_trec_eval("num_rel", rel=rel)[0][1]
    needed = [m for spec in specs for m in ([spec.at(v) for v in spec.levels] if isinstance(spec, Levels) else [spec])]
    asked = list(dict.fromkeys([*needed, retrieved, relevant]))
    found = query_values(run, qrels, asked)
    warn_if_unmatched(Matching.of(found.matching), {"name": run.name}, {"name": qrels.name})
    values = {m: _with_norel(found.raw[m], m) for m in asked}
    ret, r = values[retrieved], values[relevant]
    out = {}
    for spec in specs:
        column = _levels_column(spec, values, r) if isinstance(spec, Levels) else values[spec]
        if isinstance(spec, Measure) and spec.family.aggregate == "gmean":
            column = np.log(np.maximum(column, GEOMETRIC_FLOOR))
        out[spec] = np.where(_nan_mask(spec, ret, r), np.nan, column)
    return found.qids, out


def _with_norel(raw: np.ndarray, measure: Measure) -> np.ndarray:
    """The kernel's values with a query that has no relevant judgment (NaN there) scored ``norel``."""
    values = raw.copy()
    if measure.norel != "skip":
        values[np.isnan(raw)] = float(measure.norel)
    return values


def _met_at(level: float, relevant: np.ndarray) -> np.ndarray:
    """The how-many-th relevant document meets ``level`` in trec_eval 9: (long)(level R + 0.9)."""
    return (level * relevant + 0.9).astype(np.int64)


def _levels_column(spec: Levels, values: dict[Measure, np.ndarray], relevant: np.ndarray) -> np.ndarray:
    """IPrec at each level (above 1: IPrec at 1 where the level is met at the R-th relevant, else 0), or the
    mean of the levels added from the highest down, as trec_eval adds them."""
    columns = [values[spec.at(v)] if v <= 1 else np.where(_met_at(v, relevant) == relevant, values[spec.at(v)], 0.0)
               for v in spec.levels]
    if not spec.mean:
        return columns[0]
    total = np.zeros_like(relevant)
    for column in reversed(columns):
        total = total + column
    return total / len(columns)


def _nan_mask(spec: Measure | Levels, retrieved: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Where pytrec_eval's trec_eval 9 answers NaN: nothing retrieved, and a recall level met at 0 relevant."""
    if isinstance(spec, Levels):
        levels = list(spec.levels)
    elif spec.name in ("IPrec", "IPrec11pt"):
        levels = [spec.recall] if spec.name == "IPrec" else list(spec.levels)
    else:
        return np.zeros(len(retrieved), dtype=bool)
    met_at_zero = np.any([_met_at(float(v), relevant) == 0 for v in levels], axis=0)
    return (retrieved == 0) & met_at_zero
