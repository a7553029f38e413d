"""The store's methods for targeted efforts: target an effort on a measure settle bounds, read its target.

What targeting computes is in :mod:`judged.judgments.targeting`. That module
is loaded on use, inside each method, because it brings the analyses
(:mod:`judged.analysis.settle`): opening a store, recording a grade or
serving a queue that is not targeted never pays for them.
:meth:`~judged.judgments.Store.assign` takes ``target=`` too, to assign and
target in one transaction.

>>> from judged.judgments import Store
>>> with Store.open("sqlite://") as store:
...     store.targets(), store.label_state()
({}, (0, 0))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judged.errors import UsageError
from judged.judgments.store_base import StoreBase

if TYPE_CHECKING:
    from judged.judgments.targeting import Target


class TargetingMethods(StoreBase):
    """:meth:`set_target`, :meth:`targets`, :meth:`target` and :meth:`label_state`, inherited by the store."""

    def set_target(self, pool: str, measure: str, *, by: str | None = None) -> None:
        """Target the effort on ``pool`` on ``measure`` (nDCG@k, P@k, RR@k, ...: one :mod:`judged.analysis.settle`
        bounds exactly, with a cutoff), or stop targeting it (``"off"``).

        Its assessors' queues then put first the pairs whose judging can
        settle the comparisons among the pool's runs. The target is computed
        once here, so a measure it cannot serve is refused now. ``by``: who
        makes the change, kept in the effort's targeting log (``None``: not
        recorded, shown as unknown).
        """
        from judged.judgments import targeting

        with self._write() as connection:
            targeting.set_target(connection, pool, measure, by)

    def targets(self) -> dict[str, str]:
        """Every targeted effort's pool and the measure it is targeted on."""
        from judged.judgments import targeting

        with self._read() as connection:
            return targeting.targets(connection)

    def target(self, pool: str) -> Target:
        """The targeted effort's :class:`~judged.judgments.targeting.Target` now: its settlement and ranking."""
        from judged.judgments import targeting

        with self._read() as connection:
            measure = targeting.targets(connection).get(pool)
            if measure is None:
                raise UsageError(f"the effort on pool {pool!r} is not targeted; target it with "
                                 "`judged assign --pool POOL --target nDCG@10 ...`.")
            return targeting.target(connection, pool, measure)

    def label_state(self) -> tuple[int, int]:
        """The newest judgment and adjudication event ids: every target computed at this state still holds."""
        from judged.judgments import targeting

        with self._read() as connection:
            return targeting.label_state(connection)
