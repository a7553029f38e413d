"""Store failures are one line each, a damaged file is never written, a read-only archive can be read,
and an acknowledged write is synced (``synchronous = FULL``)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat

import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.errors import JudgedError
from judged.judgments import Store


@pytest.fixture
def frozen(tmp_path, examples):
    db = tmp_path / "judged.db"
    with Store.open(str(db)) as store:
        store.import_qrels(examples / "qrels.txt", assessor="nist")
        store.freeze("nist")
    return db


def test_the_write_lock_held_by_another_process_is_one_line(frozen, monkeypatch):
    monkeypatch.setattr("judged.judgments.engine.BUSY_TIMEOUT_MS", 50)
    holder = sqlite3.connect(frozen, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = CliRunner().invoke(main, ["judge", "record", "q01", "api/overview", "1", "-a", "nist",
                                           "--db", str(frozen)])
    finally:
        holder.execute("ROLLBACK")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"Error: sqlite:///{frozen}: another process has held the store's write lock for 30 s; nothing was stored. "
        "Run it again when that process is done."
    ]


def test_a_full_disk_is_one_line(frozen):
    with Store.open(str(frozen)) as store:
        with store.engine.connect() as connection:  # the file may not grow past its current pages
            pages = connection.exec_driver_sql("PRAGMA page_count").scalar()
            connection.exec_driver_sql(f"PRAGMA max_page_count = {pages}")
            connection.commit()
        with pytest.raises(JudgedError, match=r"the disk holding the store is full; nothing was stored") as caught:
            store.import_qrels({f"q{i}": {f"d{j}": 1 for j in range(50)} for i in range(200)}, assessor="big")
    assert "\n" not in str(caught.value) and "INSERT" not in str(caught.value)


def test_a_damaged_file_is_refused_before_anything_is_written(frozen):
    size = frozen.stat().st_size
    with open(frozen, "r+b") as handle:  # overwrite a page in the middle with garbage
        handle.seek(size // 2 // 4096 * 4096)
        handle.write(b"\xff" * 4096)
    before = frozen.read_bytes()
    result = CliRunner().invoke(main, ["judge", "record", "q01", "api/overview", "1", "-a", "nist",
                                       "--db", str(frozen)])
    assert result.exit_code == 1
    assert len(result.output.splitlines()) == 1 and "the store's file is damaged" in result.output
    assert frozen.read_bytes() == before


def test_a_read_only_archive_is_read_in_immutable_mode(frozen, tmp_path, examples, monkeypatch):
    archive = tmp_path / "archive"
    archive.mkdir()
    copy = archive / "judged.db"
    shutil.copy(frozen, copy)
    copy.chmod(stat.S_IRUSR)
    archive.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        as_root = os.access(copy, os.W_OK)
        if as_root:  # root writes read-only files: stand for a read-only mount instead
            monkeypatch.setattr("judged.judgments.store._writable", lambda path: False)
        def evaluate(db):
            result = CliRunner().invoke(main, ["eval", str(examples / "runs" / "bm25.run"), "--judgments", "nist@1",
                                               "--db", str(db), "-m", "nDCG@10", "--format", "json"])
            assert result.exit_code == 0, result.output
            (found,) = json.loads(result.output)["results"]
            return found["provenance"]["qrels"]["sha256"], found["provenance"]["qrels"]["path"], found["aggregate"]

        sha, path, aggregate = evaluate(copy)
        assert "immutable=1" in path and (sha, aggregate) == evaluate(frozen)[::2]
        assert sorted(p.name for p in archive.iterdir()) == ["judged.db"]  # no WAL or shared-memory file
        if not as_root:
            written = CliRunner().invoke(main, ["judge", "record", "q01", "api/overview", "1", "-a", "nist",
                                                "--db", str(copy)])
            assert written.exit_code == 1 and len(written.output.splitlines()) == 1, written.output
    finally:
        archive.chmod(stat.S_IRWXU)


def test_an_archive_opened_immutable_reads_the_same_set(frozen):
    from judged.judgments.engine import immutable_url

    with Store.open(str(frozen)) as store:
        expected = store.export("nist@1")
    with Store.open(immutable_url(frozen), must_exist=True) as archived:
        assert archived.export("nist@1") == expected
        with pytest.raises(JudgedError, match="read-only"):
            archived.record("q01", "api/overview", assessor="nist", grade=1)


def test_an_acknowledged_write_is_synced_to_disk(sqlite_store):
    with sqlite_store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL: the WAL is synced per commit
