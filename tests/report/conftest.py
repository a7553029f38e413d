"""The example report, built once for the page tests and the browser test."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_inputs import EXAMPLES, RUNS, SETTINGS

import judged


@pytest.fixture(scope="session")
def example_report(tmp_path_factory) -> Path:
    """The bundled example's three runs on nDCG@10 and R@100, written to a file."""
    path = tmp_path_factory.mktemp("report") / "report.html"
    judged.report(RUNS, EXAMPLES / "qrels.txt", ["nDCG@10", "R@100"], baseline="bm25", path=str(path), **SETTINGS)
    return path
