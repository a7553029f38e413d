"""Spark in local mode for the tests of judged.spark: one small, quiet session for the whole test run.

Without pyspark these tests are not collected (the root conftest.py), except under JUDGED_REQUIRE_SPARK=1.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    """A local[2] SparkSession with two shuffle partitions and no UI, shared by every test (and left running for
    the doctests of judged.spark, which reuse it)."""
    from judged.spark import spark_session

    return spark_session("local[2]", conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"})
