"""The store's methods for automatic assessors (LLM judges): importing their labels, listing them.

What an automatic assessor is, and why its labels are kept apart from
people's, is in :mod:`judged.judgments.automatic`; these are the
:class:`~judged.judgments.Store` methods over it, one transaction each.

>>> from judged.judgments import Store
>>> with Store.open("sqlite://") as store:
...     store.automatic_assessors()
[]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from judged.judgments import automatic
from judged.judgments.model import Recorded
from judged.judgments.store_base import StoreBase


class AutomaticMethods(StoreBase):
    """:meth:`import_automatic` and :meth:`automatic_assessors`, inherited by :class:`~judged.judgments.Store`."""

    def import_automatic(self, path: str | Path, assessor: automatic.AutomaticAssessor) -> Recorded:
        """Record an automatic assessor's labels file (JSON Lines) with its metadata, in one transaction.

        >>> import hashlib, json, pathlib, tempfile
        >>> from judged.judgments import Store
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "llm.jsonl").write_text(json.dumps({"qid": "q1", "docid": "d1", "grade": 2,
        ...                                                   "confidence": 0.9, "rationale": "on topic"}) + "\\n")
        >>> judge = automatic.AutomaticAssessor("llm", "some-model", hashlib.sha256(b"prompt").hexdigest())
        >>> store = Store.open("sqlite://")
        >>> store.import_automatic(folder / "llm.jsonl", judge)
        Recorded(inserted=1, already_stored=0, withdrawn=0)
        >>> store.automatic_assessors()
        ['llm']
        """
        digest, labels = automatic.read_labels(path)
        with self._write() as connection:
            return Recorded(*automatic.import_labels(connection, assessor, digest, labels))

    def automatic_assessors(self) -> list[str]:
        """The names of the automatic assessors, sorted."""
        with self._read() as connection:
            return sorted(automatic.names(connection))

    def counted_assessors(self, assessors: Sequence[str] | None = None, *,
                          include_automatic: bool = False) -> automatic.Counted:
        """Whose labels a command over ``assessors`` (default: everyone) reads, and the automatic ones it leaves
        out with their label counts: the one rule of :func:`judged.judgments.automatic.counted`."""
        with self._read() as connection:
            return automatic.counted(connection, assessors, include_automatic=include_automatic)
