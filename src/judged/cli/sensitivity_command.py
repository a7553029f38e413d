"""``judged sensitivity``: how far each convention moves a measure, and whether it reorders the runs."""

from __future__ import annotations

import click

from judged.analysis.sensitivity import sensitivity
from judged.cli.output import config_option, convention_option, write_output
from judged.cli.store_common import db_option, judgments_option, read_judgments, with_judgment_set
from judged.engine.config import Config
from judged.render.sensitivity import render_sensitivity, render_sensitivity_json


@click.command("sensitivity")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--qrels", "-q", "qrels_path", type=click.Path(dir_okay=False), help="Judgments (or --judgments).")
@judgments_option
@db_option
@click.option("--measure", "-m", default="nDCG@10", show_default=True, help="The measure and its chosen conventions.")
@convention_option("missing")
@config_option
@click.option("--format", "-f", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def sensitivity_command(runs, qrels_path, judgments, db, measure, missing, config, fmt, output):
    """Evaluate RUNS under every variation of each convention of MEASURE.

    \b
    Example:
      judged sensitivity examples/runs/*.run --qrels examples/qrels.txt -m nDCG@10
    """
    team = Config.load(config)
    qrels = read_judgments(qrels_path, None, judgments, db)
    result = sensitivity(runs, qrels, team.measure(measure), missing=team.with_missing(missing))
    text = render_sensitivity_json(result) if fmt == "json" else render_sensitivity(result)
    write_output(with_judgment_set(text, qrels, fmt), output)
