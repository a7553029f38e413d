"""Every JSON output carries eval's provenance record; long commands show progress on a terminal, none in a pipe."""

from __future__ import annotations

import hashlib
import io
import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import judged
from judged.cli import main
from judged.cli.progress import progress
from judged.io.inputs import Qrels, Source
from judged.render import render_json, render_table

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUNS = [str(EXAMPLES / "runs" / f"{n}.run") for n in ("bm25", "dense")]
QRELS = str(EXAMPLES / "qrels.txt")
TEAM = '[conventions]\ngain = "exp"\n'


def _sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


COMMANDS = {
    "compare": ["compare", *RUNS, "-q", QRELS, "--permutations", "99", "--resamples", "99"],
    "sensitivity": ["sensitivity", *RUNS, "-q", QRELS],
    "bounds": ["bounds", *RUNS, "-q", QRELS],
    "explain": ["explain", RUNS[0], "-q", QRELS, "--query", "q01", "--vs", RUNS[1]],
    "assessors": ["assessors", *RUNS, "-a", f"a1={QRELS}", "-a", f"a2={EXAMPLES / 'qrels.assessor2.txt'}"],
    "agreement": ["agreement", "-a", f"a1={QRELS}", "-a", f"a2={EXAMPLES / 'qrels.assessor2.txt'}",
                  "--rubric", str(EXAMPLES / "rubric.toml"), "--resamples", "0"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_json_output_carries_the_provenance_record(name, tmp_path):
    config = tmp_path / "judged.toml"
    config.write_text(TEAM)
    args = COMMANDS[name] + ["-f", "json"] + ([] if name in ("explain", "agreement") else ["--config", str(config)])
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 3), result.output  # agreement's gate fails on the examples (exit 3)
    record = json.loads(result.stdout)["provenance"]
    eval_record = judged.evaluate(RUNS[0], QRELS, ["nDCG@10"]).provenance
    for key in ("judged_version", "python", "platform", "libraries", "command", "created"):
        assert key in record and key in eval_record, key
    assert record["libraries"]["scipy"] == eval_record["libraries"]["scipy"] and record["libraries"]["scipy"]
    inputs = {i["path"]: i["sha256"] for i in record["inputs"]}
    for path in [p for p in (*RUNS, QRELS) if p in " ".join(args)]:
        if name == "compare":  # the runs' own records, as eval writes them
            assert {r["run"]["sha256"] for r in record["runs"].values()} == {_sha256(p) for p in RUNS}
        elif name != "agreement" or path == QRELS:
            assert inputs[path] == _sha256(path), path
    if name not in ("explain", "agreement"):
        assert record["config"]["path"] == str(config) and record["config"]["sha256"] == _sha256(config)
    if name not in ("agreement",):
        assert any(m.startswith(("nDCG(gain=exp", "nDCG(gain=linear")) for m in record["measures"])


def test_the_report_embeds_the_same_record(tmp_path):
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["report", *RUNS, "-q", QRELS, "--permutations", "99", "--resamples", "99",
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    from html import unescape

    record = json.loads(unescape(out.read_text().split('<pre class="provenance">', 1)[1].split("</pre>", 1)[0]))
    assert record["inputs"][0]["sha256"] == _sha256(QRELS) and record["libraries"]["numpy"]
    assert sorted(record["runs"]) == ["bm25", "dense"] and "statistics" in record["report"]


def test_eval_names_a_frozen_judgment_set_in_its_footer_and_json():
    frozen = Qrels.from_dict({"q01": {"auth/api-keys-rotation": 3}}, "nist@2",
                             Source("judged.db#nist@2", "judgment-set", "cd" * 32))
    results = [judged.evaluate(RUNS[0], frozen, ["nDCG@10"])]
    assert "judgments: frozen set nist@2 (sha256 cdcdcdcdcdcd) from judged.db#nist@2" in render_table(results)
    assert json.loads(render_json(results))["judgments"] == {"name": "nist@2", "path": "judged.db#nist@2",
                                                             "format": "judgment-set", "sha256": "cd" * 32}
    plain = [judged.evaluate(RUNS[0], QRELS, ["nDCG@10"])]
    assert "frozen set" not in render_table(plain) and "judgments" not in json.loads(render_json(plain))


@pytest.mark.parametrize("name", ["compare", "sensitivity", "bounds", "assessors", "agreement"])
def test_nothing_but_the_output_when_not_on_a_terminal(name):
    result = CliRunner().invoke(main, COMMANDS[name])
    assert result.exit_code in (0, 3), result.output
    assert result.stderr == ""


def test_report_writes_nothing_else_when_not_on_a_terminal(tmp_path):
    result = CliRunner().invoke(main, ["report", *RUNS, "-q", QRELS, "--permutations", "99", "--resamples", "99",
                                       "-o", str(tmp_path / "r.html")])
    written = tmp_path / "r.html"
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == f"wrote {written} ({written.stat().st_size:,} bytes)\n"  # no progress, one line


def test_progress_shows_on_a_terminal_once_work_passes_the_delay():
    screen = Console(file=io.StringIO(), force_terminal=True, width=80)
    with progress("reading judgments", delay=0.05, console=screen) as step:
        time.sleep(0.3)
        step("comparing 2 runs on measure 1/1")
        time.sleep(0.3)
    shown = screen.file.getvalue()
    assert "reading judgments" in shown and "comparing 2 runs on measure 1/1" in shown


def test_progress_stays_silent_for_quick_work_on_a_terminal():
    screen = Console(file=io.StringIO(), force_terminal=True, width=80)
    with progress("reading judgments", delay=5.0, console=screen) as step:
        step("done already")
    assert screen.file.getvalue() == ""
