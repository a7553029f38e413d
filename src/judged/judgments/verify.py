"""``judged db verify``: prove that the store's history is the one its writes made.

Checks every hash chain (:mod:`judged.judgments.chain`) from its first event,
recomputes every frozen set's content hash from its stored pairs, checks
that every set still holds its seal pair (the one stored last), re-derives
every set from the log up to the head it records (a set is a function of the
log: :func:`judged.judgments.freeze.derivation_problems`), and, given an
anchor kept from ``judged db head``, that the chains still hold it. Anything that
does not hold is a problem, named with the event or set where it starts.

>>> from judged.judgments import Store
>>> with Store.open("sqlite://") as store:
...     _ = store.record("q1", "d1", assessor="ana", grade=2)
...     report = store.verify()
>>> report.ok, [(c.table, c.events) for c in report.chains]
(True, [('judgments', 1), ('adjudications', 0)])
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from judged.errors import JudgedError
from judged.judgments import chain
from judged.judgments import schema as t
from judged.judgments.freeze import check_content, derivation_problems


@dataclass(frozen=True)
class Verification:
    """What ``judged db verify`` found: each chain, how many sets were checked, and every problem."""

    chains: tuple[chain.ChainReport, ...]
    sets: int
    problems: tuple[str, ...]
    unanchored: int = 0  # sets frozen before migration 0008: no head, so not re-derived from the log

    @property
    def ok(self) -> bool:
        """Whether the whole history verified."""
        return not self.problems


def verify(connection: sa.Connection, expect_head: str | None = None) -> Verification:
    """Check the chains, the anchor ``expect_head`` (:func:`judged.judgments.chain.anchor`) when given, and every
    frozen set; see the module docstring."""
    chains = tuple(chain.verify(connection, name) for name in chain.CONTENT)
    problems = [c.problem for c in chains if c.problem is not None]
    if expect_head is not None:
        problems += chain.check_anchor(connection, expect_head)
    s, p = t.judgment_sets, t.judgment_set_pairs
    rows = connection.execute(sa.select(s).order_by(s.c.id)).all()
    for row in rows:
        spec = f"{row.name}@{row.version}"
        try:
            check_content(connection, row.id, spec, row.content_hash)
        except JudgedError as err:
            problems.append(str(err))
        sealed = connection.execute(sa.select(sa.func.count()).select_from(p).where(
            p.c.set_id == row.id, p.c.qid == row.seal_qid, p.c.docid == row.seal_docid)).scalar_one()
        if not sealed:
            problems.append(f"judgment set {spec} has lost its seal pair ({row.seal_qid} {row.seal_docid}): "
                            "pairs were removed after it was frozen")
        problems += derivation_problems(connection, row._mapping)
    unanchored = [row.id for row in rows if row.head is None]
    anchored = [row.id for row in rows if row.head is not None]
    if unanchored and (min(unanchored) < 1 or (anchored and min(anchored) < max(unanchored))):
        problems.append(f"judgment sets #{', #'.join(map(str, unanchored))} record no head, but they are not the "
                        "first sets stored: a set frozen since migration 0008 always records one, so these were "
                        "added behind the store")
    return Verification(chains, len(rows), tuple(problems), len(unanchored))
