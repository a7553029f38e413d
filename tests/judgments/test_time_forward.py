"""Times follow the log: no connection that keeps the triggers can append a back-dated event, and judged's own
appends never store one earlier than the event before it (SQLite and PostgreSQL)."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from judged.judgments import chain
from judged.judgments import schema as t


def _chained(store, table: sa.Table, row: dict) -> dict:
    """``row`` as the next event of ``table``, with its sequence number and a correct chain hash: what a writer
    with the app's connection who knows the chain rule can compute."""
    with store.engine.connect() as connection:
        seq, previous = chain.head(connection, table)
    full = {column.name: row.get(column.name) for column in table.columns if column.name != "chain_hash"}
    full["id"] = seq + 1
    return {**full, "chain_hash": chain.event_hash(previous, full, chain.CONTENT[table.name])}


def test_a_correctly_chained_back_dated_judgment_is_refused(store):
    store.record("q1", "d1", assessor="ana", grade=1)
    past = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    forged = _chained(store, t.judgments, {"event_id": "f" * 32, "qid": "q1", "docid": "d2", "assessor": "ana",
                                           "kind": "grade", "grade": 3, "created": past})
    with store.engine.connect() as connection, pytest.raises(sa.exc.DBAPIError, match="cannot be older"):
        with connection.begin():
            connection.execute(sa.insert(t.judgments).values(**forged))
    assert [e.docid for e in store.history("q1", "d2")] == []
    assert store.verify().ok


def test_a_back_dated_adjudication_is_refused(store):
    store.record("q1", "d1", assessor="ana", grade=1)
    store.adjudicate("q1", "d1", 2, adjudicator="lead", note="the key step")
    forged = _chained(store, t.adjudications, {"event_id": "e" * 32, "qid": "q1", "docid": "d1",
                                               "adjudicator": "lead", "grade": 0,
                                               "created": dt.datetime(2020, 1, 1, tzinfo=dt.UTC)})
    with store.engine.connect() as connection, pytest.raises(sa.exc.DBAPIError, match="cannot be older"):
        with connection.begin():
            connection.execute(sa.insert(t.adjudications).values(**forged))


def _database_now(store) -> dt.datetime:
    with store.engine.connect() as connection:
        return chain.database_time(connection)


def test_an_events_time_is_the_databases_not_the_writers(store, monkeypatch):
    from judged.judgments import log

    monkeypatch.setattr(log, "now", lambda: dt.datetime(2000, 1, 1, tzinfo=dt.UTC))  # a writer's clock set wrong
    before = _database_now(store)
    store.record("q1", "d1", assessor="ana", grade=1)
    after = _database_now(store)
    (stored,) = store.history("q1", "d1")
    slack = dt.timedelta(milliseconds=1)  # SQLite's clock reads to the millisecond
    assert before - slack <= stored.created <= after + slack
    assert store.verify().ok


def test_a_time_is_never_before_the_last_events_even_when_the_clock_is(store):
    """An event stored ahead of the clock (the trigger refuses only older ones): the next append takes its time."""
    store.record("q1", "d1", assessor="ana", grade=1)
    ahead = _database_now(store) + dt.timedelta(days=1)
    future = _chained(store, t.judgments, {"event_id": "a" * 32, "qid": "q1", "docid": "d2", "assessor": "ana",
                                           "kind": "grade", "grade": 2, "created": ahead})
    with store.engine.begin() as connection:
        connection.execute(sa.insert(t.judgments).values(**future))
    store.record("q1", "d3", assessor="ana", grade=0)
    (stored,) = store.history("q1", "d3")
    assert stored.created == ahead
    assert store.verify().ok
