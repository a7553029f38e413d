"""The TREC grammar table (tests/io/grammar_cases.py) through Spark: the same rows or the same refusal.

Every case is written as a plain and a gzip file into one folder per kind,
read with :func:`judged.spark.read_run` / :func:`~judged.spark.read_qrels`
(one Spark job per kind), and each file's rows, in file order, or its error,
must be what the table says: Spark reads each file with the local reader.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest

from judged.errors import InputError
from judged.spark import read_qrels, read_run
from judged.spark.reading import FILE_SHIFT, raise_error

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "io"))
from grammar_cases import CASES  # a data table beside the local reader's tests


def outcomes(spark_input) -> dict[str, object]:
    """Per file: its rows ``(qid, docid, value)`` in file order, or the message of the error it raised."""
    value = "score" if spark_input.kind == "run" else "grade"
    got: dict[str, object] = {}
    for row in spark_input.frame.orderBy("order").collect():
        if row.meta:
            if row.error is not None:
                try:
                    raise_error(row.error)
                except InputError as error:
                    got[row.file] = str(error)
            continue
        file = spark_input.files[row.order >> FILE_SHIFT]  # a data row's order names its file
        got.setdefault(file, []).append((row.qid, row.docid, row[value]))
    return got


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_spark_follows_the_grammar_table(spark, tmp_path, kind):
    folder = tmp_path / kind
    folder.mkdir()
    cases = {}
    for i, case in enumerate(c for c in CASES if c.kind == kind):
        for packed in (False, True):
            path = folder / f"case{i:03d}{'.gz' if packed else '.txt'}"
            path.write_bytes(gzip.compress(case.text) if packed else case.text)
            cases[str(path)] = case
    reader = read_run if kind == "run" else read_qrels
    got = outcomes(reader(spark, str(folder), format="trec"))
    for path, case in cases.items():
        if not case.text and not path.endswith(".gz"):  # an empty part of a folder is skipped (a single one is not)
            assert path not in got, case.name
            continue
        if case.rows is not None:
            assert got.get(path) == list(case.rows), case.name
        else:
            message = got.get(path)
            assert isinstance(message, str) and case.error in message, (case.name, message)
            where = f"{path}:{case.line}: " if case.line is not None else f"{path}: "
            assert message.startswith(where), (case.name, message)
