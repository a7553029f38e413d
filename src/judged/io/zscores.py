"""trec_eval's z-score file (``-Z FILE``): ``qid measure mean stddev`` lines, and the conversion it defines.

A value becomes ``(value - mean) / stddev`` with the mean and standard
deviation listed for its query and printed measure name. As in trec_eval
(``convert_zscores.c``), a query or measure the file does not list, or a
zero standard deviation with a value other than the mean, gives
:data:`MISSING_ZSCORE` (-1000000), and a zero deviation at the mean gives 0.
Lines follow the TREC grammar of :mod:`judged.io.trec`; the mean and the
deviation are finite numbers by the rule of :mod:`judged.io.numbers`.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "zscores")
>>> _ = open(path, "w").write("q1 map 0.25 0.5\\nq1 P_5 0.2 0\\n")
>>> table = read_zscores(path)
>>> table.convert("map", ["q1", "q2"], [0.5, 0.5]).tolist(), table.convert("P_5", ["q1"], [0.2]).tolist()
([0.5, -1000000.0], [0.0])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judged.errors import InputError
from judged.io.numbers import parse_score
from judged.io.trec import check_field_count, trec_lines

#: What trec_eval prints for a value the z-score file gives no mean and deviation for.
MISSING_ZSCORE = -1000000.0
_COLUMNS = ("qid", "measure", "mean", "stddev")


@dataclass(frozen=True)
class ZScores:
    """Means and standard deviations by (qid, printed measure name)."""

    table: dict[tuple[str, str], tuple[float, float]]
    path: str

    def convert(self, name: str, qids: Sequence[str], values: Sequence[float]) -> np.ndarray:
        """The z-scores of the measure printed as ``name``, one per query of ``qids``."""
        out = np.full(len(qids), MISSING_ZSCORE)
        for i, (qid, value) in enumerate(zip(qids, values, strict=True)):
            found = self.table.get((qid, name))
            if found is None:
                continue
            mean, stddev = found
            if stddev:
                out[i] = (value - mean) / stddev
            elif value == mean:
                out[i] = 0.0
        return out


def read_zscores(path: str | Path) -> ZScores:
    """Read a ``qid measure mean stddev`` file; a later line for the same query and measure is an error."""
    path = str(path)
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, fields, text in trec_lines(path, indented_comments=False):  # opened once: a pipe works
        check_field_count(fields, _COLUMNS, True, path, number, text)
        mean, stddev = parse_score(fields[2]), parse_score(fields[3])
        if mean is None or stddev is None or not (math.isfinite(mean) and math.isfinite(stddev)):
            raise InputError("mean or standard deviation is not a finite number", path=path, line=number,
                             text=text.rstrip("\r\n"), expected="qid measure mean stddev, the last two numbers")
        if (fields[0], fields[1]) in table:
            raise InputError("query and measure listed twice", path=path, line=number, text=text.rstrip("\r\n"),
                             expected="one mean and deviation per (qid, measure)")
        table[fields[0], fields[1]] = (mean, stddev)
    return ZScores(table, path)


__all__ = ["MISSING_ZSCORE", "ZScores", "read_zscores"]
