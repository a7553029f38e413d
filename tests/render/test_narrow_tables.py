"""At 80 columns, compare, eval and explain --vs stay readable: no number cut short, no column dropped."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import judged
from judged.cli import main
from judged.render import render_table

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUNS = [str(EXAMPLES / "runs" / f"{n}.run") for n in ("bm25", "dense", "naive")]
QRELS = str(EXAMPLES / "qrels.txt")
NDCG = "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10"


def _widest(text: str) -> int:
    return max(len(line.rstrip()) for line in text.splitlines())


@pytest.mark.parametrize("width", [80, 150])
def test_compare_keeps_every_number_whole(width, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    out = CliRunner().invoke(main, ["compare", *RUNS, "-q", QRELS, "--risk-alpha", "1", "--permutations", "99",
                                    "--resamples", "99"]).stdout
    assert "…" not in out and _widest(out) <= width
    assert NDCG in out.splitlines()  # the canonical name on a line of its own
    for cell in ("[+0.", "13/1/1", "0.9166", "+3.91", "p (Holm)", "URisk (a=1)"):
        assert cell in out, cell
    tables = out.count("┏")
    assert tables == (2 if width == 80 else 1)  # split in two at 80 columns, one table when it fits


def test_eval_labels_the_measures_when_the_runs_take_the_room():
    result = judged.evaluate(RUNS[0], QRELS, ["nDCG@10", "R@100"])
    many = [replace(result, run=f"system-{i}") for i in range(5)]
    text = render_table(many, width=80)
    assert "…" not in text and _widest(text) <= 80
    assert f"m1 = {NDCG}" in text.splitlines() and "0.7622" in text
    assert "m2 = R(rel=1,unjudged=zero,ties=trec,norel=0)@100" in text
    few = render_table(many[:2], width=80)
    assert "m1 =" not in few and "nDCG(gain=linear" in few and "…" not in few


def test_explain_vs_stacks_the_rankings_when_they_do_not_fit(monkeypatch):
    args = ["explain", RUNS[0], "-q", QRELS, "--query", "q01", "--vs", RUNS[1]]
    monkeypatch.setenv("COLUMNS", "80")
    narrow = CliRunner().invoke(main, args).stdout
    assert "ranking of bm25" in narrow and "ranking of dense" in narrow and "…" not in narrow
    assert _widest(narrow) <= 80
    for table in narrow.split("ranking of ")[1:]:
        assert "running" in table and "contribut" in table and "grade" in table  # no column dropped
    monkeypatch.setenv("COLUMNS", "400")
    wide = CliRunner().invoke(main, args).stdout
    assert "ranking of" not in wide and "docid (bm25)" in wide and "docid (dense)" in wide


def test_sensitivity_stacks_the_runs_at_80_columns_and_keeps_every_number(monkeypatch):
    args = ["sensitivity", *RUNS, "-q", QRELS, "-m", "nDCG@10"]
    monkeypatch.setenv("COLUMNS", "80")
    narrow = CliRunner().invoke(main, args).stdout
    assert "…" not in narrow and _widest(narrow) <= 80
    assert narrow.count("┏") == 3 and "0.8662" in narrow and "+0.0155" in narrow  # one table per run
    monkeypatch.setenv("COLUMNS", "200")
    wide = CliRunner().invoke(main, args).stdout
    assert wide.count("┏") == 1 and "…" not in wide


def test_in_a_pipe_prose_is_one_line_a_sentence(monkeypatch):
    """No terminal and no $COLUMNS: summary lines are not wrapped (grep sees each whole)."""
    monkeypatch.delenv("COLUMNS", raising=False)
    out = CliRunner().invoke(main, ["sensitivity", *RUNS, "-q", QRELS, "-m", "nDCG@10"]).stdout
    lines = out.splitlines()
    assert lines[0] == f"sensitivity of {NDCG} (missing=skip), 15 judged queries"
    (flag,) = [line for line in lines if line.startswith("can reach 1.0")]
    assert flag.endswith("ties=best (bm25 0, dense 0, naive 0)")


def test_store_tables_wrap_free_text_at_whole_words_and_never_cut_an_id():
    from judged.cli.store_common import table

    rows = [(1, "q01", "auth/api-keys-rotation", "how do I rotate the API keys of a service account without downtime",
             "Rotating API keys: a step-by-step guide for administrators")]
    header = ["#", "qid", "docid", "query", "title"]
    narrow = table(header, rows, wrap=["query", "title"], width=80)
    assert _widest(narrow) <= 80 and "auth/api-keys-rotation" in narrow
    words = " ".join(narrow.split())
    for text in rows[0][3:]:
        assert all(word in words.split() for word in text.split())  # every word whole
    assert table(header, rows, wrap=["query", "title"], width=None).count("\n") == 2  # a pipe: one line a row
    assert table(header, rows, wrap=["query", "title"], width=300) == table(header, rows)
