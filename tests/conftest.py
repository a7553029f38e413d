"""Shared fixtures: paths to the bundled examples and the read-only trec_eval conformance data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "trec_eval"


@pytest.fixture
def conformance() -> Path:
    if not CONFORMANCE.is_dir():
        pytest.fail(f"trec_eval conformance data not found at {CONFORMANCE} (../shared must sit beside the repo)")
    return CONFORMANCE


@pytest.fixture
def examples() -> Path:
    return EXAMPLES
