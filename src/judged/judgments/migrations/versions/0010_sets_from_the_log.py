"""Only a set the log bears out can be stored: its head is the log's head, and each pair cites the log.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02

Through a connection that keeps the triggers (PostgreSQL's app role from
``judged db grant`` cannot disable or drop them) a writer could store a new set
version with any grades and a correct hash; every read then refused it, but it
was stored. Two triggers now check at insert time what SQL can check without
a second definition of the resolution policies:

* ``judgment_sets``: a new set's ``head`` is the log's anchor at that moment
  (:data:`judged.judgments.chain.ANCHOR_SQL`), so no set claims an older or an
  invented history;
* ``judgment_set_pairs``: the set's head is still the log's anchor (nothing was
  appended since the set row), and each pair is what some event of the log
  gives it: an adjudicated grade an adjudication of that pair gave; a single,
  agreed or resolved grade a grade event of that pair gave; a cannot-judge pair
  without a grade and with a cannot-judge event; an unjudged pair without a
  grade and pooled; a pooled pair a member of the set's pool.

What the triggers leave to the full re-derivation (``judged db verify`` and
every read, :func:`judged.judgments.freeze.derivation_problems`): whether the
policy picks those grades among the ones the log holds (an assessor's earlier,
superseded grade passes the insert check), and pairs left out.
"""

from alembic import op

from judged.judgments.chain import ANCHOR_SQL

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_SET_MESSAGE = "judgment_sets: a new set is frozen from the current head of the log"
_PAIR_MESSAGE = "judgment_set_pairs: a pair of a set is what the log up to its head gives it"

_SET_REFUSED = f"COALESCE(NEW.head, '') <> {ANCHOR_SQL}"
_PAIR_ALLOWED = f"""(
  COALESCE((SELECT s.head FROM judgment_sets s WHERE s.id = NEW.set_id), '') = {ANCHOR_SQL}
  AND (
    (NEW.state = 'adjudicated' AND EXISTS (SELECT 1 FROM adjudications a
      WHERE a.qid = NEW.qid AND a.docid = NEW.docid AND a.grade = NEW.grade))
    OR (NEW.state IN ('single', 'agreed', 'resolved') AND EXISTS (SELECT 1 FROM judgments j
      WHERE j.qid = NEW.qid AND j.docid = NEW.docid AND j.kind = 'grade' AND j.grade = NEW.grade))
    OR (NEW.state = 'cannot_judge' AND NEW.grade IS NULL AND EXISTS (SELECT 1 FROM judgments j
      WHERE j.qid = NEW.qid AND j.docid = NEW.docid AND j.kind = 'cannot_judge'))
    OR (NEW.state = 'unjudged' AND NEW.grade IS NULL AND NEW.pooled)
  )
  AND (NOT NEW.pooled OR EXISTS (SELECT 1 FROM pool_members m JOIN pool_runs r ON r.id = m.pool_run_id
    WHERE r.pool = (SELECT s.pool FROM judgment_sets s WHERE s.id = NEW.set_id)
      AND m.qid = NEW.qid AND m.docid = NEW.docid))
)"""


def upgrade() -> None:
    """Add the two insert checks (sets stored before this revision are left as they are)."""
    checks = (("judgment_sets", "judgment_sets_current_head", _SET_REFUSED, _SET_MESSAGE),
              ("judgment_set_pairs", "judgment_set_pairs_from_log", f"NOT {_PAIR_ALLOWED}", _PAIR_MESSAGE))
    sqlite = op.get_bind().dialect.name == "sqlite"
    for table, name, refused, message in checks:
        if sqlite:
            op.execute(f"CREATE TRIGGER {name} BEFORE INSERT ON {table} "
                       f"WHEN {refused} BEGIN SELECT RAISE(ABORT, '{message}'); END")
            continue
        op.execute(f"CREATE FUNCTION judged_{name}() RETURNS trigger LANGUAGE plpgsql AS $$ "
                   f"BEGIN IF {refused} THEN RAISE EXCEPTION '{message}'; END IF; RETURN NEW; END $$")
        op.execute(f"CREATE TRIGGER {name} BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION judged_{name}()")
