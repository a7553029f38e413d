"""trec_eval-compatible text: byte for byte what ``trec_eval -q`` prints for the same measures.

Each measure is printed under trec_eval's own name (``nDCG@10`` ->
``ndcg_cut_10``, ``AP`` -> ``map``, ...). A measure whose conventions
trec_eval cannot express is refused with the convention named. Lines follow
trec_eval: per query (qid in byte order) the measures in trec_eval's table
order with cutoffs ascending, then the ``all`` lines; ``%-22s\\t%s\\t%6.4f``
for values and ``%ld`` for counts. :func:`render_trec_eval_columns` prints
the same lines for ``judged trec_eval``, whose columns also hold trec_eval's
string measures (``runid``, ``relstring``) and z-scores.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judged.engine.result import Result
from judged.errors import UsageError
from judged.io.native import _native
from judged.measures.spec import Measure
from judged.measures.trec_names import TABLE, to_trec_eval


def _global_flags(measures: Sequence[Measure]) -> None:
    """trec_eval's -l and -J apply to every measure at once: refuse a mix."""
    for param, flag in (("rel", "-l"), ("unjudged", "-J")):
        values = {str(getattr(m, param)) for m in measures if param in m.family.params}
        if len(values) > 1:
            raise UsageError(f"trec_eval format needs one {param} for all measures (trec_eval's {flag} is global); "
                             f"got {', '.join(sorted(values))}.")
    if "drop" in {m.unjudged for m in measures} and any(m.name == "NumRet" for m in measures):
        raise UsageError("trec_eval format cannot print NumRet beside unjudged=drop measures: trec_eval's -J "
                         "also drops unjudged documents from num_ret, which judged's NumRet counts.")


def render_trec_eval(results: Sequence[Result], per_query: bool = True) -> str:
    """trec_eval text for each result in turn (as if trec_eval ran once per run)."""
    out: list[str] = []
    for result in results:
        _global_flags(result.measures)
        order = list(TABLE)
        named = sorted(
            ((to_trec_eval(m), m) for m in result.measures),
            key=lambda item: (order.index(item[0].entry), item[0].cutoff, item[0].printed),
        )
        if per_query:
            for i in np.argsort(np.array(result.qids, dtype=object), kind="stable"):
                qid = result.qids[i]
                for name, m in named:
                    value = result.values[m][i]
                    if TABLE[name.entry].per_query and not np.isnan(value):  # gm_map, num_q: summary only
                        out.append(_line(name.printed, qid, value, m))
        for name, m in named:
            out.append(_line(name.printed, "all", result.aggregate[m], m))
    return "".join(out)


def _line(name: str, qid: str, value: float, measure: Measure) -> str:
    return trec_eval_line(name, qid, value, integer=measure.family.integer)


def trec_eval_line(name: str, qid: str, value: float | str, *, integer: bool = False, zscore: bool = False) -> str:
    """One line as trec_eval prints it: ``%-22s\\t%s\\t%6.4f`` (``%ld`` for a count, the text itself for a string).

    Under ``-Z`` (``zscore``) every number is printed ``%6.4f`` behind a ``Z``,
    counts included, and strings (``runid``, ``relstring``) stay as they are.

    >>> trec_eval_line("map", "301", 0.03244), trec_eval_line("num_ret", "all", 1500.0, integer=True)
    ('map                   \\t301\\t0.0324\\n', 'num_ret               \\tall\\t1500\\n')
    >>> trec_eval_line("num_ret", "all", -6.3332, integer=True, zscore=True)
    'Znum_ret               \\tall\\t-6.3332\\n'
    >>> trec_eval_line("11pt_avg", "q1", float("nan"))  # trec_eval's 0/0, as its printf writes it
    '11pt_avg              \\tq1\\t  -nan\\n'
    """
    return f"{_prefix(name, value, zscore)}{qid}\t{_cell(value, integer, zscore)}\n"


def _prefix(name: str, value: float | str, zscore: bool) -> str:
    """The measure's name as the line starts: padded to 22, behind a ``Z`` for a z-score, and the tab."""
    return f"{'Z' if zscore and not isinstance(value, str) else ''}{name:<22}\t"


def _cell(value: float | str, integer: bool, zscore: bool) -> str:
    """The value as the line ends: the text itself, ``%ld`` for a count (unless a z-score), else ``%6.4f``."""
    if isinstance(value, str):
        return value
    return str(int(value)) if integer and not zscore else _fixed(value)


def _fixed(value: float) -> str:
    """``%6.4f`` as trec_eval's printf writes it: a NaN (only ever its 0 / 0, whose sign bit x86-64 sets) is
    ``  -nan``."""
    return "  -nan" if value != value else f"{value:6.4f}"


def _cells(values: Sequence[float | str] | np.ndarray, integer: bool, zscore: bool) -> list[str]:
    """:func:`_cell` of a whole column, whose values are all strings or all numbers, in one pass."""
    if isinstance(values[0], str):
        return [str(v) for v in values]
    if integer and not zscore:
        return [str(int(v)) for v in values]
    return [_fixed(float(v)) for v in values]


@dataclass(frozen=True, eq=False)
class TrecColumn:
    """One printed trec_eval measure: its name, one value per query and the summary value.

    ``values`` is None for a measure trec_eval prints in the summary only
    (``runid``, ``num_q``, ``gm_map``), ``summary`` None for one it prints
    per query only (``relstring``); a value is a number or, for those two, a
    string. ``integer`` prints counts as ``%ld``. Numbers are floats, as the result arrays hold them (a count
    is exact up to 2**53); a column of numbers may be that float64 array itself.
    """

    name: str
    values: Sequence[float | str] | np.ndarray | None
    summary: float | str | None
    integer: bool = False


def render_trec_eval_columns(columns: Sequence[TrecColumn], qids: Sequence[str], *, per_query: bool,
                             summary: bool = True, zscore: bool = False) -> str:
    """trec_eval's whole output for ``columns`` (already in its table order) over ``qids`` (in its query order).

    With ``per_query`` (``-q``) every query's lines come first, query after
    query; then, unless ``summary`` is off (``-n``), the ``all`` lines.

    >>> columns = [TrecColumn("runid", None, "bm25"), TrecColumn("map", [0.5, 0.25], 0.375)]
    >>> render_trec_eval_columns(columns, ["q1", "q2"], per_query=True).replace(" ", "").splitlines()
    ['map\\tq1\\t0.5000', 'map\\tq2\\t0.2500', 'runid\\tall\\tbm25', 'map\\tall\\t0.3750']
    """
    out: list[str] = []
    if per_query and qids:
        out.append(_per_query_lines([(c, values) for c in columns if (values := c.values) is not None], qids, zscore))
    if summary:
        out.extend(trec_eval_line(c.name, "all", c.summary, integer=c.integer, zscore=zscore)
                   for c in columns if c.summary is not None)
    return "".join(out)


def _per_query_lines(shown: Sequence[tuple[TrecColumn, Sequence[float | str] | np.ndarray]], qids: Sequence[str],
                     zscore: bool) -> str:
    """Every query's lines, query by query, each query's in column order: :func:`trec_eval_line` of each cell,
    laid out in C when the extension is built (the same bytes: its four-decimal layout rounds the exact binary
    value correctly, an exact half to even, as printf and Python do, and NaN prints as Python prints it), else
    column by column here (also for a column holding a NaN, which trec_eval prints its own way)."""
    prefixes = [_prefix(c.name, values[0], zscore) for c, values in shown]
    kinds = "".join("s" if isinstance(values[0], str) else "i" if c.integer and not zscore else "f"
                    for c, values in shown)
    if _native is not None and not any(kind == "f" and np.isnan(np.asarray(values, dtype=np.float64)).any()
                                       for kind, (_, values) in zip(kinds, shown, strict=True)):
        block = _native.trec_block(prefixes, list(qids), [list(values) if kind == "s" else
                                                          np.asarray(values, dtype=np.float64)
                                                          for kind, (_, values) in zip(kinds, shown, strict=True)],
                                   kinds)
        if block is not None:
            return block
    cells = [_cells(values, c.integer, zscore) for c, values in shown]
    lines = [[f"{prefix}{qid}\t{cell}\n" for qid, cell in zip(qids, column, strict=True)]
             for prefix, column in zip(prefixes, cells, strict=True)]
    return "".join(itertools.chain.from_iterable(zip(*lines)))  # query by query, each in column order
