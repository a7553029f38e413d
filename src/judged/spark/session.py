"""The SparkSession judged starts for the command line, the benchmark and the tests.

Spark is configured for a batch job, not for exploration: the web UI and the
progress bar are off, the shuffle is sized to a local master (a handful of
partitions, where Spark's default of 200 tiny tasks costs more than it
saves; a cluster keeps its own setting) and the JVM's console log keeps to
errors. Partition folders keep their values as strings (``qid=001`` is
``"001"``, not 1), as ids must. An existing session is reused, as ``getOrCreate`` does; its static
settings then stay as they were.
"""

from __future__ import annotations

import os
import re
import shutil

from pyspark.sql import SparkSession

from judged.errors import UsageError


def spark_session(master: str = "local[2]", *, app_name: str = "judged",
                  conf: dict[str, str] | None = None) -> SparkSession:
    """A SparkSession on ``master`` (``local[N]``, ``spark://host:port``, ``yarn``...) set up for judged's jobs.

    >>> spark = spark_session("local[2]")
    >>> spark.conf.get("spark.ui.enabled")
    'false'
    """
    if SparkSession.getActiveSession() is None:
        check_java()
    builder = SparkSession.builder.master(master).appName(app_name).config("spark.ui.enabled", "false")
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    builder = builder.config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    partitions = shuffle_partitions(master)
    if partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(partitions))
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def java() -> str | None:
    """The ``java`` Spark's launcher would start: ``$JAVA_HOME/bin/java`` when JAVA_HOME is set, else the
    PATH's (its own rule), or None."""
    home = os.environ.get("JAVA_HOME")
    if home:
        found = os.path.join(home, "bin", "java")
        return found if os.access(found, os.X_OK) else None
    return shutil.which("java")


def check_java() -> None:
    """Raise a one-line :class:`UsageError` naming what to install when there is no Java to start Spark with
    (instead of the launcher's traceback after the JVM failed to start)."""
    if java() is not None:
        return
    home = os.environ.get("JAVA_HOME")
    where = f"JAVA_HOME={home} holds no bin/java" if home else "no java on PATH and JAVA_HOME is not set"
    raise UsageError(f"the Spark engine needs Java 17 or later ({where}); install a JRE (Debian: apt-get "
                     "install openjdk-17-jre-headless) or set JAVA_HOME, or evaluate with the local engine.")


def shuffle_partitions(master: str) -> int | None:
    """Shuffle partitions for a local ``master``: four per core (at least four); None (the cluster's own
    setting) elsewhere.

    >>> shuffle_partitions("local[2]"), shuffle_partitions("local"), shuffle_partitions("spark://h:7077")
    (8, 4, None)
    """
    match = re.fullmatch(r"local(?:\[(\d+|\*)(?:,\d+)?\])?", master)
    if match is None:
        return None
    cores = match.group(1)
    if cores is None:
        count = 1
    elif cores == "*":
        count = os.cpu_count() or 1
    else:
        count = int(cores)
    return max(4, 4 * count)
