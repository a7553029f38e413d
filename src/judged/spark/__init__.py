"""judged on Apache Spark: Spark distributes whole queries, judged's local engine evaluates them.

``pip install 'judged[spark]'`` (pyspark and a Java runtime; executors need
judged installed too). Per-query values, aggregates, counts and provenance
equal :func:`judged.evaluate`'s exactly; see ``docs/scaling.md`` for how the
evaluation is distributed, how executors get judged and what it costs.

>>> from judged.spark import evaluate, spark_session
>>> spark = spark_session()
>>> run = spark.createDataFrame([("q1", "a", 2.0), ("q1", "b", 1.0)], ["qid", "docid", "score"])
>>> qrels = spark.createDataFrame([("q1", "b", 2)], ["qid", "docid", "grade"])
>>> round(evaluate(run, qrels, ["nDCG@10"]).value("nDCG@10"), 4)
0.6309
"""

try:
    import pyspark  # noqa: F401
except ImportError as err:  # pragma: no cover - depends on the installation
    raise ImportError("judged.spark needs pyspark and Java: pip install 'judged[spark]'") from err

from judged.spark.evaluate import evaluate
from judged.spark.inputs import SparkInput
from judged.spark.readers import read_qrels, read_run
from judged.spark.result import SparkResult
from judged.spark.session import spark_session

__all__ = ["SparkInput", "SparkResult", "evaluate", "read_qrels", "read_run", "spark_session"]
