"""``judged assessors``: how far each measure, and the order of the runs, moves between assessors' grades."""

from __future__ import annotations

import click

from judged.agreement.assessors import assessor_sensitivity
from judged.cli.agreement_command import assessor_files, open_judgments
from judged.cli.output import config_option, convention_option, format_option, with_provenance, write_output
from judged.cli.progress import progress
from judged.cli.store_common import db_option
from judged.engine.config import Config
from judged.errors import UsageError
from judged.render.assessors import render_assessors, render_assessors_json


@click.command("assessors")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--assessor", "-a", "assessors", multiple=True, metavar="NAME=QRELS|NAME",
              help="One assessor's judgments; repeat for each assessor. With the store: an assessor's name, "
              "to evaluate only those named (default: everyone with a grade).")
@db_option
@click.option("--final", metavar="QRELS|NAME[@VERSION]",
              help="The adjudicated (final) judgments, evaluated beside the assessors': a qrels file, or with the "
              "store a frozen judgment set. Default with the store: the adjudicated labels, when any exist.")
@click.option("--resolve", metavar="POLICY",
              help="With the store's adjudicated labels: settle pairs still in disagreement as `judged freeze "
              "--resolve` does (min, max, median, assessor:NAME). Default: refuse.")
@click.option("--final-name", help="The final set's name in the report. Default: final, the frozen set's id, "
              "or adjudicated.")
@click.option("--measure", "-m", "measures", multiple=True, help="Measure; repeat for more. Default: nDCG@10.")
@convention_option("missing")
@click.option("--per-query", is_flag=True, help="Also every query's values and swing.")
@config_option
@format_option(["table", "json"])
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def assessors_command(runs, assessors, db, final, resolve, final_name, measures, missing, per_query, config, fmt,
                      output):
    """Evaluate RUNS under each assessor's grades: the swing of each measure per query and overall, and
    whether the order of the runs changes (Kendall's tau), on the queries every assessor judged.

    The grades are each assessor's current labels in the judgment store (--db,
    else $JUDGED_DB, else ./judged.db), beside the adjudicated labels when
    there are any, or one qrels file per assessor (--assessor NAME=QRELS).

    \b
    Examples:
      judged assessors examples/runs/*.run --db judged.db -m 'nDCG(gain=exp)@10' -m R@50
      judged assessors examples/runs/*.run --assessor a1=examples/qrels.txt \\
          --assessor a2=examples/qrels.assessor2.txt -m 'nDCG(gain=exp)@10' -m R@50
    """
    team = Config.load(config)
    parsed = [team.measure(m) for m in measures] if measures else (team.default_measures() or [team.measure("nDCG@10")])
    paths = assessor_files(assessors, db)
    if paths is None:
        judgments, final_qrels, default_name = _from_store(db, assessors, final, resolve)
    elif resolve is not None:
        raise UsageError("--resolve settles the store's adjudicated labels; with qrels files, pass --final QRELS.")
    else:
        judgments, final_qrels, default_name = paths, final, "final"
    with progress(f"evaluating {len(runs)} runs under {len(judgments)} assessors' grades"):
        result = assessor_sensitivity(runs, judgments, parsed, final=final_qrels,
                                      final_name=final_name or default_name, missing=team.with_missing(missing))
    text = render_assessors_json(result) if fmt == "json" else render_assessors(result, per_query)
    inputs = [*runs, *(judgments.values() if isinstance(judgments, dict) else judgments),
              *([final_qrels] if final_qrels is not None else [])]
    write_output(with_provenance(text, fmt, inputs=inputs, measures=parsed, config=team.record()), output)


def _from_store(db, names: tuple[str, ...], final: str | None, resolve: str | None):
    """Each assessor's Qrels from the store, and the frozen set --final names, else the adjudicated labels."""
    from judged.judgments.assessor_qrels import adjudicated_qrels, assessor_qrels

    if final is not None and resolve is not None:
        raise UsageError("--resolve settles the adjudicated labels; a frozen set (--final) is already settled.")
    with open_judgments(db) as store:
        judgments = assessor_qrels(store, names or None)
        left_out = store.counted_assessors(names or None).note("name them with --assessor")
        if left_out:
            click.echo(left_out, err=True)
        if final is not None:
            final_qrels = store.qrels(final)
            return judgments, final_qrels, final_qrels.name
        adjudicated = adjudicated_qrels(store, resolve=resolve or "refuse", assessors=names or None)
        if adjudicated is None and resolve is not None:
            raise UsageError(f"--resolve settles the adjudicated labels, but the store {store.url} has no "
                             "adjudication; drop it, or adjudicate first (`judged adjudicate list`).")
    return judgments, adjudicated, "adjudicated"
