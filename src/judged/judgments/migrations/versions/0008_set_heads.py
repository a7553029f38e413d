"""A frozen set records the log it was frozen from and a hash of all it holds.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02

``judgment_sets.head`` is the log's anchor when the set was frozen (what
``judged db head`` prints: each chain's position and hash); ``set_hash`` is
the sha256 of everything the set holds and its export writes (every pair with
its grade, state and pooled flag, the pool and its runs, the policy, the
rubric). ``judged db verify`` and every read of a set check that the head
lies on the chains and re-derive the set from the log up to it
(:func:`judged.judgments.freeze.derivation_problems`).

Sets frozen before this revision keep ``NULL`` in both: the table is only
ever inserted into, so nothing is back-filled; they are checked as before
(content hash and seal pair), and ``judged db verify`` counts them as
unanchored. Freezing the name again makes an anchored version. From this
revision on a trigger refuses a set without a head or set hash, so no
connection that keeps the triggers (PostgreSQL's app role cannot drop them)
can store a set that passes for an old one; and verify requires the
unanchored sets to be the first ones stored (their ids below every anchored
set's), which a set added after dropping the triggers is not.
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


_MESSAGE = "judgment_sets: a new set records the head and set hash it was frozen with"


def upgrade() -> None:
    """Add the two nullable columns (existing sets read ``NULL``) and refuse new sets without them."""
    op.add_column("judgment_sets", sa.Column("head", sa.String))
    op.add_column("judgment_sets", sa.Column("set_hash", sa.String(64)))
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE TRIGGER judgment_sets_anchored BEFORE INSERT ON judgment_sets "
            f"WHEN NEW.head IS NULL OR NEW.set_hash IS NULL BEGIN SELECT RAISE(ABORT, '{_MESSAGE}'); END"
        )
        return
    op.execute(
        "CREATE FUNCTION judged_set_anchored() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN IF NEW.head IS NULL OR NEW.set_hash IS NULL THEN RAISE EXCEPTION '{_MESSAGE}'; END IF; "
        "RETURN NEW; END $$"
    )
    op.execute(
        "CREATE TRIGGER judgment_sets_anchored BEFORE INSERT ON judgment_sets "
        "FOR EACH ROW EXECUTE FUNCTION judged_set_anchored()"
    )
