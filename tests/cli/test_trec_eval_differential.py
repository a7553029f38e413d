"""`judged trec_eval` against a trec_eval 10 binary on generated collections, byte for byte.

Skipped without a binary (put trec_eval on PATH or set TREC_EVAL). Each seed draws a small collection with
ties, unjudged and pooled-but-unjudged documents, several judgment groups and preference sub-groups (consistent
by construction), and every format and option is compared: -q, -c, -J, -M, -l, -n, -Z, -R. The lines left out
are differences docs/trec_eval.md explains: rbp (build-dependent in trec_eval), rbp_resid (trec_eval drops the
tail when nothing retrieved is unjudged), num_rel's summary under -c with -l other than 1, unj under -J, and
the nan trec_eval prints where it divides 0 by 0 (judged: 0). Collections on
which trec_eval fails (a query whose grades are all negative) are not compared.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from judged.cli import main

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
pytestmark = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary (put it on PATH or set TREC_EVAL)")

NOT_COMPARED = ("rbp", "rbp_resid")

ARGUMENTS = [
    ("qrels", ["-q", "-m", "all_trec", "-c"]),
    ("qrels", ["-q", "-c", "-J", "-m", "map", "-m", "P", "-m", "ndcg", "-m", "bpref", "-m", "recip_rank",
               "-m", "relstring", "-m", "infAP", "-m", "Rprec_mult", "-m", "set_F", "-m", "ndcg_cut"]),
    ("qrels", ["-q", "-m", "all_trec", "-c", "-M3", "-l2"]),
    ("qrels", ["-q", "-m", "all_trec", "-J", "-M6"]),
    ("qrels", ["-q", "-n", "-m", "all_trec", "-Z", "zscores"]),
    ("prefs", ["-q", "-c", "-m", "all_prefs", "-R", "prefs"]),
    ("nonnegative", ["-q", "-c", "-M4", "-m", "all_prefs", "-R", "qrels_prefs"]),
    ("groups", ["-q", "-c", "-m", "qrels_jg", "-R", "qrels_jg"]),
    ("groups", ["-q", "-c", "-J", "-M5", "-l2", "-m", "qrels_jg", "-R", "qrels_jg"]),
]


def collection(seed: int, folder) -> None:
    """Write run, qrels (grades -1..3), nonnegative (the same, -1 as 0), groups (qrels_jg), prefs and zscores."""
    r = random.Random(seed)
    out = {name: [] for name in ("run", "qrels", "nonnegative", "groups", "prefs")}
    for q in range(r.randint(1, 4)):
        docs = [f"d{i}" for i in range(r.randint(2, 12))]
        for rank, d in enumerate(r.sample(docs, r.randint(1, len(docs)))):
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
                                    + "".join(f"q{q} zzz 0 1\n" for q in range(4)))


def compared(text: str, arguments: list[str]) -> list[str]:
    skip = "|".join(NOT_COMPARED)
    if "-J" in arguments:  # judged leaves unj out under -J (0 by construction) and says so
        skip += "|unj"
    pattern = re.compile(rf"Z?({skip})[ _]" + (r"|num_rel +\tall\t" if "-l2" in arguments else ""))
    return [line for line in text.splitlines() if not pattern.match(line)]


@pytest.mark.parametrize("seed", range(1, 26))
def test_judged_trec_eval_equals_trec_eval(tmp_path, seed):
    collection(seed, tmp_path)
    for judgments, arguments in ARGUMENTS:
        words = [str(tmp_path / w) if w == "zscores" else w for w in arguments]
        files = [str(tmp_path / judgments), str(tmp_path / "run")]
        theirs = subprocess.run([TREC_EVAL, *words, *files], capture_output=True, text=True)
        if "Can't calculate" in theirs.stderr:
            continue
        ours = CliRunner().invoke(main, ["trec_eval", *words, *files])
        mine, reference = compared(ours.stdout, arguments), compared(theirs.stdout, arguments)
        # where trec_eval divides 0 by 0 (-J leaving a query no judged document: iprec_at_recall, 11pt_avg) it
        # prints nan; judged prints 0 for the query, and the summaries of those measures then differ
        undefined = {line.split("\t")[0] for line in reference if line.endswith("nan")}
        for line in reference:
            if line.endswith("nan") and "\tall\t" not in line:
                assert line.rsplit("\t", 1)[0] + "\t0.0000" in mine
        assert (ours.exit_code, [x for x in mine if x.split("\t")[0] not in undefined]) == (
            theirs.returncode, [x for x in reference if x.split("\t")[0] not in undefined]), (arguments, judgments)
