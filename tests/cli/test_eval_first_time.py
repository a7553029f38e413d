"""What a trec_eval user types first works, and no option is silently overridden or destroys an input."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.presets import names as preset_names

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n"
RUN = "q1 Q0 a 1 2.0 t\nq1 Q0 x 2 1.0 t\n"  # q2 is judged and not answered


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_trec_eval_format_with_the_default_measures(files):
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "--format", "trec_eval")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].split() == ["map", "all", "1.0000"]  # q2 skipped, as trec_eval without -c
    assert "note: Judged@k is not reported beside nDCG@k: trec_eval format has no such measure" in result.stderr
    quiet = run_cli("eval", files / "run", "--qrels", files / "qrels", "--format", "trec_eval", "--no-judged")
    assert quiet.exit_code == 0 and "note" not in quiet.stderr
    table = run_cli("eval", files / "run", "--qrels", files / "qrels", "--no-judged", "-f", "tsv")
    assert "Judged" not in table.stdout


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_with_the_default_measures(files, preset):
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "--preset", preset)
    assert result.exit_code == 0, result.output
    assert "Judged@k is not reported" in result.stderr


def test_preset_keeps_an_explicit_missing_policy_its_library_can_apply(files):
    # trec_eval -c scores the unanswered q2 as 0: P@1 is (1 + 0) / 2
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "--preset", "trec_eval", "--missing", "zero",
                     "-m", "P@1", "-f", "trec_eval")
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == ["P_1", "all", "0.5000"]


@pytest.mark.parametrize(("args", "reason"), [
    (["--preset", "pytrec_eval", "--missing", "zero"], "preset 'pytrec_eval' cannot apply missing=zero"),
    (["--preset", "ir_measures", "--missing", "skip"], "preset 'ir_measures' cannot apply missing=skip"),
    (["--preset", "sklearn", "--norel", "1", "-m", "nDCG@10"], "norel=1: ndcg_score scores an all-zero row 0"),
])
def test_preset_refuses_what_its_library_cannot_apply(files, args, reason):
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", *args)
    assert result.exit_code == 2
    assert reason in result.stderr


def test_preset_refuses_a_missing_policy_pinned_in_the_config(files):
    (files / "judged.toml").write_text('[conventions]\nmissing = "zero"\n')
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "--preset", "pytrec_eval",
                     "--config", files / "judged.toml")
    assert result.exit_code == 2
    assert "cannot apply missing=zero" in result.stderr


@pytest.mark.parametrize(("measure", "reason"), [
    ("nDCG(gain={-1:2,1:1})", "a gain for a negative level applies to unjudged documents"),
    ("nDCG(gain={1:1.2,2:1.9})", "gains 1.2 and 1.9 compare equal there"),
    ("P(rel=-1)@5", "rel=-1 has no trec_eval equivalent"),
])
def test_trec_eval_format_refuses_what_trec_eval_computes_otherwise(files, measure, reason):
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "-f", "trec_eval", "-m", measure)
    assert result.exit_code == 2
    assert reason in result.stderr


def test_trec_eval_format_refuses_num_ret_beside_judged_only_measures(files):
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "-f", "trec_eval",
                     "-m", "NumRet", "-m", "P(unjudged=drop)@5")
    assert result.exit_code == 2
    assert "trec_eval's -J also drops unjudged documents from num_ret" in result.stderr


def test_a_gain_map_whose_integer_parts_differ_is_printed(files):
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "-f", "trec_eval",
                     "-m", "nDCG(gain={1:3,2:9,4:4.5})")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ndcg_1=3,2=9,4=4.5")


def test_output_never_destroys_an_input(files):
    before = (files / "run").read_text()
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "-o", files / "run")
    assert result.exit_code == 2
    assert "is one of the inputs" in result.stderr
    assert (files / "run").read_text() == before
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "-o", files / "qrels")
    assert result.exit_code == 2 and (files / "qrels").read_text() == QRELS


def test_output_into_a_missing_folder_is_one_line(files):
    result = run_cli("eval", files / "run", "--qrels", files / "qrels", "-o", files / "no" / "such" / "out.txt")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"Error: cannot write {files / 'no' / 'such' / 'out.txt'}: the folder {str(files / 'no' / 'such')!r} "
        "does not exist."]


def test_a_folder_given_as_a_run_is_a_data_error(files):
    result = run_cli("eval", files, "--qrels", files / "qrels")
    assert result.exit_code == 1
    assert "is a directory, not a file" in result.stderr


def test_many_runs_one_warning_and_a_short_table(files):
    runs = []
    for i in range(12):
        path = files / f"run{i:02d}"
        path.write_text(RUN.replace(" t\n", f" r{i:02d}\n"))
        runs.append(path)
    result = run_cli("eval", *runs, "--qrels", files / "qrels", "-m", "nDCG@10", "-f", "tsv")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0].startswith("warning: 12 of 12 runs have more than 10% of a top k unjudged; nDCG@k counts")
    assert lines[1].split() == ["r00", "top", "10", "50.0%", "unjudged"]
    assert len(lines) == 1 + 10 + 1 and lines[-1].startswith("  ... and 2 more")
    few = run_cli("eval", *runs[:2], "--qrels", files / "qrels", "-m", "nDCG@10", "-f", "tsv")
    assert [line.split(":")[0] for line in few.stderr.splitlines()] == ["warning", "warning"]


def test_a_preset_whose_library_orders_ties_arbitrarily_says_where_they_matter(files):
    (files / "tied").write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq1 Q0 x 3 1.0 t\nq2 Q0 c 1 1.0 t\n")
    result = run_cli("eval", files / "tied", "--qrels", files / "qrels", "--preset", "ranx", "-m", "nDCG@2",
                     "-m", "P@1")
    assert result.exit_code == 0, result.output
    assert ("note: t: tied scores straddle a cutoff in some queries (@2: 1 of 2); ranx orders tied scores "
            "arbitrarily, so its numbers for those queries can differ from these (ties=trec).") in result.stderr
    untied = run_cli("eval", files / "run", "--qrels", files / "qrels", "--preset", "ranx", "-m", "nDCG@2")
    assert "straddle" not in untied.stderr
    trec = run_cli("eval", files / "tied", "--qrels", files / "qrels", "--preset", "trec_eval", "-m", "nDCG@2")
    assert "straddle" not in trec.stderr


def test_unjudged_counts_follow_each_measures_own_ranking(tmp_path):
    """a, y and z tie; only a is judged. ties=best puts a first (1 of the top 2 unjudged), trec's docid-descending
    rule puts z and y first (2 of 2): the warning and the provenance count each measure's own top 2."""
    import json

    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 1.0 t\nq1 Q0 y 2 1.0 t\nq1 Q0 z 3 1.0 t\n")
    args = ("eval", tmp_path / "run", "--qrels", tmp_path / "qrels", "-m", "nDCG(ties=best)@2", "-m", "nDCG@2")
    result = run_cli(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)["results"][0]
    per_measure = record["provenance"]["per_measure"]
    best, trec = (per_measure[f"nDCG(gain=linear,ideal=judged,unjudged=zero,ties={t},norel=0)@2"]
                  for t in ("best", "trec"))
    assert (best["unjudged_in_top_k"], best["retrieved_in_top_k"]) == (1, 2)
    assert (trec["unjudged_in_top_k"], trec["retrieved_in_top_k"]) == (2, 2)
    assert record["provenance"]["unjudged_in_top_k"] == {"2": 2}  # the ranking with the most unjudged
    assert "100.0% of the top 2 is unjudged" in run_cli(*args).stderr
