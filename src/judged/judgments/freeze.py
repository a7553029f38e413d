"""Frozen judgment sets: a versioned, immutable snapshot of the labels evaluation reads.

Freezing takes, for every pair, the adjudicated grade where there is one,
else the assessors' current grades: one assessor's grade (``single``), or the
grade they all gave (``agreed``). Pairs whose assessors disagree and that no
one adjudicated make freezing fail unless a resolution policy is named
(``min``, ``max``, ``median`` (the lower median), or ``assessor:NAME`` to
prefer one assessor); such pairs are marked ``resolved``. A set also keeps
the pool as it stood (every pooled pair, and the runs and depth that built
it) and the pairs whose only labels are cannot-judge, so "pooled but not
judged" and "never pooled" stay distinguishable after export.

The set's content hash is the sha256 of its canonical qrels export: lines
``qid 0 docid grade`` sorted by qid then docid (byte order), single spaces,
``\\n`` after every line. ``sha256sum`` of an exported file therefore equals
the hash, and evaluating that file or the set records the same sha256.
Freezing a name again creates the next version, unless nothing changed.
Every read of a set recomputes that hash from its stored pairs and refuses
a set whose pairs no longer match it (:func:`check_content`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl
import sqlalchemy as sa

from judged.errors import JudgedError, UsageError
from judged.io.inputs import QRELS_SCHEMA, Qrels, Source
from judged.judgments import chain
from judged.judgments import schema as t
from judged.judgments.adjudicate import latest
from judged.judgments.automatic import Counted, counted
from judged.judgments.automatic import names as automatic_names
from judged.judgments.catalog import rubric_id, rubric_spec
from judged.judgments.chain import lock
from judged.judgments.log import current_events
from judged.judgments.model import JudgmentSet, as_utc, check_id, now
from judged.judgments.pools import membership, pool_runs

RESOLVE = ("refuse", "min", "max", "median", "assessor:NAME")
SIDECAR_FORMAT = "judged-judgment-set/1"
_LABELLED = ("adjudicated", "agreed", "single", "resolved")


@dataclass(frozen=True)
class Frozen:
    """The outcome of a freeze: the set, whether it is a new version (``False``: nothing had changed), and the
    automatic assessors' labels left out (:class:`~judged.judgments.automatic.Counted`)."""

    judgment_set: JudgmentSet
    new: bool
    left_out: Counted

def freeze(
    connection: sa.Connection, name: str, *, pool: str | None, resolve: str = "refuse",
    assessors: list[str] | None = None, adjudications: bool = True, effort: str | None = None,
    include_automatic: bool = False,
) -> Frozen:
    """Freeze the current labels as the next version of ``name``; see the module docstring.

    ``effort`` (a pool with assignments) freezes that effort only: its pooled pairs, labelled by its
    assessors (unless ``assessors`` names others), and the adjudications of those pairs. Automatic
    assessors' labels are left out unless ``include_automatic``; the policy then names them.
    """
    check_id(name, "a judgment set name")
    if "@" in name:
        raise UsageError(f"a judgment set name cannot contain '@' (it separates the version). Got {name!r}.")
    check_resolve(resolve)
    for table in ("judgment_sets", "judgments", "adjudications"):  # freezes queue up, and the log holds still:
        lock(connection, table)  # the head read below is still the head when the set is stored (migration 0010)
    if effort is not None:
        if pool not in (None, effort):
            raise UsageError(f"an effort is frozen with its own pool; got --effort {effort} and --pool {pool}.")
        pool = effort
        assessors = assessors or _assignees(connection, effort)
    machines = automatic_names(connection)
    if not include_automatic and machines & set(assessors or ()):
        raise UsageError(f"{', '.join(sorted(machines & set(assessors or ())))}: automatic, so not frozen unless "
                         "--include-automatic says so (check them first with `judged calibrate`).")
    whose = counted(connection, assessors, include_automatic=include_automatic)
    if machines and not include_automatic:
        assessors = whose.assessors  # the policy names the people whose labels it read
    pool = _pool_name(connection, pool)
    pooled = set(membership(connection, pool)) if pool else set()
    head = chain.anchor(connection)  # the set is derived from the log as it stands here, and records where
    rows, rubrics = decide(connection, resolve, whose.assessors, adjudications, pooled,
                           only=pooled if effort is not None else None, through=chain.positions(head))
    included = sorted(machines & set(assessors)) if assessors is not None else sorted(machines)
    if not any(row["grade"] is not None for row in rows):
        who = f" by {', '.join(assessors)}" if assessors else ""
        raise UsageError(f"nothing to freeze: no grade has been recorded{who}.")
    rubric = rubric_id(connection, rubrics.pop()) if len(rubrics) == 1 and None not in rubrics else None
    content = {
        "content_hash": hashlib.sha256(qrels_text(rows).encode()).hexdigest(),
        "pool": pool,
        "pool_hash": pool_hash(pooled) if pool else None,
        "pool_runs": [{"run": r.run, "sha256": r.run_sha256, "depth": r.depth, "ties": r.ties, "step": r.step}
                      for r in pool_runs(connection, pool)] if pool else [],
        "policy": {"resolve": resolve, "assessors": sorted(assessors) if assessors else None,
                   "adjudications": adjudications, **({"effort": effort} if effort is not None else {}),
                   **({"automatic": included} if include_automatic and included else {})},
    }
    digest = set_digest(rows, content, rubric_spec(connection, rubric))
    previous = _latest(connection, name)
    if previous is not None and previous_hash(connection, previous) == digest:
        return Frozen(previous, False, whose)
    version = previous.version + 1 if previous else 1
    seal = rows[-1]  # stored last: once it is, the set takes no more pairs (the triggers of migration 0003)
    set_id = connection.execute(
        sa.insert(t.judgment_sets)
        .values(name=name, version=version, rubric_id=rubric, created=now(), seal_qid=seal["qid"],
                seal_docid=seal["docid"], head=head, set_hash=digest, **content)
        .returning(t.judgment_sets.c.id)
    ).scalar_one()
    if len(rows) > 1:
        connection.execute(sa.insert(t.judgment_set_pairs), [{"set_id": set_id, **row} for row in rows[:-1]])
    connection.execute(sa.insert(t.judgment_set_pairs), [{"set_id": set_id, **seal}])
    return Frozen(_stored(connection, f"{name}@{version}")[0], True, whose)  # derived above: not checked again


def pool_hash(pooled: set[tuple[str, str]]) -> str:
    """The sha256 of a set's pooled pairs, ``qid<TAB>docid`` lines sorted (byte order)."""
    return hashlib.sha256("".join(f"{q}\t{d}\n" for q, d in sorted(pooled)).encode()).hexdigest()


def set_digest(rows: list[dict], content: dict, rubric: str | None) -> str:
    """The sha256 a set is known by in full: every pair (grade, state, pooled), the canonical qrels' hash, the
    pool and its runs, the policy and the rubric; everything its export writes, so no part can change alone."""
    document = {
        "pairs": sorted([r["qid"], r["docid"], r["grade"], r["state"], bool(r["pooled"])] for r in rows),
        **{key: content[key] for key in ("content_hash", "pool", "pool_hash", "pool_runs", "policy")},
        "rubric": rubric,
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _content_of(judgment_set: JudgmentSet) -> dict:
    return {"content_hash": judgment_set.content_hash, "pool": judgment_set.pool, "pool_hash": judgment_set.pool_hash,
            "pool_runs": list(judgment_set.pool_runs), "policy": judgment_set.policy}


def previous_hash(connection: sa.Connection, judgment_set: JudgmentSet) -> str:
    """``judgment_set``'s :func:`set_digest`, recomputed from what it holds (a set from before migration 0008
    has none recorded): a new freeze that would repeat it makes no new version."""
    return set_digest(pairs(connection, judgment_set), _content_of(judgment_set), judgment_set.rubric)


def derivation_problems(connection: sa.Connection, row: Mapping) -> list[str]:
    """What the log does not bear out of the set stored as ``row`` of judgment_sets (empty: it is what freezing
    the log up to its head under its policy gives, pair for pair).

    Checked: the recorded head lies on both chains; the set hash covers its pairs and metadata; the pooled pairs
    hash to the pool hash; and :func:`decide`, replayed on the events and adjudications up to the head with the
    set's own policy and pooled pairs, gives exactly its pairs, states and rubric. A set from before migration
    0008 records no head: only its content hash and seal are checked (by :func:`check_content` and verify).
    """
    spec = f"{row['name']}@{row['version']}"
    if row["head"] is None:
        return []
    judgment_set = _judgment_set(connection, row, {})
    stored = pairs(connection, judgment_set)
    problems = [f"judgment set {spec} was frozen from a history the log no longer holds: {problem}"
                for problem in chain.check_anchor(connection, row["head"])]
    found = set_digest(stored, _content_of(judgment_set), judgment_set.rubric)
    if found != row["set_hash"]:
        problems.append(f"judgment set {spec}: its pairs, states or metadata hash to {found[:12]}, not to its "
                        f"recorded set hash {str(row['set_hash'])[:12]}; it was changed after it was frozen")
    pooled = {(r["qid"], r["docid"]) for r in stored if r["pooled"]}
    if row["pool"] is not None and pool_hash(pooled) != row["pool_hash"]:
        problems.append(f"judgment set {spec}: its pooled pairs do not hash to its pool hash")
    if problems:
        return problems
    policy = row["policy"]
    try:
        derived, rubrics = decide(connection, policy["resolve"], policy["assessors"], policy["adjudications"],
                                  pooled, only=pooled if "effort" in policy else None,
                                  through=chain.positions(row["head"]))
    except (UsageError, JudgedError) as err:
        return [f"judgment set {spec}: the log up to its head does not freeze under its policy ({err})"]
    mine = {(r["qid"], r["docid"]): (r["grade"], r["state"], bool(r["pooled"])) for r in stored}
    theirs = {(r["qid"], r["docid"]): (r["grade"], r["state"], bool(r["pooled"])) for r in derived}
    if mine != theirs:
        differ = sorted(set(mine) ^ set(theirs) | {k for k in set(mine) & set(theirs) if mine[k] != theirs[k]})
        q, d = differ[0]
        problems.append(f"judgment set {spec}: {len(differ)} pair(s) are not what the log up to its head gives "
                        f"(first: {q} {d}: stored {_shown(mine.get((q, d)))}, the log gives "
                        f"{_shown(theirs.get((q, d)))}); it was not made by freezing this log")
    derived_rubric = rubrics.pop() if len(rubrics) == 1 and None not in rubrics else None
    if derived_rubric != judgment_set.rubric:
        problems.append(f"judgment set {spec}: it names rubric {judgment_set.rubric}, the log's grades were "
                        f"recorded under {derived_rubric}")
    return problems


def _shown(entry: tuple | None) -> str:
    if entry is None:
        return "nothing"
    grade, state, pooled = entry
    return f"{state}{'' if grade is None else f' grade {grade}'}{', pooled' if pooled else ''}"


def check_resolve(resolve: str) -> None:
    """Raise :class:`UsageError` unless ``resolve`` is one of :data:`RESOLVE` (``assessor:`` with a name)."""
    if resolve in RESOLVE[:-1] or (resolve.startswith("assessor:") and len(resolve) > len("assessor:")):
        return
    raise UsageError(f"resolve must be one of {'|'.join(RESOLVE)}. Got {resolve!r} instead.")


def _pool_name(connection: sa.Connection, pool: str | None) -> str | None:
    """The pool to snapshot: the one named (it must exist), else ``default`` when it exists, else none."""
    exists = connection.execute(sa.select(t.pools.c.name).where(t.pools.c.name == (pool or "default"))).scalar()
    if pool is not None and exists is None:
        raise UsageError(f"no pool {pool!r} in the store.")
    return exists


def _assignees(connection: sa.Connection, pool: str) -> list[str]:
    """The assessors assigned pairs of ``pool``; an effort without any cannot be frozen."""
    found = sorted(set(connection.execute(
        sa.select(t.assignments.c.assessor).where(t.assignments.c.pool == pool)).scalars()))
    if not found:
        raise UsageError(f"pool {pool!r} has no assessors assigned, so there is no effort to freeze; "
                         "assign it with `judged assign`, or freeze labels with --pool.")
    return found


def decide(connection, resolve: str, assessors, adjudications: bool, pooled: set,
           only: set | None = None, through: dict[str, int] | None = None) -> tuple[list[dict], set]:
    """One row per pair (its grade or ``None``, how it was decided, whether pooled), and the rubrics of the grades.

    ``only``: the pairs to decide (an effort's pool); ``None``: every labelled, adjudicated or pooled pair.
    ``through``: each chain's position (:func:`judged.judgments.chain.positions`) to decide as of; ``None``: now.
    """
    through = through or {}
    grades: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    cannot: set[tuple[str, str]] = set()
    rubrics: set[str | None] = set()
    decided = latest(connection, through.get("adjudications")) if adjudications else {}
    if only is not None:
        decided = {pair: a for pair, a in decided.items() if pair in only}
    for e in current_events(connection, assessors, through.get("judgments")):
        if only is not None and (e.qid, e.docid) not in only:
            continue
        if e.kind != "grade":
            cannot.add((e.qid, e.docid))
            continue
        if e.grade is None:
            raise JudgedError(f"the judgment log is damaged: grade event {e.event_id} ({e.qid} {e.docid}, "
                              f"{e.assessor}) holds no grade")
        grades[(e.qid, e.docid)][e.assessor] = e.grade
        if (e.qid, e.docid) not in decided:
            rubrics.add(e.rubric)
    rubrics |= {a.rubric for a in decided.values()}
    _check_named_assessor(resolve, {a for labels in grades.values() for a in labels})
    rows: list[dict[str, object]] = []
    refused: list[tuple[tuple[str, str], dict[str, int]]] = []
    grade: int | None
    for pair in sorted(set(grades) | cannot | set(decided) | pooled):
        by_assessor = grades.get(pair, {})
        if pair in decided:
            grade, state = decided[pair].grade, "adjudicated"
        elif len(set(by_assessor.values())) == 1:
            grade, state = next(iter(by_assessor.values())), "single" if len(by_assessor) == 1 else "agreed"
        elif by_assessor:
            grade, state = _resolve(by_assessor, resolve), "resolved"
            if grade is None:
                refused.append((pair, by_assessor))
        else:
            grade, state = None, "cannot_judge" if pair in cannot else "unjudged"
        rows.append({"qid": pair[0], "docid": pair[1], "grade": grade, "state": state, "pooled": pair in pooled})
    if refused:
        shown = "; ".join(
            f"{q} {d}: " + ", ".join(f"{a}={g}" for a, g in sorted(labels.items())) for (q, d), labels in refused[:5]
        )
        named = resolve.split(":", 1)[1] if resolve.startswith("assessor:") else None
        raise UsageError(
            f"{len(refused)} pair(s) have disagreeing grades and no adjudication ({shown}"
            f"{'; ...' if len(refused) > 5 else ''})"
            + (f", and {named} graded none of them" if named else "")
            + ". Adjudicate them (`judged adjudicate list --min-diff 1`) "
            "or name a policy with --resolve min|max|median|assessor:NAME."
        )
    return rows, rubrics


def _check_named_assessor(resolve: str, graders: set[str]) -> None:
    """``--resolve assessor:NAME`` must name someone whose grades are being decided: say who they are."""
    if not resolve.startswith("assessor:"):
        return
    named = resolve.split(":", 1)[1]
    if named not in graders:
        who = ", ".join(sorted(graders)) or "nobody"
        raise UsageError(f"--resolve assessor:{named}: {named} has no grade among the labels being frozen; "
                         f"the assessors here are {who}.")


def _resolve(by_assessor: dict[str, int], resolve: str) -> int | None:
    values = sorted(by_assessor.values())
    if resolve == "min":
        return values[0]
    if resolve == "max":
        return values[-1]
    if resolve == "median":
        return values[(len(values) - 1) // 2]
    if resolve.startswith("assessor:"):
        return by_assessor.get(resolve.split(":", 1)[1])
    return None


def qrels_text(rows: list[dict]) -> str:
    """The canonical qrels of labelled rows: ``qid 0 docid grade`` sorted by qid then docid (byte order)."""
    labelled = sorted((r["qid"], r["docid"], r["grade"]) for r in rows if r["grade"] is not None)
    return "".join(f"{qid} 0 {docid} {grade}\n" for qid, docid, grade in labelled)


def _latest(connection: sa.Connection, name: str) -> JudgmentSet | None:
    version = connection.execute(
        sa.select(sa.func.max(t.judgment_sets.c.version)).where(t.judgment_sets.c.name == name)
    ).scalar()
    return None if version is None else load(connection, f"{name}@{version}")


def load(connection: sa.Connection, spec: str) -> JudgmentSet:
    """The set ``NAME@VERSION`` (``NAME`` alone: its newest version), with its counts per state, once its pairs
    give its content hash (:func:`check_content`) and the log bears it out (:func:`derivation_problems`)."""
    judgment_set, row = _stored(connection, spec)
    check_content(connection, row["id"], judgment_set.id, row["content_hash"])
    problems = derivation_problems(connection, row)
    if problems:
        raise JudgedError(f"{problems[0]}; it is not used (`judged db verify` lists every problem)")
    return judgment_set


def _stored(connection: sa.Connection, spec: str) -> tuple[JudgmentSet, Mapping]:
    """The set ``spec`` names as stored, unchecked, and its row of judgment_sets."""
    name, _, version = spec.partition("@")
    sets = t.judgment_sets
    statement = sa.select(sets).where(sets.c.name == name).order_by(sets.c.version.desc()).limit(1)
    if version:
        if not (version.isascii() and version.isdigit() and len(version) <= 9):  # versions are 32-bit integers
            raise UsageError(f"a judgment set is NAME or NAME@VERSION with an integer version. Got {spec!r}.")
        statement = statement.where(sets.c.version == int(version))
    row = connection.execute(statement).mappings().first()
    if row is None:
        known = sorted({r for (r,) in connection.execute(sa.select(sets.c.name))})
        raise UsageError(f"no judgment set {spec!r} in the store (sets: {', '.join(known) or 'none'}).")
    states = connection.execute(
        sa.select(t.judgment_set_pairs.c.state, sa.func.count())
        .where(t.judgment_set_pairs.c.set_id == row["id"])
        .group_by(t.judgment_set_pairs.c.state)
    ).all()
    return _judgment_set(connection, row, dict(sorted(states))), row


def _judgment_set(connection: sa.Connection, row, counts: dict[str, int]) -> JudgmentSet:
    return JudgmentSet(
        name=row["name"], version=row["version"], content_hash=row["content_hash"], created=as_utc(row["created"]),
        policy=row["policy"], pool=row["pool"], pool_hash=row["pool_hash"], pool_runs=tuple(row["pool_runs"]),
        rubric=rubric_spec(connection, row["rubric_id"]), counts=counts, head=row["head"],
    )


def check_content(connection: sa.Connection, set_id: int, spec: str, content_hash: str) -> None:
    """Recompute a stored set's content hash from its pairs; raise :class:`JudgedError` when it differs.

    Every read of a set goes through :func:`load`, which calls this: a set whose pairs were changed
    behind the store (the triggers refuse it through any connection that keeps them) is never used.
    """
    p = t.judgment_set_pairs
    rows = connection.execute(
        sa.select(p.c.qid, p.c.docid, p.c.grade).where(p.c.set_id == set_id, p.c.grade.is_not(None))
    ).mappings()
    found = hashlib.sha256(qrels_text([dict(r) for r in rows]).encode()).hexdigest()
    if found != content_hash:
        raise JudgedError(
            f"judgment set {spec} is damaged: its pairs hash to {found[:12]}, not to its recorded content hash "
            f"{content_hash[:12]}; it was changed after it was frozen, so it is not used (`judged db verify`)"
        )


def pairs(connection: sa.Connection, judgment_set: JudgmentSet) -> list[dict]:
    """Every pair of a set (labelled, cannot-judge and pooled-unjudged), sorted by qid and docid."""
    sets, rows = t.judgment_sets, t.judgment_set_pairs
    set_id = sa.select(sets.c.id).where(sets.c.name == judgment_set.name, sets.c.version == judgment_set.version)
    found = connection.execute(
        sa.select(rows.c.qid, rows.c.docid, rows.c.grade, rows.c.state, rows.c.pooled).where(
            rows.c.set_id == set_id.scalar_subquery()
        )
    ).mappings()
    return sorted((dict(r) for r in found), key=lambda r: (r["qid"], r["docid"]))


def qrels(connection: sa.Connection, judgment_set: JudgmentSet, where: str) -> Qrels:
    """The set as :class:`~judged.Qrels`, its source ``WHERE#NAME@VERSION`` with the content hash as sha256 and
    the heads of the log it was frozen from and read at."""
    rows = [r for r in pairs(connection, judgment_set) if r["grade"] is not None]
    frame = pl.DataFrame(
        {"qid": [r["qid"] for r in rows], "docid": [r["docid"] for r in rows], "grade": [r["grade"] for r in rows]},
        schema=QRELS_SCHEMA,
    )
    source = Source(f"{where}#{judgment_set.id}", "judgment-set", judgment_set.content_hash,
                    heads={"frozen_from": judgment_set.head, "read_at": chain.anchor(connection)})
    return Qrels.from_frame(frame, judgment_set.id, source)


def sidecar(judgment_set: JudgmentSet, rows: list[dict]) -> str:
    """The JSON that travels with an exported qrels file: provenance, pool membership and unjudged pairs."""
    by_state: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    pooled: dict[str, list[str]] = defaultdict(list)
    per_query: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        by_state[r["state"]][r["qid"]].append(r["docid"])
        counts = per_query[r["qid"]]
        counts["judged"] += r["grade"] is not None
        if r["pooled"]:
            pooled[r["qid"]].append(r["docid"])
            counts["pooled"] += 1
            counts["pooled_unjudged"] += r["grade"] is None
        else:
            counts["judged_unpooled"] += r["grade"] is not None
        counts["cannot_judge"] += r["state"] == "cannot_judge"
    labelled = [r for r in rows if r["grade"] is not None]
    document = {
        "format": SIDECAR_FORMAT,
        "judgment_set": {
            "id": judgment_set.id, "name": judgment_set.name, "version": judgment_set.version,
            "content_hash": judgment_set.content_hash,
            "created": judgment_set.created.isoformat(timespec="seconds"),
            "policy": judgment_set.policy, "rubric": judgment_set.rubric, "head": judgment_set.head,
        },
        "qrels": {
            "sha256": judgment_set.content_hash, "pairs": len(labelled),
            "queries": len({r["qid"] for r in labelled}),
            "labels": {state: sum(1 for r in rows if r["state"] == state) for state in _LABELLED},
        },
        "pool": None if judgment_set.pool is None else {
            "name": judgment_set.pool, "sha256": judgment_set.pool_hash, "runs": list(judgment_set.pool_runs),
            "pairs": sum(map(len, pooled.values())), "pooled": pooled,
        },
        "unjudged": {"pooled": by_state["unjudged"], "cannot_judge": by_state["cannot_judge"]},
        "queries": {
            qid: {k: counts[k] for k in ("judged", "pooled", "pooled_unjudged", "judged_unpooled", "cannot_judge")}
            for qid, counts in per_query.items()
        },
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"
