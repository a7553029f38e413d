"""``judged eval``: score one or more runs against judgments and print a table, trec_eval text, JSON or TSV."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Console

from judged.cli.output import check_output, config_option, convention_option, write_output
from judged.cli.store_common import read_judgments
from judged.engine.config import Config
from judged.engine.evaluate import evaluate_runs
from judged.engine.result import Result
from judged.errors import UsageError
from judged.io import FORMATS as INPUT_FORMATS
from judged.measures import Measure, parse
from judged.presets import apply as apply_preset
from judged.presets import get as get_preset
from judged.presets import names as preset_names
from judged.render import FORMATS, render_json, render_table, render_trec_eval, render_tsv

#: Judged@10 joins them beside nDCG@10 (``--judged``) wherever the output can carry it.
DEFAULT_MEASURES = ("nDCG@10", "P@10", "R@100", "AP", "RR")

_RENDERERS = {
    "table": render_table,
    "trec_eval": render_trec_eval,
    "json": render_json,
    "tsv": render_tsv,
}


@click.command("eval")
@click.argument("runs", nargs=-1, required=True, type=click.Path())
@click.option("--qrels", "-q", "qrels_path", type=click.Path(),
              help="Judgments: TREC qrels, JSON, JSONL, CSV, TSV or Parquet (gzip transparent).")
@click.option("--judgments", "-j", metavar="NAME[@VERSION]",
              help="Instead of --qrels: a frozen judgment set from the store (its id and hash go in the provenance).")
@click.option("--db", metavar="URL|PATH",
              help="The judgment store for --judgments (default: $JUDGED_DB, else ./judged.db).")
@click.option("--measure", "-m", "measures", multiple=True,
              help="Measure, e.g. nDCG@10, P(rel=2)@5, nDCG(gain=exp)@10; repeat for more. "
              f"Default: the config's measures, else {' '.join(DEFAULT_MEASURES)}.")
@click.option("--per-query", is_flag=True, help="Also print one value per query.")
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format; trec_eval is byte-compatible with trec_eval -q.")
@click.option("--output", "-o", type=click.Path(), help="Write to this file (atomically) instead of stdout; "
              "with --engine spark, the per-query values to this Parquet folder.")
@convention_option("missing")
@convention_option("norel", lead="Set norel= on every measure that has it: ", show_default=False)
@convention_option("depth")
@click.option("--judged/--no-judged", "add_judged", default=True, show_default=True,
              help="Report Judged@k beside every nDCG@k, and RBP's residual beside every RBP; trec_eval format and "
              "presets, which have no such measure, leave them out with a note.")
@click.option("--unjudged-threshold", type=click.FloatRange(0, 1), default=0.10, show_default=True,
              help="Warn when more than this share of a run's top k (for an nDCG@k) is unjudged.")
@click.option("--preset", help="Reproduce a library's numbers: " + ", ".join(preset_names()) + ".")
@config_option
@click.option("--run-format", type=click.Choice(INPUT_FORMATS),
              help="Format of the run files (default: from the name).")
@click.option("--qrels-format", type=click.Choice(INPUT_FORMATS),
              help="Format of the qrels file (default: from the name).")
@click.option("--engine", type=click.Choice(("local", "spark")), default="local", show_default=True,
              help="Evaluate in this process, or on Apache Spark (pip install 'judged[spark]'): runs and qrels are "
              "read by Spark (TREC or Parquet), -o writes the per-query values as Parquet, stdout gets the summary.")
@click.option("--master",
              help="Spark master for --engine spark: local[2], spark://host:7077, yarn... (default local[*]).")
def eval_command(runs, qrels_path, judgments, db, measures, per_query, fmt, output, missing, norel, depth, add_judged,
                 unjudged_threshold, preset, config, run_format, qrels_format, engine, master):
    """Evaluate RUNS against the judgments in --qrels.

    Every measure is printed in its fully explicit form, so the number always
    carries the conventions that produced it. --judgments reads a frozen set
    from the judgment store instead of a file.

    \b
    Example:
      judged eval examples/runs/bm25.run examples/runs/dense.run \\
          --qrels examples/qrels.txt -m nDCG@10 -m P@5 -m R@100
    """
    team = Config.load(config)
    library = get_preset(preset) if preset else None
    parsed = [team.measure(m) for m in measures] if measures else team.default_measures()
    if not parsed:
        parsed = [team.measure(m) for m in DEFAULT_MEASURES]
        if library:  # the defaults the preset's library has; named measures are refused instead
            covered = set(library.measures())
            if {m.name for m in parsed} - covered:
                click.echo(f"note: preset {preset!r} covers {', '.join(sorted(covered))}; of the default measures "
                           f"it reports {', '.join(str(m.name) for m in parsed if m.name in covered) or 'none'}.",
                           err=True)
            parsed = [m for m in parsed if m.name in covered] or parsed
    if norel is not None:  # before the preset, which refuses a norel its library cannot apply
        parsed = [replace(m, norel=norel) if "norel" in m.family.params else m for m in parsed]
    if library:  # keeps the policy the user chose where the library can apply it, else refuses it
        parsed, options = apply_preset(library, parsed, missing=missing if missing is not None else team.missing)
        missing = options["missing"]
    else:
        missing = team.with_missing(missing)
    if add_judged:
        left_out = "trec_eval format has no such measure" if fmt == "trec_eval" else (
            f"preset {preset!r} reproduces a library that has none" if preset else None)
        if left_out is None:
            parsed = with_judged_beside_ndcg(parsed)
        elif any(m.name == "nDCG" and m.cutoff is not None for m in parsed):
            click.echo(f"note: Judged@k is not reported beside nDCG@k: {left_out} "
                       "(--no-judged leaves it out without this note).", err=True)
    if engine == "spark" or master is not None:
        return eval_on_spark(runs, qrels_path, judgments, db, parsed, per_query, fmt, output, missing, depth,
                             unjudged_threshold, team, run_format, qrels_format, engine, master)
    if output and Path(output).is_dir():
        raise click.BadParameter(f"File {output!r} is a directory.", param_hint="'--output' / '-o'")
    check_output(output, [*runs, qrels_path])
    progress = Console(stderr=True).status("reading judgments") if sys.stderr.isatty() else nullcontext()
    with progress as status:  # a spinner on a terminal, nothing in a pipe
        qrels = read_judgments(qrels_path, qrels_format, judgments, db)

        def step(i: int, path: object) -> None:
            if status:
                status.update(f"evaluating run {i}/{len(runs)}: {path}")

        results = evaluate_runs(list(runs), qrels, parsed, missing=missing, depth=depth, command=sys.argv,
                                config=team.record(), run_format=run_format, progress=step)
    results = distinct_names(results, runs)
    echo_unjudged_warnings(results, unjudged_threshold)
    if library and library.arbitrary_ties:
        for line in tie_notes(results, library.library):
            click.echo(f"note: {line}", err=True)
    write_output(_RENDERERS[fmt](results, per_query=per_query), output)


def eval_on_spark(runs, qrels_path, judgments, db, measures, per_query, fmt, output, missing, depth, threshold,
                  team, run_format, qrels_format, engine, master) -> None:
    """``--engine spark``: evaluate on Spark, write the per-query values as Parquet (-o), print the summary."""
    if engine != "spark":
        raise UsageError("--master names a Spark master; it needs --engine spark.")
    if per_query:
        raise UsageError("--per-query prints every query's values; with --engine spark they go to a Parquet "
                         "dataset with -o instead.")
    try:
        from judged.spark.files import cli_session, evaluate_files, write_per_query
    except ImportError as err:
        raise UsageError(f"--engine spark: {err}") from None
    qrels = qrels_path if judgments is None else read_judgments(qrels_path, qrels_format, judgments, db)
    if qrels is None:
        raise UsageError("give the judgments with either --qrels FILE or --judgments NAME[@VERSION].")
    with cli_session(master or "local[*]") as spark:
        results = evaluate_files(runs, qrels, measures, master=str(spark.sparkContext.master), missing=missing,
                                 depth=depth, run_format=run_format, qrels_format=qrels_format, command=sys.argv,
                                 config=team.record())
        names = [r.run for r in results]
        results = [r.renamed(f"{r.run} ({path})") if names.count(r.run) > 1 else r for r, path in zip(results, runs)]
        echo_unjudged_warnings([r.local for r in results], threshold)
        if output:
            write_per_query(results, output)
    write_output(_RENDERERS[fmt]([r.local for r in results], per_query=False), None)


def distinct_names(results: list[Result], paths) -> list[Result]:
    """Runs that share a name (the same tag in two files) are told apart by their file names."""
    names = [r.run for r in results]
    return [replace(r, run=f"{r.run} ({path})") if names.count(r.run) > 1 else r for r, path in zip(results, paths)]


def with_judged_beside_ndcg(measures: list[Measure]) -> list[Measure]:
    """Insert ``Judged@k`` after each ``nDCG@k``, and ``RBP_resid`` (same conventions) after each ``RBP``, unless
    already asked for: what the unjudged documents could change, beside the number they change."""
    present = {m.cutoff for m in measures if m.name == "Judged"}
    residuals = set(measures)
    out = []
    for m in measures:
        out.append(m)
        if m.name == "nDCG" and m.cutoff is not None and m.cutoff not in present:
            out.append(parse(f"Judged@{m.cutoff}"))
            present.add(m.cutoff)
        if m.name == "RBP" and (residual := replace(m, name="RBP_resid")) not in residuals:
            out.append(residual)
            residuals.add(residual)
    return out


def unjudged_shares(results: list[Result], threshold: float) -> list[tuple[str, int, float]]:
    """``(run, k, share)`` for each run and nDCG cutoff whose top k is more than ``threshold`` unjudged, counted
    in each nDCG measure's own ranking (the largest share when several measures rank the top k differently)."""
    found = []
    for result in results:
        shares: dict[int, float] = {}
        for m in result.measures:
            if m.name == "nDCG" and m.cutoff is not None:
                counts = result.provenance["per_measure"][str(m)]
                retrieved = counts["retrieved_in_top_k"]
                share = counts["unjudged_in_top_k"] / retrieved if retrieved else 0.0
                shares[m.cutoff] = max(share, shares.get(m.cutoff, 0.0))
        found += [(result.run, k, share) for k, share in sorted(shares.items()) if share > threshold]
    return found


#: More warnings than this become one line and a short table.
_WARNINGS_IN_FULL = 3
_WARNING_ROWS = 10


def unjudged_warnings(results: list[Result], threshold: float) -> list[str]:
    """The unjudged-share warning, one line per (run, cutoff), or one line and a short table when there are many."""
    found = unjudged_shares(results, threshold)
    why = ("counts those documents as grade 0. `judged sensitivity` shows how far dropping them would move it; "
           "extending the pool would settle it.")
    if len(found) <= _WARNINGS_IN_FULL:
        return [f"{run}: {share:.1%} of the top {k} is unjudged (threshold {threshold:.0%}); nDCG@{k} {why}"
                for run, k, share in found]
    runs = len({run for run, _, _ in found})
    lines = [f"{runs} of {len(results)} runs have more than {threshold:.0%} of a top k unjudged; nDCG@k {why}"]
    width = max(len(run) for run, _, _ in found[:_WARNING_ROWS])
    lines += [f"  {run:<{width}}  top {k:<4} {share:6.1%} unjudged" for run, k, share in found[:_WARNING_ROWS]]
    if len(found) > _WARNING_ROWS:
        lines.append(f"  ... and {len(found) - _WARNING_ROWS} more (--format json records every run's counts)")
    return lines


def tie_notes(results: list[Result], library: str) -> list[str]:
    """For a library that orders tied scores arbitrarily: the runs whose tied scores straddle a cutoff, and where."""
    lines = []
    for result in results:
        across = {k: n for k, n in result.provenance["queries_with_ties_across_cutoff"].items() if n}
        if across:
            where = ", ".join(f"@{k}: {n}" for k, n in across.items())
            lines.append(f"{result.run}: tied scores straddle a cutoff in some queries ({where} of "
                         f"{result.provenance['queries']['judged']}); {library} orders tied scores arbitrarily, so "
                         "its numbers for those queries can differ from these (ties=trec).")
    return lines


def echo_unjudged_warnings(results: list[Result], threshold: float) -> None:
    """Print :func:`unjudged_warnings` to stderr, the first line marked ``warning:``."""
    for i, line in enumerate(unjudged_warnings(results, threshold)):
        click.echo(f"warning: {line}" if i == 0 or not line.startswith("  ") else line, err=True)
