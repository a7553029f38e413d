"""Where a Spark input's data lies: a file, a folder or a glob resolved to data files, and their format from content.

A lake names data by folder (``runs/dt=2024-06-01/``) as often as by file,
so a path may be a file, a folder (read recursively, skipping Hadoop's
``_SUCCESS``-style and hidden files, and empty part files) or a glob. Files
are listed through Hadoop's FileSystem API, which serves local paths, HDFS
and object stores alike. Each file's format is decided on its own by the
local engine's rule (:func:`judged.io.detect_format`: the name's suffix, else
Parquet's magic bytes, else TREC text) unless ``format=`` says otherwise, so
a CSV is a CSV on both engines and a Parquet part named without a suffix is
Parquet; one listing holds one format. Folder names of the form
``key=value`` are kept as string columns of the files below them, decoded as
Spark and pyarrow encode them (percent escapes; partition values are never
typed: ``qid=001`` is ``"001"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import unquote

from py4j.protocol import Py4JJavaError
from pyspark.sql import SparkSession

from judged.errors import InputError, UsageError
from judged.io import FORMATS, PARQUET_MAGIC, detect_format


@dataclass(frozen=True)
class DataFile:
    """One data file: its URI, its path as the user would write it, size in bytes and partition values."""

    uri: str
    shown: str
    size: int
    partitions: tuple[tuple[str, str], ...] = ()

    @property
    def local(self) -> str | None:
        """The file's path on a local filesystem (``file:`` URIs), else None: executors then read its bytes.

        Hadoop's paths print unescaped: a folder Spark named ``qid=a%3Ab`` is that name on disk, not ``a:b``.

        >>> DataFile("file:/lake/qid=a%3Ab/part-0", "", 1).local, DataFile("file:///tmp/a b", "", 1).local
        ('/lake/qid=a%3Ab/part-0', '/tmp/a b')
        """
        if not self.uri.startswith("file:"):
            return None
        path = self.uri[len("file:"):]
        return path[2:] if path.startswith("///") else path


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
        raise UsageError(f"format must be one of {'|'.join(FORMATS)}. Got {format!r} instead.")
    jvm: Any = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    pattern = jvm.org.apache.hadoop.fs.Path(path)
    try:
        fs = pattern.getFileSystem(conf)
        matches = fs.globStatus(pattern)
    except Py4JJavaError as error:
        raise _unreachable(path, error) from None
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
    kept = files if single else [f for f in files if f.size > 0]  # a job's empty part holds nothing to read
    if not kept:
        raise InputError("folder holds no data files" if not files else "folder holds only empty files",
                         path=path, expected=f"{', '.join(FORMATS)} files")
    formats = {f.uri: format or detect_format(f.uri, partial(_head, fs, jvm, f.uri)) for f in kept}
    first = kept[0]
    other = next((f for f in kept if formats[f.uri] != formats[first.uri]), None)
    if other is not None:
        raise InputError(f"the folder mixes {formats[first.uri]} ({first.shown}) and {formats[other.uri]} files",
                         path=other.shown, expected="one format in a folder, or format= to name it")
    return Listing(path, tuple(kept), formats[first.uri], single)


#: What Hadoop says when it has no filesystem for a scheme, or its class is not on the classpath.
_NO_FILESYSTEM = ("UnsupportedFileSystemException", "No FileSystem for scheme", "ClassNotFoundException")
#: The Hadoop connector each object store's scheme needs.
_CONNECTORS = {"s3a": "org.apache.hadoop:hadoop-aws", "gs": "com.google.cloud.bigdataoss:gcs-connector",
               "abfs": "org.apache.hadoop:hadoop-azure", "abfss": "org.apache.hadoop:hadoop-azure",
               "wasb": "org.apache.hadoop:hadoop-azure", "wasbs": "org.apache.hadoop:hadoop-azure"}


def _unreachable(path: str, error: Py4JJavaError) -> Exception:
    """A filesystem Spark cannot reach as one line naming what to add; any other Java failure, its first line."""
    text = str(error.java_exception)
    first = text.splitlines()[0] if text else "the JVM failed"
    if not any(marker in text for marker in _NO_FILESYSTEM):
        return InputError(f"cannot list it: {first}", path=path)
    scheme = path.split("://", 1)[0] if "://" in path else "file"
    connector = _CONNECTORS.get(scheme)
    needs = (f"add the {connector} package matching Spark's Hadoop version (spark.jars.packages, or "
             "--packages to spark-submit)" if connector else "add the Hadoop filesystem that serves it to Spark")
    return UsageError(f"Spark cannot reach {scheme}:// paths ({path}): {needs}, or copy the files locally.")


def _data_file(uri: str, shown: str, size: int, relative: str) -> DataFile:
    folders = relative.split("/")[:-1]
    partitions = tuple((unquote(key), unquote(value)) for key, value in (p.split("=", 1) for p in folders if "=" in p))
    return DataFile(uri, shown, size, partitions)


def _shown(path: str, relative: str) -> str:
    """A listed file named as the user named its folder, so messages point where they looked."""
    return f"{path.rstrip('/')}/{relative}" if not any(c in path for c in "*?[{") else relative


def _head(fs, jvm, uri: str) -> bytes:
    """The first bytes of a file, as many as Parquet's magic, read through Hadoop's filesystem."""
    stream = fs.open(jvm.org.apache.hadoop.fs.Path(uri))
    try:
        head = bytearray()
        while len(head) < len(PARQUET_MAGIC):
            byte = stream.read()
            if byte < 0:
                break
            head.append(byte)
    finally:
        stream.close()
    return bytes(head)
