"""``judged report``: one self-contained HTML page comparing runs, readable offline."""

from __future__ import annotations

import sys

import click

from judged.cli.comparison_options import comparison_options, resolved_correction
from judged.cli.output import config_option, convention_option, parameter_option, say_written
from judged.cli.progress import progress
from judged.cli.settle_command import read_pool_file
from judged.cli.store_common import db_option, judgments_option, read_judgments
from judged.engine.config import Config
from judged.report import report


@click.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--qrels", "-q", "qrels_path", type=click.Path(dir_okay=False), help="Judgments (or --judgments).")
@judgments_option
@db_option
@click.option("--measure", "-m", "measures", multiple=True, help="Measure; repeat for more. Default: nDCG@10.")
@click.option("--baseline", help="The run (by name) the others are compared with. Default: the first.")
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write (atomically); - for stdout.")
@comparison_options
@parameter_option("worst", help="How many worst and most changed queries each run lists (each linked to its "
                                 "explain view)")
@click.option("--title", help="The page title. Default: the run names.")
@click.option("--settle-pool", default="top_k", show_default=True, metavar="top_k|retrieved|FILE",
              help="The documents that may take any grade in the section on what the judgments settle "
                   "(as `judged settle --pool`).")
@click.option("--no-settle", is_flag=True, help="Leave out the section on what the judgments settle.")
@convention_option("missing")
@config_option
def report_command(runs, qrels_path, judgments, db, measures, baseline, output, permutations, resamples, seed,
                   correction, tukey, worst, title, settle_pool, no_settle, missing,
                   config):
    """Write one HTML report on RUNS: the compare table, charts, significance matrix, what the judgments settle,
    explained queries, provenance.

    The file needs no network: the charting JavaScript and all data are inside.

    \b
    Example:
      judged report examples/runs/bm25.run examples/runs/dense.run examples/runs/naive.run \\
          --qrels examples/qrels.txt -m nDCG@10 -m R@100 --baseline bm25 -o report.html
    """
    correction = resolved_correction(correction, tukey)
    pool = None if no_settle else settle_pool if settle_pool in ("top_k", "retrieved") else read_pool_file(settle_pool)
    with progress("reading judgments") as step:
        qrels = read_judgments(qrels_path, None, judgments, db)
        report(runs, qrels, measures or None, baseline=baseline, path=output, config=Config.load(config),
               missing=missing, permutations=permutations, resamples=resamples, seed=seed,
               correction=correction, worst=worst, title=title, command=sys.argv,
               progress=step, settle_pool=pool)
    say_written(output)
