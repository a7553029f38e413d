"""Whether a run's documents are the judgments' documents: the check that keeps an id mismatch from reading as 0.

A run whose document ids are not the judgments' (PyTerrier's integer ``docid``
read for its ``docno``, a prefix one side has, another collection) scores 0
on every measure without any error. :class:`Matching` counts, over the queries
the run and the judgments share, the retrieved documents that are judged
against the most that could be (per query, the fewer of retrieved and judged);
when under :data:`FEW` of those match, every evaluation warns in one line
that names where each side's ids were read from (:func:`warn_if_unmatched`).

>>> import judged, warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     result = judged.evaluate({"q1": {"0": 2.0, "1": 1.0}}, {"q1": {"d1": 1, "d2": 0}}, ["AP"])
>>> print(caught[0].message)
run 'run' retrieves none of the judged documents it could (0 of 2 in the 1 query shared with 'qrels'; 2 retrieved, \
2 judged): its measures are about 0 for that reason, not for its ranking; check that both name documents alike \
(ids read from the run's mapping keys, the judgments' mapping keys)
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from judged.engine.view import RankedView

#: Below this share of the documents that could match, a run's documents are taken not to be the judgments'.
FEW = 0.01


class UnmatchedDocumentsWarning(UserWarning):
    """A run's retrieved documents match none, or almost none, of the judged documents of the queries it shares."""


def per_query_matching(view: RankedView) -> np.ndarray:
    """Per query of ``view``: (documents retrieved, retrieved and judged, judged with a grade >= 0), int64."""
    judged = np.diff(view.ideal_offsets)
    return np.stack([view.lengths, view.judged_within(None), judged]).astype(np.int64).T


@dataclass(frozen=True)
class Matching:
    """The documents of the shared queries: how many the run retrieved, how many are judged, how many are both.

    ``possible`` is the most that could be both: per query, the fewer of
    retrieved and judged. A run whose ``matched`` is under :data:`FEW` of
    ``possible`` is :attr:`unmatched`.

    >>> Matching.of(np.array([[10, 0, 4], [3, 1, 50]]))
    Matching(queries=2, retrieved=13, judged=54, matched=1, possible=7)
    >>> Matching.of(np.array([[10, 0, 4], [3, 1, 50]])).unmatched
    False
    """

    queries: int
    retrieved: int
    judged: int
    matched: int
    possible: int

    @classmethod
    def of(cls, counts: np.ndarray) -> Matching:
        """Sum :func:`per_query_matching`'s rows of the queries the run answered."""
        counts = counts.reshape(-1, 3)
        answered = counts[counts[:, 0] > 0]
        retrieved, matched, judged = (int(c) for c in answered.sum(axis=0))
        return cls(len(answered), retrieved, judged, matched, int(np.minimum(answered[:, 0], answered[:, 2]).sum()))

    @property
    def unmatched(self) -> bool:
        """Whether almost none of the documents that could match do (none, or under :data:`FEW` of them)."""
        return self.possible > 0 and self.matched < FEW * self.possible

    def record(self) -> dict[str, object]:
        """What the provenance says: the counts and whether the run was taken not to match."""
        return {"shared_queries": self.queries, "retrieved": self.retrieved, "judged": self.judged,
                "retrieved_and_judged": self.matched, "could_match": self.possible, "unmatched": self.unmatched}


def ids_read_from(format: str, id_columns: tuple[str, str] | None) -> str:
    """Where an input's qids and docids were read from, in words: its table columns, TREC columns or keys.

    ``id_columns`` is None where the columns are not known in one place (a mapping, or a folder of table
    files on Spark, each read by :func:`judged.io.tabular.pick_column`).

    >>> ids_read_from("parquet", ("query_id", "docid")), ids_read_from("trec", None)
    ("columns 'query_id' and 'docid'", 'TREC columns 1 and 3')
    """
    if id_columns is not None:
        return f"columns {id_columns[0]!r} and {id_columns[1]!r}"
    return _IDS_OF_FORMAT.get(format, "mapping keys")


_IDS_OF_FORMAT = {"trec": "TREC columns 1 and 3", "json": "JSON keys", "jsonl": "JSON keys",
                  "judgment-set": "frozen judgment set", "csv": "qid and docid columns",
                  "tsv": "qid and docid columns", "parquet": "qid and docid columns"}


class UnmatchedQueriesWarning(UserWarning):
    """Some of a run's queries are judged queries written another way as numbers (``1`` and ``001``)."""


_NUMBER = re.compile(r"[0-9]+(?:\.0*)?")
#: At most this many of a part's unjudged numeric run queries are kept for :func:`number_forms` (a Spark bucket's).
NUMBER_FORM_SAMPLE = 10_000


def reads_as_number(qid: str) -> bool:
    """Whether ``qid`` is a whole number as text, as an integer or float column's values print (``001``, ``1.0``).

    >>> [reads_as_number(q) for q in ("001", "1.0", "1e3", "q1", "\u0661")]  # the last: an Arabic-Indic one
    [True, True, False, False, False]
    """
    return _NUMBER.fullmatch(qid) is not None


def numeric_sample(qids: Iterable[str]) -> tuple[str, ...]:
    """The ``qids`` that read as numbers, at most :data:`NUMBER_FORM_SAMPLE` of them, for :func:`number_forms`.

    >>> numeric_sample(["q1", "2", "03"])
    ('2', '03')
    """
    return tuple(islice((qid for qid in qids if reads_as_number(qid)), NUMBER_FORM_SAMPLE))


def number_forms(run_only: Iterable[str], unanswered: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs of a run query without judgments and a judged query the run did not answer that are the same whole
    number written differently: ids match as text, so each pair is a query counted as neither answered nor judged.

    >>> number_forms(["1", "2", "7"], ["001", "002", "3"])
    [('1', '001'), ('2', '002')]
    """
    by_number: dict[int, str] = {}
    for qid in unanswered:
        if reads_as_number(qid):
            by_number.setdefault(_number(qid), qid)
    return sorted((qid, by_number[_number(qid)]) for qid in run_only
                  if reads_as_number(qid) and _number(qid) in by_number)


def _number(qid: str) -> int:
    """The whole number a qid :func:`reads_as_number` is."""
    return int(qid.split(".")[0])


def warn_number_forms(pairs: list[tuple[str, str]], run: dict, qrels: dict) -> None:
    """Warn (:class:`UnmatchedQueriesWarning`) when run and judged queries are the same numbers written apart.

    ``run`` and ``qrels`` are the provenance's input records, as for :func:`warn_if_unmatched`.
    """
    if not pairs:
        return
    read = [record.get("ids") or ids_read_from(record.get("format") or "memory", None) for record in (run, qrels)]
    shown = ", ".join(f"{r!r} and {j!r}" for r, j in pairs[:3]) + (", ..." if len(pairs) > 3 else "")
    warnings.warn(
        f"{len(pairs)} quer{'y' if len(pairs) == 1 else 'ies'} of run {run['name']!r} "
        f"{'is a judged query' if len(pairs) == 1 else 'are judged queries'} of {qrels['name']!r} written another "
        f"way as a number ({shown}): ids match as text, so each counts as neither answered nor judged; write the "
        f"qids alike on both sides (ids read from the run's {read[0]}, the judgments' {read[1]})",
        UnmatchedQueriesWarning,
        stacklevel=4,
    )


def unshared_problem(run_queries: int, judged_queries: int) -> str:
    """What a run sharing no query with the judgments is, in the words of judged's error for it.

    >>> unshared_problem(2, 5)
    'the run shares no query with the judgments (2 run queries, 5 judged queries)'
    """
    return f"the run shares no query with the judgments ({run_queries} run queries, {judged_queries} judged queries)"


def warn_unshared(problem: str) -> None:
    """Warn that a run sharing no query with the judgments (``problem`` says so) is scored anyway, as 0."""
    warnings.warn(f"{problem}: every value is 0 for that reason, not for its ranking", UnmatchedDocumentsWarning,
                  stacklevel=4)


def warn_if_unmatched(matching: Matching, run: dict, qrels: dict) -> None:
    """Warn (:class:`UnmatchedDocumentsWarning`) when the run's documents are not the judgments' documents.

    ``run`` and ``qrels`` are the provenance's input records (``name``, and ``ids`` or the ``format`` they imply).
    """
    if not matching.unmatched:
        return
    read = [record.get("ids") or ids_read_from(record.get("format") or "memory", None) for record in (run, qrels)]
    share = "none" if matching.matched == 0 else "almost none"
    queries = f"{matching.queries} quer{'y' if matching.queries == 1 else 'ies'}"
    warnings.warn(
        f"run {run['name']!r} retrieves {share} of the judged documents it could ({matching.matched} of "
        f"{matching.possible} in the {queries} shared with {qrels['name']!r}; {matching.retrieved} retrieved, "
        f"{matching.judged} judged): its measures are about 0 for that reason, not for its ranking; check that "
        f"both name documents alike (ids read from the run's {read[0]}, the judgments' {read[1]})",
        UnmatchedDocumentsWarning,
        stacklevel=4,
    )
