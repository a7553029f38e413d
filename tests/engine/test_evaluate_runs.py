"""Many runs against the same judgments in one call: each result is the one judged.evaluate gives, and what the
runs share (the judgments read and hashed, the measures parsed) is done once."""

from __future__ import annotations

from pathlib import Path

import pytest

import judged
from judged.engine import evaluate as engine
from judged.errors import InputError, UsageError

EXAMPLES = Path(__file__).parents[2] / "examples"
RUNS = sorted((EXAMPLES / "runs").glob("*.run"))
QRELS = EXAMPLES / "qrels.txt"
MEASURES = ["nDCG@10", "AP", "P(ties=input)@5", "R@100"]


def test_each_result_is_the_one_evaluate_gives():
    together = judged.evaluate_runs(RUNS, QRELS, MEASURES, missing="zero", depth=50)
    for path, result in zip(RUNS, together, strict=True):
        alone = judged.evaluate(path, QRELS, MEASURES, missing="zero", depth=50)
        assert result.run == alone.run and result.qids == alone.qids
        assert all(result.values[m].tobytes() == alone.values[m].tobytes() for m in alone.measures)
        assert result.provenance["qrels"] == alone.provenance["qrels"]


def test_the_judgments_are_read_once(monkeypatch):
    reads = []
    real = engine.read_qrels
    monkeypatch.setattr(engine, "read_qrels", lambda source: reads.append(source) or real(source))
    seen = []
    judged.evaluate_runs(RUNS, QRELS, ["AP"], progress=lambda i, run: seen.append((i, run)))
    # read from the file once; each evaluate() is handed them already read and returns them as they are
    assert [source for source in reads if not isinstance(source, judged.Qrels)] == [QRELS]
    assert len({id(source) for source in reads if isinstance(source, judged.Qrels)}) == 1
    assert seen == list(enumerate(RUNS, start=1))


def test_runs_in_any_shape_and_a_bad_one_named():
    frame = judged.read_run(RUNS[0]).frame
    shapes = [RUNS[0], frame, {"q01": {"d1": 1.0}}, judged.read_run(RUNS[0])]
    assert len(judged.evaluate_runs(shapes, QRELS, ["AP"])) == 4
    with pytest.raises(InputError, match=r"no such file"):
        judged.evaluate_runs([RUNS[0], EXAMPLES / "runs" / "missing.run"], QRELS, ["AP"])
    with pytest.raises(UsageError, match=r"runs must be a list of runs"):
        judged.evaluate_runs(str(RUNS[0]), QRELS, ["AP"])
    with pytest.raises(UsageError, match=r"no runs given"):
        judged.evaluate_runs([], QRELS, ["AP"])
