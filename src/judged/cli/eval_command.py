"""``judged eval``: score one or more runs against judgments and print a table, trec_eval text, JSON or TSV."""

from __future__ import annotations

import sys
from dataclasses import replace

import click
from rich.console import Console

from judged.cli.output import write_output
from judged.evaluate import MISSING_POLICIES, evaluate
from judged.io import FORMATS as INPUT_FORMATS
from judged.io import read_qrels, read_run
from judged.measures import parse
from judged.render import FORMATS, render_json, render_table, render_trec_eval, render_tsv

DEFAULT_MEASURES = ("nDCG@10", "P@10", "R@100", "AP", "RR", "Judged@10")

_RENDERERS = {
    "table": render_table,
    "trec_eval": render_trec_eval,
    "json": render_json,
    "tsv": render_tsv,
}


@click.command("eval")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--qrels", "-q", "qrels_path", required=True, type=click.Path(dir_okay=False),
              help="Judgments: TREC qrels, JSON, JSONL, CSV, TSV or Parquet (gzip transparent).")
@click.option("--measure", "-m", "measures", multiple=True,
              help="Measure, e.g. nDCG@10, P(rel=2)@5, nDCG(gain=exp)@10; repeat for more. "
              f"Default: {' '.join(DEFAULT_MEASURES)}.")
@click.option("--per-query", is_flag=True, help="Also print one value per query.")
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format; trec_eval is byte-compatible with trec_eval -q.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically) instead of stdout.")
@click.option("--missing", type=click.Choice(MISSING_POLICIES), default="skip", show_default=True,
              help="Judged queries the run did not answer: skip them, or score them 0 (trec_eval -c).")
@click.option("--norel", type=click.Choice(["0", "1", "skip"]),
              help="Set norel= on every measure that has it: the value of a query with no relevant judgment.")
@click.option("--depth", type=click.IntRange(min=1), help="Keep at most this many documents per query (trec_eval -M).")
@click.option("--run-format", type=click.Choice(INPUT_FORMATS), help="Format of the run files (default: from the name).")
@click.option("--qrels-format", type=click.Choice(INPUT_FORMATS), help="Format of the qrels file (default: from the name).")
def eval_command(runs, qrels_path, measures, per_query, fmt, output, missing, norel, depth, run_format, qrels_format):
    """Evaluate RUNS against the judgments in --qrels.

    Every measure is printed in its fully explicit form, so the number always
    carries the conventions that produced it.

    \b
    Example:
      judged eval examples/runs/bm25.run examples/runs/dense.run \\
          --qrels examples/qrels.txt -m nDCG@10 -m P@5 -m R@100
    """
    parsed = [parse(m) for m in (measures or DEFAULT_MEASURES)]
    if norel is not None:
        parsed = [replace(m, norel=norel) if "norel" in m.family.params else m for m in parsed]
    status = Console(stderr=True).status("reading judgments") if sys.stderr.isatty() else None
    if status:
        status.start()
    try:
        qrels = read_qrels(qrels_path, format=qrels_format)
        results = []
        for i, path in enumerate(runs, start=1):
            if status:
                status.update(f"evaluating run {i}/{len(runs)}: {path}")
            run = read_run(path, format=run_format)
            results.append(evaluate(run, qrels, parsed, missing=missing, depth=depth, command=sys.argv))
    finally:
        if status:
            status.stop()
    write_output(_RENDERERS[fmt](results, per_query=per_query), output)
