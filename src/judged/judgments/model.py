"""Plain values the store takes and returns: no database objects leak out of :class:`~judged.judgments.Store`.

Rubrics are :class:`judged.rubric.Rubric` values, shared with the rubric linter.

>>> NewJudgment("q1", "d1", "alice", grade=2).kind
'grade'
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from judged.errors import UsageError

KINDS = ("grade", "cannot_judge", "undo")
_ID = re.compile(r"\S+")


def now() -> dt.datetime:
    """The current time in UTC: every stored time is UTC."""
    return dt.datetime.now(dt.UTC)


def as_utc(moment: dt.datetime) -> dt.datetime:
    """A stored time as an aware UTC datetime (SQLite hands times back without a zone)."""
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


def check_id(value: object, what: str) -> str:
    """``value`` as an id: a non-empty string without whitespace (TREC files split on whitespace)."""
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise UsageError(f"{what} must be a non-empty string without whitespace. Got {value!r} instead.")
    return value


@dataclass(frozen=True)
class Query:
    """A query (topic): its id, the text a user typed, and optionally the need behind it."""

    qid: str
    text: str
    description: str | None = None
    narrative: str | None = None


@dataclass(frozen=True)
class Document:
    """A document of the collection: its id, a title, its text or URL, and free-form metadata."""

    docid: str
    title: str | None = None
    text: str | None = None
    url: str | None = None
    metadata: dict | None = None


@dataclass(frozen=True)
class NewJudgment:
    """A judgment to record: a grade, or ``cannot_judge`` with the reason; ``event_id`` makes a retry safe."""

    qid: str
    docid: str
    assessor: str
    grade: int | None = None
    cannot_judge: str | None = None
    note: str | None = None
    rubric: str | None = None
    event_id: str | None = None

    @property
    def kind(self) -> str:
        """``grade`` or ``cannot_judge``: the event this entry becomes."""
        return "grade" if self.cannot_judge is None else "cannot_judge"


@dataclass(frozen=True)
class Judgment:
    """One stored event of the judgment log (a grade, a cannot-judge, or an undo of an earlier event)."""

    seq: int
    event_id: str
    qid: str
    docid: str
    assessor: str
    kind: str
    grade: int | None
    reason: str | None
    note: str | None
    rubric: str | None
    undoes: str | None
    created: dt.datetime


@dataclass(frozen=True)
class Recorded:
    """What a batch of writes did: events newly stored, retries of events (or labels) already stored, and
    labels withdrawn (an import under ``replace``)."""

    inserted: int
    already_stored: int
    withdrawn: int = 0


@dataclass(frozen=True)
class Adjudication:
    """A final grade for a pair, set by an adjudicator with a note (the latest one counts)."""

    seq: int
    event_id: str
    qid: str
    docid: str
    adjudicator: str
    grade: int
    note: str
    rubric: str | None
    created: dt.datetime


@dataclass(frozen=True)
class AssessorLabel:
    """One assessor's current label of a pair: a grade, or cannot-judge with its reason."""

    assessor: str
    grade: int | None
    reason: str | None
    note: str | None


@dataclass(frozen=True)
class Disagreement:
    """A pair whose assessors' current grades differ, with every label side by side."""

    qid: str
    docid: str
    difference: int
    labels: tuple[AssessorLabel, ...]
    adjudication: Adjudication | None = None


@dataclass(frozen=True)
class AssignedPair:
    """A pair in an assessor's queue, as it is shown: no run names, ranks or scores."""

    position: int
    qid: str
    docid: str
    overlap: bool


@dataclass(frozen=True)
class JudgmentSet:
    """A frozen judgment set: ``name@version``, the sha256 of its canonical qrels, and what produced it."""

    name: str
    version: int
    content_hash: str
    created: dt.datetime
    policy: dict
    pool: str | None
    pool_hash: str | None
    pool_runs: tuple[dict, ...]
    rubric: str | None
    counts: dict[str, int] = field(default_factory=dict)
    head: str | None = None  # the log's anchor it was frozen from (``judged db head``); None: frozen before 0008

    @property
    def id(self) -> str:
        """``name@version``: how commands and provenance name the set."""
        return f"{self.name}@{self.version}"
