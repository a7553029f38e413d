"""A bounded load test: 20 assessors grading at once, as fast as the server answers, against ``judged serve``.

It runs ``bench/web_load.py`` (the full benchmark runs a minute) for a few
seconds: afterwards every grade acknowledged to a client must be in the store
exactly once, each retried grade must have been answered 200 and stored
nothing, and no request may fail. Latency is printed, and bounded only
loosely here (the machine is shared); ``docs/web.md`` records the figures.
"""

from __future__ import annotations

from web_helpers import load_bench


def test_twenty_concurrent_assessors_every_acknowledged_grade_stored_exactly_once(tmp_path):
    bench = load_bench()
    db = tmp_path / "load.db"
    names = bench.build_store(db, assessors=20, queries=2, docs=10)
    with bench.serve(db) as base:
        result = bench.run_load(base, names, seconds=5, retry_share=0.2, seed=1)
    print(bench.report(result, len(names)))
    assert bench.verify(db, result) == []
    assert len(result.acknowledged) >= 100 and result.retries >= 10
    assert len(result.grade_latency) == len(result.acknowledged) + result.retries
    assert bench.percentiles(result.grade_latency)["p95"] < 2000
