"""What Spark cannot do here is one line naming what to install: a filesystem without its Hadoop connector, or
no Java at all (instead of the JVM's stack trace or the launcher's traceback)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.errors import UsageError
from judged.spark import read_run
from judged.spark.session import check_java


def test_an_object_store_without_its_connector_names_the_package(spark):
    with pytest.raises(UsageError, match=r"^Spark cannot reach s3a:// paths \(s3a://bucket/runs/\): add the "
                                         r"org\.apache\.hadoop:hadoop-aws package"):
        read_run(spark, "s3a://bucket/runs/")


def test_a_scheme_no_filesystem_serves_is_one_line(spark, examples):
    result = CliRunner().invoke(main, ["eval", "nosuchfs://bucket/run", "--qrels", str(examples / "qrels.txt"),
                                       "--engine", "spark", "--master", "local[2]"])
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if not _pyspark_warning(line)]
    assert errors == [
        "Error: Spark cannot reach nosuchfs:// paths (nosuchfs://bucket/run): add the Hadoop filesystem that "
        "serves it to Spark, or copy the files locally."]


def _pyspark_warning(line: str) -> bool:
    """pyspark's own warning about the installed pandas (not judged's output, and not in every install)."""
    return "FutureWarning: PySpark does not yet fully support pandas" in line or "require_minimum_pandas" in line


def test_no_java_is_one_line_naming_what_to_install(examples, tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    with pytest.raises(UsageError, match=r"holds no bin/java\); install a JRE"):
        check_java()
    env = {**os.environ, "JAVA_HOME": str(tmp_path / "no-jdk")}
    done = subprocess.run([sys.executable, "-c", "from judged.cli import main; main()", "eval",
                           str(examples / "runs" / "bm25.run"), "--qrels", str(examples / "qrels.txt"),
                           "--engine", "spark"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2
    assert [line for line in done.stderr.splitlines() if not _pyspark_warning(line)] == [
        f"Error: the Spark engine needs Java 17 or later (JAVA_HOME={tmp_path / 'no-jdk'} holds no bin/java); "
        "install a JRE (Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME, or evaluate with the "
        "local engine."]
