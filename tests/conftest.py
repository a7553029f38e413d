"""Shared fixtures (the bundled examples, the read-only trec_eval conformance data) and the hypothesis CI profile."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI explores a fixed set of examples (the same on every run); local runs keep exploring new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# --doctest-modules would import every conftest.py under tests/ as a module named "conftest", and two of
# them collide when directories are named on the command line; they hold fixtures, not doctests.
collect_ignore_glob = ["*/conftest.py"]

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
