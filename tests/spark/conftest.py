"""Spark in local mode for the tests of judged.spark: one small, quiet session for the whole test run.

Without pyspark these tests are skipped, except under CI, where they must run.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

if importlib.util.find_spec("pyspark") is None and not os.environ.get("CI"):
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def spark():
    """A local[2] SparkSession with two shuffle partitions and no UI, shared by every test (and left running for
    the doctests of judged.spark, which reuse it)."""
    from judged.spark import spark_session

    return spark_session("local[2]", conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"})
