"""Each assessor's current grades, and the adjudicated set, as :class:`~judged.Qrels` for evaluation.

Assessor sensitivity evaluates runs under every assessor's grades; these
functions read them from the store instead of one qrels file per assessor.
An assessor's Qrels holds their current grades (cannot-judge left out,
negative grades kept: trec_eval's "pooled, not judged" round-trips), with a
source ``URL#assessor:NAME`` whose sha256 is that of the labels' canonical
qrels text, so a result records exactly which labels it used. The
adjudicated set is what ``judged freeze --resolve POLICY`` would freeze now,
computed without storing anything.

>>> from judged.judgments import Store
>>> store = Store.open("sqlite://")
>>> _ = store.import_qrels({"q1": {"d1": 1, "d2": 3}}, assessor="ann")
>>> _ = store.import_qrels({"q1": {"d1": 3, "d2": 2}}, assessor="bob")
>>> {name: q.frame["grade"].to_list() for name, q in assessor_qrels(store).items()}
{'ann': [1, 3], 'bob': [3, 2]}
>>> adjudicated_qrels(store) is None          # nothing adjudicated yet
True
>>> _ = store.adjudicate("q1", "d1", 2, adjudicator="lead", note="partly")
>>> adjudicated_qrels(store, resolve="assessor:ann").frame["grade"].to_list()
[2, 3]
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence

import polars as pl

from judged.errors import UsageError
from judged.io.inputs import QRELS_SCHEMA, Qrels, Source
from judged.judgments import adjudicate, automatic, catalog, freeze, log
from judged.judgments.engine import reading
from judged.judgments.store import Store


def assessor_labels(store: Store, assessors: Sequence[str] | None = None) -> pl.DataFrame:
    """Current grades ``qid, docid, assessor, grade`` of ``assessors`` (default: every person with a grade;
    automatic assessors only when named).

    Rows come grouped by assessor, in the order named (default: by name), so
    reports list the assessors in the order the user gave them. An unknown
    name, a named assessor without a grade, or grades given under more than
    one rubric version (agreement across versions would mix two scales) is a
    :class:`UsageError`.
    """
    with reading(store.engine) as connection:
        known = catalog.assessors(connection)
        labels = log.current_labels(connection, automatic.counted(connection, assessors).assessors)
        chosen = set(labels["assessor"].to_list())
        rubrics = sorted({e.rubric for e in log.current_events(connection, chosen) if e.kind == "grade"
                          and e.rubric is not None})
    if len(rubrics) > 1:
        raise UsageError(f"these grades were given under {len(rubrics)} rubric versions ({', '.join(rubrics)}); "
                         "agreement compares grades given under one version: name the assessors who judged "
                         "under the same one, or have the older pairs judged again")
    graded = labels["assessor"].unique().sort().to_list()
    for name in assessors or ():
        if name not in known:
            close = difflib.get_close_matches(name, known, n=3)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise UsageError(f"no assessor {name!r} in the store {store.url} "
                             f"(assessors: {', '.join(known) or 'none'}).{hint}")
        if name not in graded:
            raise UsageError(f"assessor {name!r} has no current grade in the store {store.url}.")
    order = list(dict.fromkeys(assessors)) if assessors else graded
    if not order:
        return labels
    return pl.concat([labels.filter(pl.col("assessor") == name) for name in order])


def assessor_qrels(store: Store, assessors: Sequence[str] | None = None) -> dict[str, Qrels]:
    """Each assessor's current grades as Qrels (see the module docstring), in :func:`assessor_labels`' order."""
    labels = assessor_labels(store, assessors)
    out = {}
    for name in labels["assessor"].unique(maintain_order=True).to_list():
        frame = labels.filter(pl.col("assessor") == name).select("qid", "docid", "grade")
        out[name] = _qrels(frame, name, f"{store.url}#assessor:{name}", "assessor-labels")
    return out


def adjudicated_qrels(store: Store, *, resolve: str = "refuse",
                      assessors: Sequence[str] | None = None) -> Qrels | None:
    """The labels ``judged freeze`` would take now, or ``None`` when nothing has been adjudicated.

    Per pair: the adjudicated grade, else the single or agreed grade, else the
    assessors' disagreement settled by ``resolve`` (``refuse``, the default,
    raises a :class:`UsageError` naming the open pairs). ``assessors``
    restricts the labels, as ``judged freeze --assessor`` does; by default they are people's
    (:func:`judged.judgments.automatic.counted`).
    """
    freeze.check_resolve(resolve)
    with reading(store.engine) as connection:
        if not adjudicate.latest(connection):
            return None
        rows, _ = freeze.decide(connection, resolve, automatic.counted(connection, assessors).assessors, True, set())
    labelled = [r for r in rows if r["grade"] is not None]
    frame = pl.DataFrame({key: [r[key] for r in labelled] for key in QRELS_SCHEMA}, schema=QRELS_SCHEMA)
    return _qrels(frame, "adjudicated", f"{store.url}#adjudicated:{resolve}", "adjudicated-labels")


def _qrels(frame: pl.DataFrame, name: str, where: str, kind: str) -> Qrels:
    """Qrels whose source hash is the sha256 of the labels' canonical qrels text (as a frozen set's is)."""
    text = freeze.qrels_text(frame.to_dicts())
    return Qrels.from_frame(frame, name, Source(where, kind, hashlib.sha256(text.encode()).hexdigest()))
