"""Record TorchMetrics' per-query values for the preset tests: tests/data/torchmetrics/recorded.json.

TorchMetrics needs PyTorch (gigabytes), so the test install does not carry it: tests/presets/test_presets.py compares
judged's torchmetrics preset to these recorded values, checking first that each case's candidate rows hash to
what they were computed from. Rerun after changing tests/presets/preset_collections.py, in any environment with
torch, torchmetrics and numpy (judged itself is not needed):

    python -m venv /tmp/torch && /tmp/torch/bin/pip install torch==2.13.0 torchmetrics numpy
    /tmp/torch/bin/python tests/data/torchmetrics/generate.py
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import numpy as np
import torch
import torchmetrics
from torchmetrics.functional import retrieval
from torchmetrics.retrieval import RetrievalNormalizedDCG

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "presets"))  # tests/presets: the collections the tests draw
from preset_collections import (  # noqa: E402
    GAINS,
    TIE_FREE,
    TIED,
    TORCH_BINARY,
    TORCH_NDCG,
    TORCH_NOREL,
    rows,
    rows_digest,
)


def torch_row(scores, relevance, integer=True):
    target = torch.tensor(relevance, dtype=torch.long if integer else torch.float64)
    return torch.tensor(scores, dtype=torch.float64), target


def ndcg_cases() -> dict:
    run, qrels = TIED
    out = {}
    for gain, weight in GAINS.items():
        integer = gain != "{1:1,2:2.5,3:10}"  # a fractional gain is a float target
        for drop in (False, True):
            data = {q: row for q, row in rows(run, qrels, weight, drop).items() if len(row[0])}
            for measure, k in TORCH_NDCG.items():
                out[f"ndcg {gain} {'drop' if drop else 'zero'} {measure}"] = {
                    "rows": rows_digest(data),
                    "values": {q: float(retrieval.retrieval_normalized_dcg(*torch_row(s, r, integer), top_k=k))
                               for q, (s, r) in data.items()},
                }
    return out


def norel_cases() -> dict:
    """RetrievalNormalizedDCG's per-query values before aggregation, under each empty_target_action."""
    run, qrels = TIED
    data = {q: row for q, row in rows(run, qrels).items() if len(row[0])}
    out = {}
    for norel, action in TORCH_NOREL.items():
        captured: list = []
        def keep(values, dim=None, into=captured):
            into.append(values)
            return values.mean()

        metric = RetrievalNormalizedDCG(top_k=5, empty_target_action=action, aggregation=keep)
        order = sorted(data)
        for index, q in enumerate(order):
            preds, target = torch_row(*data[q])
            metric.update(preds, target, indexes=torch.full_like(target, index))
        metric.compute()
        kept = [q for q in order if action != "skip" or data[q][1].any()]
        out[f"norel {norel}"] = {"rows": rows_digest(data), "values": dict(zip(kept, captured[0].tolist()))}
    return out


def binary_cases() -> dict:
    run, qrels = TIE_FREE
    out = {}
    for drop in (False, True):
        for measure, (name, k, rel) in TORCH_BINARY.items():
            data = {q: row for q, row in rows(run, qrels, drop=drop, rel=rel).items() if len(row[0])}
            fn = getattr(retrieval, name)
            out[f"binary {'drop' if drop else 'zero'} {measure}"] = {
                "rows": rows_digest(data),
                "values": {q: float(fn(*torch_row(s, r), top_k=k)) for q, (s, r) in data.items()},
            }
    return out


def non_positive_case() -> dict:
    """retrieval_precision counts a relevant candidate scored <= 0 as not relevant (the preset's caveat)."""
    return {"non-positive P@2": {"rows": "", "values": {"q": float(retrieval.retrieval_precision(
        torch.tensor([0.5, -0.5]), torch.tensor([0, 1]), top_k=2))}}}


def main() -> None:
    recorded = {
        "generated_by": "tests/data/torchmetrics/generate.py",
        "versions": {"torch": torch.__version__, "torchmetrics": torchmetrics.__version__,
                     "numpy": np.__version__, "python": platform.python_version()},
        "cases": {**ndcg_cases(), **norel_cases(), **binary_cases(), **non_positive_case()},
    }
    target = HERE / "recorded.json"
    target.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"{len(recorded['cases'])} cases written to {target}")


if __name__ == "__main__":
    main()
