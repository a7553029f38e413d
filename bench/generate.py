"""Generate a deterministic synthetic TREC collection for benchmarking.

Writes two files into ``--out``:

``run.txt``
    ``qid Q0 docid rank score tag``, ``--queries`` x ``--depth`` lines, each
    query's docids distinct, lines in rank order (score descending).  About 5%
    of the documents sit in tie groups of 2-5 equal scores (4-decimal scores); because docids are
    drawn at random, the order inside a tie is random rather than sorted by
    docid, so tools that re-sort ties (trec_eval style) and tools that keep
    file order can disagree - which is exactly what a benchmark should expose.
    Most queries get BM25-like positive scores (Gumbel tail); a fifth get
    logit-like scores around zero, some negative.

``qrels.txt``
    ``qid 0 docid grade`` with grades 0..3 and a sprinkling of -1, about 100
    judgments per query drawn from the top 100 of the run, from deeper ranks
    and from documents the run never retrieved.  About 1% of run queries have
    no judgments, about 1% of judged queries are absent from the run, and a
    handful of judged queries have no relevant document at all.

Query ids mix ``q000123`` with plain numbers such as ``4567`` so that tools
which sort or parse ids numerically are exercised.  Everything is vectorised
with numpy and written in chunks through pyarrow's CSV writer, so the full
10M-line run takes seconds rather than minutes and memory stays bounded by
one chunk.  ``manifest.json`` is written last; its presence marks a complete
collection (the benchmark driver relies on that for caching).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

RUN_TAG = "judgedbench"
NUMERIC_QID_SHARE = 0.2  # share of query ids written as bare numbers
NEURAL_SHARE = 0.2  # share of queries with logit-like (partly negative) scores
TIE_START_P = 0.010  # chance a rank opens a tie group of 2-5 docs (~5% tied)
MISSING_SHARE = 0.01  # run queries without qrels, and qrels queries without run
NO_RELEVANT_SHARE = 0.005  # judged queries whose judgments are all grade 0
NEGATIVE_SHARE = 0.01  # judgments turned into grade -1
POOL_DEPTH = 100  # judgments concentrate on the top of the run
CHUNK_QUERIES = 500  # queries per pyarrow batch when writing the run


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; defaults give the 10M-line benchmark collection."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--corpus", type=int, default=2_000_000, help="number of distinct docids to draw from")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    args = parser.parse_args(argv)
    if not 0 < args.depth <= args.corpus or args.queries <= 0:
        parser.error("need queries > 0 and 0 < depth <= corpus")
    return args


def make_qids(rng: np.random.Generator, n: int) -> pa.Array:
    """Distinct query ids, mostly ``q000123`` with some bare numbers mixed in.

    A bare number ``k`` never collides with ``q%06d`` ids, so ids stay unique.
    """
    numbers = np.arange(n) + 100
    bare = rng.random(n) < NUMERIC_QID_SHARE
    return pa.array([str(k) if b else f"q{k:06d}" for k, b in zip(numbers.tolist(), bare.tolist(), strict=True)])


def docid_strings(ids: np.ndarray) -> pa.Array:
    """Format integer document numbers as ``d0012345`` strings (vectorised)."""
    digits = pc.utf8_lpad(pc.cast(pa.array(ids), pa.string()), 7, "0")
    return pc.binary_join_element_wise("d", digits, "")


def draw_run_docs(rng: np.random.Generator, queries: int, depth: int, corpus: int) -> np.ndarray:
    """Per query, ``depth`` distinct document numbers in random order.

    Generator.choice without replacement uses Floyd's algorithm for a small
    sample of a large population, so one call per query is cheap.
    """
    docs = np.empty((queries, depth), dtype=np.int32)
    for row in docs:
        row[:] = rng.choice(corpus, depth, replace=False)
    return docs


def draw_scores(rng: np.random.Generator, queries: int, depth: int) -> np.ndarray:
    """Descending scores per query with tie groups, rounded to 4 decimals.

    Ties: a rank opens a group with probability TIE_START_P, the group covers
    1-4 following ranks, and every member takes the score of the group's
    first rank (found with a running maximum of "group leader" positions).
    Rounding adds a few chance ties and keeps distinct scores distinct even
    in float32 (pytrec_eval stores scores as float32, so 6-decimal scores
    that differ by 1e-6 would tie there but nowhere else).
    """
    loc = rng.uniform(8.0, 25.0, size=(queries, 1))
    scale = rng.uniform(0.8, 2.5, size=(queries, 1))
    scores = rng.gumbel(size=(queries, depth)) * scale + loc
    neural = rng.random(queries) < NEURAL_SHARE
    scores[neural] = rng.normal(rng.uniform(-2.0, 2.0, size=(neural.sum(), 1)), 1.5, size=(neural.sum(), depth))
    scores = -np.sort(-scores, axis=1)

    starts = rng.random((queries, depth)) < TIE_START_P
    extra = rng.integers(1, 5, size=(queries, depth))
    follows = np.zeros((queries, depth), dtype=bool)
    for k in range(1, 5):
        follows[:, k:] |= starts[:, :-k] & (extra[:, :-k] >= k)
    positions = np.broadcast_to(np.arange(depth), (queries, depth))
    leader = np.maximum.accumulate(np.where(follows, 0, positions), axis=1)
    return np.round(np.take_along_axis(scores, leader, axis=1), 4)


def write_run(path: Path, qids: pa.Array, docs: np.ndarray, scores: np.ndarray) -> None:
    """Write the run in chunks of CHUNK_QUERIES queries through pyarrow's CSV writer."""
    queries, depth = docs.shape
    schema = pa.schema([("qid", pa.string()), ("q0", pa.string()), ("docid", pa.string()),
                        ("rank", pa.int32()), ("score", pa.float64()), ("tag", pa.string())])
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    ranks = np.tile(np.arange(1, depth + 1, dtype=np.int32), CHUNK_QUERIES)
    with pacsv.CSVWriter(path, schema, write_options=options) as writer:
        for lo in range(0, queries, CHUNK_QUERIES):
            hi = min(lo + CHUNK_QUERIES, queries)
            rows = (hi - lo) * depth
            writer.write_batch(pa.record_batch([
                qids.take(pa.array(np.repeat(np.arange(lo, hi), depth))),
                constant("Q0", rows),
                docid_strings(docs[lo:hi].ravel()),
                pa.array(ranks[:rows]),
                pa.array(scores[lo:hi].ravel()),
                constant(RUN_TAG, rows),
            ], schema=schema))


def constant(text: str, rows: int) -> pa.Array:
    """A string column repeating ``text`` (built via a one-entry dictionary)."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int8)), [text]).cast(pa.string())


def pick_judged(rng: np.random.Generator, docs: np.ndarray, corpus: int) -> tuple[np.ndarray, ...]:
    """Choose judged (query row, doc number, relevance probability) triples for run queries.

    About 60 docs from the top POOL_DEPTH ranks (relevance likelier near the
    top), about 10 from deeper ranks and about 30 never retrieved; unretrieved
    candidates that the query did retrieve, or that repeat, are dropped.
    """
    queries, depth = docs.shape
    ranks = np.arange(depth)
    pool = min(POOL_DEPTH, depth)
    take_p = np.where(ranks < pool, 0.6, 10.0 / max(depth - pool, 1))
    rows, cols = np.nonzero(rng.random((queries, depth)) < take_p)
    rel_p = np.where(cols < pool, 0.05 + 0.55 * np.exp(-cols / 25.0), 0.05)

    n_new = 30
    new_rows = np.repeat(np.arange(queries), n_new)
    new_keys = new_rows.astype(np.int64) * corpus + rng.integers(0, corpus, size=new_rows.size)
    retrieved = np.sort(docs, axis=1).astype(np.int64) + np.arange(queries)[:, None].astype(np.int64) * corpus
    flat = retrieved.ravel()
    hit = flat[np.minimum(np.searchsorted(flat, new_keys), flat.size - 1)] == new_keys
    new_keys = np.unique(new_keys[~hit])
    return (np.concatenate([rows, new_keys // corpus]),
            np.concatenate([docs[rows, cols], new_keys % corpus]),
            np.concatenate([rel_p, np.full(new_keys.size, 0.12)]))


def pick_orphans(rng: np.random.Generator, first_row: int, count: int, corpus: int) -> tuple[np.ndarray, ...]:
    """Judgments for ``count`` queries that do not appear in the run (about 100 each)."""
    rows = np.repeat(np.arange(first_row, first_row + count), 100)
    keys = np.unique(rows.astype(np.int64) * corpus + rng.integers(0, corpus, size=rows.size))
    return keys // corpus, keys % corpus, np.full(keys.size, 0.2)


def draw_grades(rng: np.random.Generator, rel_p: np.ndarray) -> np.ndarray:
    """Grades 0..3 (1 most common among relevant) with a few -1 judgments."""
    grades = np.where(rng.random(rel_p.size) < rel_p, rng.choice([1, 2, 3], size=rel_p.size, p=[0.6, 0.3, 0.1]), 0)
    grades[rng.random(rel_p.size) < NEGATIVE_SHARE] = -1
    return grades.astype(np.int8)


def build_qrels(rng: np.random.Generator, docs: np.ndarray, corpus: int) -> tuple[np.ndarray, ...]:
    """Judged (query row, doc number, grade) triples, sorted by query, docs shuffled.

    Row indices >= number of run queries denote qrels-only queries.  Run
    queries dropped from the qrels and queries with no relevant doc are
    chosen here.
    """
    queries = docs.shape[0]
    n_missing = max(1, round(MISSING_SHARE * queries))
    rows, doc_nums, rel_p = (np.concatenate(parts) for parts in zip(
        pick_judged(rng, docs, corpus), pick_orphans(rng, queries, n_missing, corpus), strict=True))
    grades = draw_grades(rng, rel_p)

    no_relevant = rng.random(queries + n_missing) < NO_RELEVANT_SHARE
    grades[no_relevant[rows] & (grades > 0)] = 0
    keep = ~np.isin(rows, rng.choice(queries, n_missing, replace=False))
    rows, doc_nums, grades = rows[keep], doc_nums[keep], grades[keep]
    order = np.lexsort((rng.random(rows.size), rows))
    return rows[order], doc_nums[order], grades[order]


def write_qrels(path: Path, qids: pa.Array, rows: np.ndarray, doc_nums: np.ndarray, grades: np.ndarray) -> None:
    """Write ``qid 0 docid grade`` lines."""
    table = pa.table({
        "qid": qids.take(pa.array(rows)),
        "iter": constant("0", rows.size),
        "docid": docid_strings(doc_nums),
        "grade": pa.array(grades),
    })
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, path, write_options=options)


def generate(queries: int, depth: int, corpus: int, seed: int, out: Path) -> dict:
    """Generate and write the collection; return the manifest that was written."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").unlink(missing_ok=True)

    n_missing = max(1, round(MISSING_SHARE * queries))
    qids = make_qids(rng, queries + n_missing)
    docs = draw_run_docs(rng, queries, depth, corpus)
    scores = draw_scores(rng, queries, depth)
    write_run(out / "run.txt", qids, docs, scores)
    del scores
    rows, doc_nums, grades = build_qrels(rng, docs, corpus)
    write_qrels(out / "qrels.txt", qids, rows, doc_nums, grades)

    manifest = {
        "queries": queries, "depth": depth, "corpus": corpus, "seed": seed,
        "run_lines": queries * depth, "qrels_lines": int(rows.size),
        "qrels_queries": int(np.unique(rows).size),
        "seconds": round(time.perf_counter() - start, 2),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> None:
    """Entry point: generate the collection and print its manifest."""
    args = parse_args(argv)
    print(json.dumps(generate(args.queries, args.depth, args.corpus, args.seed, args.out)))


if __name__ == "__main__":
    main()
