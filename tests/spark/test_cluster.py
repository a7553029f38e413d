"""On a real multi-process cluster: ``local-cluster[2,1,1024]`` starts two executor JVMs, each with its own
Python workers, which import judged as installed (editable here), exactly as a cluster's executors must.

The command line is run in a fresh process (a cluster master cannot join the
tests' own local session) and must print the local engine's numbers, write
the same per-query values and end without an ERROR line in its log.
"""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl

import judged

MEASURES = ["nDCG@10", "AP", "nDCG(ties=input)@5", "P(ties=worst)@5"]


def test_a_local_cluster_gives_the_local_numbers_and_a_clean_log(examples, tmp_path):
    out = tmp_path / "values.parquet"
    runs = [examples / "runs" / "bm25.run", examples / "runs" / "naive.run"]
    measures = [a for m in MEASURES for a in ("-m", m)]
    code = "import sys; from judged.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, "eval", *map(str, runs), "--qrels", str(examples / "qrels.txt"), *measures,
         "--no-judged", "-f", "json", "--engine", "spark", "--master", "local-cluster[2,1,1024]", "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "ERROR" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    results = json.loads(done.stdout)["results"]
    for path, result in zip(runs, results):
        local = judged.evaluate(path, examples / "qrels.txt", MEASURES)
        assert result["aggregate"] == {str(m): v for m, v in local.aggregate.items()}
        assert result["provenance"]["engine"]["master"] == "local-cluster[2,1,1024]"
    written = pl.read_parquet(out / "*.parquet").sort("run", "qid", "measure")
    expected = pl.concat([judged.evaluate(p, examples / "qrels.txt", MEASURES).per_query() for p in runs])
    assert written.equals(expected.sort("run", "qid", "measure"))
