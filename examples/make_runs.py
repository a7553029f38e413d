"""Generate the three example runs (bm25, dense, naive) for the judged examples.

Reads ``documents.jsonl`` and ``queries.tsv`` next to this file and writes
TREC run files (``qid Q0 docid rank score tag``, single spaces) to ``runs/``:

bm25
    A real BM25 ranker: the ``bm25s`` package (method "lucene", k1=1.5,
    b=0.75), English stopwords removed, no stemming, over ``title + text``.
    100 documents per query.  Documents with a BM25 score of 0 are appended
    after the matching ones (score 0.0000) so that every query has 100 rows.
dense
    A stand-in for a stronger system (no neural model is used): the BM25
    score normalised by the query's top score, plus a hand-made boost for the
    documents the author of this script expected to help each query
    (``BOOST`` below, written before judging and deliberately imperfect),
    plus seeded Gaussian noise.  50 documents per query.
naive
    Plain term overlap: the number of distinct query words (lowercased,
    stopwords kept) that occur in the document.  Integer scores, so there
    are many real ties; tied documents are written in collection order
    (the order of ``documents.jsonl``), which is neither trec_eval's order
    (docno descending) nor docid ascending.  50 documents per query.

Within bm25 and dense, equal printed scores are ordered by docid ascending.
Scores are rounded to 4 decimals *before* ranking, so the printed scores are
non-increasing down each list and rank 1..N follows the printed order.

Deterministic: no global random state, every random draw comes from
``random.Random(f"{SEED}:{qid}")``.  Running ``python3 make_runs.py`` rewrites
the three files byte-identically; ``--out DIR`` writes them elsewhere (used by
``check.py --reproduce``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20240917

DEPTH = {"bm25": 100, "dense": 50, "naive": 50}

# Hand-made prior for the "dense" run: documents the generator's author
# expected to be useful for each query, with a weight in (0, 1].  This is
# not the qrels: it was written from the documents alone, before judging,
# and it includes a few misjudgments on purpose (legacy near-duplicates,
# topical but unhelpful pages).
BOOST: dict[str, dict[str, float]] = {
    "q01": {"auth/api-keys-rotation": 1.0, "cli/keys-commands": 0.9,
            "auth/api-keys-expiry": 0.6, "auth/api-keys-rotation-v1": 0.6,
            "changelog/2024-03": 0.4, "webhooks/secret-rotation": 0.3,
            "deploy/zero-downtime": 0.3},
    "q02": {"api/rate-limits": 1.0, "guides/handling-rate-limits": 0.9,
            "api/rate-limits-faq": 0.7, "api/retries": 0.6,
            "sdk/node/errors": 0.4, "api/v0/rate-limits": 0.5,
            "api/quotas": 0.3},
    "q03": {"api/pagination": 1.0, "api/pagination-sdk-iterators": 0.9,
            "api/pagination-offset-legacy": 0.5,
            "guides/migrating-from-v0-api": 0.4,
            "api/list-filtering-sorting": 0.3},
    "q04": {"webhooks/verifying-signatures": 1.0,
            "webhooks/verifying-signatures-sdk": 0.9,
            "webhooks/signature-troubleshooting": 0.6,
            "webhooks/verifying-signatures-v0": 0.6,
            "guides/slack-deploy-notifications": 0.4,
            "webhooks/ip-ranges": 0.4},
    "q05": {"sdk/python/install-proxy": 1.0,
            "sdk/python/troubleshooting": 0.8,
            "sdk/python/proxy-config": 0.6, "sdk/python/install": 0.5,
            "cli/troubleshooting": 0.3},
    "q06": {"cli/profiles": 1.0, "cli/config-file": 0.9,
            "cli/config-commands": 0.7, "guides/multi-environment-setup": 0.6,
            "cli/credentials": 0.5, "changelog/2024-11": 0.4,
            "deploy/config-as-code": 0.3},
    "q07": {"api/idempotency": 1.0, "api/retries": 0.9,
            "sdk/python/retries": 0.7, "sdk/node/retries": 0.5,
            "sdk/go/retries": 0.5, "api/timeouts": 0.4},
    "q08": {"sdk/node/logging": 1.0, "sdk/node/configuration": 0.7,
            "sdk/node/debugging-requests": 0.7, "sdk/python/logging": 0.4,
            "cli/troubleshooting": 0.3, "guides/observability": 0.3},
    "q09": {"deploy/rollback": 1.0, "cli/rollback-command": 0.9,
            "deploy/deployment-history": 0.5, "deploy/blue-green": 0.5,
            "deploy/canary": 0.4, "deploy/failed-deployments": 0.3},
    "q10": {"billing/data-transfer": 1.0, "billing/unexpected-charges": 0.9,
            "billing/cost-optimization": 0.6, "billing/pricing": 0.5,
            "billing/understanding-invoice": 0.5, "billing/overview": 0.3},
    "q11": {"auth/troubleshooting": 1.0, "auth/project-permissions": 0.8,
            "auth/scopes": 0.7, "auth/ip-allowlists": 0.6,
            "api/error-codes": 0.5, "api/http-status-codes": 0.3},
    "q12": {"auth/oauth-client-credentials": 1.0,
            "auth/service-accounts": 0.6, "auth/access-tokens": 0.6,
            "auth/oauth-authorization-code": 0.5},
    "q13": {"webhooks/endpoint-disabled": 1.0,
            "webhooks/delivery-retries": 0.9,
            "webhooks/redelivering-events": 0.8, "webhooks/ip-ranges": 0.5,
            "cli/webhooks-commands": 0.4,
            "status/incident-2024-08-webhooks": 0.4},
    "q14": {"sdk/environment-variables": 1.0, "cli/ci-usage": 0.9,
            "guides/ci-cd-github-actions": 0.7, "guides/ci-cd-gitlab": 0.5,
            "sdk/python/configuration": 0.4, "deploy/environment-variables": 0.4},
    "q15": {},
}

W_BM25, W_BOOST, NOISE_SD = 0.55, 0.40, 0.09


def load_docs() -> list[dict]:
    with open(HERE / "documents.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_queries() -> list[tuple[str, str]]:
    out = []
    with open(HERE / "queries.tsv", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                qid, text = line.rstrip("\n").split("\t", 1)
                out.append((qid, text))
    return out


def rank(scored: list[tuple[str, float]], depth: int, stable: bool) -> list[tuple[str, float]]:
    """Round to 4 decimals, then sort by score descending.

    ``stable=False`` breaks ties by docid ascending; ``stable=True`` keeps the
    incoming (collection) order within ties.
    """
    rounded = [(d, round(float(s), 4) + 0.0) for d, s in scored]
    if stable:
        rounded.sort(key=lambda x: -x[1])
    else:
        rounded.sort(key=lambda x: (-x[1], x[0]))
    return rounded[:depth]


def bm25_scores(docs, queries) -> dict[str, list[tuple[str, float]]]:
    import bm25s

    corpus = [d["title"] + " " + d["text"] for d in docs]
    tokens = bm25s.tokenize(corpus, stopwords="en", return_ids=False, show_progress=False)
    retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    retriever.index(tokens, show_progress=False)
    out = {}
    for qid, text in queries:
        qtok = bm25s.tokenize([text], stopwords="en", return_ids=False, show_progress=False)[0]
        scores = retriever.get_scores(qtok)
        out[qid] = [(d["docid"], float(s)) for d, s in zip(docs, scores)]
    return out


WORD = re.compile(r"[a-z0-9]+")


def naive_scores(docs, queries) -> dict[str, list[tuple[str, float]]]:
    bags = [set(WORD.findall((d["title"] + " " + d["text"]).lower())) for d in docs]
    out = {}
    for qid, text in queries:
        terms = set(WORD.findall(text.lower()))
        out[qid] = [(d["docid"], float(len(terms & bag))) for d, bag in zip(docs, bags)]
    return out


def dense_scores(bm25: dict[str, list[tuple[str, float]]]) -> dict[str, list[tuple[str, float]]]:
    out = {}
    for qid, scored in bm25.items():
        rng = random.Random(f"{SEED}:{qid}")
        top = max(s for _, s in scored) or 1.0
        boost = BOOST.get(qid, {})
        out[qid] = [
            (d, W_BM25 * s / top + W_BOOST * boost.get(d, 0.0) + rng.gauss(0.0, NOISE_SD))
            for d, s in scored  # collection order, so the draws are reproducible
        ]
    return out


def write_run(path: Path, tag: str, ranked: dict[str, list[tuple[str, float]]]) -> None:
    lines = []
    for qid in sorted(ranked):
        for i, (docid, score) in enumerate(ranked[qid], start=1):
            lines.append(f"{qid} Q0 {docid} {i} {score:.4f} {tag}\n")
    path.write_text("".join(lines), encoding="utf-8", newline="\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "runs", help="output directory (default: runs/)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    docs, queries = load_docs(), load_queries()
    bm25 = bm25_scores(docs, queries)
    runs = {
        "bm25": {q: rank(s, DEPTH["bm25"], stable=False) for q, s in bm25.items()},
        "dense": {q: rank(s, DEPTH["dense"], stable=False) for q, s in dense_scores(bm25).items()},
        "naive": {q: rank(s, DEPTH["naive"], stable=True) for q, s in naive_scores(docs, queries).items()},
    }
    for tag, ranked in runs.items():
        write_run(args.out / f"{tag}.run", tag, ranked)
        print(f"wrote {args.out / (tag + '.run')}")


if __name__ == "__main__":
    main()
