"""Measures averaged over judgment groups (trec_eval's ``-R qrels_jg``: ``map_avgjg``, ``P_avgjg``, ...).

Each judgment group is a complete set of judgments of its own (one user's);
a measure "averaged over judgment groups" is, per query, the mean of the
measure under each group that judged the query, computed by the ordinary
kernels on the ordinary ranked view: trec_eval's ``m_map_avgjg.c``,
``m_P_avgjg.c`` and ``m_Rprec_mult_avgjg.c`` are ``map``, ``P`` and
``Rprec_mult`` per group, summed in group order and divided by the number
of groups. So the judgment-group measures need no family of their own.

>>> from judged.io.inputs import Qrels, Run
>>> from judged.io.prefs import JudgmentGroups
>>> from judged.measures import parse
>>> groups = JudgmentGroups({"u1": Qrels.from_dict({"q": {"a": 1}}), "u2": Qrels.from_dict({"q": {"b": 1}})}, "jg")
>>> values = group_values(Run.from_dict({"q": {"a": 2.0, "b": 1.0}}), groups, [parse("P@1")])
>>> values.qids, values.values[parse("P@1")].tolist()   # (1 + 0) / 2
(('q',), [0.5])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judged.engine.evaluate import query_values
from judged.io.inputs import Run
from judged.io.prefs import JudgmentGroups
from judged.measures.spec import Measure


@dataclass(frozen=True, eq=False)
class GroupValues:
    """Per query judged by some group (byte order of qid): each measure's mean over the groups, and missing queries."""

    qids: tuple[str, ...]
    values: dict[Measure, np.ndarray]
    missing: np.ndarray


def group_values(run: Run, groups: JudgmentGroups, measures: Sequence[Measure], *,
                 depth: int | None = None) -> GroupValues:
    """Each measure per query, averaged over the judgment groups that judged the query.

    A query without a relevant document in a group takes the measure's
    ``norel`` value there (0 under trec_eval's conventions).
    """
    qids = tuple(groups.qids)
    index = {q: i for i, q in enumerate(qids)}
    totals = {m: np.zeros(len(qids)) for m in measures}
    judging = np.zeros(len(qids))
    missing = np.ones(len(qids), dtype=bool)
    for qrels in groups.groups.values():
        part = query_values(run, qrels, list(measures), depth)
        at = np.array([index[q] for q in part.qids], dtype=np.int64)
        judging[at] += 1
        missing[at] &= part.missing
        for m in measures:
            raw = part.raw[m]
            totals[m][at] += np.where(np.isnan(raw), float(m.norel) if m.norel != "skip" else np.nan, raw)
    average = {m: np.where(judging > 1, totals[m] / np.maximum(judging, 1), totals[m]) for m in measures}
    return GroupValues(qids, average, missing)


__all__ = ["GroupValues", "group_values"]
