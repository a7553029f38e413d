"""``judged eval --engine spark`` through click's CliRunner: Parquet out, the same summary as the local engine."""

from __future__ import annotations

import json

import polars as pl
import pytest
from click.testing import CliRunner

import judged
from judged.cli import main


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def files(examples):
    return {"runs": [examples / "runs" / f"{n}.run" for n in ("bm25", "naive")], "qrels": examples / "qrels.txt"}


def test_per_query_values_go_to_parquet_and_the_summary_to_stdout(spark, files, tmp_path):
    out = tmp_path / "values.parquet"
    out.mkdir()
    (out / "stale.parquet").write_text("what an earlier run left")
    measures = ["-m", "nDCG@10", "-m", "AP", "-m", "nDCG(ties=input)@5"]
    common = [*files["runs"], "--qrels", files["qrels"], *measures, "--missing", "zero", "--no-judged", "-f", "json"]
    result = run_cli("eval", *common, "--engine", "spark", "--master", "local[2]", "-o", out)
    assert result.exit_code == 0, result.output
    local = run_cli("eval", *common)
    mine, theirs = json.loads(result.stdout)["results"], json.loads(local.stdout)["results"]
    assert [r["run"] for r in mine] == [r["run"] for r in theirs] == ["bm25", "naive"]
    for spark_run, local_run in zip(mine, theirs):
        assert spark_run["aggregate"] == pytest.approx(local_run["aggregate"], abs=1e-12)
        assert spark_run["provenance"]["engine"]["master"] == "local[2]"
        for key in ("run", "qrels", "queries", "per_measure", "unjudged_in_top_k", "measures", "options"):
            assert spark_run["provenance"][key] == local_run["provenance"][key], key
    assert sorted(p.name for p in tmp_path.iterdir()) == ["values.parquet"]
    assert len(list(out.glob("*.parquet"))) == 1  # the stale file is gone; 150 values make one file
    written = pl.read_parquet(out / "*.parquet").sort("run", "qid", "measure")
    expected = pl.concat([judged.evaluate(path, files["qrels"], measures[1::2], missing="zero").per_query()
                          for path in files["runs"]]).sort("run", "qid", "measure")
    assert written.select("run", "qid", "measure").equals(expected.select("run", "qid", "measure"))
    assert (written["value"] - expected["value"]).abs().max() < 1e-12


def test_a_bad_run_exits_1_and_leaves_the_output_alone(spark, files, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q01 Q0 d 1 2.0 t\nq01 Q0 e 2 oops t\n")
    out = tmp_path / "values.parquet"
    result = run_cli("eval", bad, "--qrels", files["qrels"], "--engine", "spark", "--master", "local[2]", "-o", out)
    assert result.exit_code == 1
    assert f"Error: {bad}:2: score is not a number: 'q01 Q0 e 2 oops t'" in result.output
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


@pytest.mark.parametrize("args, message", [
    (["--master", "local[2]"], "--master names a Spark master; it needs --engine spark."),
    (["--engine", "spark", "--per-query"], "with --engine spark they go to a Parquet dataset with -o"),
])
def test_requests_the_spark_engine_cannot_honour_exit_2(spark, files, args, message):
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], *args)
    assert result.exit_code == 2
    assert message in result.output


def test_the_local_engine_still_refuses_a_folder_as_output(files, tmp_path):
    result = run_cli("eval", files["runs"][0], "--qrels", files["qrels"], "-o", tmp_path)
    assert result.exit_code == 2
    assert f"Invalid value for '--output' / '-o': File {str(tmp_path)!r} is a directory." in result.output
