"""What an evaluation returns: per-query values, aggregates, counts and provenance, as plain data.

Rendering (tables, trec_eval text, JSON) lives in :mod:`judged.render`; a
:class:`Result` only holds numbers and the record of how they were made.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from judged.errors import UsageError
from judged.frozen import frozen
from judged.measures.spec import Measure


@dataclass(frozen=True)
class MeasureCounts:
    """How many queries a measure's aggregate rests on, and which were left out and why."""

    scored: int
    skipped_missing: int
    skipped_norel: int
    zero_missing: int
    norel: int


@dataclass(frozen=True, eq=False)
class Result:
    """One run evaluated against one set of judgments.

    ``values[m]`` holds one value per entry of ``qids`` (every judged query),
    NaN where the query is not scored for that measure (missing from the run
    under ``missing=skip``, or without a relevant judgment under
    ``norel=skip``); ``aggregate[m]`` is the mean (the sum for counts) over
    the scored queries. A result is read-only all the way down (:mod:`judged.frozen`): its values are the
    record its provenance describes.

    >>> import judged
    >>> r = judged.evaluate({"q": {"a": 2.0}}, {"q": {"a": 1}}, ["RR"])
    >>> r.values[r.measures[0]][0] = 0.0
    Traceback (most recent call last):
    ValueError: assignment destination is read-only
    """

    run: str
    measures: tuple[Measure, ...]
    qids: tuple[str, ...]
    values: Mapping[Measure, np.ndarray]
    aggregate: Mapping[Measure, float]
    counts: Mapping[Measure, MeasureCounts]
    provenance: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("measures", "qids", "values", "aggregate", "counts", "provenance"):
            object.__setattr__(self, name, frozen(getattr(self, name)))

    def value(self, measure: Measure | str, qid: str | None = None) -> float:
        """The aggregate of ``measure``, or its value for one ``qid``.

        >>> import judged
        >>> r = judged.evaluate({"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 1}}, ["RR"])
        >>> r.value("RR"), r.value("RR", "q")
        (0.5, 0.5)
        """
        measure = self._measure(measure)
        if qid is None:
            return self.aggregate[measure]
        if qid not in self.qids:
            raise UsageError(f"qid {qid!r} is not one of the {len(self.qids)} judged queries of run {self.run!r}.")
        return float(self.values[measure][self.qids.index(qid)])

    def _measure(self, measure: Measure | str) -> Measure:
        if isinstance(measure, Measure):
            return measure
        from judged.measures import parse

        return parse(measure)

    def per_query(self) -> pl.DataFrame:
        """Long table ``run, qid, measure, value`` of every scored (query, measure) pair."""
        frames = []
        for m in self.measures:
            values = self.values[m]
            keep = ~np.isnan(values)
            frames.append(
                pl.DataFrame(
                    {
                        "run": self.run,
                        "qid": np.asarray(self.qids, dtype=object)[keep].tolist(),
                        "measure": str(m),
                        "value": values[keep],
                    },
                    schema={"run": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64},
                )
            )
        return pl.concat(frames)

    def to_pandas(self):
        """:meth:`per_query` as a pandas DataFrame (needs pandas and pyarrow)."""
        return self.per_query().to_pandas()

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td><code>{m}</code></td><td>{_fmt(self.aggregate[m], m)}</td>"
            f"<td>{self.counts[m].scored}</td></tr>"
            for m in self.measures
        )
        return (
            f"<table><caption>{self.run}</caption><tr><th>measure</th><th>value</th>"
            f"<th>queries</th></tr>{rows}</table>"
        )


def _fmt(value: float, measure: Measure) -> str:
    if math.isnan(value):
        return "n/a"
    return str(int(value)) if measure.family.integer else f"{value:.4f}"
