"""ir_measures' ``util`` converters: one qrels or run, handed out as a dict of dicts, namedtuples or a frame.

The shape is told from the value (a dict, a frame with ``itertuples``, an
iterable of namedtuples) and an unknown one is a ValueError naming what is
accepted, as ir_measures words it.

>>> RunConverter([ScoredDoc("1", "A", 1.2), ScoredDoc("1", "B", 0.9)]).as_dict_of_dict()
{'1': {'A': 1.2, 'B': 0.9}}
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pandas as pd

from judged.ir_measures.parse import parse_measure, parse_trec_measure
from judged.ir_measures.records import (
    CalcResults,
    GenericDoc,
    Metric,
    Qrel,
    ScoredDoc,
    read_trec_qrels,
    read_trec_run,
)

__all__ = ["CalcResults", "GenericDoc", "Metric", "Qrel", "QrelsConverter", "RunConverter", "ScoredDoc",
           "parse_measure", "parse_trec_measure", "read_trec_qrels", "read_trec_run"]


class _Converter:
    """One input of ``RECORD`` rows in whichever shape it came."""

    RECORD: Any = Qrel
    KIND = "qrels"

    def __init__(self, source: Any, strict: bool = True) -> None:
        self.source = source
        self.strict = strict
        self._shape: tuple[str, str | None] | None = None

    def _required(self) -> tuple[str, ...]:
        return tuple(f for f in self.RECORD._fields if f not in self.RECORD._field_defaults)

    def predict_type(self) -> tuple[str, str | None]:
        """The shape (``dict_of_dict``, ``pd_dataframe``, ``namedtuple_iter`` or ``UNKNOWN``) and why not known."""
        if self._shape is None:
            self._shape = self._predict()
        return self._shape

    def _predict(self) -> tuple[str, str | None]:
        if isinstance(self.source, dict):
            return "dict_of_dict", None
        if hasattr(self.source, "itertuples"):
            found = list(self.source.columns)
            missing = [f for f in self._required() if f not in found]
            if missing and self.strict:
                return "UNKNOWN", f"DataFrame missing columns: {missing} (found {found})"
            return "pd_dataframe", None
        if hasattr(self.source, "__iter__"):
            self.source, peek = itertools.tee(self.source, 2)
            first = next(peek, None)
            if first is None:
                return "namedtuple_iter", None
            if isinstance(first, tuple) and hasattr(first, "_fields"):
                missing = [f for f in self._required() if f not in first._fields]
                if missing:
                    return "UNKNOWN", f"namedtuple iter missing fields: {missing} (found {list(first._fields)})"
                return "namedtuple_iter", None
            return "UNKNOWN", "iterable not a namedtuple iterator"
        fields = self._required()
        return "UNKNOWN", (f"unexpected format; please provide either: (1) an iterable of namedtuples (fields "
                           f"{fields}, e.g., from ir_measures.{self.RECORD.__name__}); (2) a pandas DataFrame with "
                           f"columns {fields}; or (3) a dict-of-dict")

    def as_namedtuple_iter(self) -> Iterator[Any]:
        """Every row as a ``RECORD`` namedtuple, in input order."""
        shape, error = self.predict_type()
        if shape == "UNKNOWN":
            raise ValueError(f"unknown {self.KIND} format: {error}")
        if shape == "namedtuple_iter":
            yield from self.source
        elif shape == "dict_of_dict":
            for qid, docs in self.source.items():
                for doc, value in docs.items():
                    yield self.RECORD(qid, doc, value)
        else:
            columns = [f for f in self.RECORD._fields if f in self.source.columns]
            for row in self.source[columns].itertuples(index=False):
                yield self.RECORD(*row)

    def as_dict_of_dict(self) -> dict[Any, dict[Any, Any]]:
        """``{query_id: {doc_id: value}}``; a document listed twice keeps its last value."""
        if self.predict_type()[0] == "dict_of_dict":
            return self.source
        out: dict[Any, dict[Any, Any]] = {}
        for row in self.as_namedtuple_iter():
            out.setdefault(row[0], {})[row[1]] = row[2]
        return out

    def as_pd_dataframe(self) -> pd.DataFrame:
        """A pandas frame with the ``RECORD`` fields as columns."""
        if self.predict_type()[0] == "pd_dataframe":
            return self._completed(self.source)
        frame = pd.DataFrame(self.as_namedtuple_iter())
        return frame if len(frame) else pd.DataFrame([], columns=list(self.RECORD._fields))

    def _completed(self, frame: pd.DataFrame) -> pd.DataFrame:
        return frame


class QrelsConverter(_Converter):
    """Qrels as ir_measures' ``util.QrelsConverter`` hands them out."""

    def _completed(self, frame: pd.DataFrame) -> pd.DataFrame:
        return frame if "iteration" in frame.columns else frame.assign(iteration=["0"] * len(frame))


class RunConverter(_Converter):
    """A run as ir_measures' ``util.RunConverter`` hands it out."""

    RECORD = ScoredDoc
    KIND = "run"

    def as_sorteddict(self) -> dict[Any, list[ScoredDoc]]:
        """``{query_id: [ScoredDoc, ...]}`` by score descending (ties in input order)."""
        grouped: dict[Any, list[ScoredDoc]] = {}
        for row in self.as_namedtuple_iter():
            grouped.setdefault(row.query_id, []).append(row)
        return {q: sorted(rows, key=lambda r: r.score, reverse=True) for q, rows in grouped.items()}
