"""``judged explain``: the worked nDCG computation for one query, optionally beside a second run."""

from __future__ import annotations

import click

from judged.analysis.explain import explain
from judged.cli.output import convention_option, format_option, with_provenance, write_output
from judged.cli.store_common import db_option, judgments_option, read_judgments, with_judgment_set
from judged.io import read_run
from judged.render.explain import render_explanation, render_explanation_json


@click.command("explain")
@click.argument("run", type=click.Path(dir_okay=False))
@click.option("--qrels", "-q", "qrels_path", type=click.Path(dir_okay=False), help="Judgments (or --judgments).")
@judgments_option
@db_option
@click.option("--query", "qid", required=True, help="The query id to explain.")
@click.option("--measure", "-m", default="nDCG@10", show_default=True, help="nDCG or DCG, with any conventions.")
@click.option("--vs", "other", type=click.Path(dir_okay=False), help="A second run to show side by side.")
@convention_option("depth")
@format_option(["table", "json"])
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def explain_command(run, qrels_path, judgments, db, qid, measure, other, depth, fmt, output):
    """Show, rank by rank, how MEASURE is computed for one query of RUN.

    \b
    Example:
      judged explain examples/runs/bm25.run --qrels examples/qrels.txt --query q01 \\
          -m 'nDCG(gain=exp)@10' --vs examples/runs/dense.run
    """
    qrels = read_judgments(qrels_path, None, judgments, db)
    read = [read_run(path) for path in (run, other) if path]
    explanations = [explain(r, qrels, qid, measure, depth=depth) for r in read]
    text = render_explanation_json(explanations) if fmt == "json" else render_explanation(explanations)
    text = with_provenance(text, fmt, inputs=[*read, qrels], measures=[explanations[0].measure])
    write_output(with_judgment_set(text, qrels, fmt), output)
