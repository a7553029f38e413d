"""Automatic assessors (LLM judges): labels imported with their metadata, kept apart from people's until trusted.

An automatic assessor is registered once with what produced its labels: the
model, the sha256 of its prompt, the rubric version it was given and its
parameters (temperature, ...). A changed model or prompt is a new assessor,
never a silent change under the same name. Each label is a judgment event
like a person's (a grade, or cannot-judge with the reason), plus its
confidence and rationale in ``automatic_labels``.

Whose labels count is one rule (:func:`counted`): people's, and an
automatic assessor's only when a command names it or is told to include
them (``include_automatic``; a frozen set's policy then lists them). Freezing,
the disagreements to adjudicate, agreement and assessor sensitivity all
follow it, and each says how many labels it left out.

The labels file is JSON Lines, one label per line::

    {"qid": "q01", "docid": "api/overview", "grade": 2, "confidence": 0.8, "rationale": "covers the steps"}
    {"qid": "q01", "docid": "auth/mfa", "cannot_judge": "page empty", "confidence": 0.3}

>>> AutomaticAssessor("gpt-judge", "gpt-x", "ab" * 32, {"temperature": 0}).parameters
{'temperature': 0}
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa

from judged.errors import InputError, UsageError
from judged.judgments import schema as t
from judged.judgments.catalog import assessors as registered
from judged.judgments.catalog import ensure_assessors, rubric_id, rubric_spec
from judged.judgments.log import current_events, record
from judged.judgments.model import NewJudgment, check_id, now

_NAMESPACE = uuid.UUID("0c9b7c2e-5f0e-4c43-9d0e-6175746f6d61")
_FIELDS = {"qid", "docid", "grade", "cannot_judge", "confidence", "rationale"}


@dataclass(frozen=True)
class AutomaticAssessor:
    """What produced an automatic assessor's labels; ``rubric`` is ``NAME@VERSION`` or ``None``."""

    name: str
    model: str
    prompt_sha256: str
    parameters: dict = field(default_factory=dict)
    rubric: str | None = None


@dataclass(frozen=True)
class AutomaticLabel:
    """One line of an automatic assessor's labels file."""

    line: int
    qid: str
    docid: str
    grade: int | None
    cannot_judge: str | None
    confidence: float | None
    rationale: str | None


def read_labels(path: str | Path) -> tuple[str, list[AutomaticLabel]]:
    """The file's sha256 and its labels; an :class:`InputError` names the file and line of any bad one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", path=str(path)) from None
    labels = []
    for n, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        labels.append(_label(path, n, line))
    if not labels:
        raise InputError("no labels in the file", path=str(path), expected="one JSON object per line")
    return hashlib.sha256(data).hexdigest(), labels


def _label(path: Path, n: int, line: str) -> AutomaticLabel:
    def bad(message: str, expected: str) -> InputError:
        return InputError(message, path=str(path), line=n, text=line[:200], expected=expected)

    try:
        item = json.loads(line)
    except json.JSONDecodeError:
        raise bad("not JSON", "one JSON object per line") from None
    if not isinstance(item, dict) or not {"qid", "docid"} <= set(item) or set(item) - _FIELDS:
        raise bad("not a label", f"an object with qid, docid and a grade or cannot_judge; keys: {sorted(_FIELDS)}")
    grade, cannot = item.get("grade"), item.get("cannot_judge")
    if (grade is None) == (cannot is None):
        raise bad("a label is a grade or a cannot_judge reason", "exactly one of grade and cannot_judge")
    if grade is not None and (isinstance(grade, bool) or not isinstance(grade, int)):
        raise bad(f"grade {grade!r} is not an integer", "an integer grade")
    confidence = item.get("confidence")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))
                                   or not 0 <= confidence <= 1):
        raise bad(f"confidence {confidence!r} is not in [0, 1]", "a confidence between 0 and 1")
    rationale = item.get("rationale")
    if rationale is not None and not isinstance(rationale, str):
        raise bad("rationale is not text", "a string rationale")
    return AutomaticLabel(n, str(item["qid"]), str(item["docid"]), grade, cannot,
                          None if confidence is None else float(confidence), rationale)


def register(connection: sa.Connection, assessor: AutomaticAssessor) -> None:
    """Record the automatic assessor's metadata; the same name with other metadata is refused."""
    check_id(assessor.name, "an assessor name")
    if len(assessor.prompt_sha256) != 64 or any(c not in "0123456789abcdef" for c in assessor.prompt_sha256):
        raise UsageError(f"the prompt's sha256 must be 64 hex digits. Got {assessor.prompt_sha256!r} instead.")
    people = set(connection.execute(sa.select(t.judgments.c.assessor).distinct()).scalars())
    stored = profile(connection, assessor.name)
    if stored is None and assessor.name in people:
        raise UsageError(f"{assessor.name!r} already labelled as a person; give the automatic assessor its own name.")
    if stored is not None:
        if stored != assessor:
            raise UsageError(f"automatic assessor {assessor.name!r} is stored with another model, prompt, rubric or "
                             "parameters; a changed judge is a new assessor: give it a new name")
        return
    ensure_assessors(connection, [assessor.name])
    connection.execute(sa.insert(t.automatic_assessors).values(
        name=assessor.name, model=assessor.model, prompt_sha256=assessor.prompt_sha256,
        rubric_id=rubric_id(connection, assessor.rubric) if assessor.rubric else None,
        parameters=assessor.parameters, created=now()))


def import_labels(connection: sa.Connection, assessor: AutomaticAssessor, digest: str,
                  labels: list[AutomaticLabel]) -> tuple[int, int]:
    """Register ``assessor`` and append its labels (ids derived from the file: a re-import stores nothing new)."""
    register(connection, assessor)
    entries = [
        NewJudgment(label.qid, label.docid, assessor.name, grade=label.grade, cannot_judge=label.cannot_judge,
                    rubric=assessor.rubric,
                    event_id=str(uuid.uuid5(_NAMESPACE, f"{assessor.name}\n{digest}\n{label.line}")))
        for label in labels
    ]
    recorded = record(connection, entries, None, automatic=assessor.name)
    ids = [entry.event_id for entry in entries]
    annotated = set(connection.execute(sa.select(t.automatic_labels.c.event_id).where(
        t.automatic_labels.c.event_id.in_(ids))).scalars())  # a re-import: those are stored (and append-only)
    rows = [{"event_id": entry.event_id, "confidence": label.confidence, "rationale": label.rationale}
            for entry, label in zip(entries, labels) if entry.event_id not in annotated]
    if rows:
        connection.execute(sa.insert(t.automatic_labels), rows)
    return recorded.inserted, recorded.already_stored


def profile(connection: sa.Connection, name: str) -> AutomaticAssessor | None:
    """The stored metadata of automatic assessor ``name``, or ``None`` for a person."""
    row = connection.execute(sa.select(t.automatic_assessors).where(t.automatic_assessors.c.name == name)
                             ).mappings().first()
    if row is None:
        return None
    return AutomaticAssessor(row["name"], row["model"], row["prompt_sha256"], dict(row["parameters"]),
                             rubric_spec(connection, row["rubric_id"]))


def names(connection: sa.Connection) -> set[str]:
    """Every automatic assessor's name."""
    return set(connection.execute(sa.select(t.automatic_assessors.c.name)).scalars())


@dataclass(frozen=True)
class Counted:
    """Whose labels a command reads (``assessors``, in order), and each automatic assessor it left out with
    its number of current labels (``left_out``)."""

    assessors: list[str]
    left_out: dict[str, int]

    def note(self, how: str) -> str | None:
        """The line saying what was left out, and ``how`` to count it; ``None`` when nothing was."""
        if not self.left_out:
            return None
        listed = ", ".join(f"{name}'s {n}" for name, n in self.left_out.items())
        return f"left out automatic assessors' labels ({listed}): {how} to count them"


def counted(connection: sa.Connection, named: Sequence[str] | None = None, *,
            include_automatic: bool = False) -> Counted:
    """The one rule of whose labels count: the ``named`` assessors, else every person, and every automatic
    assessor too with ``include_automatic``.

    >>> from judged.judgments import Store
    >>> store = Store.open("sqlite://")
    >>> _ = store.record("q1", "d1", assessor="ann", grade=1)
    >>> with store.engine.connect() as connection:
    ...     counted(connection).assessors, counted(connection, ["ann"]).left_out
    (['ann'], {})
    """
    machines = names(connection)
    chosen = list(dict.fromkeys(named)) if named else [
        a for a in registered(connection) if include_automatic or a not in machines]
    left = sorted(machines - set(chosen))
    labels = Counter(e.assessor for e in current_events(connection, left)) if left else Counter()
    return Counted(chosen, {name: labels[name] for name in left if labels[name]})
