"""trec_eval's own test suite (tests/data/trec_eval, copied from trec_eval v10.0): our trec_eval format must equal its
expected output, byte for byte, on every line of a measure judged implements.

The expected files also hold measures judged does not implement (runid, relstring, G,
ndcg_rel, Rndcg, rbp, ...); those lines are filtered out, and the test checks that what remains is a
large, fixed number of lines, so the filter cannot silently empty the comparison.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from judged.cli import main
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
    """The rest of -m all_trec that judged computes (relstring, runid, G, ndcg_rel, Rndcg, rbp aside).

    Per query 41 lines; num_q, gm_map and gm_bpref print in the summary only.
    """
    r = f"rel={rel}," if rel != 1 else ""
    plain = f"({r[:-1]})" if r else ""
    return (
        ["NumQ", f"GMAP{plain}", f"GMBpref{plain}", f"infAP{plain}", f"IPrec11pt{plain}", f"binG{plain}",
         f"SetAP{plain}", f"SetF{plain}", f"RelP{plain}", f"Utility{plain}", f"NumNonRelJudgedRet{plain}"]
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
    "out.test.a": ("qrels.test", "results.test", all_trec(), [], False, 93),
    "out.test.aq": ("qrels.test", "results.test", all_trec(), [], True, 4 * 90 + 3),
    "out.test.aqc": ("qrels.test", "results.trunc", all_trec(), ["--missing", "zero"], True, 4 * 90 + 3),
    "out.test.aqcM": ("qrels.test", "results.trunc", all_trec(), ["--missing", "zero", "--depth", "100"], True,
                      4 * 90 + 3),
    "out.test.aql": ("qrels.rel_level", "results.test", all_trec(rel=2), [], True, 4 * 90 + 3),
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
