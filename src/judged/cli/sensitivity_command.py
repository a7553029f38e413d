"""``judged sensitivity``: how far each convention moves a measure, and whether it reorders the runs."""

from __future__ import annotations

import click

from judged.analysis.sensitivity import sensitivity
from judged.cli.output import config_option, convention_option, format_option, with_provenance, write_output
from judged.cli.progress import progress
from judged.cli.store_common import db_option, judgments_option, read_judgments, with_judgment_set
from judged.engine.config import Config
from judged.io import read_run
from judged.render.sensitivity import render_sensitivity, render_sensitivity_json


@click.command("sensitivity")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--qrels", "-q", "qrels_path", type=click.Path(dir_okay=False), help="Judgments (or --judgments).")
@judgments_option
@db_option
@click.option("--measure", "-m", default="nDCG@10", show_default=True, help="The measure and its chosen conventions.")
@convention_option("missing")
@config_option
@format_option(["table", "json"])
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def sensitivity_command(runs, qrels_path, judgments, db, measure, missing, config, fmt, output):
    """Evaluate RUNS under every variation of each convention of MEASURE.

    \b
    Example:
      judged sensitivity examples/runs/*.run --qrels examples/qrels.txt -m nDCG@10
    """
    team = Config.load(config)
    parsed = team.measure(measure)
    with progress("reading judgments") as step:
        qrels = read_judgments(qrels_path, None, judgments, db)
        read = []
        for i, path in enumerate(runs, start=1):
            step(f"reading run {i}/{len(runs)}: {path}")
            read.append(read_run(path))
        step(f"evaluating {len(runs)} runs under every variation of {parsed}")
        result = sensitivity(read, qrels, parsed, missing=team.with_missing(missing))
    text = render_sensitivity_json(result) if fmt == "json" else render_sensitivity(result)
    text = with_provenance(text, fmt, inputs=[*read, qrels], measures=[parsed], config=team.record())
    write_output(with_judgment_set(text, qrels, fmt), output)
