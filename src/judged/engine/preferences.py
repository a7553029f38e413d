"""Evaluate a run against preference judgments (trec_eval's ``-R prefs`` and ``-R qrels_prefs``).

The run is ranked as trec_eval ranks it for preferences (``form_prefs_counts.c``):
score descending, ties broken by docid *ascending* by bytes, the reverse of
the ``trec`` tie rule its graded measures use; ``depth`` keeps the first
documents of each query (``-M``). Each judged query is then scored by
:mod:`judged.measures.preferences`; a judged query the run does not answer
has nothing retrieved (every preference of it not occurring).

>>> from judged.io.inputs import Run
>>> from judged.io.prefs import Preferences
>>> import polars as pl
>>> prefs = Preferences(pl.DataFrame({"qid": ["q", "q"], "jg": ["u", "u"], "jsg": ["s", "s"],
...                                   "docid": ["a", "b"], "level": [2.0, 1.0]}), "prefs")
>>> values = preference_values(Run.from_dict({"q": {"a": 1.0, "b": 1.0}}, "r"), prefs, ["prefs_simp"])
>>> values.qids, values.values["prefs_simp"].tolist()   # tied: a before b, the preference is fulfilled
(('q',), [1.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from judged.io.inputs import Run
from judged.io.prefs import Preferences
from judged.measures.preferences import QueryPreferences, preference_value


@dataclass(frozen=True, eq=False)
class PreferenceValues:
    """Per judged query (byte order of qid): each preference measure's value, and which queries the run lacks."""

    qids: tuple[str, ...]
    values: dict[str, np.ndarray]
    missing: np.ndarray


def preference_values(run: Run, prefs: Preferences, names: Sequence[str], *,
                      depth: int | None = None) -> PreferenceValues:
    """Every measure of ``names`` (keys of :data:`~judged.measures.preferences.PREFERENCE_MEASURES`) per query."""
    ranked = _ranked_docids(run, depth)
    rows: dict[str, list[tuple[str, str, str, float]]] = {}
    for qid, jg, jsg, docid, level in prefs.frame.iter_rows():
        rows.setdefault(qid, []).append((jg, jsg, docid, level))
    qids = tuple(prefs.qids)
    values = {name: np.zeros(len(qids)) for name in names}
    for i, qid in enumerate(qids):
        query = QueryPreferences.of(ranked.get(qid, []), rows[qid])
        for name in names:
            values[name][i] = preference_value(name, query)
    return PreferenceValues(qids, values, np.array([q not in ranked for q in qids], dtype=bool))


def _ranked_docids(run: Run, depth: int | None) -> dict[str, list[str]]:
    ranked = (
        run.frame.sort(["qid", "score", "docid"], descending=[False, True, False], maintain_order=True)
        .group_by("qid", maintain_order=True)
        .agg(pl.col("docid").head(depth) if depth is not None else pl.col("docid"))
    )
    return dict(zip(ranked["qid"].to_list(), ranked["docid"].to_list(), strict=True))


__all__ = ["PreferenceValues", "preference_values"]
