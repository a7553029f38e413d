"""``judged assessors``: how far each measure, and the order of the runs, moves between assessors' grades."""

from __future__ import annotations

import click

from judged.assessors import assessor_sensitivity
from judged.cli.agreement_command import parse_assessors
from judged.cli.output import config_option, write_output
from judged.config import Config
from judged.evaluate import MISSING_POLICIES
from judged.render.assessors import render_assessors, render_assessors_json


@click.command("assessors")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--assessor", "-a", "assessors", multiple=True, required=True, metavar="NAME=QRELS",
              help="One assessor's judgments; repeat for each assessor.")
@click.option("--final", "final_path", type=click.Path(dir_okay=False),
              help="The adjudicated (final) judgments, evaluated beside the assessors'.")
@click.option("--final-name", default="final", show_default=True, help="The final set's name in the report.")
@click.option("--measure", "-m", "measures", multiple=True, help="Measure; repeat for more. Default: nDCG@10.")
@click.option("--missing", type=click.Choice(MISSING_POLICIES),
              help="Judged queries missing from a run (default: skip).")
@click.option("--per-query", is_flag=True, help="Also every query's values and swing.")
@config_option
@click.option("--format", "-f", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def assessors_command(runs, assessors, final_path, final_name, measures, missing, per_query, config, fmt, output):
    """Evaluate RUNS under each assessor's grades: the swing of each measure per query and overall, and
    whether the order of the runs changes (Kendall's tau), on the queries every assessor judged.

    \b
    Example:
      judged assessors examples/runs/*.run --assessor a1=examples/qrels.txt \\
          --assessor a2=examples/qrels.assessor2.txt -m 'nDCG(gain=exp)@10' -m R@50
    """
    team = Config.load(config)
    parsed = [team.measure(m) for m in measures] if measures else (team.default_measures() or [team.measure("nDCG@10")])
    result = assessor_sensitivity(runs, parse_assessors(assessors), parsed, final=final_path, final_name=final_name,
                                  missing=team.with_missing(missing))
    write_output(render_assessors_json(result) if fmt == "json" else render_assessors(result, per_query), output)
