"""Time judged.spark.evaluate on a local Spark master against the local engine, at 1M, 3M and 10M run lines.

For each collection (``bench/generate.py``: N queries x 1,000 documents,
cached in ``bench/data``), three ways to get nDCG@10, AP, RR, P@10 and
R@100 per query from the run and qrels files on disk:

* ``local``: ``judged.evaluate`` in this process (the local engine);
* ``spark``: ``judged.spark.evaluate`` (Spark SQL and window functions; the
  per-query table computed and cached, aggregates on the driver), then the
  per-query values written as Parquet;
* ``arrow``: the alternative the design considered: Spark reads and shuffles
  the rows into hash buckets of queries, and a grouped Arrow UDF
  (``applyInArrow``) runs the local engine on each bucket in a Python worker.

The Spark session is started once (its start-up is reported apart); sizes run
smallest first, the smallest after an untimed warm-up run (JIT compilation),
so the largest runs only ``--repeat`` times. Every timing starts from the
files (Spark caches nothing between runs) and is the median of ``--repeat``
runs. Per-query values of both Spark variants are checked against the local
engine's (max |difference|).

Example: ``python3 bench/spark_bench.py --queries 1000,3000 --repeat 1``
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH), str(BENCH.parent / "src")]

from run_bench import cpu_model, ensure_collection

MEASURES = ("nDCG@10", "AP", "RR", "P@10", "R@100")
VARIANTS = ("local", "spark", "arrow")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", default="1000,3000,10000",
                        help="comma-separated query counts; x --depth documents each (default 1M, 3M, 10M lines)")
    parser.add_argument("--depth", type=int, default=1_000, help="documents per query")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data", help="cache of generated collections")
    parser.add_argument("--master", default="local[2]", help="Spark master")
    parser.add_argument("--driver-memory", default="4g", help="spark.driver.memory (the whole JVM in local mode)")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per variant after one warm-up (median)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated subset of {','.join(VARIANTS)}")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    args.queries = [int(q) for q in args.queries.split(",")]
    args.variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = set(args.variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    return args


def timed(action, repeat: int, warm_up: bool):
    """(median seconds over ``repeat`` runs, after an untimed run when ``warm_up``; the last run's return value)."""
    value = action() if warm_up else None
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = action()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), value


def local_values(run: Path, qrels: Path, repeat: int, warm_up: bool):
    """Seconds for the local engine and its per-query values {(qid, measure): value}."""
    import judged

    seconds, result = timed(lambda: judged.evaluate(str(run), str(qrels), MEASURES), repeat, warm_up)
    values = {(row["qid"], row["measure"]): row["value"] for row in result.per_query().iter_rows(named=True)}
    return seconds, values


def spark_values(spark, run: Path, qrels: Path, repeat: int, warm_up: bool, workdir: Path):
    """Seconds to evaluate on Spark, seconds to write the per-query Parquet, and the per-query values."""
    from judged.spark import evaluate, read_qrels, read_run
    from judged.spark.files import write_per_query

    cached = []

    def once():
        while cached:  # an identical plan would otherwise be answered from the previous run's cache
            cached.pop().unpersist()
        cached.append(evaluate(read_run(spark, str(run)), read_qrels(spark, str(qrels)), MEASURES))
        return cached[-1]

    seconds, result = timed(once, repeat, warm_up)
    start = time.perf_counter()
    write_per_query([result], str(workdir / "values.parquet"))  # from the cached per-query table, as the CLI does
    write = time.perf_counter() - start
    values = {(row.qid, row.measure): row.value for row in result.frame.collect()}
    result.unpersist()
    return seconds, write, values


def arrow_values(spark, run: Path, qrels: Path, repeat: int, warm_up: bool, buckets: int):
    """Seconds for the grouped-Arrow-UDF variant and its per-query values."""
    from pyspark.sql import functions as F

    from judged.spark import read_qrels, read_run

    def once():
        runs = read_run(spark, str(run)).frame.select(
            "qid", "docid", "score", "order", F.lit(None).cast("long").alias("grade"), F.lit(True).alias("is_run"))
        judgments = read_qrels(spark, str(qrels)).frame.select(
            "qid", "docid", F.lit(None).cast("double").alias("score"), F.lit(None).cast("long").alias("order"),
            "grade", F.lit(False).alias("is_run"))
        rows = runs.unionByName(judgments).withColumn("bucket", F.abs(F.hash("qid")) % buckets)
        out = rows.groupBy("bucket").applyInArrow(local_engine_on_bucket, "qid string, measure string, value double")
        return out.collect()

    seconds, rows = timed(once, repeat, warm_up)
    return seconds, {(row.qid, row.measure): row.value for row in rows}


def local_engine_on_bucket(table):
    """The local engine on one bucket of queries (run rows in input order), as the Arrow UDF runs it."""
    import polars as pl
    import pyarrow as pa

    import judged
    from judged.errors import NoJudgedQueriesError

    frame = pl.from_arrow(table)
    run = frame.filter(pl.col("is_run")).sort("order").select("qid", "docid", "score")
    qrels = frame.filter(~pl.col("is_run")).select("qid", "docid", "grade")
    schema = pa.schema([("qid", pa.string()), ("measure", pa.string()), ("value", pa.float64())])
    try:
        result = judged.evaluate(judged.Run.from_frame(run, "run"), judged.Qrels.from_frame(qrels), MEASURES)
    except NoJudgedQueriesError:
        return schema.empty_table()
    return result.per_query().select("qid", "measure", "value").to_arrow().cast(schema)


def max_difference(values: dict, reference: dict) -> str:
    """Largest |difference| over the (query, measure) pairs, or why the sets differ."""
    if values.keys() != reference.keys():
        return f"{len(values.keys() ^ reference.keys())} pairs differ"
    return f"{max((abs(values[k] - v) for k, v in reference.items()), default=0.0):.1e}"


def start_spark(master: str, memory: str):
    """The session and its start-up seconds."""
    from judged.spark import spark_session

    source = str(BENCH.parent / "src")  # the Arrow variant's Python workers import judged from here too
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))
    start = time.perf_counter()
    spark = spark_session(master, app_name="judged-spark-bench", conf={"spark.driver.memory": memory})
    spark.range(1).count()
    return spark, time.perf_counter() - start


def measure_size(args, spark, queries: int, warm_up: bool) -> dict[str, str]:
    """One table row: the timings of every variant on the collection of ``queries`` queries."""
    collection = ensure_collection(args.data_dir, queries, args.depth, args.seed)
    run, qrels = collection / "run.txt", collection / "qrels.txt"
    lines = queries * args.depth
    print(f"{lines:,} lines ...", file=sys.stderr)
    row = {"lines": f"{lines / 1e6:g}M"}
    reference = None
    if "local" in args.variants:
        local_s, reference = local_values(run, qrels, args.repeat, warm_up)
        row |= {"local s": f"{local_s:.2f}", "local s per M lines": f"{local_s / (lines / 1e6):.2f}"}
    if "spark" in args.variants:
        with tempfile.TemporaryDirectory(prefix="judged-spark-bench-") as tmp:
            spark_s, write_s, values = spark_values(spark, run, qrels, args.repeat, warm_up, Path(tmp))
        row |= {"spark s": f"{spark_s:.1f}", "s per M lines": f"{spark_s / (lines / 1e6):.1f}",
                "Parquet write s": f"{write_s:.1f}"}
        if reference is not None:
            row |= {"spark / local": f"{spark_s / local_s:.0f}x", "spark max diff": max_difference(values, reference)}
    if "arrow" in args.variants:
        buckets = 4 * spark.sparkContext.defaultParallelism
        arrow_s, values = arrow_values(spark, run, qrels, args.repeat, warm_up, buckets)
        row["arrow UDF s"] = f"{arrow_s:.1f}"
        if reference is not None:
            row["arrow max diff"] = max_difference(values, reference)
    return row


def format_table(rows: list[dict], markdown: bool) -> str:
    """Aligned plain text, or a Markdown table."""
    header = list(dict.fromkeys(key for row in rows for key in row))
    cells = [[row.get(key, "-") for key in header] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])
    widths = [max(len(r[i]) for r in [header, *cells]) for i in range(len(header))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in [header, *cells])


def main(argv: list[str] | None = None) -> None:
    """Start Spark, time every variant at every size, print the machine, the settings and the table."""
    args = parse_args(argv)
    spark, startup = start_spark(args.master, args.driver_memory)
    sizes = sorted(args.queries)
    rows = [measure_size(args, spark, queries, warm_up=i == 0) for i, queries in enumerate(sizes)]
    prefix = "- " if args.markdown else ""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    print(f"{prefix}machine: {cpu_model()}, {os.cpu_count()} CPUs, load average {load:.1f} at the end, "
          f"Python {platform.python_version()}, Spark {spark.version} on {args.master}, "
          f"driver memory {args.driver_memory}, {spark.conf.get('spark.sql.shuffle.partitions')} shuffle partitions")
    print(f"{prefix}Spark session start-up: {startup:.1f} s (once per process, not in the table); median of "
          f"{args.repeat} run(s), an untimed warm-up run on the smallest size only; measures {', '.join(MEASURES)}\n")
    print(format_table(rows, args.markdown))


if __name__ == "__main__":
    main()
