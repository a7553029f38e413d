"""Qrels and runs in any shape ir_measures takes, read into polars frames of ``qid, docid, grade|score``.

Shapes: ``{qid: {docid: value}}`` dicts, pandas or polars frames (columns
found by :func:`judged.io.tabular.pick_column`, so PyTerrier's ``qid, docno,
label`` read as ir_measures' ``query_id, doc_id, relevance``) and iterables of
``Qrel``/``ScoredDoc`` namedtuples (ir_datasets' ``qrels_iter()`` among
them); beyond ir_measures, also ranx ``Qrels``/``Run``, ir_datasets datasets
and ``irds:DATASET_ID`` (:mod:`judged.io.foreign`). A document listed twice
in a query keeps its last value, as ir_measures' dict conversion does, and a
NaN score ranks below every number; both are counted in one
:class:`InputWarning`.

>>> run_frame({"q1": {"d1": 1.0}}).rows()
[('q1', 'd1', 1.0)]
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import polars as pl

from judged.io.foreign import unwrapped
from judged.io.tabular import pick_column


class InputWarning(UserWarning):
    """A run or qrels ir_measures accepts that judged would refuse: duplicate documents or NaN scores."""


def qrels_frame(source: Any) -> pl.DataFrame:
    """``qid, docid, grade`` (Int64) of ``source``, one row per (qid, docid), the last listing kept."""
    frame = _frame(source, "grade", ("query_id", "doc_id", "relevance"))
    frame = frame.with_columns(pl.col("grade").cast(pl.Int64))
    duplicates = frame.height - frame.unique(["qid", "docid"]).height
    if duplicates:
        warnings.warn(f"qrels list {duplicates} document(s) twice in a query; the last grade of each is used, "
                      "as ir_measures does", InputWarning, stacklevel=3)
    return frame.unique(["qid", "docid"], keep="last", maintain_order=True)


def run_frame(source: Any) -> pl.DataFrame:
    """``qid, docid, score`` (Float64, NaN kept) of ``source``, one row per (qid, docid), the last score kept."""
    frame = _frame(source, "score", ("query_id", "doc_id", "score"))
    frame = frame.with_columns(pl.col("score").cast(pl.Float64))
    duplicates = frame.height - frame.unique(["qid", "docid"]).height
    nans = int(frame["score"].is_nan().sum())
    if duplicates or nans:
        warnings.warn(f"run has {duplicates} duplicate document(s) in a query (the last score of each is used) "
                      f"and {nans} NaN score(s) (ranked below every number), as ir_measures reads them",
                      InputWarning, stacklevel=3)
    return frame.unique(["qid", "docid"], keep="last", maintain_order=True)


def _frame(source: Any, value: str, fields: tuple[str, str, str]) -> pl.DataFrame:
    schema = {"qid": pl.String, "docid": pl.String, value: pl.Float64 if value == "score" else pl.Int64}
    source = unwrapped(source, "run" if value == "score" else "qrels")  # ranx objects, ir_datasets datasets
    if isinstance(source, Mapping):
        rows = [(str(q), str(d), v) for q, docs in source.items() for d, v in docs.items()]
        return pl.DataFrame(rows, schema=schema, orient="row")
    if hasattr(source, "columns"):
        frame = source if isinstance(source, pl.DataFrame) else pl.from_pandas(source, nan_to_null=False)
        roles = {role: pick_column(frame.columns, role, None, "ir_measures input") for role in ("qid", "docid", value)}
        return frame.select(pl.col(c).cast(schema[r]).alias(r) for r, c in roles.items())
    rows = [(str(getattr(r, fields[0])), str(getattr(r, fields[1])), getattr(r, fields[2])) for r in source]
    return pl.DataFrame(rows, schema=schema, orient="row")
