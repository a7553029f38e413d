"""Test groups for the whole checkout (pyproject's markers): ``spark`` and ``slow``.

``spark``: tests/spark and judged.spark's doctests. pyspark is heavy (about 500 MB with Java's jars), so the
test extra leaves it out and these are not collected without it; .ci/run then installs ``judged[spark]`` and
runs them with ``JUDGED_REQUIRE_SPARK=1``, under which a missing pyspark fails instead.

``slow``: the modules below and the tests marked so, most of a full run's time (browsers, concurrent writers
on PostgreSQL, killed processes, brute-force proofs, differential tests against peers, Spark); ``pytest -m
"not slow"`` is the quick loop while working, and the full run is still what CI passes.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
SPARK_REQUIRED = os.environ.get("JUDGED_REQUIRE_SPARK") == "1"
if importlib.util.find_spec("pyspark") is None and not SPARK_REQUIRED:
    collect_ignore = ["src/judged/spark", "tests/spark"]

SPARK = ("src/judged/spark", "tests/spark")
# Measured with --durations=0 (2026-12-02): the modules taking 2 s or more of a "not slow" run, and the heavy
# groups above; a module that grows past 2 s joins them.
SLOW = SPARK + (
    "tests/agreement/test_agreement_store.py", "tests/agreement/test_calibration.py",
    "tests/agreement/test_kappa_peers.py", "tests/analysis/test_bounds.py", "tests/analysis/test_explain.py",
    "tests/analysis/test_joint_families.py", "tests/analysis/test_selection_floor.py",
    "tests/analysis/test_settle_bounds.py", "tests/analysis/test_settle_selection.py",
    "tests/compat/test_ir_measures_compat_accuracy.py", "tests/compat/test_ir_measures_shim.py",
    "tests/compat/test_peer_pytrec_eval.py", "tests/compat/test_pyterrier_experiment.py",
    "tests/compat/test_pytrec_eval_differential.py", "tests/engine/test_kernels_parallel.py",
    "tests/engine/test_outputs_provenance.py", "tests/engine/test_properties.py",
    "tests/engine/test_ranking_paths.py", "tests/io/test_grammar.py", "tests/io/test_junk_input.py",
    "tests/io/test_native.py", "tests/io/test_readers_agree.py", "tests/io/test_world_inputs.py",
    "tests/judgments/test_adjudication.py", "tests/judgments/test_effort_workflow.py",
    "tests/judgments/test_import_sequences.py", "tests/judgments/test_judgment_log.py",
    "tests/judgments/test_judgment_sets.py", "tests/judgments/test_masked_command.py",
    "tests/judgments/test_pools_assign.py", "tests/judgments/test_set_derivation.py",
    "tests/judgments/test_store_cli.py", "tests/judgments/test_store_concurrency.py",
    "tests/judgments/test_store_crash.py", "tests/judgments/test_store_failures.py",
    "tests/judgments/test_store_migrations.py", "tests/judgments/test_tamper.py",
    "tests/judgments/test_targeting.py", "tests/judgments/test_walkthrough.py",
    "tests/judgments/test_workflow_cli.py", "tests/measures/test_compat_accuracy.py",
    "tests/measures/test_cwl_peer.py", "tests/measures/test_gained_rows.py",
    "tests/measures/test_graded_families.py", "tests/measures/test_running_sums.py", "tests/measures/test_ties.py",
    "tests/measures/test_trec_families.py", "tests/presets/test_presets.py", "tests/render/test_render_trec_eval.py",
    "tests/report/test_report_browser.py", "tests/report/test_report_page.py", "tests/report/test_report_settled.py",
    "tests/stats/test_bootstrap.py", "tests/stats/test_compare.py", "tests/stats/test_paired.py",
    "tests/test_layers.py", "tests/web/test_accounts.py", "tests/web/test_assess_api.py", "tests/web/test_auth.py",
    "tests/web/test_browser.py", "tests/web/test_browser_targeting.py", "tests/web/test_cli.py",
    "tests/web/test_hostile.py", "tests/web/test_lead.py", "tests/web/test_load.py", "tests/web/test_security.py",
    "tests/web/test_served.py", "tests/web/test_targeting_follow.py", "tests/web/test_targeting_web.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(ROOT).as_posix() if item.path.is_relative_to(ROOT) else ""
        if where.startswith(SPARK):
            item.add_marker(pytest.mark.spark)
        if where.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
