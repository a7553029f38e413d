"""Every registered family under ``unjudged=drop`` and ``judged bounds``: a value, or a one-line refusal and reason.

The run ranks a judged relevant, an unjudged, a pooled-but-unjudged (-1) and a judged non-relevant document; a
second query has every retrieved document judged, where dropping the unjudged ones must change nothing.
"""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

import judged
from judged.cli import main
from judged.errors import MeasureError
from judged.measures.registry import all_families

RUN = {"q1": {"rel": 4.0, "unjudged": 3.0, "pooled": 2.0, "non": 1.0}, "q2": {"a": 2.0, "b": 1.0}}
QRELS = {"q1": {"rel": 2, "pooled": -1, "non": 0, "other": 1}, "q2": {"a": 0, "b": 1, "c": 2}}
FAMILIES = [f.name for f in all_families()]


def one_line_reason(message: str) -> bool:
    """A refusal a user can act on: a single line that says why, not just that."""
    return "\n" not in message.strip() and "Traceback" not in message and len(message.strip()) > 40


@pytest.mark.parametrize("name", FAMILIES)
def test_unjudged_drop_gives_a_value_or_says_why_not(name):
    family = judged.measures.registry.family_of(name)
    text = f"{name}(unjudged=drop)"
    if "unjudged" not in family.params:
        with pytest.raises(MeasureError) as refused:
            judged.evaluate(RUN, QRELS, [text])
        assert str(refused.value).startswith(f"{name} has no parameter 'unjudged': ")
        assert one_line_reason(str(refused.value))
        return
    result = judged.evaluate(RUN, QRELS, [text, name], missing="zero")
    dropped, kept = result.values[judged.measures.parse(text)], result.values[judged.measures.parse(name)]
    assert all(math.isfinite(v) for v in dropped), (text, dropped)
    q2 = result.qids.index("q2")
    assert dropped[q2] == kept[q2]  # every document q2 retrieved is judged: nothing to drop


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("walk")
    run = folder / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {s} walk\n" for q, docs in RUN.items()
                           for i, (d, s) in enumerate(docs.items())))
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    return run, qrels


@pytest.mark.parametrize("text", [t for name in FAMILIES for t in (name, f"{name}(unjudged=drop)")])
def test_judged_bounds_gives_a_range_or_a_one_line_reason(files, text):
    run, qrels = files
    result = CliRunner().invoke(main, ["bounds", str(run), "--qrels", str(qrels), "-m", text])
    if result.exit_code == 0:
        assert "min" in result.stdout and "max" in result.stdout
        return
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.stderr.startswith("Error: "), result.stderr
    assert one_line_reason(result.stderr.removeprefix("Error: ")), result.stderr


def test_bounds_compute_for_the_families_they_are_derived_for(files):
    run, qrels = files
    for text in ("nDCG@3", "nDCG(unjudged=drop)@3", "RBP(max_rel=2)", "RBP(max_rel=2,unjudged=drop)"):
        result = CliRunner().invoke(main, ["bounds", str(run), "--qrels", str(qrels), "-m", text])
        assert result.exit_code == 0, (text, result.output)
