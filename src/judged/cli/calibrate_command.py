"""``judged calibrate``: an automatic assessor against a person, on the pairs both graded, before trusting it."""

from __future__ import annotations

import click

from judged.cli.output import parameter_option
from judged.cli.store_common import db_option, open_store
from judged.errors import UsageError


@click.command("calibrate")
@click.argument("runs", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--automatic", "-A", "automatic", required=True, help="The automatic assessor to calibrate.")
@click.option("--human", "-H", help="The person to calibrate against (default: the only person with grades).")
@click.option("--measure", "-m", "measures", multiple=True,
              help="Measure for the conclusions (repeat). Default: nDCG@10.")
@click.option("--depth", type=click.IntRange(min=1), default=10, show_default=True,
              help="Per-run agreement on the pairs in each run's top DEPTH.")
@parameter_option("alpha")
@parameter_option("resamples", default=None, minimum=0,
                  help="Bootstrap resamples of the kappa interval (default: 2000, as on the lead's page)")
@parameter_option("seed")
@db_option
def calibrate_command(runs, automatic, human, measures, depth, alpha, resamples, seed, db):
    """Calibrate an automatic assessor against a person: kappa (query-resampled interval), confusion, bias
    per grade, agreement per run, and each measure and system ordering under both labellings (Kendall's
    tau; significant differences that appear, vanish or flip). Needs a rubric in the store (its grades).

    \b
    Example:
      judged calibrate examples/runs/*.run --automatic llm-judge --human nist
    """
    from judged.agreement.calibration import RESAMPLES, calibrate
    from judged.io import read_run
    from judged.render.calibration import render_calibration

    with open_store(db, must_exist=True) as store:
        machines = store.automatic_assessors()
        if automatic not in machines:
            raise UsageError(f"{automatic!r} is not an automatic assessor in the store (automatic: "
                             f"{', '.join(machines) or 'none'}); import it with `judged import automatic`.")
        labels = store.current_labels()
        people = sorted(set(labels["assessor"].to_list()) - set(machines))
        if human is None:
            if len(people) != 1:
                raise UsageError(f"name the person with --human (people with grades: {', '.join(people) or 'none'}).")
            human = people[0]
        rubric = store.rubric()
    if rubric is None:
        raise UsageError("the store has no rubric, so there is no grade domain to calibrate on.")
    result = calibrate(labels, automatic, human, grades=rubric.grades, runs=[read_run(r) for r in runs],
                       measures=measures or ("nDCG@10",), depth=depth, alpha=alpha,
                       resamples=RESAMPLES if resamples is None else resamples, seed=seed)
    click.echo(render_calibration(result), nl=False)
