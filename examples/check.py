"""Validate the invariants of the judged example collection.

Usage: python3 examples/check.py [--reproduce]

Checks documents, queries, runs, qrels (both assessors), pool.tsv and the
rubric against each other, prints every violation and exits 1 if there is
any (0 otherwise).  --reproduce also reruns make_runs.py into a temporary
directory and requires the three run files to come out byte-identical (this
needs the bm25s package).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = {"bm25": 100, "dense": 50, "naive": 50}  # tag -> documents per query
POOL_DEPTH = 10
EMPTY_QUERY = "q15"  # judged, but nothing relevant
SECOND_ASSESSOR_QIDS = [f"q{i:02d}" for i in range(1, 7)]
FORBIDDEN = re.compile(r"\b(best|most relevant|better|ideal|perfect)\b", re.I)

errors: list[str] = []


def fail(msg: str) -> None:
    errors.append(msg)


def read_lines(name: str) -> list[str]:
    return [line for line in (HERE / name).read_text(encoding="utf-8").split("\n") if line]


def load_qrels(name: str, docids: set[str], qids: set[str]) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for n, line in enumerate(read_lines(name), 1):
        f = line.split(" ")
        if len(f) != 4 or f[1] != "0" or f[3] not in {"0", "1", "2", "3"}:
            fail(f"{name}:{n}: want 'qid 0 docid grade(0-3)': {line!r}")
            continue
        q, _, d, g = f
        if q not in qids:
            fail(f"{name}:{n}: unknown qid {q}")
        if d not in docids:
            fail(f"{name}:{n}: unknown docid {d}")
        if d in qrels[q]:
            fail(f"{name}:{n}: duplicate judgment {q} {d}")
        qrels[q][d] = int(g)
    return qrels


def main() -> int:
    # documents
    path = HERE / "documents.jsonl"
    if path.stat().st_size >= 150_000:
        fail("documents.jsonl is not under 150 KB")
    docids: list[str] = []
    for n, line in enumerate(read_lines("documents.jsonl"), 1):
        doc = json.loads(line)
        if set(doc) != {"docid", "title", "text"}:
            fail(f"documents.jsonl:{n}: keys {sorted(doc)}")
        words = len(doc["text"].split())
        if not 40 <= words <= 120:
            fail(f"documents.jsonl:{n}: {doc['docid']} has {words} words")
        docids.append(doc["docid"])
    docset = set(docids)
    if len(docset) != len(docids) or len(docids) != 150:
        fail(f"documents.jsonl: {len(docids)} documents, {len(docset)} distinct (want 150)")

    # queries
    tsv = dict(line.split("\t", 1) for line in read_lines("queries.tsv"))
    jsl = [json.loads(line) for line in read_lines("queries.jsonl")]
    want = [f"q{i:02d}" for i in range(1, 16)]
    if list(tsv) != want:
        fail(f"queries.tsv qids {list(tsv)}")
    if [q["qid"] for q in jsl] != want or any(tsv.get(q["qid"]) != q["text"] or not q.get("description") for q in jsl):
        fail("queries.jsonl does not match queries.tsv or lacks descriptions")
    qids = set(tsv)

    # runs
    top: dict[str, dict[str, list[str]]] = {}
    for tag, depth in RUNS.items():
        name = f"runs/{tag}.run"
        per_q: dict[str, list[tuple[str, int, float]]] = defaultdict(list)
        for n, line in enumerate(read_lines(name), 1):
            f = line.split(" ")
            if len(f) != 6 or f[1] != "Q0" or f[5] != tag:
                fail(f"{name}:{n}: want 'qid Q0 docid rank score {tag}': {line!r}")
                continue
            if f[0] not in qids:
                fail(f"{name}:{n}: unknown qid {f[0]}")
            if f[2] not in docset:
                fail(f"{name}:{n}: unknown docid {f[2]}")
            per_q[f[0]].append((f[2], int(f[3]), float(f[4])))
        for q in want:
            rows = per_q.get(q, [])
            if len(rows) != depth:
                fail(f"{name}: {q} has {len(rows)} rows, want {depth}")
            if [r for _, r, _ in rows] != list(range(1, len(rows) + 1)):
                fail(f"{name}: {q} ranks are not 1..N in file order")
            if any(a[2] < b[2] for a, b in itertools.pairwise(rows)):
                fail(f"{name}: {q} scores increase down the list")
            if len({d for d, _, _ in rows}) != len(rows):
                fail(f"{name}: {q} repeats a docid")
        top[tag] = {q: [d for d, _, _ in rows[:POOL_DEPTH]] for q, rows in per_q.items()}

    # pool
    expected: dict[tuple[str, str], list[str]] = defaultdict(list)
    for tag in RUNS:
        for q in want:
            for d in top[tag].get(q, []):
                expected[(q, d)].append(tag)
    pool: dict[tuple[str, str], list[str]] = {}
    for n, line in enumerate(read_lines("pool.tsv"), 1):
        f = line.split("\t")
        if len(f) != 3:
            fail(f"pool.tsv:{n}: want qid<TAB>docid<TAB>runs: {line!r}")
            continue
        pool[(f[0], f[1])] = f[2].split(",")
    if pool != dict(expected):
        fail(f"pool.tsv differs from the depth-{POOL_DEPTH} union of the runs "
             f"({len(pool)} rows, {len(expected)} expected)")

    # qrels, assessor 1
    qrels = load_qrels("qrels.txt", docset, qids)
    judged = {(q, d) for q in qrels for d in qrels[q]}
    if judged - set(pool):
        fail(f"qrels.txt has pairs outside pool.tsv: {sorted(judged - set(pool))[:5]}")
    unjudged = set(pool) - judged
    frac = len(unjudged) / max(len(pool), 1)
    if not unjudged or not 0.05 <= frac <= 0.10 or len({q for q, _ in unjudged}) < 3:
        fail(f"want 5-10% of the pool unjudged over >= 3 queries: {len(unjudged)}/{len(pool)}")
    for q in want:
        grades = list(qrels.get(q, {}).values())
        if grades.count(0) < 3:
            fail(f"qrels.txt: {q} has fewer than 3 grade-0 documents")
        if q == EMPTY_QUERY:
            if not grades or max(grades) != 0:
                fail(f"qrels.txt: {q} must be judged with every grade 0")
        elif max(grades, default=0) < 2:
            fail(f"qrels.txt: {q} has no document graded >= 2")

    # qrels, assessor 2
    qrels2 = load_qrels("qrels.assessor2.txt", docset, qids)
    pairs2 = {(q, d) for q in qrels2 for d in qrels2[q]}
    if sorted(qrels2) != SECOND_ASSESSOR_QIDS:
        fail(f"qrels.assessor2.txt covers {sorted(qrels2)}, want {SECOND_ASSESSOR_QIDS}")
    if pairs2 != {p for p in pool if p[0] in SECOND_ASSESSOR_QIDS}:
        fail("qrels.assessor2.txt does not cover exactly the pooled pairs of its queries")
    both = [(qrels[q][d], qrels2[q][d]) for q, d in pairs2 if d in qrels.get(q, {})]
    agree = sum(a == b for a, b in both) / max(len(both), 1)
    if not 0.70 <= agree <= 0.80:
        fail(f"assessor agreement {agree:.3f} outside 0.70-0.80")

    # rubric
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        tomllib = None
    text = (HERE / "rubric.toml").read_text(encoding="utf-8")
    if tomllib is not None:
        levels = tomllib.loads(text).get("level", [])
        if sorted(level.get("grade") for level in levels) != [0, 1, 2, 3]:
            fail("rubric.toml: want one [[level]] per grade 0..3")
        for lv in levels:
            if not lv.get("label") or not lv.get("description"):
                fail(f"rubric.toml: level {lv.get('grade')} lacks label or description")
            if FORBIDDEN.search(lv.get("label", "") + " " + lv.get("description", "")):
                fail(f"rubric.toml: level {lv.get('grade')} uses a comparative word")

    # reproducibility
    if "--reproduce" in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, str(HERE / "make_runs.py"), "--out", tmp],
                           check=True, stdout=subprocess.DEVNULL)
            for tag in RUNS:
                if (Path(tmp) / f"{tag}.run").read_bytes() != (HERE / "runs" / f"{tag}.run").read_bytes():
                    fail(f"make_runs.py does not reproduce runs/{tag}.run")

    for e in errors:
        print("FAIL", e)
    if not errors:
        print(f"ok: {len(docids)} documents, {len(qids)} queries, {len(pool)} pooled pairs, "
              f"{len(judged)} judged, {len(unjudged)} unjudged ({frac:.1%}), "
              f"assessor agreement {agree:.1%} on {len(both)} pairs")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
