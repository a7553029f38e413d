"""``judged compare``: runs against a baseline with confidence intervals and corrected significance."""

from __future__ import annotations

import sys

import click

from judged.cli.comparison_options import comparison_options, resolved_correction
from judged.cli.eval_command import distinct_names
from judged.cli.output import (
    config_option,
    convention_option,
    format_option,
    parameter_option,
    with_provenance,
    write_output,
)
from judged.cli.progress import progress
from judged.cli.store_common import db_option, judgments_option, read_judgments, with_judgment_set
from judged.engine.config import Config
from judged.engine.evaluate import evaluate
from judged.render.compare import (
    render_comparison,
    render_comparison_json,
    render_comparison_latex,
    render_comparison_tsv,
)
from judged.stats.compare import FAMILIES, compare

_RENDERERS = {"table": render_comparison, "json": render_comparison_json, "tsv": render_comparison_tsv,
              "latex": render_comparison_latex}


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--qrels", "-q", "qrels_path", type=click.Path(dir_okay=False), help="Judgments (or --judgments).")
@judgments_option
@db_option
@click.option("--measure", "-m", "measures", multiple=True, help="Measure; repeat for more. Default: nDCG@10.")
@click.option("--baseline", help="The run (by name) the others are compared with. Default: the first.")
@comparison_options
@parameter_option("alpha")
@click.option("--family", type=click.Choice(FAMILIES), default="measure", show_default=True,
              help="What --correction adjusts over: the runs compared on each measure, or every run and measure.")
@click.option("--risk-alpha", type=click.FloatRange(min=0),
              help="Add URisk/TRisk against the baseline, losses x (1+A).")
@click.option("--plan-delta", type=click.FloatRange(min=0, min_open=True),
              help="Add planning: queries needed to detect this difference (power 0.8), and the smallest detectable.")
@convention_option("missing")
@config_option
@format_option(list(_RENDERERS))
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def compare_command(runs, qrels_path, judgments, db, measures, baseline, permutations, resamples, seed, alpha,
                    correction, family, tukey, risk_alpha, plan_delta, missing, config, fmt, output):
    """Compare RUNS against a baseline: means with CIs, paired randomization tests corrected across runs.

    \b
    Example:
      judged compare examples/runs/bm25.run examples/runs/dense.run examples/runs/naive.run \\
          --qrels examples/qrels.txt -m nDCG@10 -m R@100 --baseline bm25 --risk-alpha 1 --plan-delta 0.05
    """
    correction = resolved_correction(correction, tukey)
    team = Config.load(config)
    parsed = [team.measure(m) for m in measures] if measures else (team.default_measures() or [team.measure("nDCG@10")])
    with progress("reading judgments") as step:
        qrels = read_judgments(qrels_path, None, judgments, db)
        results = []
        for i, path in enumerate(runs, start=1):
            step(f"evaluating run {i}/{len(runs)}: {path}")
            results.append(evaluate(path, qrels, parsed, missing=team.with_missing(missing), command=sys.argv,
                                    config=team.record()))
        comparison = compare(distinct_names(results, runs), baseline=baseline, permutations=permutations,
                             resamples=resamples, seed=seed, alpha=alpha,
                             correction=correction, family=family,
                             risk_alpha=risk_alpha, plan_delta=plan_delta, progress=step)
    text = with_provenance(_RENDERERS[fmt](comparison), fmt, results=results, inputs=[qrels], config=team.record())
    write_output(with_judgment_set(text, qrels, fmt), output)
