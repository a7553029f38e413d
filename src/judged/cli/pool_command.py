"""``judged pool``: build a depth-k pool from runs, extend it with a new run, show it."""

from __future__ import annotations

import click

from judged.cli.output import write_output
from judged.cli.store_common import db_option, open_store, table
from judged.io import FORMATS as INPUT_FORMATS
from judged.io import read_run
from judged.measures.conventions import RUN_ORDER_TIES

_TIES = click.Choice(RUN_ORDER_TIES)
_TIES_HELP = "Tie rule for the top k: trec (score, then docid descending; what evaluation sees) or input (file order)."


class _PoolGroup(click.Group):
    """``judged pool RUN...`` means ``judged pool build RUN...``; ``extend`` and ``show`` are subcommands."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Read anything that is not a subcommand (or help) as the arguments of ``build``."""
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["build", *args]
        return super().parse_args(ctx, args)


@click.group("pool", cls=_PoolGroup)
def pool_command() -> None:
    """Depth-k pools: build one from runs, extend it with a new run, show it.

    `judged pool RUN... --depth K` is short for `judged pool build RUN... --depth K`.
    """


@pool_command.command("build")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--depth", "-k", type=click.IntRange(min=1), required=True, help="Pool each run's top K per query.")
@click.option("--pool", "name", default="default", show_default=True, help="Name of the pool.")
@click.option("--ties", type=_TIES, default="trec", show_default=True, help=_TIES_HELP)
@click.option("--run-format", type=click.Choice(INPUT_FORMATS),
              help="Format of the run files (default: from the name).")
@db_option
def build_command(runs, depth, name, ties, run_format, db):
    """Build a pool: the union of every run's top K per query.

    Reports the pool size per query and each run's unique contribution, and
    stores which runs (at which rank and depth) put each pair in the pool.

    \b
    Example:
      judged pool examples/runs/bm25.run examples/runs/dense.run --depth 20
    """
    loaded = [read_run(path, format=run_format) for path in runs]
    with open_store(db) as store:
        report = store.build_pool(loaded, depth=depth, pool=name, ties=ties)
    click.echo(f"pool {report.pool}: {report.total} pairs over {len(report.sizes)} queries "
               f"(top {depth} of {len(loaded)} runs, ties={ties})")
    click.echo(table(["run", f"top-{depth} pairs", "unique"], [(r.run, r.pairs, r.unique) for r in report.runs]),
               nl=False)
    click.echo(table(["qid", "pool size"], list(report.sizes.items())), nl=False)


@pool_command.command("extend")
@click.argument("run", type=click.Path(dir_okay=False))
@click.option("--depth", "-k", type=click.IntRange(min=1), required=True, help="Add the run's top K per query.")
@click.option("--pool", "name", default="default", show_default=True, help="Name of the pool.")
@click.option("--ties", type=_TIES, default="trec", show_default=True, help=_TIES_HELP)
@click.option("--run-format", type=click.Choice(INPUT_FORMATS), help="Format of the run file (default: from the name).")
@db_option
def extend_command(run, depth, name, ties, run_format, db):
    """Add a new run's unjudged top-K documents to the pool, so it is not penalised against the runs that built it.

    \b
    Example:
      judged pool extend new-system.run --depth 20
    """
    with open_store(db) as store:
        added = store.extend_pool(read_run(run, format=run_format), depth=depth, pool=name, ties=ties)
    click.echo(f"pool {added.pool}: {added.run} adds {added.total_added} pair(s) to judge "
               f"({added.already_pooled} of its top {depth} already pooled, {added.already_judged} already judged)")
    if added.added:
        click.echo(table(["qid", "new pairs"], list(added.added.items())), nl=False)


@pool_command.command("show")
@click.option("--pool", "name", default="default", show_default=True, help="Name of the pool.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
@db_option
def show_command(name, output, db):
    """Print every pooled pair as `qid<TAB>docid<TAB>runs` (the runs comma-separated, in the order they joined).

    \b
    Example:
      judged pool show -o pool.tsv
    """
    with open_store(db, must_exist=True) as store:
        pool = store.pool(name)
    write_output("".join(f"{q}\t{d}\t{','.join(r)}\n" for q, d, r in pool.iter_rows()), output)
