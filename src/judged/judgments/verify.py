"""``judged db verify``: prove that the store's history is the one its writes made.

Checks every hash chain (:mod:`judged.judgments.chain`) from its first event,
recomputes every frozen set's content hash from its stored pairs, checks
that every set still holds its seal pair (the one stored last), and, given an
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
from judged.judgments.freeze import check_content


@dataclass(frozen=True)
class Verification:
    """What ``judged db verify`` found: each chain, how many sets were checked, and every problem."""

    chains: tuple[chain.ChainReport, ...]
    sets: int
    problems: tuple[str, ...]

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
    rows = connection.execute(sa.select(s.c.id, s.c.name, s.c.version, s.c.content_hash, s.c.seal_qid,
                                        s.c.seal_docid).order_by(s.c.id)).all()
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
    return Verification(chains, len(rows), tuple(problems))
