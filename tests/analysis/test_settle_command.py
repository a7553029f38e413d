"""`judged settle` through click's CliRunner: the report, the pool file it writes and the store importing it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from judged.cli import main


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _runs(examples, *names):
    return [examples / "runs" / f"{n}.run" for n in names]


def test_the_examples_pool_settles_the_order(examples):
    result = run_cli("settle", *_runs(examples, "bm25", "dense", "naive"), "--qrels", examples / "qrels.txt",
                     "-m", "nDCG@10", "--pool", examples / "pool.tsv")
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    scope = ("whatever grades (0..3) the 17 unjudged documents of the given pool take, documents outside the pool "
             "taken as not relevant")
    assert f"order: dense > bm25 > naive (settled: proved {scope})" in said
    # the order's proof and the t-tests' verdicts are claims apart: bm25-naive's t-test can still change
    assert f"3 of 3 pairs settled, {scope}; 1 paired t-test verdict can still change" in said
    done = run_cli("settle", *_runs(examples, "bm25", "dense", "naive"), "--qrels", examples / "qrels.txt",
                   "-m", "nDCG@10", "--pool", examples / "pool.tsv", "-f", "json")
    assert json.loads(done.output)["claims"] == {"kind": "proved", "scope": scope}


def test_json_lists_pairs_with_per_query_ranges_and_the_next_documents(examples):
    result = run_cli("settle", *_runs(examples, "bm25", "naive"), "--qrels", examples / "qrels.txt",
                     "--next", "4", "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    (pair,) = document["pairs"]
    assert (pair["first"], pair["second"], pair["settled"]) == ("bm25", "naive", False)
    assert pair["min"] < 0 < pair["max"] and len(pair["per_query"]) == 15
    assert len(document["next"]) == 4 and all(n["impact"] > 0 for n in document["next"])
    assert document["stopping"]["fires"] is False
    assert document["stopping"]["could_matter"] <= document["stopping"]["unjudged"]


def test_the_pool_file_is_a_run_the_store_pools_exactly(examples, tmp_path):
    out, db = tmp_path / "next.run", tmp_path / "store.db"
    result = run_cli("settle", *_runs(examples, "bm25", "naive"), "--qrels", examples / "qrels.txt",
                     "--next", "6", "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    proposed = [(n["qid"], n["docid"]) for n in json.loads(result.stdout)["next"]]
    lines = out.read_text().splitlines()
    assert [tuple(line.split()[i] for i in (0, 2)) for line in lines] == proposed
    deepest = max(sum(q == qid for q, _ in proposed) for qid, _ in proposed)
    built = run_cli("pool", "build", out, "--depth", deepest, "--pool", "next", "--db", db)
    assert built.exit_code == 0, built.output
    shown = run_cli("pool", "show", "--pool", "next", "--db", db)
    assert sorted(tuple(line.split("\t")[:2]) for line in shown.output.splitlines()) == sorted(proposed)


def test_a_bad_pool_line_names_file_and_line(examples, tmp_path):
    pool = tmp_path / "pool.tsv"
    pool.write_text("q01\tapi/overview\tbm25\nq01 api/overview\n")
    result = run_cli("settle", *_runs(examples, "bm25", "dense"), "--qrels", examples / "qrels.txt",
                     "--pool", pool)
    assert result.exit_code == 1
    assert f"{pool}:2" in result.output and "qid<TAB>docid" in result.output


def test_bad_requests_exit_2(examples):
    runs = _runs(examples, "bm25", "dense")
    neither = run_cli("settle", *runs)
    assert neither.exit_code == 2 and "--qrels FILE or --judgments" in neither.output
    other = run_cli("settle", *runs, "--qrels", examples / "qrels.txt", "-m", "AP")
    assert other.exit_code == 2 and "not for AP" in other.output and "quadratic" in other.output


def test_a_frozen_set_from_the_store_gives_the_same_answer_and_is_named(examples, tmp_path):
    from judged.judgments import Store

    db = tmp_path / "store.db"
    with Store.open(str(db)) as store:
        store.import_qrels(examples / "qrels.txt", assessor="nist")
        store.freeze("nist")
    runs = _runs(examples, "bm25", "dense", "naive")
    result = run_cli("settle", *runs, "--judgments", "nist", "--db", db, "--pool", examples / "pool.tsv")
    assert result.exit_code == 0, result.output
    assert "order: dense > bm25 > naive (settled: proved whatever grades" in result.output
    assert "judgments: frozen set nist@1" in result.output


def test_any_family_with_exact_bounds_settles_from_the_command_line(examples, tmp_path):
    out = tmp_path / "next.run"
    result = run_cli("settle", *_runs(examples, "bm25", "dense", "naive"), "--qrels", examples / "qrels.txt",
                     "-m", "P@10", "--next", "5", "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)  # the report; stderr names the pool file written
    assert result.stderr == f"wrote {out} ({out.stat().st_size:,} bytes)\n"
    assert document["measure"] == "P(rel=1,unjudged=zero,ties=trec)@10"
    assert len(document["next"]) == 5 == len(out.read_text().splitlines())
    table = run_cli("settle", *_runs(examples, "bm25", "dense"), "--qrels", examples / "qrels.txt", "-m", "RR@10")
    assert table.exit_code == 0, table.output
    assert "runs: mean RR, with unjudged as 0" in " ".join(table.output.split())


def test_scaled_dcg_settles_the_examples_order_and_refuses_a_moving_scale(examples):
    """SDCG is linear in every gain (C/W/L weights fixed per rank): the examples pool settles it as it does nDCG."""
    import judged

    runs = _runs(examples, "bm25", "dense", "naive")
    result = run_cli("settle", *runs, "--qrels", examples / "qrels.txt", "-m", "SDCG(max_rel=3)@10",
                     "--pool", examples / "pool.tsv", "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["measure"] == "SDCG(gain=linear,unjudged=zero,ties=trec,max_rel=3)@10"
    assert (document["order"], document["order_settled"]) == (["dense", "bm25", "naive"], True)
    assert document["stopping"]["fires"] and document["stopping"]["unjudged"] == 17
    now = judged.evaluate(runs[0], examples / "qrels.txt", ["SDCG(max_rel=3)@10"]).aggregate
    bm25 = document["runs"][0]
    assert bm25["run"] == "bm25" and bm25["mean"] == pytest.approx(now[judged.parse("SDCG(max_rel=3)@10")])
    assert bm25["min"] <= bm25["mean"] <= bm25["max"]
    moving = run_cli("settle", *runs[:2], "--qrels", examples / "qrels.txt", "-m", "SDCG@10")
    assert moving.exit_code == 2 and "fixed max_rel" in moving.output
