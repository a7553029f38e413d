"""Schema only through migrations: Alembic's head, the migrated schema against the metadata, the connection settings."""

from __future__ import annotations

import ast

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from click.testing import CliRunner

from judged.cli import main
from judged.errors import UsageError
from judged.judgments import Store
from judged.judgments.automatic import AutomaticAssessor
from judged.judgments.engine import resolve_url
from judged.judgments.migrate import MIGRATIONS, head, revisions
from judged.judgments.schema import APPEND_ONLY, metadata


def test_fast_head_is_alembics_head_and_revisions_form_one_chain():
    script = ScriptDirectory(str(MIGRATIONS))
    assert script.get_current_head() == head()
    chain = [r.revision for r in reversed(list(script.walk_revisions()))]
    assert chain == revisions()
    for path in (MIGRATIONS / "versions").glob("[0-9]*.py"):
        assigned = {
            node.targets[0].id: node.value.value
            for node in ast.parse(path.read_text()).body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        }
        assert assigned["revision"] == path.name[:4], path.name


def _drift(connection: sa.Connection) -> list:
    """compare_metadata's differences that concern the store's own tables (later migrations may add others)."""
    def table_of(diff) -> str | None:
        diff = diff[0] if isinstance(diff, list) else diff
        item = diff[1]
        if isinstance(item, sa.Table):
            return item.name
        if isinstance(item, (sa.Index, sa.UniqueConstraint, sa.ForeignKeyConstraint)):
            return item.table.name
        return diff[2] if len(diff) > 2 and isinstance(diff[2], str) else None

    return [d for d in compare_metadata(MigrationContext.configure(connection), metadata)
            if table_of(d) in metadata.tables]


def test_migrations_build_exactly_the_metadata(store):
    with store.engine.connect() as connection:
        assert _drift(connection) == []
        present = set(sa.inspect(connection).get_table_names())
    assert set(metadata.tables) <= present


def test_a_new_database_is_behind_until_upgraded(tmp_path):
    with Store.open(str(tmp_path / "new.db"), upgrade=False) as store:
        status = store.schema_status()
        assert (status.current, status.pending, status.up_to_date) == (None, tuple(revisions()), False)
        assert store.upgrade() == tuple(revisions())
        assert store.upgrade() == ()
        assert store.schema_status().current == head()


def test_a_store_newer_than_this_judged_is_refused(tmp_path):
    path = str(tmp_path / "judged.db")
    Store.open(path).close()
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    engine.dispose()
    with pytest.raises(UsageError, match="revision '9999', which this version of judged does not know"):
        Store.open(path)


def test_sqlite_runs_in_wal_with_foreign_keys_and_a_busy_timeout(sqlite_store):
    with sqlite_store.engine.connect() as connection:
        def pragma(name):
            return connection.exec_driver_sql(f"PRAGMA {name}").scalar()
        assert (pragma("journal_mode"), pragma("foreign_keys"), pragma("busy_timeout")) == ("wal", 1, 30000)


def test_events_and_frozen_sets_refuse_update_and_delete(store, tmp_path):
    event = store.record("q1", "d1", assessor="ana", grade=1)
    store.adjudicate("q1", "d1", 1, adjudicator="lead", note="clear")
    store.freeze("s")
    labels = tmp_path / "llm.jsonl"
    labels.write_text('{"qid": "q1", "docid": "d2", "grade": 1, "confidence": 0.5}\n')
    store.import_automatic(labels, AutomaticAssessor("llm", "m", "ab" * 32))
    column = {"judgment_sets": "name", "automatic_assessors": "model", "automatic_labels": "rationale"}
    with store.engine.connect() as connection:
        for table in APPEND_ONLY:
            for statement in (f"UPDATE {table} SET {column.get(table, 'qid')} = 'x'", f"DELETE FROM {table}"):
                with pytest.raises(sa.exc.DBAPIError, match="append-only"), connection.begin():
                    connection.exec_driver_sql(statement)
    assert store.history("q1", "d1") == [event]


def test_foreign_keys_are_enforced(store):
    with store.engine.connect() as connection, pytest.raises(sa.exc.IntegrityError), connection.begin():
        connection.execute(sa.insert(metadata.tables["pool_runs"]).values(
            pool="no-such-pool", run="r", depth=1, ties="trec", step="build", created=sa.func.now()))


def test_database_names_resolve_to_urls(monkeypatch):
    monkeypatch.delenv("JUDGED_DB", raising=False)
    assert resolve_url(None) == "sqlite:///judged.db"
    assert resolve_url("data/j.db") == "sqlite:///data/j.db"
    assert resolve_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    monkeypatch.setenv("JUDGED_DB", "postgresql://u@h:5/j")
    assert resolve_url(None) == "postgresql+psycopg://u@h:5/j"
    assert resolve_url("other.db") == "sqlite:///other.db"
    with pytest.raises(UsageError, match="SQLite and PostgreSQL"):
        Store.open("mysql://u@h/db")


def test_db_commands(tmp_path):
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    upgraded = runner.invoke(main, ["db", "upgrade", "--db", db])
    assert upgraded.exit_code == 0, upgraded.output
    assert f"applied {', '.join(revisions())}; at revision {head()}" in upgraded.output
    assert "nothing to apply" in runner.invoke(main, ["db", "upgrade", "--db", db]).output
    status = runner.invoke(main, ["db", "status", "--db", db])
    assert status.exit_code == 0, status.output
    assert f"schema: revision {head()} (up to date)" in status.output
    assert "judgments 0" in [" ".join(line.split()) for line in status.output.splitlines()]
