"""Attacks on the store's history: each must be refused, or reported by the read and by ``judged db verify``.

Raw ``sqlite3`` connections are used for the SQLite attacks: they have neither
judged's pragmas (``recursive_triggers`` is off) nor SQLAlchemy in the way.
"""

from __future__ import annotations

import os
import sqlite3
import uuid

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from click.testing import CliRunner

from judged.cli import main
from judged.errors import JudgedError
from judged.judgments import Store, chain
from judged.judgments.engine import create_engine, resolve_url, writing
from judged.judgments.migrate import MIGRATIONS
from judged.judgments.schema import judgments


@pytest.fixture
def frozen_db(tmp_path, examples) -> str:
    """An SQLite store with nist's labels of the examples, one adjudication, and the frozen set nist@1."""
    db = str(tmp_path / "judged.db")
    with Store.open(db) as store:
        store.import_qrels(examples / "qrels.txt", assessor="nist")
        store.adjudicate("q01", "api/openapi-spec", 2, adjudicator="lead", note="the spec answers it")
        store.freeze("nist")
    return db


def _raw(db: str) -> sqlite3.Connection:
    return sqlite3.connect(db, isolation_level=None)


def _a_grade_event(raw: sqlite3.Connection) -> tuple:
    first = "SELECT id, event_id, qid, docid, assessor, created FROM judgments ORDER BY id LIMIT 1"
    return raw.execute(first).fetchone()


def test_insert_or_replace_cannot_rewrite_an_event_an_adjudication_or_a_frozen_pair(frozen_db):
    raw = _raw(frozen_db)
    assert raw.execute("PRAGMA recursive_triggers").fetchone() == (0,)  # the attacker's connection, not judged's
    ident, event, qid, docid, assessor, created = _a_grade_event(raw)
    attacks = [
        ("INSERT OR REPLACE INTO judgments (id, event_id, qid, docid, assessor, kind, grade, created) "
         "VALUES (?, ?, ?, ?, ?, 'grade', 3, ?)", (ident, event, qid, docid, assessor, created)),
        ("REPLACE INTO judgments (id, event_id, qid, docid, assessor, kind, grade, created) "
         "VALUES (?, ?, ?, ?, ?, 'grade', 3, ?)", (10_000, event, qid, docid, assessor, created)),
        ("INSERT OR REPLACE INTO adjudications (id, event_id, qid, docid, adjudicator, grade, note, created) "
         "SELECT id, event_id, qid, docid, adjudicator, 0, note, created FROM adjudications", ()),
        ("INSERT OR REPLACE INTO judgment_set_pairs (set_id, qid, docid, grade, state, pooled) "
         "SELECT set_id, qid, docid, 0, state, pooled FROM judgment_set_pairs WHERE grade = 1", ()),
        ("INSERT OR REPLACE INTO judgment_sets (id, name, version, content_hash, pool_runs, policy, created) "
         "SELECT id, name, version, 'x', pool_runs, policy, created FROM judgment_sets", ()),
    ]
    refused = r"cannot be replaced|takes no more pairs|records the head|cannot be older|the log up to its head|" \
              "current head of the log"
    for statement, parameters in attacks:
        with pytest.raises(sqlite3.IntegrityError, match=refused):
            raw.execute(statement, parameters)
    with Store.open(frozen_db) as store:
        assert store.verify().ok
        assert [e.grade for e in store.history(qid, docid)] == [_stored_grade(frozen_db, ident)]


def _stored_grade(db: str, ident: int) -> int:
    return _raw(db).execute("SELECT grade FROM judgments WHERE id = ?", (ident,)).fetchone()[0]


def test_a_frozen_set_takes_no_late_pair(store):
    store.record("q1", "d1", assessor="ana", grade=1)
    store.record("q1", "d2", assessor="ana", grade=0)
    for qid, docid in (("q1", "d0"), ("q1", "d3"), ("q0", "zzz")):  # in the log, so only the seal refuses them
        store.record(qid, docid, assessor="bob", grade=3)
    store.freeze("s", assessors=["ana"])
    with store.engine.connect() as connection:
        set_id = connection.exec_driver_sql("SELECT id FROM judgment_sets").scalar()
        connection.commit()
        for qid, docid in (("q1", "d0"), ("q1", "d3"), ("q0", "zzz")):  # before, after and between the stored keys
            with pytest.raises(sa.exc.DBAPIError, match="a frozen set takes no more pairs"), connection.begin():
                connection.exec_driver_sql(
                    "INSERT INTO judgment_set_pairs (set_id, qid, docid, grade, state, pooled) "
                    f"VALUES ({set_id}, '{qid}', '{docid}', 3, 'single', false)"
                )
    assert store.export("s")[0] == "q1 0 d1 1\nq1 0 d2 0\n"


def test_postgresql_upsert_cannot_rewrite_an_event(postgres_url):
    with Store.open(postgres_url) as store:
        event = store.record("q1", "d1", assessor="ana", grade=1)
        with store.engine.connect() as connection, pytest.raises(sa.exc.DBAPIError, match="append-only"):
            with connection.begin():
                connection.exec_driver_sql(
                    "INSERT INTO judgments (id, event_id, qid, docid, assessor, kind, grade, created) "
                    f"VALUES ({event.seq}, '{event.event_id}', 'q1', 'd1', 'ana', 'grade', 3, now()) "
                    "ON CONFLICT (id) DO UPDATE SET grade = 3"
                )
        assert store.history("q1", "d1") == [event]


def _drop_triggers(raw: sqlite3.Connection) -> None:
    """What an attacker with the file can do: remove every trigger."""
    for (name,) in raw.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        raw.execute(f"DROP TRIGGER {name}")


def test_a_set_changed_behind_the_store_is_refused_on_every_read(frozen_db, examples):
    raw = _raw(frozen_db)
    _drop_triggers(raw)
    raw.execute("UPDATE judgment_set_pairs SET grade = 0 WHERE qid = 'q02' AND grade > 0")
    with Store.open(frozen_db) as store:
        for read in (store.qrels, store.export, store.judgment_set):
            with pytest.raises(JudgedError, match="judgment set nist@1 is damaged"):
                read("nist@1")
        report = store.verify()
    assert not report.ok and report.problems[0].startswith("judgment set nist@1 is damaged")
    result = CliRunner().invoke(main, ["eval", str(examples / "runs" / "bm25.run"), "--judgments", "nist@1",
                                       "--db", frozen_db, "-m", "nDCG@10"])
    assert result.exit_code == 1 and "nist@1 is damaged" in result.output


def test_a_pair_added_or_removed_behind_the_store_is_reported(frozen_db):
    raw = _raw(frozen_db)
    _drop_triggers(raw)
    seal = raw.execute("SELECT seal_qid, seal_docid FROM judgment_sets").fetchone()
    raw.execute("DELETE FROM judgment_set_pairs WHERE qid = ? AND docid = ?", seal)
    with Store.open(frozen_db) as store:
        problems = store.verify().problems
    assert any("lost its seal pair" in p for p in problems)


def test_a_rewritten_or_removed_event_breaks_the_chain_where_it_happened(frozen_db):
    raw = _raw(frozen_db)
    _drop_triggers(raw)
    ident = raw.execute("SELECT id FROM judgments ORDER BY id LIMIT 1 OFFSET 9").fetchone()[0]
    raw.execute("UPDATE judgments SET grade = grade + 1 WHERE id = ?", (ident,))
    with Store.open(frozen_db) as store:
        first = store.verify()
    assert first.chains[0].broken_at == ident and first.chains[0].events == 9
    raw.execute("UPDATE judgments SET grade = grade - 1 WHERE id = ?", (ident,))
    raw.execute("DELETE FROM judgments WHERE id = ?", (ident,))
    raw.execute("UPDATE adjudications SET note = 'changed'")
    with Store.open(frozen_db) as store:
        report = store.verify()
    assert [c.broken_at for c in report.chains] == [ident + 1, 1]
    result = CliRunner().invoke(main, ["db", "verify", "--db", frozen_db])
    assert result.exit_code == 1
    assert f"judgments event #{ident + 1} does not match" in result.output
    assert "adjudications event #1 does not match" in result.output


def test_db_verify_passes_on_an_untouched_store_and_prints_the_heads(frozen_db):
    result = CliRunner().invoke(main, ["db", "verify", "--db", frozen_db])
    assert result.exit_code == 0, result.output
    assert "judgments: 239 event(s) chained, head " in result.output
    assert "adjudications: 1 event(s) chained" in result.output
    assert "judgment sets: 1 checked" in result.output and result.output.endswith("ok: the history is the one "
                                                                                  "the store wrote\n")


def test_the_migration_chains_and_seals_an_existing_store(db_url):
    engine = create_engine(resolve_url(db_url))
    with writing(engine) as connection:  # a store as judged left it before revision 0003
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = connection
        command.upgrade(config, "0002")
        connection.exec_driver_sql("INSERT INTO assessors VALUES ('ana', '2025-01-01 00:00:00')")
        for n, grade in enumerate((2, 1, 0), start=1):
            connection.exec_driver_sql(
                "INSERT INTO judgments (event_id, qid, docid, assessor, kind, grade, created) "
                f"VALUES ('{uuid.uuid4()}', 'q1', 'd{n}', 'ana', 'grade', {grade}, '2025-01-01 00:00:0{n}.250000')"
            )
        connection.exec_driver_sql(
            "INSERT INTO judgment_sets (name, version, content_hash, pool_runs, policy, created) VALUES "
            "('old', 1, '" + _sha("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\n") + "', '[]', '{}', '2025-01-01 00:00:00')"
        )
        for n, grade in enumerate((2, 1, 0), start=1):
            connection.exec_driver_sql(
                f"INSERT INTO judgment_set_pairs VALUES (1, 'q1', 'd{n}', {grade}, 'single', false)"
            )
    engine.dispose()
    with Store.open(db_url) as store:
        report = store.verify()
        assert report.ok and report.chains[0].events == 3
        store.record("q1", "d1", assessor="ana", grade=0)
        assert store.verify().chains[0].events == 4
        assert store.export("old@1")[0] == "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\n"
        with store.engine.connect() as connection:
            seal = connection.exec_driver_sql("SELECT seal_qid, seal_docid FROM judgment_sets").one()
            connection.commit()
            assert tuple(seal) == ("q1", "d3")
            for statement, refusal in (
                ("INSERT INTO judgment_set_pairs VALUES (1, 'q1', 'd4', 3, 'single', false)",
                 "no more pairs|the log up to its head"),
                ("UPDATE judgments SET grade = 3", "append-only"),
                ("UPDATE judgment_sets SET content_hash = 'x'", "append-only"),
            ):
                with pytest.raises(sa.exc.DBAPIError, match=refusal), connection.begin():
                    connection.exec_driver_sql(statement)


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def test_the_chain_is_the_one_its_definition_gives(sqlite_store):
    first = sqlite_store.record("q1", "d1", assessor="ana", grade=2)
    second = sqlite_store.record("q1", "d1", assessor="ana", grade=3)
    with sqlite_store.engine.connect() as connection:
        rows = connection.execute(sa.select(judgments).order_by(judgments.c.id)).mappings().all()
    expected = chain.event_hash(None, rows[0], chain.CONTENT["judgments"])
    assert rows[0]["chain_hash"] == expected
    assert rows[1]["chain_hash"] == chain.event_hash(expected, rows[1], chain.CONTENT["judgments"])
    assert (rows[0]["id"], rows[1]["id"]) == (first.seq, second.seq) == (1, 2)


def test_postgresql_app_role_that_does_not_own_the_tables_cannot_disable_the_triggers(postgres_url):
    base = os.environ["JUDGED_TEST_POSTGRES_URL"]  # set: the postgres_url fixture skips otherwise
    role = f"judged_app_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(base)
    with admin.begin() as connection:
        connection.exec_driver_sql(f"CREATE ROLE {role} LOGIN")
    with Store.open(postgres_url) as owner:  # the owner role creates and migrates the store ...
        owner.record("q1", "d1", assessor="ana", grade=1)
        owner.freeze("s")
        owner.grant_app_role(role)  # ... and grants the web app's role what it needs, nothing more
    app_url = sa.engine.make_url(postgres_url).set(username=role).render_as_string(hide_password=False)
    try:
        with Store.open(app_url) as app:
            app.record("q1", "d2", assessor="ana", grade=2)  # it can append and freeze ...
            app.adjudicate("q1", "d1", 2, adjudicator="lead", note="clear")
            assert app.freeze("s", resolve="max").judgment_set.id == "s@2"
            with app.engine.connect() as connection:  # ... and cannot change what is stored
                for statement in ("ALTER TABLE judgments DISABLE TRIGGER ALL",
                                  "ALTER TABLE judgment_set_pairs DISABLE TRIGGER judgment_set_pairs_sealed",
                                  "ALTER TABLE judgment_set_pairs DISABLE TRIGGER judgment_set_pairs_from_log",
                                  "ALTER TABLE judgment_sets DISABLE TRIGGER judgment_sets_current_head",
                                  "UPDATE judgments SET grade = 3", "DELETE FROM judgment_set_pairs",
                                  "TRUNCATE judgments CASCADE", "DROP TRIGGER judgments_append_only ON judgments"):
                    with pytest.raises(sa.exc.ProgrammingError, match=r"permission denied|must be owner"), \
                            connection.begin():
                        connection.exec_driver_sql(statement)
            with app.engine.connect() as connection:  # nor store a set the log does not give, hash and all
                forged = ("INSERT INTO judgment_sets (name, version, content_hash, pool_runs, policy, created, "
                          "seal_qid, seal_docid, head, set_hash) SELECT 'forged', 1, content_hash, pool_runs, policy, "
                          "created, seal_qid, seal_docid, head, set_hash FROM judgment_sets WHERE version = {}")
                for version, refusal in ((1, "frozen from the current head of the log"), (2, None)):
                    with connection.begin():
                        if refusal:
                            with pytest.raises(sa.exc.DBAPIError, match=refusal):
                                connection.exec_driver_sql(forged.format(version))
                            continue
                        set_id = connection.exec_driver_sql(forged.format(version) + " RETURNING id").scalar()
                        with pytest.raises(sa.exc.DBAPIError, match="what the log up to its head gives"):
                            connection.exec_driver_sql(f"INSERT INTO judgment_set_pairs VALUES ({set_id}, 'q1', "
                                                       "'d1', 3, 'single', false)")
            assert app.verify().ok and [s.id for s in app.judgment_sets()] == ["s@1", "s@2"]
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f"DROP OWNED BY {role}")
            connection.exec_driver_sql(f"DROP ROLE {role}")
        admin.dispose()
