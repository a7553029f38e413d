"""Gain and discount as Spark column expressions: the arithmetic of :mod:`judged.measures.gains`, per row.

>>> from judged.measures import Gain
>>> from judged.spark import spark_session
>>> grades = spark_session().range(-1, 4).select(gain_of(Gain("exp"), F.col("id")).alias("gain"))
>>> [row.gain for row in grades.collect()]
[0.0, 0.0, 1.0, 3.0, 7.0]
"""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from judged.measures.spec import Gain


def gain_of(gain: Gain, grade: Column) -> Column:
    """The gain of a judged grade: ``linear`` g, ``exp`` 2^g - 1 (both 0 for g <= 0) or the explicit map.

    A grade the map does not list gains its own value when positive, else 0 (trec_eval's rule).
    """
    positive = F.greatest(grade, F.lit(0)).cast("double")
    if gain.kind == "exp":
        return F.pow(F.lit(2.0), positive) - 1.0
    if gain.kind == "linear":
        return positive
    (first, value), *rest = gain.mapping
    mapped = F.when(grade == first, F.lit(float(value)))
    for listed, value in rest:
        mapped = mapped.when(grade == listed, F.lit(float(value)))
    return mapped.otherwise(positive)


def discount(position: Column) -> Column:
    """``1 / log2(position + 2)`` for a 0-based rank: 1, 0.631, 0.5, 0.431, ..."""
    return 1.0 / F.log2(position + 2)


def ideal_dcg(gains_descending: Column, cutoff: int | None) -> Column:
    """DCG of an array of gains sorted descending, cut at ``cutoff``: negative gains take no place (count 0)."""
    top = gains_descending if cutoff is None else F.slice(gains_descending, 1, cutoff)
    terms = F.transform(top, lambda gain, i: F.greatest(gain, F.lit(0.0)) * discount(i))
    return F.aggregate(terms, F.lit(0.0), lambda total, term: total + term)
