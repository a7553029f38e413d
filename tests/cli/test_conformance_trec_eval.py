"""trec_eval's own test suite (tests/data/trec_eval, copied from trec_eval v10.0): our trec_eval format must equal its
expected output, byte for byte, on every line of a measure judged implements.

The expected files also hold measures judged does not implement (runid, relstring, rbp,
...); those lines are filtered out, and the test checks that what remains is a
large, fixed number of lines, so the filter cannot silently empty the comparison.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.cli.trec_eval_command import TREC_EVAL_ORDER
from judged.measures import parse
from judged.measures.trec_names import to_trec_eval

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
OFFICIAL = ["NumRet", "NumRel", "NumRelRet", "AP", "Rprec", "Bpref", "RR"] + [f"P@{k}" for k in CUTS]


def all_trec(rel: int = 1) -> list[str]:
    r = f"(rel={rel})" if rel != 1 else ""
    return (
        ["NumRet", f"NumRel{r}", f"NumRelRet{r}", f"AP{r}", f"Rprec{r}", f"Bpref{r}", f"RR{r}", "nDCG"]
        + [f"P{r}", f"R{r}"]
        + [f"P{r}@{k}" for k in CUTS]
        + [f"R{r}@{k}" for k in CUTS]
        + [f"nDCG@{k}" for k in CUTS]
        + [f"AP{r}@{k}" for k in CUTS]
        + [f"Success{r}@{k}" for k in (1, 5, 10)]
        + trec_families(rel)
    )


RECALL_LEVELS = (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2)


def trec_families(rel: int = 1) -> list[str]:
    """The rest of -m all_trec that judged computes (relstring, runid and rbp aside).

    Per query 44 lines; num_q, gm_map and gm_bpref print in the summary only.
    """
    r = f"rel={rel}," if rel != 1 else ""
    plain = f"({r[:-1]})" if r else ""
    return (
        ["NumQ", f"GMAP{plain}", f"GMBpref{plain}", f"infAP{plain}", f"IPrec11pt{plain}", f"binG{plain}",
         f"SetAP{plain}", f"SetF{plain}", f"RelP{plain}", f"Utility{plain}", f"NumNonRelJudgedRet{plain}", "G",
         "nDCG_rel", f"Rndcg{plain}"]
        + [f"IPrec({r}recall={v})" for v in RECALL_LEVELS]
        + [f"Rprec_mult({r}mult={v})" for v in R_MULTIPLES]
        + [f"RelP{plain}@{k}" for k in CUTS]
        + [f"Unjudged@{k}" for k in (5, 10, 20)]
    )


MEAS_PARAMS = ["P@3", "P@5", "P@7", "R@20", "R@2000", "nDCG(gain={1:3,2:9,4:4.5})", "nDCG@10", "nDCG@20",
               "nDCG@23", "Success@2", "Success@5", "Success@20"] + [
    f"IPrec(recall={v})" for v in (0.1, 0.2, 0.25, 0.75, 0.5)] + [
    f"Rprec_mult(mult={v})" for v in (5, 0.2, 0.35)] + ["Utility(rel_ret=2,nonrel_ret=-1,rel_missed=0)"]

CASES = {
    # expected file: (qrels, run, measures, extra CLI options, per-query, expected line count)
    "out.test": ("qrels.test", "results.test", OFFICIAL, [], False, 16),
    "out.test#comments": ("qrels.test.with-comments", "results.test", OFFICIAL, [], False, 16),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", OFFICIAL, [], False, 16),
    "out.test.a": ("qrels.test", "results.test", all_trec(), [], False, 96),
    "out.test.aq": ("qrels.test", "results.test", all_trec(), [], True, 4 * 93 + 3),
    "out.test.aqc": ("qrels.test", "results.trunc", all_trec(), ["--missing", "zero"], True, 4 * 93 + 3),
    "out.test.aqcM": ("qrels.test", "results.trunc", all_trec(), ["--missing", "zero", "--depth", "100"], True,
                      4 * 93 + 3),
    "out.test.aql": ("qrels.rel_level", "results.test", all_trec(rel=2), [], True, 4 * 93 + 3),
    "out.test.meas_params": ("qrels.test", "results.test", MEAS_PARAMS, [], True, 4 * 21),
}


def expected_lines(path, names: set[str]) -> list[str]:
    lines = path.read_text().splitlines(keepends=True)
    return [line for line in lines if line.split("\t")[0].rstrip() in names]


@pytest.mark.parametrize("case", sorted(CASES))
def test_trec_eval_expected_output(conformance, case):
    qrels, run, measures, options, per_query, count = CASES[case]
    names = {to_trec_eval(parse(m)).printed for m in measures}
    expected = expected_lines(conformance / case.split("#")[0], names)
    args = ["eval", str(conformance / run), "--qrels", str(conformance / qrels), "--format", "trec_eval", *options]
    for m in measures:
        args += ["-m", m]
    if per_query:
        args.append("--per-query")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert len(expected) == count
    assert result.stdout == "".join(expected)


def test_comment_run_keeps_hash_inside_docids(conformance):
    """`#` starts a comment only at the start of a line: MS MARCO docids contain it."""
    from judged.io import read_run

    run = read_run(conformance / "results.comment.test")
    assert run.frame["docid"].str.contains("#").sum() > 0
    assert run.num_queries == 301


# ---- judged trec_eval: all 15 comparisons of trec_eval's quicktest, whole files byte for byte ----

MEAS_PARAMS_ARGS = ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000", "-m",
                    "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
                    "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"]

#: The quicktest: expected file and trec_eval's exact arguments (tests/data/trec_eval/README.md).
QUICKTEST = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"]),
    ("out.test.meas_params", [*MEAS_PARAMS_ARGS, "qrels.test", "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"]),
]

#: m_rbp.c reads uninitialised memory, so the expected rbp values belong to one build (README): only the
#: number of rbp lines is compared.
BUILD_DEPENDENT = {"rbp"}


def entry_of(line: str) -> str:
    """The trec_eval table entry a printed line belongs to (the longest entry its name starts with)."""
    name = line.split("\t")[0].rstrip().removeprefix("Z")
    fits = [e for e in TREC_EVAL_ORDER if name == e or name.startswith(e + "_")]
    assert fits, line
    return max(fits, key=len)


def test_entry_of_reads_the_longest_entry():
    assert [entry_of(f"{n}\tall\t1\n") for n in ("rbp_resid", "P_avgjg_5", "ndcg_cut_10", "Zmap", "ndcg_1=3")] == [
        "rbp_resid", "P_avgjg", "ndcg_cut", "map", "ndcg"]


def judged_trec_eval(arguments, conformance):
    files = {p.name for p in conformance.iterdir()}
    words = [str(conformance / w) if w in files else w for w in arguments]
    return CliRunner().invoke(main, ["trec_eval", *words])


@pytest.mark.parametrize(("expected", "arguments"), QUICKTEST, ids=[" ".join(a) for _, a in QUICKTEST])
def test_judged_trec_eval_quicktest(conformance, expected, arguments):
    result = judged_trec_eval(arguments, conformance)
    assert result.exit_code == 0, result.output
    ours = result.stdout.splitlines(keepends=True)
    theirs = (conformance / expected).read_text().splitlines(keepends=True)
    assert result.stderr == ""
    dependent = [[line for line in lines if entry_of(line) in BUILD_DEPENDENT] for lines in (ours, theirs)]
    assert len(dependent[0]) == len(dependent[1])
    assert [line for line in ours if entry_of(line) not in BUILD_DEPENDENT] == [
        line for line in theirs if entry_of(line) not in BUILD_DEPENDENT]
