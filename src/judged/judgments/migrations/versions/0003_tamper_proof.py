"""Tamper-proof history: a hash chain over judgments and adjudications, sealed frozen sets, no REPLACE.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

* ``judgments.chain_hash`` and ``adjudications.chain_hash``: each event's hash
  over its content and the hash of the event before it
  (:mod:`judged.judgments.chain`). Computed here for the events already stored,
  in log order.
* ``judgment_sets.seal_qid``/``seal_docid``: the pair a freeze stores last;
  once it is stored, the set takes no more pairs. Existing sets are sealed by
  their greatest pair.
* SQLite: ``INSERT OR REPLACE`` deletes the row it replaces without firing
  delete triggers (unless ``recursive_triggers`` is on), so every append-only
  table gets a BEFORE INSERT trigger that refuses a row whose key is stored.
  Both databases: a BEFORE INSERT trigger on ``judgment_set_pairs`` refuses a
  pair for a set that is sealed, or has no seal.

The UPDATE triggers are lifted for the length of the backfill only, inside this
migration's transaction.
"""

import sqlalchemy as sa
from alembic import op

from judged.judgments.chain import CONTENT, event_hash

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

#: For each append-only table: the keys a replacing INSERT would collide on.
_KEYS = {
    "judgments": ("id = NEW.id", "event_id = NEW.event_id", "undoes = NEW.undoes"),
    "adjudications": ("id = NEW.id", "event_id = NEW.event_id"),
    "judgment_sets": ("id = NEW.id", "(name = NEW.name AND version = NEW.version)"),
    "judgment_set_pairs": ("(set_id = NEW.set_id AND qid = NEW.qid AND docid = NEW.docid)",),
}
_SEALED = (
    "SELECT 1 FROM judgment_sets s WHERE s.id = NEW.set_id AND (s.seal_qid IS NULL OR EXISTS ("
    "SELECT 1 FROM judgment_set_pairs p WHERE p.set_id = s.id AND p.qid = s.seal_qid AND p.docid = s.seal_docid))"
)


def upgrade() -> None:
    """Add the chain and seal columns, backfill them, and add the triggers that refuse replacing rows."""
    for table in CONTENT:
        op.add_column(table, sa.Column("chain_hash", sa.String(64)))
    op.add_column("judgment_sets", sa.Column("seal_qid", sa.String))
    op.add_column("judgment_sets", sa.Column("seal_docid", sa.String))
    sqlite = op.get_bind().dialect.name == "sqlite"
    for table in (*CONTENT, "judgment_sets"):
        _allow_updates(table, sqlite, allow=True)
        if table in CONTENT:
            _backfill_chain(table)
        else:
            _backfill_seals()
        _allow_updates(table, sqlite, allow=False)
    if sqlite:
        for table, keys in _KEYS.items():
            op.execute(
                f"CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table} "
                f"WHEN EXISTS (SELECT 1 FROM {table} WHERE {' OR '.join(keys)}) "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: a stored row cannot be replaced'); END"
            )
        op.execute(
            f"CREATE TRIGGER judgment_set_pairs_sealed BEFORE INSERT ON judgment_set_pairs WHEN EXISTS ({_SEALED}) "
            "BEGIN SELECT RAISE(ABORT, 'judgment_set_pairs: a frozen set takes no more pairs'); END"
        )
        return
    op.execute(
        "CREATE FUNCTION judged_set_sealed() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN IF EXISTS ({_SEALED}) THEN "
        "RAISE EXCEPTION 'judgment_set_pairs: a frozen set takes no more pairs'; END IF; RETURN NEW; END $$"
    )
    op.execute(
        "CREATE TRIGGER judgment_set_pairs_sealed BEFORE INSERT ON judgment_set_pairs "
        "FOR EACH ROW EXECUTE FUNCTION judged_set_sealed()"
    )


def _allow_updates(table: str, sqlite: bool, *, allow: bool) -> None:
    """Lift (``allow``) or restore the trigger of revision 0001 that refuses UPDATE on ``table``."""
    if not sqlite:
        op.execute(f"ALTER TABLE {table} {'DISABLE' if allow else 'ENABLE'} TRIGGER {table}_append_only")
    elif allow:
        op.execute(f"DROP TRIGGER {table}_no_update")
    else:
        op.execute(
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: UPDATE is not allowed'); END"
        )


def _backfill_chain(name: str) -> None:
    columns = CONTENT[name]
    table = sa.table(name, *(sa.column(c, sa.DateTime(timezone=True) if c == "created" else None)
                             for c in (*columns, "chain_hash")))
    connection = op.get_bind()
    previous = None
    for row in connection.execute(sa.select(*(table.c[c] for c in columns)).order_by(table.c.id)).mappings().all():
        previous = event_hash(previous, dict(row), columns)
        connection.execute(sa.update(table).where(table.c.id == row["id"]).values(chain_hash=previous))


def _backfill_seals() -> None:
    sets = sa.table("judgment_sets", sa.column("id"), sa.column("seal_qid"), sa.column("seal_docid"))
    pairs = sa.table("judgment_set_pairs", sa.column("set_id"), sa.column("qid"), sa.column("docid"))
    connection = op.get_bind()
    for (set_id,) in connection.execute(sa.select(sets.c.id)).all():
        keys = connection.execute(sa.select(pairs.c.qid, pairs.c.docid).where(pairs.c.set_id == set_id)).all()
        if keys:
            qid, docid = max(tuple(k) for k in keys)
            connection.execute(sa.update(sets).where(sets.c.id == set_id).values(seal_qid=qid, seal_docid=docid))
