"""A real ``judged serve`` (uvicorn) under hostile input: a huge anonymous body does not grow the server's
memory, and ``X-Forwarded-For`` is believed only from the proxy ``--trusted-proxy`` names."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
from web_helpers import csrf_of, load_bench

from judged.judgments import Store
from judged.judgments.account_schema import login_attempts
from judged.web.intake import too_large

MIB = 1 << 20


@pytest.fixture
def served_db(template_db, tmp_path) -> Path:
    db = tmp_path / "served.db"
    shutil.copy(template_db, db)
    return db


def _rss(pid: int) -> int:
    """The process's resident memory in bytes (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS line")


def _answer(connection: socket.socket, timeout: float = 20) -> tuple[int, dict]:
    """The status and JSON body of the HTTP/1.1 response read from ``connection``."""
    connection.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        data += connection.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = next(int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += connection.recv(65536)
    return int(head.split()[1]), json.loads(body[:length])


def _request(path: str, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
             *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_huge_anonymous_body_is_refused_and_the_server_does_not_grow(served_db):
    limit = 64 * 1024
    with load_bench().launch(served_db, ["--max-body-bytes", str(limit)]) as (base, process):
        port = int(base.rsplit(":", 1)[1])
        assert httpx.get(f"{base}/login").status_code == 200
        before = _rss(process.pid)
        # declared: 200 MB announced, refused on the headers alone
        with socket.create_connection(("127.0.0.1", port)) as connection:
            connection.sendall(_request("/api/judgments", {"Content-Length": str(200 * MIB)}))
            assert _answer(connection) == (413, {"error": {"code": "too_large", "message": too_large(limit)}})
        # streamed: chunks with no length, as fast as the server takes them, until it answers
        with socket.create_connection(("127.0.0.1", port)) as connection:
            connection.sendall(_request("/api/judgments", {"Transfer-Encoding": "chunked"}))
            answered = threading.Event()
            sent = 0

            def stream() -> None:
                nonlocal sent
                chunk = b"%x\r\n%s\r\n" % (MIB, b"[" * MIB)
                try:
                    while not answered.is_set() and sent < 64 * MIB:
                        connection.sendall(chunk)
                        sent += MIB
                except OSError:
                    pass  # the server may close the connection once it has answered

            sender = threading.Thread(target=stream)
            sender.start()
            status, body = _answer(connection)
            answered.set()
            sender.join(timeout=20)
        assert (status, body["error"]["code"]) == (413, "too_large")
        time.sleep(0.2)
        grown = _rss(process.pid) - before
        assert grown < 16 * MIB, f"the server grew by {grown / MIB:.0f} MiB after {sent / MIB:.0f} MiB were sent"
        assert httpx.get(f"{base}/login").status_code == 200  # and it still serves


def _recorded_address(base: str, db: Path) -> str:
    """Log in with a wrong password claiming X-Forwarded-For 203.0.113.9: the address the store recorded."""
    with httpx.Client(base_url=base) as client:
        token = csrf_of(client.get("/login").text)
        response = client.post("/login", data={"name": "alice", "password": "wrong-password", "csrf_token": token},
                               headers={"X-Forwarded-For": "203.0.113.9"})
        assert response.status_code == 401
    with Store.open(f"sqlite:///{db}") as store, store.engine.connect() as connection:
        return connection.execute(login_attempts.select().order_by(login_attempts.c.id.desc())).mappings().first()["ip"]


def test_forwarded_for_is_believed_only_from_the_named_proxy(served_db):
    bench = load_bench()
    with bench.launch(served_db) as (base, _):
        assert _recorded_address(base, served_db) == "127.0.0.1"  # uvicorn alone would believe loopback
    with bench.launch(served_db, ["--trusted-proxy", "127.0.0.1"]) as (base, _):
        assert _recorded_address(base, served_db) == "203.0.113.9"
