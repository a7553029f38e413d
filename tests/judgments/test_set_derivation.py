"""A frozen set is a function of the log: a set the log up to its head does not produce is named by
``judged db verify`` and refused by every read, on SQLite and PostgreSQL, whoever inserted it."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from judged.cli import main
from judged.errors import JudgedError
from judged.judgments import Store, chain
from judged.judgments import schema as t
from judged.judgments.freeze import pairs, set_digest


def _labelled(store: Store) -> None:
    for docid, grade in (("d1", 2), ("d2", 0), ("d3", 1)):
        store.record("q1", docid, assessor="ana", grade=grade)
    store.record("q1", "d4", assessor="ana", cannot_judge="page does not load")


def _forge(store: Store, *, grade_of: dict[str, int | None], head: str | None = None, name: str = "forged",
           triggers: bool = True) -> None:
    """Insert a new set version whose pairs carry chosen grades, with the real head (or ``head``) and a set hash
    computed correctly for the forged pairs. ``triggers``: through a connection that keeps every trigger (the
    app's own); else as the tables' owner or the file's, with the triggers of the two tables out of the way."""
    real = store.judgment_set("s")
    with store.engine.begin() as connection:
        if not triggers:
            _without_set_triggers(connection)
        stored = pairs(connection, real)
        forged = [{**r, "grade": grade_of.get(r["docid"], r["grade"])} for r in stored]
        content = {"content_hash": hashlib.sha256(
            "".join(f"{r['qid']} 0 {r['docid']} {r['grade']}\n" for r in sorted(
                forged, key=lambda r: (r["qid"], r["docid"])) if r["grade"] is not None).encode()).hexdigest(),
            "pool": real.pool, "pool_hash": real.pool_hash, "pool_runs": list(real.pool_runs), "policy": real.policy}
        set_id = connection.execute(sa.insert(t.judgment_sets).values(
            name=name, version=1, created=real.created, seal_qid=forged[-1]["qid"], seal_docid=forged[-1]["docid"],
            head=head or real.head, set_hash=set_digest(forged, content, real.rubric), **content,
        ).returning(t.judgment_sets.c.id)).scalar_one()
        connection.execute(sa.insert(t.judgment_set_pairs), [{"set_id": set_id, **r} for r in forged])
        if not triggers and connection.dialect.name == "postgresql":
            for table in ("judgment_sets", "judgment_set_pairs"):
                connection.exec_driver_sql(f"ALTER TABLE {table} ENABLE TRIGGER USER")


def _without_set_triggers(connection: sa.Connection) -> None:
    """What the owner of the tables (PostgreSQL) or of the file (SQLite) can do: lift the insert checks."""
    if connection.dialect.name == "postgresql":
        for table in ("judgment_sets", "judgment_set_pairs"):
            connection.exec_driver_sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        return
    for name in ("judgment_sets_current_head", "judgment_set_pairs_from_log"):
        connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")


def test_a_freeze_records_the_head_it_was_derived_from_and_verifies(store):
    _labelled(store)
    frozen = store.freeze("s").judgment_set
    assert frozen.head == store.head() and chain.positions(frozen.head) == {"judgments": 4, "adjudications": 0}
    store.record("q1", "d1", assessor="ana", grade=3)  # later labels do not change what the set was frozen from
    report = store.verify()
    assert report.ok and report.unanchored == 0, report.problems
    assert store.export("s")[0] == "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\n"
    assert json.loads(store.export("s")[1])["judgment_set"]["head"] == frozen.head


def test_a_set_the_log_does_not_give_cannot_be_stored_through_the_triggers(store):
    _labelled(store)
    store.freeze("s")
    record = store.head()
    for forgery in ({"grade_of": {"d2": 3}},  # a grade nobody gave
                    {"grade_of": {"d4": 1}},  # a cannot-judge pair given a grade
                    {"grade_of": {}, "head": "judgments@4:" + "0" * 64 + ",adjudications@0:"}):  # another history
        with pytest.raises(sa.exc.DBAPIError, match=r"a pair of a set is what the log|frozen from the current head"):
            _forge(store, **forgery)
    assert [s.id for s in store.judgment_sets()] == ["s@1"] and store.head() == record and store.verify().ok


def test_a_superseded_grade_passes_the_insert_check_and_verify_names_it(store):
    _labelled(store)
    store.record("q1", "d2", assessor="ana", grade=1)  # ana's current grade of d2 is 1; 0 is in the log still
    store.freeze("s")
    _forge(store, grade_of={"d2": 0})
    problems = store.verify().problems
    assert any("forged@1: 1 pair(s) are not what the log up to its head gives (first: q1 d2: stored single "
               "grade 0, the log gives single grade 1)" in p for p in problems), problems
    for read in (store.qrels, store.export, store.judgment_set):
        with pytest.raises(JudgedError, match=r"forged@1: 1 pair.* it is not used"):
            read("forged@1")
    assert store.export("s")[0].startswith("q1 0 d1 2\n")  # the real set still reads


def test_a_set_stored_past_the_triggers_is_named_and_refused(store):
    _labelled(store)
    store.freeze("s")
    _forge(store, grade_of={"d2": 3}, triggers=False)
    _forge(store, grade_of={"d4": 1}, triggers=False, name="cannot")
    _forge(store, grade_of={}, head="judgments@4:" + "0" * 64 + ",adjudications@0:", triggers=False, name="moved")
    problems = store.verify().problems
    assert any("forged@1: 1 pair(s) are not what the log up to its head gives (first: q1 d2: stored single "
               "grade 3, the log gives single grade 0)" in p for p in problems), problems
    assert any("q1 d4: stored cannot_judge grade 1, the log gives cannot_judge" in p for p in problems), problems
    assert any(p.startswith("judgment set moved@1 was frozen from a history the log no longer holds")
               for p in problems), problems
    for spec in ("forged@1", "cannot@1", "moved@1"):
        with pytest.raises(JudgedError, match=rf"{spec}.* it is not used"):
            store.qrels(spec)


def test_a_set_without_a_head_cannot_be_inserted_through_the_triggers(store):
    _labelled(store)
    store.freeze("s")
    refused = r"records the head|current head of the log"
    with store.engine.connect() as connection, pytest.raises(sa.exc.DBAPIError, match=refused):
        with connection.begin():
            connection.execute(sa.insert(t.judgment_sets).values(
                name="old-looking", version=1, content_hash="0" * 64, pool_runs=[], policy={},
                created=store.judgment_set("s").created))


def _frozen_file(tmp_path) -> tuple[str, sqlite3.Connection]:
    """An SQLite store holding the frozen set ``s``, and a raw connection to its file (an attacker's)."""
    db = str(tmp_path / "judged.db")
    with Store.open(db) as store:
        _labelled(store)
        store.freeze("s")
    return db, sqlite3.connect(db, isolation_level=None)


def test_a_headless_set_added_after_dropping_the_triggers_is_named(tmp_path):
    db, raw = _frozen_file(tmp_path)
    raw.execute("DROP TRIGGER judgment_sets_anchored")
    raw.execute("DROP TRIGGER judgment_sets_current_head")
    raw.execute("INSERT INTO judgment_sets (name, version, content_hash, pool_runs, policy, created) "
                "SELECT 'late', 1, content_hash, pool_runs, policy, created FROM judgment_sets")
    with Store.open(db) as store:
        problems = store.verify().problems
    assert any("record no head, but they are not the first sets stored" in p for p in problems)


def test_eval_and_compare_record_the_heads_of_the_set_they_read(tmp_path, examples):
    db = str(tmp_path / "judged.db")
    with Store.open(db) as store:
        store.import_qrels(examples / "qrels.txt", assessor="nist")
        frozen = store.freeze("nist").judgment_set
        store.record("q01", "extra/doc", assessor="nist", grade=1)  # the log moves on after the freeze
        now = store.head()
    runs = [str(examples / "runs" / f"{n}.run") for n in ("bm25", "dense")]
    for args in (["eval", runs[0]], ["compare", *runs, "--permutations", "99", "--resamples", "99"]):
        result = CliRunner().invoke(main, [*args, "--judgments", "nist@1", "--db", db, "-f", "json"])
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        assert document["judgments"]["heads"] == {"frozen_from": frozen.head, "read_at": now}
        assert frozen.head in result.stdout and frozen.head != now


@pytest.mark.parametrize("change", ["UPDATE judgment_sets SET policy = '{\"resolve\": \"max\", \"assessors\": null, "
                                    "\"adjudications\": true}'",
                                    "UPDATE judgment_set_pairs SET pooled = NOT pooled WHERE docid = 'd1'",
                                    "UPDATE judgment_set_pairs SET state = 'unjudged', grade = NULL "
                                    "WHERE docid = 'd4'"])
def test_a_set_changed_by_the_tables_owner_is_named_and_refused_on_both_databases(db_url, change):
    """The owner (PostgreSQL) or the file's (SQLite) can lift the append-only triggers and rewrite a set's policy,
    pooled flags or states: verify names it, every read refuses it, `judged export` exits 1."""
    with Store.open(db_url) as store:
        _labelled(store)
        store.freeze("s")
        with store.engine.begin() as connection:
            tables = ("judgment_sets", "judgment_set_pairs")
            if connection.dialect.name == "postgresql":
                for table in tables:
                    connection.exec_driver_sql(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            else:
                for (name,) in connection.exec_driver_sql(
                        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN "
                        "('judgment_sets', 'judgment_set_pairs')").all():
                    connection.exec_driver_sql(f"DROP TRIGGER {name}")
            connection.exec_driver_sql(change)
            if connection.dialect.name == "postgresql":
                for table in tables:
                    connection.exec_driver_sql(f"ALTER TABLE {table} ENABLE TRIGGER USER")
        assert any("s@1: its pairs, states or metadata hash to" in p for p in store.verify().problems)
        with pytest.raises(JudgedError, match=r"s@1: its pairs, states or metadata hash"):
            store.qrels("s")
    result = CliRunner().invoke(main, ["export", "s", "--db", db_url])
    assert result.exit_code == 1 and "s@1: its pairs, states or metadata hash" in result.output
