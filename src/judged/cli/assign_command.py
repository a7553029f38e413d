"""``judged assign``: split the pool among assessors, with an overlap set for the agreement check."""

from __future__ import annotations

import click

from judged.cli.output import parameter_option
from judged.cli.store_common import db_option, open_store, table
from judged.errors import UsageError


@click.command("assign")
@click.option("--assessor", "-a", "assessors", multiple=True, required=True, help="An assessor; repeat for each.")
@click.option("--overlap-queries", type=click.IntRange(min=0),
              help="N queries, sampled at random with --seed, go to every assessor. Default: 30.")
@click.option("--overlap-fraction", type=click.FloatRange(0, 1), help="Or: this fraction of the queries (rounded up).")
@parameter_option("seed", help="Seed of the overlap sample and the presentation order")
@click.option("--pool", default="default", show_default=True, help="Name of the pool.")
@click.option("--target", metavar="MEASURE|off",
              help="Target the effort on this measure (any `judged settle` takes): queues put first the pairs whose "
                   "judging can settle the comparisons among the pool's runs, re-ranked as grades arrive; off stops.")
@click.option("--by", metavar="NAME",
              help="Who sets --target, kept in the effort's targeting log (as --adjudicator is with a decision). "
                   "Default: not recorded, shown as unknown.")
@db_option
def assign_command(assessors, overlap_queries, overlap_fraction, seed, pool, target, by, db):
    """Split the pool's unassigned pairs among the assessors.

    Each query goes whole to one assessor, except the overlap queries, which
    every assessor judges. Pairs are presented in a seeded random order with
    no run names, ranks or scores (`judged judge queue`).

    With --target, the assessors' queues are ordered by what judging each
    pair can still settle (docs/settle.md); `judged settle` and the lead's
    effort page show the settled and open comparisons, and the page's
    targeting log says who set each target (--by).

    \b
    Example:
      judged assign --assessor ana --assessor ben --overlap-fraction 0.3 --target nDCG@10 --by lead
    """
    if by is not None and target is None:
        raise UsageError("--by names who sets --target: give --target too.")
    if by is not None and not by.strip():
        raise UsageError("--by needs a name (who sets --target). Got an empty one.")
    with open_store(db) as store:
        report = store.assign(list(assessors), pool=pool, overlap_queries=overlap_queries,
                              overlap_fraction=overlap_fraction, seed=seed, target=target, by=by)
        targeted = store.target(pool) if target not in (None, "off") else None
    if targeted is not None:
        click.echo(f"pool {pool}: targeted on {targeted.settlement.measure}; {targeted.settlement.stopping.statement}")
    elif target == "off":
        click.echo(f"pool {pool}: no longer targeted; queues follow the assigned order")
    if not report.shares:
        click.echo(f"pool {report.pool}: nothing to assign, every pooled pair is already assigned")
        return
    click.echo(f"pool {report.pool}: {len(report.overlap_queries)} overlap queries"
               + (f" ({', '.join(report.overlap_queries)})" if report.overlap_queries else "")
               + f", seed {report.seed}")
    click.echo(table(["assessor", "pairs", "overlap pairs", "queries"],
                     [(name, s.pairs, s.overlap_pairs, s.queries) for name, s in report.shares.items()]), nl=False)
