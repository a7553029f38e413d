"""Record ranx's per-query values for the preset tests: tests/data/ranx/recorded.json.

ranx brings numba, LLVM and matplotlib (about 350 MB) for four tests, so the test install does not carry it:
tests/presets/test_presets.py compares judged's ranx presets to these recorded values, checking first that the
collection hashes to the one they were computed from. Rerun after changing tests/presets/preset_collections.py, in
any environment with ranx (judged itself is not needed):

    python -m venv /tmp/ranx && /tmp/ranx/bin/pip install ranx
    /tmp/ranx/bin/python tests/data/ranx/generate.py
"""

from __future__ import annotations

import json
import platform
import sys
from importlib.metadata import version
from pathlib import Path

from ranx import Qrels, Run, evaluate

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "presets"))  # tests/presets: the collections the tests draw
from preset_collections import RANX_BURGES_PAIRS, RANX_PAIRS, TIE_FREE, collection_digest  # noqa: E402


def values() -> dict:
    """Per metric, per query, with make_comparable=True (missing queries 0, run-only queries dropped)."""
    run, qrels = TIE_FREE
    metrics = sorted(set(RANX_PAIRS.values()) | set(RANX_BURGES_PAIRS.values()))
    ranx_run = Run(run)
    evaluate(Qrels(qrels), ranx_run, metrics, return_mean=False, make_comparable=True)
    return {m: {q: float(v) for q, v in ranx_run.scores[m].items()} for m in metrics}


def refusal() -> str:
    """What plain ranx.evaluate says of differing query sets (the caveat behind the presets' missing='zero')."""
    run, qrels = TIE_FREE
    try:
        evaluate(Qrels(qrels), Run(run), ["ndcg@5"], return_mean=False)
    except AssertionError as error:
        return str(error)
    raise SystemExit("ranx evaluated differing query sets without make_comparable: the test's caveat is stale")


def main() -> None:
    recorded = {
        "generated_by": "tests/data/ranx/generate.py",
        "versions": {name: version(name) for name in ("ranx", "numba", "numpy")} | {
            "python": platform.python_version()},
        "collection": collection_digest(*TIE_FREE),
        "values": values(),
        "without_make_comparable": refusal(),
    }
    target = HERE / "recorded.json"
    target.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"{len(recorded['values'])} metrics written to {target}")


if __name__ == "__main__":
    main()
