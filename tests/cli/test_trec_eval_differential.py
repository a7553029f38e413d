"""`judged trec_eval` against a trec_eval 10 binary on generated collections, byte for byte.

Skipped without a binary (put trec_eval on PATH or set TREC_EVAL). Each seed draws a small collection with
ties, unjudged and pooled-but-unjudged documents, queries the run lacks, several judgment groups and preference
sub-groups (consistent by construction), and every format and option is compared: -q, -c, -J, -M, -l, -n, -Z,
-R, a run read from standard input, and exit 4 with the lines printed before it (a query whose grades are all
negative, a query the run lacks without -c). Only rbp's lines are left out: trec_eval's value depends on its
build (uninitialised memory, docs/trec_eval.md).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from judged.cli import main

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
pytestmark = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary (put it on PATH or set TREC_EVAL)")

NOT_COMPARED = ("rbp",)

ARGUMENTS = [
    ("qrels", ["-q", "-m", "all_trec", "-c"]),
    ("qrels", ["-q", "-c", "-J", "-m", "map", "-m", "P", "-m", "ndcg", "-m", "bpref", "-m", "recip_rank",
               "-m", "relstring", "-m", "infAP", "-m", "Rprec_mult", "-m", "set_F", "-m", "ndcg_cut"]),
    ("qrels", ["-q", "-m", "all_trec", "-c", "-M3", "-l2"]),
    ("qrels", ["-q", "-m", "all_trec", "-J", "-M6"]),
    ("qrels", ["-q", "-n", "-m", "all_trec", "-Z", "zscores"]),
    ("qrels", ["-q", "-c", "-m", "map", "-m", "gm_map", "-m", "gm_bpref", "-m", "P.5", "-m", "num_rel", "-Z",
               "zscores"]),
    ("qrels", ["-q", "-c", "-l2", "-m", "num_rel", "-m", "relstring.3", "-m", "unj", "-m", "rbp_resid",
               "-m", "utility.2,-1,-0.5,0"]),
    ("qrels", ["-q", "-J", "-c", "-m", "iprec_at_recall", "-m", "11pt_avg", "-m", "11pt_avg.0.5,1", "-m", "unj"]),
    ("qrels", ["-q", "-m", "official", "-m", "relstring"]),
    ("nonnegative", ["-q", "-m", "all_trec", "-M5", "-"]),
    ("prefs", ["-q", "-c", "-m", "all_prefs", "-R", "prefs"]),
    ("nonnegative", ["-q", "-c", "-M4", "-m", "all_prefs", "-R", "qrels_prefs"]),
    ("groups", ["-q", "-c", "-m", "qrels_jg", "-R", "qrels_jg"]),
    ("groups", ["-q", "-c", "-J", "-M5", "-l2", "-m", "qrels_jg", "-R", "qrels_jg"]),
]


def collection(seed: int, folder) -> None:
    """Write run (lacking a judged query at times), qrels (grades -1..3), nonnegative (the same, -1 as 0), groups
    (qrels_jg), prefs and zscores."""
    r = random.Random(seed)
    out = {name: [] for name in ("run", "qrels", "nonnegative", "groups", "prefs")}
    queries = r.randint(1, 4)
    lacking = {q for q in range(queries) if r.random() < 0.2} - {r.randrange(queries)}  # the run answers one
    for q in range(queries):
        docs = [f"d{i}" for i in range(r.randint(2, 12))]
        for rank, d in enumerate(r.sample(docs, r.randint(1, len(docs)))):
            if q not in lacking:
                out["run"].append(f"q{q} Q0 {d} {rank} {r.choice([1.0, 2.0, 3.0, r.random()])} tag")
        for d in r.sample(docs, r.randint(1, len(docs))):
            grade = r.choice([-1, 0, 0, 1, 2, 3])
            out["qrels"].append(f"q{q} 0 {d} {grade}")
            out["nonnegative"].append(f"q{q} 0 {d} {max(grade, 0)}")
        for g in range(r.randint(1, 3)):
            judged = r.sample(docs, r.randint(1, len(docs)))
            out["groups"] += [f"q{q} g{g} {d} {r.choice([-1, 0, 1, 2])}" for d in judged]
        for g in range(r.randint(1, 3)):
            hidden = {d: r.random() for d in docs}  # sub-groups of one hidden order cannot contradict each other
            for s in range(r.randint(1, 3)):
                for d in r.sample(docs, r.randint(2, len(docs))):
                    out["prefs"].append(f"q{q} u{g} s{s} {d} {0 if hidden[d] < 0.3 else round(hidden[d] * 10)}")
    for name, lines in out.items():
        (folder / name).write_text("".join(line + "\n" for line in lines))
    # every query's list ends with a name after all measure names: trec_eval's search reads one entry past it
    (folder / "zscores").write_text("q0 map 0.3 0.2\nq1 map 0.1 0\nq0 P_5 0.1 0.1\nq2 num_ret 5 2\n"
                                    "q0 gm_map -3 2\nq1 gm_map -1 0.5\nq2 gm_bpref -2 1\nq3 num_rel 1 1\n"
                                    + "".join(f"q{q} zzz 0 1\n" for q in range(4)))


def compared(text: str) -> list[str]:
    """The lines of ``text`` but those of :data:`NOT_COMPARED`."""
    pattern = re.compile(rf"Z?({'|'.join(NOT_COMPARED)})[ _]")
    return [line for line in text.splitlines() if not pattern.match(line)]


def judged_trec_eval(words: list[str], stdin: str | None) -> tuple[int, str, str]:
    """``judged trec_eval WORDS``'s exit status, stdout and stderr: through CliRunner, or in a process of its own
    when it reads standard input (CliRunner's has no file descriptor)."""
    if stdin is None:
        result = CliRunner().invoke(main, ["trec_eval", *words])
        return result.exit_code, result.stdout, result.stderr
    done = subprocess.run([sys.executable, "-c", "from judged.cli import main; main()", "trec_eval", *words],
                          capture_output=True, text=True, input=stdin)
    return done.returncode, done.stdout, done.stderr


def invocations(seed: int, folder) -> list[tuple[list[str], tuple[int, str, str], tuple[int, str, str]]]:
    """Each comparison of a seed: the words after the program, trec_eval's (status, stdout, stderr), judged's."""
    collection(seed, folder)
    out = []
    for judgments, arguments in ARGUMENTS:
        words = [str(folder / w) if w == "zscores" else w for w in arguments]
        stdin = (folder / "run").read_text() if words[-1] == "-" else None
        words = words + [str(folder / judgments)] + (["-"] if stdin is not None else [str(folder / "run")])
        if stdin is not None:
            words.remove("-")  # the "-" of ARGUMENTS moves to its place after the judgments
        theirs = subprocess.run([TREC_EVAL, *words], capture_output=True, text=True, input=stdin)
        out.append((words, (theirs.returncode, theirs.stdout, theirs.stderr), judged_trec_eval(words, stdin)))
    return out


@pytest.mark.parametrize("seed", range(1, 51))
def test_judged_trec_eval_equals_trec_eval(tmp_path, seed):
    for words, theirs, ours in invocations(seed, tmp_path):
        assert (ours[0], compared(ours[1])) == (theirs[0], compared(theirs[1])), (words, ours[2], theirs[2])
