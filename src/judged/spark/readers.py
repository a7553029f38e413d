"""Read run and judgment files, folders and globs with Spark: each data file by the local reader, in a worker.

``read_run`` and ``read_qrels`` resolve the path (:mod:`judged.spark.sources`)
and plan one task per file that hands it to judged's local reader
(:mod:`judged.spark.reading`); nothing is read until the evaluation runs.
A TREC run is named by the tag on the last line of its last file, as
trec_eval names it, else by its file or folder name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import PurePosixPath

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from judged.spark.buckets import BUCKET_BYTES
from judged.spark.inputs import SparkInput
from judged.spark.reading import ROWS, file_reader
from judged.spark.sources import list_files

GZIP_GROWTH = 6  # a gzip file's text is about this many times its size, for sizing buckets


def read_run(spark: SparkSession, path: str, *, format: str | None = None, name: str | None = None,
             columns: Mapping[str, str] | None = None) -> SparkInput:
    """A TREC or Parquet run (a file, folder or glob) for :func:`judged.spark.evaluate`.

    >>> from judged.spark import spark_session
    >>> run = read_run(spark_session(), "examples/runs/bm25.run")
    >>> run.frame.where("qid = 'q01'").count(), run.default_name, run.format
    (100, 'bm25.run', 'trec')
    """
    return _read(spark, str(path), "run", format, name, columns)


def read_qrels(spark: SparkSession, path: str, *, format: str | None = None, name: str | None = None,
               columns: Mapping[str, str] | None = None) -> SparkInput:
    """TREC or Parquet judgments (a file, folder or glob); exact repeats collapse, conflicting grades are an error.

    >>> from judged.spark import spark_session
    >>> qrels = read_qrels(spark_session(), "examples/qrels.txt")
    >>> sorted(r.grade for r in qrels.frame.where("qid = 'q01'").select("grade").distinct().collect())
    [0, 1, 2, 3]
    """
    return _read(spark, str(path), "qrels", format, name, columns)


def reading_tasks(sizes: list[int], parallelism: int) -> int:
    """Tasks to read files of these sizes: one per file up to one per core or per :data:`BUCKET_BYTES` of data,
    so a folder of many small part files is not one Python task each.

    >>> reading_tasks([10] * 100, 2), reading_tasks([1 << 30], 8), reading_tasks([1 << 30] * 3, 2)
    (2, 1, 3)
    """
    return max(1, min(len(sizes), max(parallelism, math.ceil(sum(sizes) / BUCKET_BYTES))))


def _read(spark: SparkSession, path: str, kind: str, format: str | None, name: str | None, columns) -> SparkInput:
    listing = list_files(spark, path, format)
    files = listing.files
    local = [i for i, f in enumerate(files) if f.local is not None]
    remote = [i for i, f in enumerate(files) if f.local is None]
    parts = []
    if local:
        tasks = reading_tasks([files[i].size for i in local], spark.sparkContext.defaultParallelism)
        indices = spark.sparkContext.parallelize([(i, None) for i in local], tasks)
        parts.append(spark.createDataFrame(indices, "index long, content binary"))
    if remote:
        index = F.array_position(F.array(*(F.lit(files[i].uri) for i in remote)), F.col("path")) - 1
        mapped = F.element_at(F.array(*(F.lit(i) for i in remote)), index + 1)
        parts.append(spark.read.format("binaryFile").load([files[i].uri for i in remote])
                     .select(mapped.cast("long").alias("index"), "content"))
    listed = parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1])
    frame = listed.mapInArrow(file_reader(kind, files, listing.format, columns), ROWS)
    size = sum(f.size * (GZIP_GROWTH if f.uri.endswith(".gz") else 1) for f in files)
    stem = PurePosixPath(path.rstrip("/"))
    default = stem.name if listing.format == "trec" or not listing.single else stem.stem
    return SparkInput(kind, frame, name, default, path=path, format=listing.format,
                      value="score" if kind == "run" else "grade", checked=True, ordered=True, size=size,
                      single=listing.single, files=tuple(f.shown for f in files))
