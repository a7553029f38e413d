"""An assessor may hold the same pair in two efforts: assignments are unique per (pool, assessor, pair).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

Revision 0001 made (assessor, qid, docid) unique across pools, so a second
effort whose pool shares pairs with an earlier one could not be assigned to the
same people. A label stays per (pair, assessor): a pair an assessor already
labelled in one effort counts as done in the other.
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Widen the assignments' pair key with the pool (SQLite: by rebuilding the table, in this transaction)."""
    with op.batch_alter_table("assignments") as batch:
        batch.drop_constraint("uq_assignments_pair", type_="unique")
        batch.create_unique_constraint("uq_assignments_pair", ["pool", "assessor", "qid", "docid"])
