"""A writer killed with SIGKILL in the middle of a transaction leaves the store consistent and usable."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import sqlalchemy as sa

from judged.judgments import NewJudgment, Recorded, Store
from judged.judgments.schema import judgments

STALL_AFTER = 2_000  # events handed to record_many before the writer stalls: four 500-event chunks inserted


def _stalling_writer(url: str, inside) -> None:
    """Record a batch in one transaction, but stall half way (rows inserted, nothing committed) until killed."""
    def entries():
        for n in range(10 * STALL_AFTER):
            if n == STALL_AFTER:
                inside.set()
                time.sleep(600)
            yield NewJudgment(f"q{n % 50}", f"d{n}", "crasher", grade=n % 4)

    with Store.open(url) as store:
        store.record_many(entries())


def _count(store: Store) -> int:
    with store.engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(judgments)).scalar_one()


def _kill_mid_transaction(url: str) -> None:
    context = multiprocessing.get_context("spawn")
    inside = context.Event()
    writer = context.Process(target=_stalling_writer, args=(url, inside))
    writer.start()
    assert inside.wait(timeout=120), "the writer never got half way through its transaction"
    os.kill(writer.pid, signal.SIGKILL)
    writer.join(timeout=60)
    assert writer.exitcode == -signal.SIGKILL


def test_a_writer_killed_mid_transaction_leaves_nothing_behind(db_url):
    with Store.open(db_url) as store:
        store.record_many([NewJudgment("q1", f"d{n}", "ana", grade=1) for n in range(10)])
    _kill_mid_transaction(db_url)
    with Store.open(db_url) as store:
        assert _count(store) == 10
        assert store.current_labels()["assessor"].unique().to_list() == ["ana"]
        store.record("q1", "d1", assessor="ana", grade=3)  # no lock was left behind
        assert store.record_many([NewJudgment("q2", "d1", "crasher", grade=0)]) == Recorded(1, 0)
        assert _count(store) == 12
        if store.engine.dialect.name == "sqlite":
            with store.engine.connect() as connection:
                assert connection.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"


def _importer(url: str, path: str, started) -> None:
    with Store.open(url) as store:
        started.set()
        store.import_qrels(path, assessor="nist")


def test_a_large_import_killed_at_any_moment_is_all_or_nothing(tmp_path):
    url = str(tmp_path / "judged.db")
    rows = 30_000
    path = tmp_path / "big.qrels"
    path.write_text("".join(f"q{n % 300:03d} 0 doc{n:06d} {n % 4}\n" for n in range(rows)))
    Store.open(url).close()
    context = multiprocessing.get_context("spawn")
    started = context.Event()
    importer = context.Process(target=_importer, args=(url, str(path), started))
    importer.start()
    assert started.wait(timeout=120)
    wal = tmp_path / "judged.db-wal"
    deadline = time.monotonic() + 30
    while importer.is_alive() and time.monotonic() < deadline and (not wal.exists() or wal.stat().st_size < 1 << 20):
        time.sleep(0.005)  # kill once the transaction has written a megabyte of uncommitted pages
    os.kill(importer.pid, signal.SIGKILL)
    importer.join(timeout=60)
    with Store.open(url) as store:
        survived = _count(store)
        assert survived in (0, rows)
        with store.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
        assert store.import_qrels(path, assessor="nist") == Recorded(rows - survived, survived)
        assert _count(store) == rows
