"""judged.toml: pinned conventions become defaults, contradictions are refused, outputs record the config."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

import judged
from judged.cli import main
from judged.engine.config import Config, ensure_same_conventions

TEAM = """
[conventions]
gain = { 0 = 0, 1 = 1, 2 = 3, 3 = 10 }
ties = "average"
missing = "zero"
measures = ["nDCG", "P"]
cutoffs = [3, 10]
"""


def test_pinned_conventions_are_defaults_for_every_measure_that_has_them():
    config = Config.from_text(TEAM)
    assert [str(m) for m in config.default_measures()] == [
        "nDCG(gain={0:0,1:1,2:3,3:10},ideal=judged,unjudged=zero,ties=average,norel=0)@3",
        "nDCG(gain={0:0,1:1,2:3,3:10},ideal=judged,unjudged=zero,ties=average,norel=0)@10",
        "P(rel=1,unjudged=zero,ties=average)@3",
        "P(rel=1,unjudged=zero,ties=average)@10",
    ]
    assert config.with_missing(None) == "zero" and config.with_missing("skip") == "skip"
    with pytest.raises(judged.UsageError, match=r"RR cannot follow judged.toml: RR does not support ties=average"):
        config.measure("RR")  # refused, not silently computed under another tie rule


def test_a_measure_contradicting_the_config_is_refused():
    config = Config.from_text(TEAM, path="team/judged.toml")
    assert config.measure("nDCG(ties=average)@5") == config.measure("nDCG@5")  # agreeing is fine
    pinned = "nDCG(gain=exp)@5 sets gain=exp, but team/judged.toml pins gain={0:0,1:1,2:3,3:10}"
    with pytest.raises(judged.UsageError, match=re.escape(pinned)):
        config.measure("nDCG(gain=exp)@5")
    dropped = "sets unjudged=drop, but team/judged.toml pins unjudged=zero"  # ir_measures' spelling of it
    with pytest.raises(judged.UsageError, match=re.escape(dropped)):
        Config.from_text("[conventions]\nunjudged = 'zero'\n", path="team/judged.toml").measure(
            "nDCG(judged_only=True)@5")


@pytest.mark.parametrize(
    "text, message",
    [("[conventions]\ncolour = 'red'\n", "unknown setting"),
     ("[conventions]\nties = 'random'\n", "ties must be one of"),
     ("[conventions]\nmissing = 'maybe'\n", "missing must be one of"),
     ("[conventions\n", "invalid TOML")],
)
def test_bad_config_is_an_input_error(text, message):
    with pytest.raises(judged.InputError, match=message):
        Config.from_text(text)


def test_eval_finds_judged_toml_and_records_it(examples, tmp_path, monkeypatch):
    (tmp_path / "judged.toml").write_text(TEAM)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["eval", str(examples / "runs" / "bm25.run"), "--qrels",
                                       str(examples / "qrels.txt"), "-f", "json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)["results"][0]
    assert record["provenance"]["config"]["path"] == "judged.toml"
    assert record["provenance"]["options"]["missing"] == "zero"
    assert record["measures"][0].startswith("nDCG(gain={0:0,1:1,2:3,3:10}")
    table = CliRunner().invoke(main, ["eval", str(examples / "runs" / "bm25.run"),
                                      "--qrels", str(examples / "qrels.txt")])
    assert "conventions pinned by judged.toml (sha256 " in table.stdout
    refused = CliRunner().invoke(main, ["eval", str(examples / "runs" / "bm25.run"), "--qrels",
                                        str(examples / "qrels.txt"), "-m", "nDCG(ties=trec)@10"])
    assert refused.exit_code == 2 and "pins ties=average" in refused.output


def test_results_under_different_conventions_cannot_be_compared(examples):
    run, qrels = examples / "runs" / "bm25.run", examples / "qrels.txt"
    a = judged.evaluate(run, qrels, ["nDCG@10"])
    b = judged.evaluate(run, qrels, ["nDCG(gain=exp)@10"])
    c = judged.evaluate(run, qrels, ["nDCG@10"], missing="zero")
    ensure_same_conventions([a, judged.evaluate(run, qrels, ["nDCG@10"])])
    with pytest.raises(judged.UsageError, match=r"different conventions: measures \['nDCG\(gain=linear"):
        ensure_same_conventions([a, b])
    with pytest.raises(judged.UsageError, match="missing=skip vs zero"):
        ensure_same_conventions([a, c])
