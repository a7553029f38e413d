"""Time judged.spark.evaluate on a Spark master against the local engine, at 1M, 3M and 10M run lines.

For each collection (``bench/generate.py``: N queries x 1,000 documents,
cached in ``bench/data``), two ways to get nDCG@10, AP, RR, P@10 and R@100
per query from the run and qrels files on disk:

* ``local``: ``judged.evaluate`` in this process (the local engine);
* ``spark``: ``judged.spark.evaluate``: each file read in a worker by the
  local reader, rows shuffled into buckets of whole queries, each bucket
  evaluated by the local engine in a Python worker, per-query values
  collected and aggregated on the driver; then the per-query values written
  as Parquet. ``--battery`` adds a run of ``nDCG@1..90`` (many measures
  over one ranking).

The Spark session is started once (its start-up is reported apart; on
``local-cluster[...]`` it includes starting the executors); sizes run
smallest first, the smallest after an untimed warm-up run, so the largest
runs only ``--repeat`` times. Every timing starts from the files and is the
median of ``--repeat`` runs. Spark's per-query values and aggregates are
compared with the local engine's for exact equality.

Example: ``python3 bench/spark_bench.py --queries 1000,3000 --master 'local-cluster[2,1,4096]'``
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

from run_bench import cpu_model, ensure_collection  # noqa: E402  (bench/ is put on the path just above)

MEASURES = ("nDCG@10", "AP", "RR", "P@10", "R@100")
VARIANTS = ("local", "spark")
BATTERY = tuple(f"nDCG@{k}" for k in range(1, 91))


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
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated subset of {','.join(VARIANTS)}")
    parser.add_argument("--executor-memory", default="4g", help="spark.executor.memory (cluster masters)")
    parser.add_argument("--battery", action="store_true", help="also time nDCG@1..90 on Spark")
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
    """Seconds for the local engine and its Result."""
    import judged

    return timed(lambda: judged.evaluate(str(run), str(qrels), MEASURES), repeat, warm_up)


def spark_values(spark, run: Path, qrels: Path, measures, repeat: int, warm_up: bool, workdir: Path | None):
    """Seconds to evaluate on Spark, seconds to write the per-query Parquet (None without ``workdir``), the result."""
    from judged.spark import evaluate, read_qrels, read_run
    from judged.spark.files import write_per_query

    seconds, result = timed(lambda: evaluate(read_run(spark, str(run)), read_qrels(spark, str(qrels)), measures),
                            repeat, warm_up)
    if workdir is None:
        return seconds, None, result
    start = time.perf_counter()
    write_per_query([result], str(workdir / "values.parquet"))
    return seconds, time.perf_counter() - start, result


def equal(result, reference) -> str:
    """``yes`` when per-query values (bit for bit, NaN where NaN) and aggregates equal the local engine's."""
    same_values = result.local.qids == reference.qids and all(
        result.local.values[k].tobytes() == reference.values[k].tobytes() for k in reference.measures)
    same_means = all(result.aggregate[k] == v or (math.isnan(v) and math.isnan(result.aggregate[k]))
                     for k, v in reference.aggregate.items())
    return "yes" if same_values and same_means else "NO"


def start_spark(master: str, memory: str, executor_memory: str):
    """The session and its start-up seconds."""
    from judged.spark import spark_session

    source = str(BENCH.parent / "src")  # the Python workers import judged from here when it is not installed
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))
    start = time.perf_counter()
    spark = spark_session(master, app_name="judged-spark-bench",
                          conf={"spark.driver.memory": memory, "spark.executor.memory": executor_memory})
    spark.range(4, numPartitions=4).count()
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
            spark_s, write_s, result = spark_values(spark, run, qrels, MEASURES, args.repeat, warm_up, Path(tmp))
        row |= {"spark s": f"{spark_s:.1f}", "spark s per M lines": f"{spark_s / (lines / 1e6):.1f}",
                "Parquet write s": f"{write_s:.1f}"}
        if reference is not None:
            row |= {"spark / local": f"{spark_s / local_s:.1f}x", "equal to local": equal(result, reference)}
        if args.battery:
            battery_s, _, _ = spark_values(spark, run, qrels, BATTERY, args.repeat, False, None)
            row["nDCG@1..90 s"] = f"{battery_s:.1f}"
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
    spark, startup = start_spark(args.master, args.driver_memory, args.executor_memory)
    sizes = sorted(args.queries)
    rows = [measure_size(args, spark, queries, warm_up=i == 0) for i, queries in enumerate(sizes)]
    prefix = "- " if args.markdown else ""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    print(f"{prefix}machine: {cpu_model()}, {os.cpu_count()} CPUs, load average {load:.1f} at the end, "
          f"Python {platform.python_version()}, Spark {spark.version} on {args.master}, "
          f"driver memory {args.driver_memory}, executor memory {args.executor_memory}, "
          f"{spark.sparkContext.defaultParallelism} cores")
    print(f"{prefix}Spark session start-up: {startup:.1f} s (once per process, not in the table); median of "
          f"{args.repeat} run(s), an untimed warm-up run on the smallest size only; measures {', '.join(MEASURES)}\n")
    print(format_table(rows, args.markdown))
    spark.stop()


if __name__ == "__main__":
    main()
