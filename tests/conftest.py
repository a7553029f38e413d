"""Shared fixtures (the bundled examples, trec_eval's conformance data in tests/data) and the hypothesis CI profile."""

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
# tests/data holds test data and the generators of recorded values (one needs PyTorch, not in the test extra).
collect_ignore_glob = ["*/conftest.py", "data/*"]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
# trec_eval's own test collection and expected outputs, kept in the repo (tests/data/trec_eval/README.md).
CONFORMANCE = ROOT / "tests" / "data" / "trec_eval"


CHROMIUM = Path(os.environ.get("JUDGED_TEST_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts"
# Headless as root on a closed network: no sandbox, no GPU, and none of Chromium's background connections.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium driven by Playwright; skipped without it locally, a failure under CI.

    Module-scoped: Playwright's sync API keeps an event loop running while it is open, which would break
    later tests that start their own (asyncio.run)."""
    if not CHROMIUM.is_file():
        message = f"chromium not found at {CHROMIUM} (set JUDGED_TEST_CHROMIUM)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def conformance() -> Path:
    return CONFORMANCE


@pytest.fixture
def examples() -> Path:
    return EXAMPLES
