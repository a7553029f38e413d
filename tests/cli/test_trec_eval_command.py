"""`judged trec_eval` through click's CliRunner: trec_eval's option rules, its exit codes and messages, -n, -Z, -J, -c.

The byte-for-byte comparisons with trec_eval's own expected outputs are in tests/cli/test_conformance_trec_eval.py;
here each option is checked on a collection small enough to work out by hand.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from click.testing import CliRunner

from judged.cli import main


def run_cli(*args):
    return CliRunner().invoke(main, ["trec_eval", *[str(a) for a in args]])


@pytest.fixture
def files(tmp_path):
    """q1: the run ranks u (unjudged), b (relevant), c (non-relevant); q2 is judged but not in the run."""
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 b 1\nq1 0 c 0\nq1 0 d 1\nq2 0 x 1\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 u 1 3 tagA\nq1 Q0 b 2 2 tagA\nq1 Q0 c 3 1 tagA\n")
    answered = tmp_path / "qrels1"
    answered.write_text("q1 0 b 1\nq1 0 c 0\nq1 0 d 1\n")
    return {"qrels": qrels, "run": run, "answered": answered, "dir": tmp_path}


def lines(output):
    return [line.split("\t") for line in output.splitlines()]


def test_per_query_and_summary_in_trec_eval_layout(files):
    result = run_cli("-q", "-m", "map", "-mP.5", files["answered"], files["run"])
    assert result.exit_code == 0, result.output
    # b at rank 2 is the one relevant document found of R = 2: AP = (1/2) / 2 = 0.25; P_5 = 1/5
    assert result.stdout == ("map                   \tq1\t0.2500\nP_5                   \tq1\t0.2000\n"
                             "map                   \tall\t0.2500\nP_5                   \tall\t0.2000\n")


def test_measures_print_in_trec_eval_table_order_whatever_the_command_line_order(files):
    result = run_cli("-m", "recip_rank", "-m", "runid", "-m", "P.10,5", "-m", "num_q", files["answered"], files["run"])
    assert [row[0].rstrip() for row in lines(result.stdout)] == ["runid", "num_q", "recip_rank", "P_5", "P_10"]
    assert lines(result.stdout)[0] == ["runid                 ", "all", "tagA"]


def test_nosummary_prints_only_per_query_lines(files):
    both = run_cli("-q", "-m", "map", files["answered"], files["run"]).stdout
    assert run_cli("-q", "-n", "-m", "map", files["answered"], files["run"]).stdout == both.splitlines(True)[0]
    assert run_cli("-n", "-m", "map", files["answered"], files["run"]).stdout == ""
    assert run_cli("--nosummary", "--query_eval_wanted", "--meas=map", files["answered"], files["run"]).stdout == (
        both.splitlines(True)[0])


def test_judged_only_drops_unjudged_documents_before_ranking(files):
    plain = dict((r[0].rstrip(), r[2]) for r in lines(run_cli("-m", "map", "-m", "recip_rank", "-m", "relstring",
                                                              "-q", files["answered"], files["run"]).stdout))
    judged = dict((r[0].rstrip(), r[2]) for r in lines(run_cli("-J", "-m", "map", "-m", "recip_rank", "-m",
                                                               "relstring", "-q", files["answered"],
                                                               files["run"]).stdout))
    # without -J: u (unjudged, '-') is rank 1, b rank 2: RR 1/2, AP (1/2)/2; with -J b is rank 1: RR 1, AP 1/2
    assert (plain["recip_rank"], plain["map"], plain["relstring"]) == ("0.5000", "0.2500", "'-10'")
    assert (judged["recip_rank"], judged["map"], judged["relstring"]) == ("1.0000", "0.5000", "'10'")


def test_zscores_use_the_file_and_mark_what_it_lacks(files):
    zscores = files["dir"] / "z"
    zscores.write_text("q1 map 0.15 0.05\nq1 P_5 0.2 0\n")
    result = run_cli("-q", "-Z", zscores, "-m", "map", "-m", "P.5,10", "-m", "runid", files["answered"], files["run"])
    assert result.exit_code == 0, result.output
    got = {(r[0].rstrip(), r[1]): r[2] for r in lines(result.stdout)}
    assert got[("Zmap", "q1")] == "2.0000"  # (0.25 - 0.15) / 0.05
    assert got[("ZP_5", "q1")] == "0.0000"  # deviation 0 at the mean
    assert got[("ZP_10", "q1")] == "-1000000.0000"  # not in the file
    assert got[("runid", "all")] == "tagA"  # strings stay strings


def test_complete_scores_missing_queries_zero_and_without_it_exits_4(files):
    result = run_cli("-q", "-m", "map", files["qrels"], files["run"])
    assert result.exit_code == 4
    assert "judged query 'q2' has no results in the run" in result.stderr
    complete = run_cli("-q", "-c", "-m", "map", "-m", "num_q", "-m", "relstring", files["qrels"], files["run"])
    got = {(r[0].rstrip(), r[1]): r[2] for r in lines(complete.stdout)}
    assert (got[("map", "q2")], got[("relstring", "q2")], got[("num_q", "all")]) == ("0.0000", "''", "2")
    assert got[("map", "all")] == "0.1250"  # (0.25 + 0) / 2


def test_max_retrieved_keeps_the_first_documents(files):
    result = run_cli("-M1", "-m", "num_ret", "-m", "recip_rank", files["answered"], files["run"])
    assert [r[2] for r in lines(result.stdout)] == ["1", "0.0000"]  # only u, unjudged


@pytest.mark.parametrize(("arguments", "message"), [
    (["-x"], "invalid option -- 'x'"),
    (["--frobnicate"], "unrecognized option '--frobnicate'"),
    (["--R", "prefs"], "option '--R' is ambiguous"),
    (["-m"], "option requires an argument -- 'm'"),
    (["-Mabc"], "-M needs an integer (the number of documents kept per query, as in -M100). Got 'abc'."),
    (["-M", "0"], "-M needs an integer >= 1"),
    (["-l", "two"], "-l needs an integer"),
])
def test_command_line_errors_print_usage_and_exit_1(files, arguments, message):
    result = run_cli(files["answered"], files["run"], *arguments)  # options may follow the files
    assert result.exit_code == 1
    assert message in result.stderr
    assert "Usage: judged trec_eval" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(("measure", "message"), [
    ("frobnicate", "illegal measure 'frobnicate'"),
    ("P.", "improper measure in parameter 'P'"),
    ("P.0", "illegal measure 'P.0'"),
    ("prefs_simp.3", "illegal measure"),
    ("relstring.abc", "illegal measure 'relstring.abc': its parameter is the length of the string"),
    ("relstring.inf", "illegal measure 'relstring.inf': its parameter is the length of the string"),
])
def test_illegal_measures_exit_1(files, measure, message):
    result = run_cli("-m", measure, "-R", "prefs" if measure.startswith("prefs") else "qrels", files["answered"],
                     files["run"])
    assert result.exit_code == 1
    assert message in result.stderr


def test_wrong_number_of_files_prints_usage(files):
    result = run_cli("-q", files["answered"])
    assert result.exit_code == 1
    assert "expected 2 file names" in result.stderr and "Usage:" in result.stderr


def test_a_missing_file_is_an_input_error_exit_2(files):
    result = run_cli("-m", "map", files["dir"] / "nope", files["run"])
    assert result.exit_code == 2
    assert f"{files['dir'] / 'nope'}: no such file" in result.stderr
    assert f"Quit in file '{files['dir'] / 'nope'}'" in result.stderr


def test_files_are_read_as_trec_text_whatever_their_names(files):
    """trec_eval reads its two files as TREC text: a run named .json or qrels named .csv are not JSON or CSV."""
    qrels, run = files["dir"] / "qrels.csv", files["dir"] / "run.json"
    qrels.write_text(files["answered"].read_text())
    run.write_text(files["run"].read_text())
    result = run_cli("-m", "map", qrels, run)
    assert result.exit_code == 0, result.output
    assert result.stdout == "map                   \tall\t0.2500\n"


def test_a_bad_line_names_file_and_line(files):
    bad = files["dir"] / "bad"
    bad.write_text("q1 0 b 1\nq1 0 c high\n")
    result = run_cli("-m", "map", bad, files["run"])
    assert result.exit_code == 2
    assert f"{bad}:2: grade is not an integer: 'q1 0 c high'" in result.stderr


@pytest.mark.parametrize(("arguments", "status", "message"), [
    (["-R", "qrels_xyz"], 2, "Illegal rel_format 'qrels_xyz'"),
    (["-T", "other"], 2, "Illegal retrieval results format 'other'"),
    (["-R", "prefs", "-m", "map"], 4, "measure 'map' needs -R qrels judgments, not -R prefs"),
    (["-m", "all_prefs"], 4, "needs -R prefs judgments"),
    (["-D", "1"], 1, "-D (debug output) is not supported"),
])
def test_formats_and_measures_that_do_not_fit(files, arguments, status, message):
    result = run_cli(*arguments, files["answered"], files["run"])
    assert result.exit_code == status
    assert message in result.stderr


def test_unj_under_judged_only_is_printed_zero_as_trec_eval_prints_it(files):
    """-J removes every unjudged document before unj counts them: 0, through a nickname or named."""
    result = run_cli("-J", "-m", "all_trec", files["answered"], files["run"])
    assert result.exit_code == 0 and result.stderr == ""
    got = {row[0].rstrip(): row[2] for row in lines(result.stdout)}
    assert (got["unj_5"], got["unj_10"], got["unj_20"]) == ("0.0000", "0.0000", "0.0000")
    assert [row[0].rstrip() for row in lines(result.stdout)][-3:] == ["unj_5", "unj_10", "unj_20"]  # table order
    assert got["num_ret"] == "2"  # under -J: the judged b and c
    named = run_cli("-J", "-m", "unj", files["answered"], files["run"])
    assert named.exit_code == 0 and [row[2] for row in lines(named.stdout)] == ["0.0000"] * 3
    ideal = run_cli("-m", "ideal_dcg", files["answered"], files["run"])  # computed (IDCG), no longer refused
    assert ideal.exit_code == 0 and [row[0].strip() for row in lines(ideal.stdout)] == ["ideal_dcg"]


def test_version_and_help(files):
    version = run_cli("-v")
    assert version.exit_code == 0 and version.stderr.startswith("trec_eval version 10.0 (judged ")
    shown = run_cli("-h")
    assert shown.exit_code == 0
    assert "Usage: judged trec_eval" in shown.stdout and "all_trec:" in shown.stdout
    assert "--judged-definitions" in shown.stdout  # judged's one option of its own, documented in -h


def test_options_after_the_files_and_double_dash(files):
    result = run_cli(files["answered"], files["run"], "-m", "map")
    assert lines(result.stdout) == [["map                   ", "all", "0.2500"]]
    dashed = files["dir"] / "-run"
    dashed.write_text(files["run"].read_text())
    result = run_cli("-m", "map", "--", files["answered"], dashed)
    assert lines(result.stdout) == [["map                   ", "all", "0.2500"]]


def test_preferences_worked_example(files):
    """One user prefers a > b > c (one sub-group); the run ranks b, a and never retrieves c.

    a>b: both retrieved, broken; a>c, b>c: implied, fulfilled. prefs_simp = 2/3,
    prefs_simp_ret = 0/1, prefs_simp_imp = 2/3 (no preference has neither retrieved)."""
    prefs = files["dir"] / "prefs"
    prefs.write_text("q1 u1 s1 a 2\nq1 u1 s1 b 1\nq1 u1 s1 c 0\n")
    run = files["dir"] / "prun"
    run.write_text("q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\n")
    result = run_cli("-R", "prefs", "-m", "all_prefs", "-q", prefs, run)
    assert result.exit_code == 0, result.output
    got = {r[0].rstrip(): r[2] for r in lines(result.stdout) if r[1] == "q1"}
    assert (got["prefs_num_prefs_poss"], got["prefs_num_prefs_ful"], got["prefs_num_prefs_ful_ret"]) == ("3", "2", "0")
    assert (got["prefs_simp"], got["prefs_simp_ret"], got["prefs_simp_imp"]) == ("0.6667", "0.0000", "0.6667")
    # R = 2 relevant (a, b) >= N = 1 non-relevant: (2 + rel_ret 2 * (2 - 1)) / (3 + R 2 * (2 - 1)) = 4/5
    assert got["prefs_avgjg_Rnonrel"] == "0.8000"


def test_fractional_gains_order_the_ideal_list_by_the_exact_gain(files):
    """trec_eval compares gains through an int (0.5, 0.7 and 0.9 all compare as 0), judged by value."""
    qrels, run = files["dir"] / "graded", files["dir"] / "grun"
    qrels.write_text("q1 0 a 1\nq1 0 b 2\nq1 0 c 3\n")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\n")
    result = run_cli("-m", "ndcg.1=0.5,2=0.7,3=0.9", qrels, run)
    dcg = 0.5 + 0.7 / math.log2(3) + 0.9 / 2
    ideal = 0.9 + 0.7 / math.log2(3) + 0.5 / 2
    assert lines(result.stdout) == [["ndcg_1=0.5,2=0.7,3=0.9", "all", f"{dcg / ideal:6.4f}"]]  # 0.8743


def test_a_first_query_whose_grades_are_all_negative_stops_as_trec_eval_stops(files):
    """trec_eval sizes its buffer of grade counts by the top grade + 1: for a first query graded only below 0 it is
    never allocated and trec_eval stops ("Can't calculate measure", exit 4); judged's definitions score it."""
    qrels, run = files["dir"] / "pooled", files["dir"] / "prun"
    qrels.write_text("q1 0 a -1\nq1 0 b -2\nq2 0 c 1\n")
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq2 Q0 c 1 3 t\n")
    stopped = run_cli("-q", "-m", "map", qrels, run)
    assert (stopped.exit_code, stopped.stdout) == (4, "")
    assert "judged query 'q1' has no grade >= 0" in stopped.stderr
    result = run_cli("--judged-definitions", "-q", "-m", "map", "-m", "ndcg", "-m", "relstring", qrels, run)
    assert result.exit_code == 0, result.output
    got = {(r[0].rstrip(), r[1]): r[2] for r in lines(result.stdout)}
    assert (got[("map", "q1")], got[("ndcg", "q1")], got[("relstring", "q1")]) == ("0.0000", "0.0000", "'..'")
    assert got[("map", "all")] == "0.5000"  # (0 + 1) / 2


def test_a_later_query_whose_grades_are_all_negative_scores_like_one_without_relevant_documents(files):
    """After a first query with a grade >= 0, trec_eval reuses its buffer and scores such a query 0."""
    qrels, run = files["dir"] / "pooled", files["dir"] / "prun"
    qrels.write_text("q0 0 a 1\nq1 0 a -1\nq1 0 b -1\n")
    run.write_text("q0 Q0 a 1 3 t\nq1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\n")
    result = run_cli("-q", "-m", "map", "-m", "relstring", qrels, run)
    assert [(r[0].rstrip(), r[1], r[2]) for r in lines(result.stdout)] == [
        ("map", "q0", "1.0000"), ("relstring", "q0", "'1'"), ("map", "q1", "0.0000"), ("relstring", "q1", "'..'"),
        ("map", "all", "0.5000")]


def test_exit_4_prints_the_lines_of_the_queries_before(files):
    """Without -c trec_eval stops at the first judged query the run lacks, after printing the queries before it."""
    qrels = files["dir"] / "three"
    qrels.write_text("q1 0 b 1\nq2 0 x 1\nq3 0 b 1\n")
    result = run_cli("-q", "-m", "map", "-m", "P.5", qrels, files["run"])
    assert result.exit_code == 4
    assert result.stdout == "map                   \tq1\t0.5000\nP_5                   \tq1\t0.2000\n"  # b at rank 2
    assert "judged query 'q2' has no results in the run" in result.stderr
    assert run_cli("-m", "map", qrels, files["run"]).stdout == ""  # no -q: nothing before the summary


def test_rbp_resid_without_an_unjudged_document_and_judged_definitions(files):
    """m_rbp_resid.c adds the residual only when a retrieved document is unjudged: one judged document retrieved
    prints 0. judged's definition keeps the weight of the ranks after it, p^1 = 0.9 (Moffat & Zobel's residual);
    with u unjudged at rank 1 of 3 both are p^3 + (1 - p) p^0 = 0.729 + 0.1."""
    qrels, run = files["dir"] / "one", files["dir"] / "onerun"
    qrels.write_text("q1 0 b 1\n")
    run.write_text("q1 Q0 b 1 3 t\n")
    assert lines(run_cli("-m", "rbp_resid", qrels, run).stdout) == [["rbp_resid             ", "all", "0.0000"]]
    corrected = run_cli("--judged-definitions", "-m", "rbp_resid", qrels, run)
    assert lines(corrected.stdout) == [["rbp_resid             ", "all", "0.9000"]]
    for flags in ([], ["--judged-def"]):  # a long option may be abbreviated
        both = run_cli(*flags, "-m", "rbp_resid", files["answered"], files["run"])
        assert lines(both.stdout) == [["rbp_resid             ", "all", "0.8290"]]


def test_judged_only_0_by_0_is_nan_as_trec_eval_prints_it(files):
    """-J leaves q1 of this run nothing judged: iprec_at_recall starts from precision 0 / 0, which stays at recall
    0 (met at rank lround(0 R) = 0) and makes 11pt_avg and both summaries -nan; judged's definitions print 0."""
    run = files["dir"] / "unjudged"
    run.write_text("q1 Q0 u 1 3 t\n")
    words = ["-q", "-J", "-m", "iprec_at_recall.0,0.5", "-m", "11pt_avg", files["answered"], run]
    assert [r[2] for r in lines(run_cli(*words).stdout)] == ["  -nan", "0.0000", "  -nan", "  -nan", "0.0000",
                                                              "  -nan"]
    assert [r[2] for r in lines(run_cli("--judged-definitions", *words).stdout)] == ["0.0000"] * 6


def test_num_rel_summary_under_complete_counts_grades_above_0(files):
    """m_num_rel.c recounts the -c summary from the judgments of grade > 0 whatever -l says."""
    qrels = files["dir"] / "graded"
    qrels.write_text("q1 0 b 2\nq1 0 c 1\nq2 0 x 1\n")
    words = ["-q", "-c", "-l2", "-m", "num_rel", qrels, files["run"]]
    assert [r[2] for r in lines(run_cli(*words).stdout)] == ["1", "0", "3"]
    assert [r[2] for r in lines(run_cli("--judged-definitions", *words).stdout)] == ["1", "0", "1"]


def test_zscores_of_gm_map_are_of_its_logarithm(files):
    """trec_eval accumulates gm_map as log(max(AP, 1e-5)) and z-scores that, then prints exp of the mean."""
    zscores = files["dir"] / "z"
    zscores.write_text("q1 gm_map -1 0.5\n")
    result = run_cli("-Z", zscores, "-m", "gm_map", files["answered"], files["run"])
    assert lines(result.stdout) == [["Zgm_map                ", "all", f"{math.exp((math.log(0.25) + 1) / 0.5):6.4f}"]]


def test_a_run_read_from_standard_input(files):
    """trec_eval's results file ``-`` is standard input."""
    words = ["trec_eval", "-q", "-m", "map", str(files["answered"]), "-"]
    done = subprocess.run([sys.executable, "-c", "from judged.cli import main; main()", *words],
                          input=files["run"].read_text(), capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, run_cli(*words[1:-1], files["run"]).stdout)


def test_complete_keeps_the_stand_in_document_where_trec_eval_does(files):
    """For q2, which the run lacks, trec_eval -c scores a stand-in ranking of one document not in the judgments and
    resets the values printed relstring, utility, num_ret, rbp_resid and unj*: relstring_3 and utility_2,-1,0,0
    keep it ('-', and -1 for one non-relevant document retrieved); under -J it is dropped."""
    words = ["-q", "-c", "-m", "relstring.3", "-m", "utility.2,-1,0,0", files["qrels"], files["run"]]
    got = {(r[0].rstrip(), r[1]): r[2] for r in lines(run_cli(*words).stdout)}
    assert (got[("relstring_3", "q2")], got[("utility_2,-1,0,0", "q2")]) == ("'-'", "-1.0000")
    judged = {(r[0].rstrip(), r[1]): r[2] for r in lines(run_cli("-J", *words).stdout)}
    assert (judged[("relstring_3", "q2")], judged[("utility_2,-1,0,0", "q2")]) == ("''", "0.0000")
