"""`judged eval` through click's CliRunner: formats, options, exit codes and error messages."""

from __future__ import annotations

import hashlib
import json
import os
import stat

import pytest
from click.testing import CliRunner

from judged.cli import main


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def files(examples):
    return {
        "runs": [examples / "runs" / f"{n}.run" for n in ("bm25", "dense", "naive")],
        "qrels": examples / "qrels.txt",
    }


def test_table_has_one_column_per_run_and_explicit_measures(files):
    result = run_cli("eval", *files["runs"], "--qrels", files["qrels"], "-m", "nDCG@10", "-m", "P@5")
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "measure" in line)
    assert all(name in header for name in ("bm25", "dense", "naive"))
    assert "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10" in result.output
    assert "15 of 15 judged queries evaluated" in result.output


def test_json_carries_provenance(files):
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "nDCG@10", "-m", "AP",
                     "--format", "json", "--per-query")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)["results"][0]
    prov = record["provenance"]
    assert prov["run"]["sha256"] == hashlib.sha256(files["runs"][0].read_bytes()).hexdigest()
    assert prov["qrels"]["sha256"] == hashlib.sha256(files["qrels"].read_bytes()).hexdigest()
    assert prov["measures"]["nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10"]["gain"] == "linear"
    assert prov["queries"] == {"judged": 15, "in_run": 15, "evaluated": 15, "missing_from_run": 0,
                               "missing_policy": "skip", "run_only_ignored": 0}
    assert set(prov["unjudged_in_top_k"]) == {"10"}
    assert prov["command"] and prov["judged_version"] and prov["created"]
    assert len(record["per_query"]) == 15
    assert record["aggregate"][record["measures"][0]] == pytest.approx(
        sum(q[record["measures"][0]] for q in record["per_query"].values()) / 15
    )


def test_tsv_per_query_lines(files):
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "RR", "--format", "tsv", "--per-query")
    lines = result.output.splitlines()
    assert lines[0] == "run\tqid\tmeasure\tvalue"
    assert len(lines) == 1 + 15 + 1
    assert lines[-1].startswith("bm25\tall\tRR(rel=1,unjudged=zero,ties=trec)\t")


def test_output_file_is_written_whole(files, tmp_path):
    out = tmp_path / "out.json"
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "AP", "-f", "json", "-o", out)
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == f"wrote {out} ({out.stat().st_size:,} bytes)\n"  # says what it wrote, on stderr
    assert json.loads(out.read_text())["results"][0]["run"] == "bm25"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_output_file_gets_the_mode_open_would_give(files, tmp_path):
    out = tmp_path / "out.tsv"
    previous = os.umask(0o022)
    try:
        result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "AP", "-f", "tsv", "-o", out)
    finally:
        os.umask(previous)
    assert result.exit_code == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_bad_input_exits_1_and_writes_nothing(files, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q01 Q0 d 1 2.0 t\nq01 Q0 e 2 oops t\n")
    out = tmp_path / "out.tsv"
    out.write_text("previous results\n")
    result = run_cli("eval", files["runs"][0], bad, "--qrels", files["qrels"], "-o", out, "-f", "tsv")
    assert result.exit_code == 1
    assert f"Error: {bad}:2: score is not a number: 'q01 Q0 e 2 oops t'" in result.output
    assert out.read_text() == "previous results\n"


def test_run_with_no_judged_query_is_an_error_not_zero(files, tmp_path):
    other = tmp_path / "other.run"
    other.write_text("z1 Q0 d 1 2.0 t\n")
    result = run_cli("eval", other, "--qrels", files["qrels"], "-m", "nDCG@10")
    assert result.exit_code == 1
    assert "shares no query with the judgments" in result.output


def test_unknown_measure_suggests(files):
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "nDGC@10")
    assert result.exit_code == 2
    assert "unknown measure 'nDGC'. Did you mean 'nDCG'" in result.output


def test_bad_parameter_value_is_a_usage_error(files):
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "nDCG(gain=cubic)@10")
    assert result.exit_code == 2
    assert "gain must be linear, exp or a map" in result.output


def test_trec_eval_format_refuses_what_it_cannot_express(files):
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "nDCG(gain=exp)@10", "-f", "trec_eval")
    assert result.exit_code == 2
    assert "gain=exp has no trec_eval equivalent" in result.output
    mixed = run_cli("eval", files["runs"][0], "--qrels", files["qrels"],
                    "-m", "P(rel=2)@10", "-m", "P@10", "-f", "trec_eval")
    assert mixed.exit_code == 2 and "one rel for all measures" in mixed.output


def test_rel_threshold_prints_under_trec_eval_name(files):
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "P(rel=2)@10", "-f", "trec_eval")
    assert result.exit_code == 0
    assert result.output.startswith("P_10                  \tall\t0.")


def test_norel_skip_leaves_the_no_relevant_query_out(files):
    default = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "nDCG@10", "-f", "json", "--per-query",
                      "--no-judged")
    skipped = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-m", "nDCG@10", "-f", "json",
                      "--per-query", "--norel", "skip", "--no-judged")
    a, b = json.loads(default.stdout)["results"][0], json.loads(skipped.stdout)["results"][0]
    assert len(a["per_query"]["q15"]) == 1 and b["per_query"]["q15"] == {}
    assert b["measures"] == ["nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=skip)@10"]
    assert b["provenance"]["per_measure"][b["measures"][0]]["skipped_norel"] == 1
    assert b["aggregate"][b["measures"][0]] == pytest.approx(a["aggregate"][a["measures"][0]] * 15 / 14)


def test_missing_queries_skip_or_zero(files, tmp_path):
    partial = tmp_path / "partial.run"
    partial.write_text("".join(line for line in files["runs"][1].read_text().splitlines(keepends=True)
                               if not line.startswith("q01 ")))
    skip = json.loads(run_cli("eval", partial, "--qrels", files["qrels"], "-m", "P@5", "-f", "json").stdout)
    zero = json.loads(run_cli("eval", partial, "--qrels", files["qrels"], "-m", "P@5", "-f", "json",
                              "--missing", "zero").stdout)
    s, z = skip["results"][0], zero["results"][0]
    assert s["provenance"]["queries"]["missing_from_run"] == 1
    assert s["provenance"]["per_measure"][s["measures"][0]]["scored"] == 14
    assert z["provenance"]["per_measure"][z["measures"][0]]["scored"] == 15
    assert z["aggregate"][z["measures"][0]] == pytest.approx(s["aggregate"][s["measures"][0]] * 14 / 15)


def test_measures_command_lists_every_family_and_parameter():
    from judged.measures import all_families

    result = run_cli("measures")
    assert result.exit_code == 0
    for fam in all_families():
        assert f"### {fam.name}" in result.output
    for param in ("gain", "rel", "ideal", "unjudged", "ties", "norel"):
        assert f"| `{param}` |" in result.output


def test_every_command_has_help():
    names = main.list_commands(None)
    assert {"eval", "compare", "report", "agreement", "pool", "freeze", "serve"} <= set(names)
    for command in names:
        result = run_cli(command, "--help")
        assert result.exit_code == 0 and "Usage:" in result.output
        assert main.get_command(None, command).help


def test_tsv_values_read_back_to_the_same_floats(files):
    import judged
    from judged.render import render_tsv

    result = judged.evaluate(files["runs"][2], files["qrels"], ["nDCG(gain=exp)@10", "AP"])
    lines = render_tsv([result]).splitlines()[1:]
    for line in lines:
        _run, qid, measure, value = line.split("\t")
        assert float(value) == result.value(measure, None if qid == "all" else qid)
    assert len(lines) == 2 * 15 + 2


def test_judged_at_k_beside_ndcg_and_unjudged_warning(files):
    result = CliRunner().invoke(main, ["eval", *map(str, files["runs"]), "--qrels", str(files["qrels"]),
                                       "-m", "nDCG@10", "-f", "tsv"])
    assert result.exit_code == 0
    assert "\tall\tJudged@10\t" in result.stdout
    assert "warning: naive: 28.7% of the top 10 is unjudged (threshold 10%)" in result.stderr
    assert "warning: bm25" not in result.stderr
    quiet = CliRunner().invoke(main, ["eval", str(files["runs"][2]), "--qrels", str(files["qrels"]), "-m", "nDCG@10",
                                      "-f", "tsv", "--no-judged", "--unjudged-threshold", "0.5"])
    assert "Judged@10" not in quiet.stdout and "warning" not in quiet.stderr


def test_preset_maps_measures_and_refuses_what_the_library_lacks(files):
    ok = CliRunner().invoke(main, ["eval", str(files["runs"][2]), "--qrels", str(files["qrels"]), "-m", "nDCG@10",
                                   "--preset", "sklearn", "-f", "json"])
    assert ok.exit_code == 0, ok.output
    record = json.loads(ok.stdout)["results"][0]
    assert record["measures"] == ["nDCG(gain=linear,ideal=returned,unjudged=zero,ties=average,norel=0)@10"]
    refused = CliRunner().invoke(main, ["eval", str(files["runs"][2]), "--qrels", str(files["qrels"]), "-m", "P@5",
                                        "--preset", "sklearn"])
    assert refused.exit_code == 2 and "preset 'sklearn' cannot reproduce" in refused.output
    unknown = CliRunner().invoke(main, ["eval", str(files["runs"][2]), "--qrels", str(files["qrels"]),
                                        "--preset", "rnax"])
    assert unknown.exit_code == 2 and "Did you mean 'ranx'" in unknown.output


def test_runs_with_the_same_name_are_told_apart(files, tmp_path):
    copy = tmp_path / "copy.run"
    copy.write_text(files["runs"][0].read_text())
    result = run_cli("eval", files["runs"][0], copy, "--qrels", files["qrels"], "-m", "AP", "-f", "json")
    names = [r["run"] for r in json.loads(result.stdout)["results"]]
    assert names == [f"bm25 ({files['runs'][0]})", f"bm25 ({copy})"]
