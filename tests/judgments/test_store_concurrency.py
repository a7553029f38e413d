"""Parallel writer processes lose nothing and duplicate nothing, on SQLite and on a real PostgreSQL server.

Four processes open a fresh store at the same moment (racing its migrations)
and each records 200 events, one transaction per event, while also retrying
50 of its neighbour's events under the neighbour's event ids, as a client
whose acknowledgement was lost would. Exactly 800 events must be stored, each
once, each as written.
"""

from __future__ import annotations

import multiprocessing
import uuid

import sqlalchemy as sa

from judged.judgments import Store
from judged.judgments.schema import judgments

WORKERS, EVENTS, RETRIED = 4, 200, 50
_NAMESPACE = uuid.UUID("0b5e8a8e-3c1d-4a57-9d1e-2f6c8a7b9e10")


def _event(n: int) -> dict:
    """The n-th event of the test: every worker writes to the same ten pairs, as different assessors."""
    worker = n // EVENTS
    return {"qid": f"q{n % 5}", "docid": f"d{n % 2}", "assessor": f"w{worker}", "grade": n % 4,
            "event_id": str(uuid.uuid5(_NAMESPACE, str(n)))}


def _writer(url: str, worker: int, barrier) -> None:
    barrier.wait(timeout=120)
    with Store.open(url) as store:
        neighbour = (worker + 1) % WORKERS
        mine = range(worker * EVENTS, (worker + 1) * EVENTS)
        retried = list(range(neighbour * EVENTS, neighbour * EVENTS + RETRIED))
        for i, n in enumerate(mine):
            stored = store.record(**_event(n))
            if stored.event_id != _event(n)["event_id"] or stored.grade != _event(n)["grade"]:
                raise AssertionError(f"record({n}) returned {stored}")
            if i < RETRIED:
                retry = _event(retried[i])
                again = store.record(**retry)
                if (again.event_id, again.assessor, again.grade) != (retry["event_id"], retry["assessor"],
                                                                     retry["grade"]):
                    raise AssertionError(f"retry of {retried[i]} returned {again}")


def test_parallel_writers_store_every_event_exactly_once(db_url):
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WORKERS)
    processes = [context.Process(target=_writer, args=(db_url, w, barrier)) for w in range(WORKERS)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=300)
    assert [p.exitcode for p in processes] == [0] * WORKERS

    expected = {e["event_id"]: e for e in map(_event, range(WORKERS * EVENTS))}
    with Store.open(db_url) as store, store.engine.connect() as connection:
        rows = connection.execute(sa.select(judgments)).mappings().all()
        assert len(rows) == WORKERS * EVENTS
        assert {row["event_id"] for row in rows} == set(expected)
        for row in rows:
            assert {k: row[k] for k in ("qid", "docid", "assessor", "grade", "event_id")} == expected[row["event_id"]]
        assert len({row["id"] for row in rows}) == len(rows)
        latest = {}
        for n in range(WORKERS * EVENTS):  # each worker wrote its events in order: its last per pair is current
            e = _event(n)
            latest[(e["qid"], e["docid"], e["assessor"])] = e["grade"]
        assert sorted(store.current_labels().rows()) == sorted((*key, grade) for key, grade in latest.items())
