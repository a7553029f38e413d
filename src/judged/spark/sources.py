"""Where a Spark input's data lies: a file, a folder or a glob resolved to data files, and their format from content.

A lake names data by folder (``runs/dt=2024-06-01/``) as often as by file,
so a path may be a file, a folder (read recursively, skipping Hadoop's
``_SUCCESS``-style and hidden files) or a glob. Files are listed through
Hadoop's FileSystem API, which serves local paths, HDFS and object stores
alike. The format comes from the first bytes (``PAR1`` is Parquet, anything
else is TREC text, gzip or not) unless ``format=`` says otherwise, because a
Parquet part file is often named without a suffix. Folder names of the form
``key=value`` are kept as string columns of the files below them (partition
values are never typed: ``qid=001`` is ``"001"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

from pyspark.sql import SparkSession

from judged.errors import InputError, UsageError

FORMATS = ("trec", "parquet")
PARQUET_MAGIC = b"PAR1"


@dataclass(frozen=True)
class DataFile:
    """One data file: its URI, its path as the user would write it, size in bytes and partition values."""

    uri: str
    shown: str
    size: int
    partitions: tuple[tuple[str, str], ...] = ()

    @property
    def local(self) -> str | None:
        """The file's path on a local filesystem (``file:`` URIs), else None: executors then read its bytes."""
        parsed = urlparse(self.uri)
        return unquote(parsed.path) if parsed.scheme == "file" else None


@dataclass(frozen=True)
class Listing:
    """A path resolved to its data files (in name order), their format and whether it named one file."""

    path: str
    files: tuple[DataFile, ...]
    format: str
    single: bool

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)


def list_files(spark: SparkSession, path: str, format: str | None = None) -> Listing:
    """The data files under ``path`` (a file, folder or glob) and their format.

    >>> from judged.spark import spark_session
    >>> listing = list_files(spark_session(), "examples/runs/bm25.run")
    >>> listing.format, listing.single, [f.shown for f in listing.files]
    ('trec', True, ['examples/runs/bm25.run'])
    """
    if format is not None and format not in FORMATS:
        raise UsageError(
            f"the Spark engine reads {' and '.join(FORMATS)} files. Got {format!r} for {path}; "
            "convert it to Parquet or use the local engine."
        )
    jvm: Any = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    pattern = jvm.org.apache.hadoop.fs.Path(path)
    fs = pattern.getFileSystem(conf)
    matches = fs.globStatus(pattern)
    if not matches:
        raise InputError("no such file", path=path)
    single = len(matches) == 1 and matches[0].isFile()
    files = []
    for match in matches:
        root = match.getPath()
        if match.isFile():
            files.append(_data_file(root.toString(), path if single else root.toString(), match.getLen(), ""))
            continue
        listed = fs.listFiles(root, True)
        prefix = root.toString().rstrip("/") + "/"
        while listed.hasNext():
            status = listed.next()
            uri = status.getPath().toString()
            relative = uri[len(prefix):] if uri.startswith(prefix) else status.getPath().getName()
            if not any(part.startswith(("_", ".")) for part in relative.split("/")):
                files.append(_data_file(uri, _shown(path, relative), status.getLen(), relative))
    files.sort(key=lambda f: f.uri)
    if not files:
        raise InputError("folder holds no data files", path=path, expected="TREC or Parquet files")
    return Listing(path, tuple(files), format or _sniff(fs, jvm, files[0].uri), single)


def _data_file(uri: str, shown: str, size: int, relative: str) -> DataFile:
    folders = relative.split("/")[:-1]
    partitions = tuple((key, value) for key, value in (unquote(p).split("=", 1) for p in folders if "=" in p))
    return DataFile(uri, shown, size, partitions)


def _shown(path: str, relative: str) -> str:
    """A listed file named as the user named its folder, so messages point where they looked."""
    return f"{path.rstrip('/')}/{relative}" if not any(c in path for c in "*?[{") else relative


def _sniff(fs, jvm, uri: str) -> str:
    """``parquet`` when the file starts with Parquet's magic bytes, else ``trec``."""
    stream = fs.open(jvm.org.apache.hadoop.fs.Path(uri))
    try:
        head = bytearray()
        while len(head) < 4:
            byte = stream.read()
            if byte < 0:
                break
            head.append(byte)
    finally:
        stream.close()
    return "parquet" if bytes(head) == PARQUET_MAGIC else "trec"
