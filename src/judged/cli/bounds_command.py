"""``judged bounds``: nDCG with unjudged as 0, condensed, and the exact range the unjudged grades allow."""

from __future__ import annotations

import click

from judged.analysis.bounds import unjudged_bounds
from judged.cli.output import config_option, convention_option, format_option, with_provenance, write_output
from judged.cli.progress import progress
from judged.cli.store_common import db_option, judgments_option, read_judgments, with_judgment_set
from judged.engine.config import Config
from judged.io import read_run
from judged.render.bounds import render_bounds, render_bounds_json


@click.command("bounds")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--qrels", "-q", "qrels_path", type=click.Path(dir_okay=False), help="Judgments (or --judgments).")
@judgments_option
@db_option
@click.option("--measure", "-m", default="nDCG@10", show_default=True, help="An nDCG measure.")
@click.option("--scope", type=click.Choice(["top_k", "retrieved"]), default="top_k", show_default=True,
              help="Which unjudged documents may take a grade: those in the top k, or every retrieved one.")
@convention_option("missing")
@click.option("--per-query", is_flag=True, help="Also print every query's figures.")
@config_option
@format_option(["table", "json"])
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def bounds_command(runs, qrels_path, judgments, db, measure, scope, missing, per_query, config, fmt, output):
    """What the judgments cannot say: the exact minimum and maximum nDCG of RUNS over every
    grade their unjudged documents could have, beside nDCG with unjudged as 0 and condensed.

    \b
    Example:
      judged bounds examples/runs/naive.run --qrels examples/qrels.txt -m nDCG@10 --per-query
    """
    team = Config.load(config)
    parsed = team.measure(measure)
    with progress("reading judgments") as step:
        qrels = read_judgments(qrels_path, None, judgments, db)
        read, results = [], []
        for i, path in enumerate(runs, start=1):
            step(f"bounding run {i}/{len(runs)}: {path}")
            read.append(read_run(path))
            results.append(unjudged_bounds(read[-1], qrels, parsed, missing=team.with_missing(missing), scope=scope))
    text = render_bounds_json(results) if fmt == "json" else render_bounds(results, per_query)
    text = with_provenance(text, fmt, inputs=[*read, qrels], measures=[parsed], config=team.record())
    write_output(with_judgment_set(text, qrels, fmt), output)
