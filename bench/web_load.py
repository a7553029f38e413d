"""Load test of the judging web app: concurrent assessors grading on loopback against ``judged serve`` on SQLite.

Builds a synthetic store (one query set per assessor, ``--docs`` documents a
query, no overlap), starts ``judged serve`` in a subprocess on a free
loopback port, logs every assessor in, and has each grade their queue for
``--seconds``: per grade, ``POST /api/judgments`` with a fresh event id, then
``GET /api/pairs/N`` for the next pair, as the grading page does. With
``--think S`` an assessor pauses between grades, uniformly between 0 and 2S
seconds (a person needs several); without it they grade as fast as the server answers, which
measures the server saturated. A share of grades (``--retry-share``) is sent a
second time with the same event id, as a client does after losing an answer.

Afterwards it reads the store: every grade acknowledged to a client (201)
must be stored exactly once, retries must have stored nothing, and nothing
else may have been stored. It prints p50/p95/p99 latency per grade (the POST)
and per next pair (the GET), and exits 1 if a check fails.

Usage: ``python3 bench/web_load.py [--assessors 20] [--seconds 60] [--think 0] [--retry-share 0.1]``
(``src/`` is put on the import path, so judged need not be installed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import httpx  # noqa: E402
import numpy as np  # noqa: E402
import sqlalchemy as sa  # noqa: E402
from argon2 import PasswordHasher, profiles  # noqa: E402

from judged.io.inputs import Run  # noqa: E402
from judged.judgments import Document, Query, Store  # noqa: E402
from judged.judgments.accounts import Accounts  # noqa: E402
from judged.judgments.schema import judgments  # noqa: E402
from judged.rubric import Level, Rubric  # noqa: E402

PASSWORD = "load-test-password"
_CSRF = re.compile(r'name="csrf-token" content="([^"]*)"')
_LOGIN_CSRF = re.compile(r'name="csrf_token" value="([^"]*)"')


def build_store(path: Path, assessors: int, queries: int, docs: int) -> list[str]:
    """A store at ``path`` with ``queries`` queries of ``docs`` pooled documents per assessor; their names."""
    names = [f"assessor{i:02d}" for i in range(assessors)]
    qids = [f"q{i:04d}" for i in range(assessors * queries)]
    with Store.open(f"sqlite:///{path}") as store:
        store.add_queries([Query(qid, f"information need {qid}", f"what the user of {qid} needs") for qid in qids])
        store.add_documents([Document(f"{qid}-d{d:02d}", f"document {d} for {qid}", "text " * 200)
                             for qid in qids for d in range(docs)])
        store.add_rubric(Rubric("load", "1", (0, 3), tuple(
            Level(g, f"level {g}", f"the user can do step {g} of the task") for g in range(4))))
        run = Run.from_dict({qid: {f"{qid}-d{d:02d}": float(docs - d) for d in range(docs)} for qid in qids}, "run")
        store.build_pool([run], depth=docs)
        accounts = Accounts(store, hasher=PasswordHasher.from_parameters(profiles.CHEAPEST))
        for name in names:
            accounts.add_user(name, "assessor", PASSWORD)
        store.assign(names, overlap_queries=0, seed=0)
    return names


def free_port() -> int:
    """An unused loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serve(db: Path, timeout: float = 30) -> Iterator[str]:
    """``judged serve`` on ``db`` in a subprocess (access log off); yields its base URL, stops it afterwards."""
    with launch(db, timeout=timeout) as (base, _):
        yield base


@contextlib.contextmanager
def launch(db: Path, options: Sequence[str] = (), timeout: float = 30) -> Iterator[tuple[str, subprocess.Popen]]:
    """:func:`serve` with more ``judged serve`` options; yields the base URL and the server's process."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(
        [sys.executable, "-c", "from judged.cli import main; main()", "serve", "--db", str(db), "--port", str(port),
         "--log-level", "warning", *options],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                if httpx.get(f"{base}/login", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"judged serve did not start: {process.communicate()[0]}")
            time.sleep(0.1)
        yield base, process
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass
class LoadResult:
    """What the clients saw: acknowledged event ids, retries, errors and latencies in seconds."""

    acknowledged: set[str] = field(default_factory=set)
    retries: int = 0
    errors: list[str] = field(default_factory=list)
    grade_latency: list[float] = field(default_factory=list)
    pair_latency: list[float] = field(default_factory=list)
    seconds: float = 0.0


async def _login(client: httpx.AsyncClient, name: str) -> str:
    page = await client.get("/login")
    token = _LOGIN_CSRF.search(page.text).group(1)
    response = await client.post("/login", data={"name": name, "password": PASSWORD, "csrf_token": token})
    if response.status_code != 303:
        raise RuntimeError(f"{name} could not log in: {response.status_code} {response.text[:200]}")
    return _CSRF.search((await client.get("/assess")).text).group(1)


async def _grade(client: httpx.AsyncClient, name: str, csrf: str, pairs: list[dict], deadline: float,
                 think: float, retry_share: float, rng: random.Random, result: LoadResult) -> None:
    """One assessor grading their queue round and round until ``deadline``, as the grading page does."""
    i = 0
    while time.monotonic() < deadline:
        pair = pairs[i % len(pairs)]
        body = {"event_id": str(uuid.uuid4()), "qid": pair["qid"], "docid": pair["docid"], "grade": rng.randrange(4)}
        for attempt in range(2 if rng.random() < retry_share else 1):
            began = time.perf_counter()
            try:
                response = await client.post("/api/judgments", json=body, headers={"X-CSRF-Token": csrf})
            except httpx.HTTPError as err:
                result.errors.append(f"{name}: {type(err).__name__}")
                break
            result.grade_latency.append(time.perf_counter() - began)
            expected = 201 if attempt == 0 else 200
            if response.status_code != expected:
                result.errors.append(f"{name}: grade answered {response.status_code}, expected {expected}")
            elif attempt == 0:
                result.acknowledged.add(body["event_id"])
            else:
                result.retries += 1
        i += 1
        began = time.perf_counter()
        response = await client.get(f"/api/pairs/{pairs[i % len(pairs)]['position']}")
        result.pair_latency.append(time.perf_counter() - began)
        if response.status_code != 200:
            result.errors.append(f"{name}: next pair answered {response.status_code}")
        if think:
            await asyncio.sleep(rng.uniform(0, 2 * think))


async def _load(base: str, names: list[str], seconds: float, think: float, retry_share: float,
                seed: int) -> LoadResult:
    """Log everyone in and load their queues first (not timed: the first login rehashes), then grade at once."""
    async with contextlib.AsyncExitStack() as stack:
        # Idle connections are dropped after 2 s, before uvicorn closes them after its 5 s keep-alive: a request
        # sent on a connection the server is closing fails with ReadError (on a loaded machine, logins take that long).
        limits = httpx.Limits(keepalive_expiry=2.0)
        clients = [await stack.enter_async_context(httpx.AsyncClient(base_url=base, timeout=30, limits=limits))
                   for _ in names]
        tokens = await asyncio.gather(*(_login(client, name) for client, name in zip(clients, names)))
        queues = await asyncio.gather(*(client.get("/api/queue") for client in clients))
        result = LoadResult()
        began = time.monotonic()
        await asyncio.gather(*(
            _grade(client, name, token, queue.json()["pairs"], began + seconds, think, retry_share,
                   random.Random(seed + i), result)
            for i, (client, name, token, queue) in enumerate(zip(clients, names, tokens, queues))
        ))
        result.seconds = time.monotonic() - began
    return result


def run_load(base: str, names: list[str], *, seconds: float, think: float = 0.0, retry_share: float = 0.1,
             seed: int = 0) -> LoadResult:
    """Every assessor in ``names`` grading at once for ``seconds``; see the module docstring."""
    return asyncio.run(_load(base, names, seconds, think, retry_share, seed))


def verify(db: Path, result: LoadResult) -> list[str]:
    """Problems with what the store holds against what clients were told (empty: every check passed)."""
    with Store.open(f"sqlite:///{db}") as store, store.engine.connect() as connection:
        stored = connection.execute(sa.select(judgments.c.event_id)).scalars().all()
    problems = []
    counts: dict[str, int] = {}
    for event_id in stored:
        counts[event_id] = counts.get(event_id, 0) + 1
    duplicated = [e for e, n in counts.items() if n > 1]
    missing = result.acknowledged - set(counts)
    unexpected = set(counts) - result.acknowledged
    if duplicated:
        problems.append(f"{len(duplicated)} events stored more than once")
    if missing:
        problems.append(f"{len(missing)} acknowledged grades are not in the store")
    if unexpected:
        problems.append(f"{len(unexpected)} stored events were never acknowledged")
    if result.errors:
        problems.append(f"{len(result.errors)} requests failed, e.g. {result.errors[0]}")
    return problems


def percentiles(values: list[float]) -> dict[str, float]:
    """p50, p95 and p99 of ``values`` in milliseconds."""
    if not values:
        return {"p50": float("nan"), "p95": float("nan"), "p99": float("nan")}
    ms = np.asarray(values) * 1000
    return {f"p{q}": float(np.percentile(ms, q)) for q in (50, 95, 99)}


def report(result: LoadResult, assessors: int) -> str:
    """The figures as text: counts, throughput and latency percentiles."""
    grade, pair = percentiles(result.grade_latency), percentiles(result.pair_latency)
    return (
        f"{assessors} assessors for {result.seconds:.1f} s: {len(result.acknowledged)} grades acknowledged "
        f"({len(result.acknowledged) / result.seconds:.1f}/s), {result.retries} retried with the same event id\n"
        f"grade (POST /api/judgments): p50 {grade['p50']:.1f} ms, p95 {grade['p95']:.1f} ms, "
        f"p99 {grade['p99']:.1f} ms over {len(result.grade_latency)} requests\n"
        f"next pair (GET /api/pairs/N): p50 {pair['p50']:.1f} ms, p95 {pair['p95']:.1f} ms, "
        f"p99 {pair['p99']:.1f} ms over {len(result.pair_latency)} requests\n"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the load test from the command line; exit status 1 when the store does not match the clients."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assessors", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds each assessor waits between grades (uniform on 0 to twice it)")
    parser.add_argument("--retry-share", type=float, default=0.1, help="share of grades sent twice")
    parser.add_argument("--queries", type=int, default=5, help="queries per assessor")
    parser.add_argument("--docs", type=int, default=20, help="pooled documents per query")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "load.db"
        names = build_store(db, args.assessors, args.queries, args.docs)
        with serve(db) as base:
            result = run_load(base, names, seconds=args.seconds, think=args.think, retry_share=args.retry_share,
                              seed=args.seed)
        print(report(result, args.assessors), end="")
        problems = verify(db, result)
    for problem in problems:
        print(f"FAILED: {problem}")
    if not problems:
        print("every acknowledged grade is stored exactly once; nothing else was stored")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
