"""``judged settle``: which comparisons the judgments settle, what to judge next, and when judging can stop."""

from __future__ import annotations

from pathlib import Path

import click

from judged.analysis.selection import next_documents
from judged.analysis.settle import settle
from judged.cli.output import config_option, convention_option, format_option, parameter_option, write_output
from judged.cli.store_common import db_option, judgments_option, read_judgments, with_judgment_set
from judged.engine.config import Config
from judged.errors import InputError
from judged.render.settle import render_pool_run, render_settle, render_settle_json


@click.command("settle")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--qrels", "-q", "qrels_path", type=click.Path(dir_okay=False), help="Judgments (or --judgments).")
@judgments_option
@db_option
@click.option("--measure", "-m", default="nDCG@10", show_default=True,
              help="The measure: nDCG, R, DCG, P, RBP, SDCG, INSQ (these three with a fixed max_rel), "
                   "RR, Success or Rprec.")
@click.option("--pool", "pool", default="top_k", show_default=True, metavar="top_k|retrieved|FILE",
              help="Documents that may take a grade: every run's top k, everything retrieved, or a pool file "
                   "(qid<TAB>docid[<TAB>runs] per line, as `judged pool show` writes it).")
@parameter_option("alpha", help="Significance level of the paired t-test")
@click.option("--next", "next_n", type=click.IntRange(min=0), default=10, show_default=True,
              help="How many documents to propose for judging next.")
@click.option("--output", "-o", type=click.Path(dir_okay=False),
              help="Write the proposed documents to this file as a run file; "
                   "`judged pool build FILE --depth N --pool NAME` pools exactly them.")
@convention_option("missing")
@config_option
@format_option(["table", "json"])
def settle_command(runs, qrels_path, judgments, db, measure, pool, alpha, next_n, output, missing, config, fmt):
    """Which comparisons among RUNS the judgments already settle, whatever the unjudged documents turn out to be.

    For every pair of runs, the exact minimum and maximum of the mean
    difference on the measure over every grade the pooled, unjudged documents
    could have (one grade for both runs); a pair is settled when that range
    does not straddle 0. Measures without exact joint bounds (AP, ERR, ...)
    are refused with the reason.
    Then whether the paired t-test's conclusion can change, the stopping rule,
    and the next documents to judge: those whose judging can shrink the open
    ranges most, grouped by query.

    \b
    Example:
      judged settle examples/runs/bm25.run examples/runs/dense.run --qrels examples/qrels.txt -m nDCG@10
      judged settle examples/runs/*.run --qrels examples/qrels.txt -m P@10 --next 20 -o next.run
    """
    team = Config.load(config)
    qrels = read_judgments(qrels_path, None, judgments, db)
    chosen = pool if pool in ("top_k", "retrieved") else read_pool_file(pool)
    result = settle(list(runs), qrels, team.measure(measure), pool=chosen, missing=team.with_missing(missing),
                    alpha=alpha)
    graded = [g for g in qrels.frame["grade"].to_list() if g >= 0]
    proposals = next_documents(result, next_n, graded)
    text = render_settle_json(result, proposals) if fmt == "json" else render_settle(result, proposals)
    if output is not None:
        write_output(render_pool_run(proposals), output)
        depth = max((sum(1 for q, _, _ in proposals if q == qid) for qid, _, _ in proposals), default=0)
        note = (f"{len(proposals)} documents written to {output}; pool them with: "
                f"judged pool build {output} --depth {max(depth, 1)} --pool NAME\n")
        text = text if fmt == "json" else text + note
    click.echo(with_judgment_set(text, qrels, fmt), nl=False)


def read_pool_file(path: str) -> list[tuple[str, str]]:
    """The (qid, docid) pairs of a pool file: ``qid<TAB>docid[<TAB>runs]`` per line, as `judged pool show` writes.

    A line without both fields is an error naming the file and line.
    """
    pairs = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the pool file: {err}", path=path) from None
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0] or not fields[1]:
            raise InputError("not a pool line", path=path, line=number, text=line,
                             expected="qid<TAB>docid[<TAB>runs]")
        pairs.append((fields[0], fields[1]))
    return pairs
