"""The inputs of the example report the report tests share."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUNS = [EXAMPLES / "runs" / f"{name}.run" for name in ("bm25", "dense", "naive")]
SETTINGS = {"permutations": 500, "resamples": 500, "seed": 3, "worst": 3}
