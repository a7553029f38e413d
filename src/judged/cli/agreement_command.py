"""``judged agreement``: do two or more assessors agree well enough to judge the rest? Exit 3 when not."""

from __future__ import annotations

import sys

import click

from judged.agreement import WEIGHTS, agreement, gate, labels_from_qrels
from judged.cli.output import write_output
from judged.errors import UsageError
from judged.io import read_qrels
from judged.render.agreement import render_agreement, render_agreement_json
from judged.rubric import load_rubric

#: Exit status when the agreement gate fails (0 passes; 1 and 2 stay bad data and bad usage).
GATE_FAILED = 3


def parse_assessors(values: tuple[str, ...]) -> dict[str, str]:
    """``NAME=FILE`` options as an ordered ``{name: path}``; a malformed or repeated name is a usage error."""
    out: dict[str, str] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name.strip() or not path:
            raise UsageError(f"--assessor takes NAME=FILE, e.g. --assessor ann=ann.qrels. Got {value!r} instead.")
        if name.strip() in out:
            raise UsageError(f"assessor {name.strip()!r} is given twice.")
        out[name.strip()] = path
    return out


@click.command("agreement")
@click.option("--assessor", "-a", "assessors", multiple=True, required=True, metavar="NAME=FILE",
              help="One assessor's judgments (qrels); repeat for each assessor, at least two.")
@click.option("--rubric", "rubric_path", type=click.Path(dir_okay=False),
              help="The rubric whose scale is the grade domain. Default: the grades seen, with a warning.")
@click.option("--min-pairs", type=click.IntRange(min=1), default=300, show_default=True,
              help="Gate: pairs graded by both assessors needed.")
@click.option("--min-kappa", type=click.FloatRange(-1, 1), default=0.6, show_default=True,
              help="Gate: the kappa each pair of assessors must reach.")
@click.option("--weights", type=click.Choice(WEIGHTS), default="linear", show_default=True,
              help="Gate: which kappa it checks.")
@click.option("--resamples", type=click.IntRange(min=0), default=2000, show_default=True,
              help="Bootstrap resamples for the kappa intervals (0: none).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True)
@click.option("--format", "-f", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def agreement_command(assessors, rubric_path, min_pairs, min_kappa, weights, resamples, seed, confidence, fmt,
                      output):
    """Agreement between assessors on the pairs they both graded, and the gate before judging the rest.

    Reports the overlap, raw agreement, Cohen's kappa (unweighted, linear, quadratic, with bootstrap
    intervals) over the rubric's full grade domain, Krippendorff's alpha, the confusion matrix, and
    agreement per grade and per query. Exit status: 0 the gate passes, 3 it fails (too few pairs
    graded by both, or kappa below the threshold), 1 bad input, 2 bad usage.

    \b
    Example:
      judged agreement --assessor a1=examples/qrels.txt --assessor a2=examples/qrels.assessor2.txt \\
          --rubric examples/rubric.toml
    """
    paths = parse_assessors(assessors)
    if len(paths) < 2:
        raise UsageError("agreement needs at least two assessors: repeat --assessor NAME=FILE.")
    qrels = {name: read_qrels(path, name=name) for name, path in paths.items()}
    if rubric_path:
        rubric = load_rubric(rubric_path)
        grades = rubric.grades
        note = f"rubric {rubric.name}" + (f" v{rubric.version}" if rubric.version else "") + f", {rubric_path}"
    else:
        grades, note = _seen_grades(qrels)
        click.echo(f"warning: no --rubric, so the grade domain is the grades seen ({grades[0]}..{grades[-1]}); "
                   "a grade of the scale that nobody used at either end is missing from it, which changes "
                   "weighted kappa. Pass --rubric FILE.", err=True)
    labels = labels_from_qrels(qrels, grades=grades)
    result = agreement(labels, grades=grades, resamples=resamples, seed=seed, confidence=confidence)
    verdict = gate(result, min_pairs=min_pairs, min_kappa=min_kappa, weights=weights)
    render = render_agreement_json if fmt == "json" else render_agreement
    write_output(render(result, verdict, note), output)
    if not verdict.passed:
        sys.exit(GATE_FAILED)


def _seen_grades(qrels) -> tuple[tuple[int, ...], str]:
    """Every grade from the lowest to the highest judged grade (>= 0) of any assessor."""
    seen = [q.frame["grade"].filter(q.frame["grade"] >= 0) for q in qrels.values()]
    low = min((int(s.min()) for s in seen if len(s)), default=None)
    high = max((int(s.max()) for s in seen if len(s)), default=None)
    if low is None or low == high:
        raise UsageError("the judgments use fewer than two grades, so the domain cannot be guessed: "
                         "pass --rubric FILE.")
    return tuple(range(low, high + 1)), "no rubric: the grades seen"
