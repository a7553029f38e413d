"""The append-only judgment log: re-grades, undo, cannot-judge, idempotent event ids, rubric checks, derived labels."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judged.errors import InputError, UsageError
from judged.judgments import NewJudgment, Recorded, Store
from judged.rubric import Level, Rubric

RUBRIC = Rubric("docs", "1", (0, 2), (Level(0, "no", "cannot use it"), Level(1, "part", "can start"),
                                      Level(2, "done", "can finish the task")))


def test_a_regrade_is_a_new_event_and_the_latest_is_current(store):
    first = store.record("q1", "d1", assessor="ana", grade=1)
    second = store.record("q1", "d1", assessor="ana", grade=2, note="read the table")
    assert second.seq > first.seq and second.event_id != first.event_id
    assert [(e.kind, e.grade, e.note) for e in store.history("q1", "d1")] == [("grade", 1, None),
                                                                             ("grade", 2, "read the table")]
    assert store.current_labels().rows() == [("q1", "d1", "ana", 2)]


def test_undo_brings_back_the_previous_label_and_is_itself_an_event(store):
    store.record("q1", "d1", assessor="ana", grade=1)
    store.record("q1", "d1", assessor="ana", grade=2)
    undo = store.undo("q1", "d1", assessor="ana")
    assert undo.kind == "undo" and undo.undoes == store.history("q1", "d1")[1].event_id
    assert store.current_labels().rows() == [("q1", "d1", "ana", 1)]
    store.undo("q1", "d1", assessor="ana")
    assert store.current_labels().height == 0
    with pytest.raises(UsageError, match="ana has no label of q1 d1 to undo"):
        store.undo("q1", "d1", assessor="ana")
    assert [e.kind for e in store.history("q1", "d1")] == ["grade", "grade", "undo", "undo"]


def test_a_retried_undo_undoes_once(store):
    store.record("q1", "d1", assessor="ana", grade=1)
    store.record("q1", "d1", assessor="ana", grade=2)
    ident = str(uuid.uuid4())
    assert store.undo("q1", "d1", assessor="ana", event_id=ident) == store.undo("q1", "d1", assessor="ana",
                                                                              event_id=ident)
    assert store.current_labels()["grade"].to_list() == [1]
    with pytest.raises(UsageError, match="already stored for a different event"):
        store.undo("q1", "d2", assessor="ana", event_id=ident)


def test_concurrent_retries_of_one_undo_store_it_once(store):
    store.record("q1", "d1", assessor="ana", grade=1)
    store.record("q1", "d1", assessor="ana", grade=2)
    ident = str(uuid.uuid4())
    start = threading.Barrier(6)

    def retry(_):
        start.wait()
        return store.undo("q1", "d1", assessor="ana", event_id=ident)

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(retry, range(6)))
    assert all(answer == answers[0] for answer in answers)
    assert [e.kind for e in store.history("q1", "d1")].count("undo") == 1
    assert store.current_labels()["grade"].to_list() == [1]


def test_cannot_judge_is_a_label_but_not_a_grade(store):
    store.record("q1", "d1", assessor="ana", cannot_judge="page is empty")
    store.record("q1", "d1", assessor="ben", grade=0)
    current = store.current()
    assert [(e.assessor, e.kind, e.grade, e.reason) for e in current] == [
        ("ana", "cannot_judge", None, "page is empty"), ("ben", "grade", 0, None)]
    assert store.current_labels().rows() == [("q1", "d1", "ben", 0)]
    with pytest.raises(UsageError, match="not both"):
        store.record("q1", "d1", assessor="ana", grade=1, cannot_judge="x")
    with pytest.raises(UsageError, match="needs a reason"):
        store.record("q1", "d1", assessor="ana", cannot_judge="  ")


def test_a_client_event_id_makes_a_retry_store_once(store):
    ident = str(uuid.uuid4())
    first = store.record("q1", "d1", assessor="ana", grade=2, event_id=ident)
    again = store.record("q1", "d1", assessor="ana", grade=2, event_id=ident.upper())
    assert again == first and len(store.history("q1", "d1")) == 1
    with pytest.raises(UsageError, match="already stored for a different event"):
        store.record("q1", "d1", assessor="ana", grade=3, event_id=ident)
    with pytest.raises(UsageError, match="must be a UUID"):
        store.record("q1", "d1", assessor="ana", grade=2, event_id="not-a-uuid")


def test_a_batch_counts_new_events_and_retries_and_is_all_or_nothing(store):
    ids = [str(uuid.uuid4()) for _ in range(3)]
    batch = [NewJudgment("q1", f"d{i}", "ana", grade=i % 2, event_id=ids[i]) for i in range(3)]
    assert store.record_many(batch) == Recorded(3, 0)
    assert store.record_many(batch + [NewJudgment("q2", "d9", "ana", grade=1), batch[0]]) == Recorded(1, 4)
    with pytest.raises(UsageError, match="a grade must be an integer"):
        store.record_many([NewJudgment("q3", "d1", "ana", grade=1), NewJudgment("q3", "d2", "ana", grade="2")])
    assert store.current_labels().filter(pl.col("qid") == "q3").height == 0
    twice = NewJudgment("q4", "d1", "ana", grade=1, event_id=str(uuid.uuid4()))
    assert store.record_many([twice, twice]) == Recorded(1, 1)
    clash = NewJudgment("q4", "d2", "ana", grade=1, event_id=str(uuid.uuid4()))
    with pytest.raises(UsageError, match="already stored for a different event"):
        store.record_many([clash, NewJudgment("q4", "d2", "ana", grade=2, event_id=clash.event_id)])


def test_grades_are_checked_against_the_rubric_in_force(store):
    store.record("q1", "d0", assessor="ana", grade=7)  # no rubric stored yet: any integer
    store.add_rubric(RUBRIC)
    event = store.record("q1", "d1", assessor="ana", grade=2)
    assert event.rubric == "docs@1"
    with pytest.raises(UsageError, match="grade 3 is not a level of the rubric in force; expected one of 0, 1, 2"):
        store.record("q1", "d1", assessor="ana", grade=3)
    with pytest.raises(UsageError, match="no rubric 'docs@2'"):
        store.record("q1", "d1", assessor="ana", grade=1, rubric="docs@2")
    assert store.rubric().grades == (0, 1, 2) and store.rubric("docs@1") == store.rubric()


def test_a_rubric_version_never_changes(store):
    assert store.add_rubric(RUBRIC) is True
    assert store.add_rubric(RUBRIC) is False
    changed = Rubric("docs", "1", (0, 2), RUBRIC.levels[:2] + (Level(2, "done", "something else"),))
    with pytest.raises(UsageError, match="already stored with different levels"):
        store.add_rubric(changed)


def test_ids_with_whitespace_are_refused(sqlite_store):
    for qid, docid in (("q 1", "d1"), ("q1", ""), ("q1", "d\t1")):
        with pytest.raises(UsageError, match="without whitespace"):
            sqlite_store.record(qid, docid, assessor="ana", grade=1)


def test_current_labels_frame_is_one_row_per_pair_and_assessor_sorted(sqlite_store):
    for qid, docid, assessor, grade in [("q2", "d1", "ben", 1), ("q1", "d2", "ana", 0), ("q1", "d1", "ben", 2),
                                        ("q1", "d1", "ana", 3), ("q1", "d1", "ana", 1)]:
        sqlite_store.record(qid, docid, assessor=assessor, grade=grade)
    frame = sqlite_store.current_labels()
    assert frame.schema == {"qid": pl.String, "docid": pl.String, "assessor": pl.String, "grade": pl.Int64}
    assert frame.rows() == [("q1", "d1", "ana", 1), ("q1", "d1", "ben", 2), ("q1", "d2", "ana", 0),
                            ("q2", "d1", "ben", 1)]
    assert sqlite_store.current_labels(assessors=["ben"])["assessor"].to_list() == ["ben", "ben"]


def test_importing_a_qrels_file_twice_stores_it_once(sqlite_store, examples):
    assert sqlite_store.import_qrels(examples / "qrels.txt", assessor="nist") == Recorded(239, 0)
    assert sqlite_store.import_qrels(examples / "qrels.txt", assessor="nist") == Recorded(0, 239)
    assert sqlite_store.import_qrels(examples / "qrels.txt", assessor="copy") == Recorded(239, 0)
    assert sqlite_store.current_labels().height == 478


def test_an_imported_grade_outside_the_rubric_names_its_line(sqlite_store, tmp_path):
    sqlite_store.add_rubric(RUBRIC)
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 3\n")
    with pytest.raises(InputError) as err:
        sqlite_store.import_qrels(path, assessor="nist", rubric="docs")
    assert str(err.value) == (f"{path}:3: grade 3 is not a level of rubric docs@1: 'q1 d3 3' "
                              "(expected one of 0, 1, 2)")
    assert sqlite_store.current_labels().height == 0


_OPS = st.lists(
    st.tuples(st.sampled_from(["q1", "q2"]), st.sampled_from(["d1", "d2"]),
              st.one_of(st.integers(0, 3), st.just("cannot"), st.just("undo"))),
    max_size=25,
)


@pytest.fixture(scope="module")
def shared_store():
    with Store.open("sqlite://") as opened:
        yield opened


@settings(max_examples=40, deadline=None)
@given(ops=_OPS)
def test_current_labels_replay_the_log_as_a_stack(shared_store, ops):
    assessor = f"a{uuid.uuid4().hex}"  # a fresh assessor per example: examples share one store
    stacks: dict[tuple[str, str], list] = {}
    for qid, docid, op in ops:
        stack = stacks.setdefault((qid, docid), [])
        if op == "undo":
            if stack:
                stack.pop()
                shared_store.undo(qid, docid, assessor=assessor)
            else:
                with pytest.raises(UsageError):
                    shared_store.undo(qid, docid, assessor=assessor)
        elif op == "cannot":
            stack.append(("cannot_judge", None))
            shared_store.record(qid, docid, assessor=assessor, cannot_judge="unreadable")
        else:
            stack.append(("grade", op))
            shared_store.record(qid, docid, assessor=assessor, grade=op)
    expected = sorted((q, d, *stack[-1]) for (q, d), stack in stacks.items() if stack)
    assert [(e.qid, e.docid, e.kind, e.grade) for e in shared_store.current(assessors=[assessor])] == expected


def test_a_batch_without_a_rubric_falls_under_the_newest_one(sqlite_store):
    """As record does: the batch's grades are checked against the newest rubric and carry its version."""
    sqlite_store.add_rubric(RUBRIC)
    assert sqlite_store.record_many([NewJudgment("q1", "d1", "ana", grade=2)]) == Recorded(1, 0)
    assert [e.rubric for e in sqlite_store.current()] == ["docs@1"]
    with pytest.raises(UsageError, match="grade 7"):
        sqlite_store.record_many([NewJudgment("q1", "d2", "ana", grade=7)])
    assert len(sqlite_store.current()) == 1


def test_an_anchor_kept_elsewhere_catches_a_log_cut_short_and_an_older_copy(tmp_path):
    """A shorter chain still verifies on its own; against an anchor printed earlier it does not."""
    import shutil

    from click.testing import CliRunner

    from judged.cli import main

    path = tmp_path / "judged.db"
    with Store.open(str(path)) as store:
        store.record("q1", "d1", assessor="ana", grade=1)
    shutil.copy(path, tmp_path / "older.db")  # a backup taken now, restored later
    with Store.open(str(path)) as store:
        store.record("q1", "d2", assessor="ana", grade=2)
        kept = store.head()
        assert store.verify(expect_head=kept).ok
    runner = CliRunner()
    printed = runner.invoke(main, ["db", "head", "--db", str(path)])
    assert printed.exit_code == 0 and printed.stdout == kept + "\n"
    assert kept.startswith("judgments@2:") and kept.endswith(",adjudications@0:")
    held = runner.invoke(main, ["db", "verify", "--expect-head", kept, "--db", str(path)])
    assert held.exit_code == 0 and "anchor: held" in held.stdout
    with Store.open(str(tmp_path / "older.db")) as older:
        assert older.verify().ok  # by itself the restored copy proves nothing wrong
        assert older.verify(expect_head=kept).problems == (
            "judgments: the anchor holds event 2, but the chain ends at 1: events were deleted, or an older "
            "copy of the store was restored",)
    refused = runner.invoke(main, ["db", "verify", "--expect-head", kept, "--db", str(tmp_path / "older.db")])
    assert refused.exit_code == 1 and "an older copy of the store was restored" in refused.output
    with Store.open(str(tmp_path / "other.db")) as other:  # another history of the same length
        other.record("q1", "d1", assessor="ana", grade=1)
        other.record("q1", "d2", assessor="ana", grade=3)
        assert "the history was rewritten" in other.verify(expect_head=kept).problems[0]
    with pytest.raises(UsageError, match="an anchor is what `judged db head` prints"):
        Store.open(str(path)).verify(expect_head="judgments@2")
