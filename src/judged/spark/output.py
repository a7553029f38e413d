"""Write per-query results as Parquet so that the target holds either the whole new result or what it held before.

Spark writes a Parquet dataset as a folder of part files. It is written
beside the target under a hidden temporary name and renamed into place
through Hadoop's FileSystem API, so the same code serves local paths, HDFS
and object stores; a failed write leaves the target untouched and removes
the temporary folder.
"""

from __future__ import annotations

import uuid
from typing import Any

from pyspark.sql import DataFrame


def write_parquet(frame: DataFrame, path: str) -> None:
    """Write ``frame`` to ``path`` (a Parquet folder), replacing what was there only once the write succeeded.

    >>> import tempfile, pathlib
    >>> from judged.spark import spark_session
    >>> spark = spark_session()
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "values.parquet"
    >>> write_parquet(spark.createDataFrame([("q1", 0.5)], ["qid", "value"]), str(target))
    >>> spark.read.parquet(str(target)).collect()
    [Row(qid='q1', value=0.5)]
    """
    spark = frame.sparkSession
    jvm: Any = spark.sparkContext._jvm
    hadoop = jvm.org.apache.hadoop.fs
    target = hadoop.Path(path)
    fs = target.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    target = fs.makeQualified(target)
    token = uuid.uuid4().hex[:12]
    fresh = hadoop.Path(target.getParent(), f".{target.getName()}.{token}.tmp")
    stale = hadoop.Path(target.getParent(), f".{target.getName()}.{token}.old")
    try:
        frame.write.parquet(fresh.toString())
        replaced = fs.exists(target) and fs.rename(target, stale)
        if not fs.rename(fresh, target):
            if replaced:
                fs.rename(stale, target)
            raise OSError(f"could not move the new results into {path}")
        if replaced:
            fs.delete(stale, True)
    finally:
        if fs.exists(fresh):
            fs.delete(fresh, True)
