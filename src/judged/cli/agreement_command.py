"""``judged agreement``: do two or more assessors agree well enough to judge the rest? Exit 3 when not."""

from __future__ import annotations

import sys

import click

from judged.agreement import WEIGHTS, agreement, gate, labels_from_qrels
from judged.agreement.labels import graded_labels
from judged.cli.output import format_option, parameter_option, with_provenance, write_output
from judged.cli.progress import progress
from judged.cli.store_common import db_option, open_store
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


def assessor_files(values: tuple[str, ...], db: str | None) -> dict[str, str] | None:
    """``{name: qrels path}`` when the --assessor options name files; ``None`` when the judgment store is read.

    The store is read when --db is given (--assessor then names assessors in it) or when no option has the
    ``NAME=FILE`` form (no --assessor at all, or names only: $JUDGED_DB, else ./judged.db).
    """
    if db is not None or not any("=" in value for value in values):
        return None
    return parse_assessors(values)


def open_judgments(db: str | None):
    """The store for --db (which must exist); without --db, a missing store's error recalls the file form."""
    try:
        return open_store(db, must_exist=True)
    except UsageError as err:
        if db is not None:
            raise
        raise UsageError(f"{err} Without a store, --assessor takes NAME=FILE: one qrels file per assessor.") from None


@click.command("agreement")
@click.option("--assessor", "-a", "assessors", multiple=True, metavar="NAME=FILE|NAME",
              help="One assessor's judgments (qrels); repeat for each assessor, at least two. "
              "With the store: an assessor's name, to compare only those named (default: everyone).")
@db_option
@click.option("--rubric", "rubric_path", type=click.Path(dir_okay=False),
              help="The rubric whose scale is the grade domain. Default: the store's newest rubric; "
              "for files, the grades seen, with a warning.")
@click.option("--min-pairs", type=click.IntRange(min=1), default=300, show_default=True,
              help="Gate: pairs graded by both assessors needed.")
@click.option("--min-kappa", type=click.FloatRange(-1, 1), default=0.6, show_default=True,
              help="Gate: the kappa each pair of assessors must reach.")
@click.option("--weights", type=click.Choice(WEIGHTS), default="linear", show_default=True,
              help="Gate: which kappa it checks.")
@parameter_option("resamples", default=2000, minimum=0, help="Bootstrap resamples for the kappa intervals (0: none)")
@parameter_option("seed")
@parameter_option("confidence")
@format_option(["table", "json"])
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def agreement_command(assessors, db, rubric_path, min_pairs, min_kappa, weights, resamples, seed, confidence,
                      fmt, output):
    """Agreement between assessors on the pairs they both graded, and the gate before judging the rest.

    The labels are each assessor's current grades in the judgment store (--db,
    else $JUDGED_DB, else ./judged.db), or one qrels file per assessor
    (--assessor NAME=FILE). Reports the overlap, raw agreement, Cohen's kappa
    (unweighted, linear, quadratic, with bootstrap intervals) over the rubric's
    full grade domain, Krippendorff's alpha, the confusion matrix, and
    agreement per grade and per query. Exit status: 0 the gate passes, 3 it fails (too few pairs
    graded by both, or kappa below the threshold), 1 bad input, 2 bad usage.

    \b
    Examples:
      judged agreement --db judged.db
      judged agreement --assessor a1=examples/qrels.txt --assessor a2=examples/qrels.assessor2.txt \\
          --rubric examples/rubric.toml
    """
    paths = assessor_files(assessors, db)
    if paths is None:
        labels, grades, note = _store_labels(db, assessors, rubric_path)
    else:
        labels, grades, note = _file_labels(paths, rubric_path)
    with progress(f"agreement with {resamples} bootstrap resamples"):
        result = agreement(labels, grades=grades, resamples=resamples, seed=seed, confidence=confidence)
    verdict = gate(result, min_pairs=min_pairs, min_kappa=min_kappa, weights=weights)
    render = render_agreement_json if fmt == "json" else render_agreement
    inputs = list(paths.values()) if paths is not None else [{"name": "judgment store", "path": db, "format": "store"}]
    write_output(with_provenance(render(result, verdict, note), fmt, inputs=inputs), output)
    if not verdict.passed:
        sys.exit(GATE_FAILED)


def _store_labels(db, names: tuple[str, ...], rubric_path):
    """The store's current grades of the named assessors (default: everyone), over the stored or given rubric."""
    from judged.judgments.assessor_qrels import assessor_labels

    with open_judgments(db) as store:
        labels = assessor_labels(store, names or None)
        stored = None if rubric_path else store.rubric()
        where = store.url
        left_out = store.counted_assessors(names or None).note("name them with --assessor")
    if left_out:
        click.echo(left_out, err=True)
    if rubric_path:
        rubric, note = load_rubric(rubric_path), f", {rubric_path}"
    elif stored is None:
        raise UsageError(f"the judgment store {where} holds no rubric, so the grade domain is unknown: import one "
                         "with `judged import rubric FILE`, or pass --rubric FILE.")
    else:
        rubric, note = stored, f", stored in {where}"
    labels = graded_labels(labels, rubric.grades, source=where)
    graded = labels["assessor"].unique(maintain_order=True).to_list()
    if len(graded) < 2:
        raise UsageError(f"agreement needs at least two assessors; the store {where} holds grades from "
                         f"{', '.join(graded) or 'nobody'}.")
    return labels, rubric.grades, _rubric_note(rubric) + note


def _file_labels(paths: dict[str, str], rubric_path):
    """Each file's judgments as one assessor's labels, over the rubric's grades or the range of grades seen."""
    if len(paths) < 2:
        raise UsageError("agreement needs at least two assessors: repeat --assessor NAME=FILE.")
    qrels = {name: read_qrels(path, name=name) for name, path in paths.items()}
    if rubric_path:
        rubric = load_rubric(rubric_path)
        grades = rubric.grades
        note = _rubric_note(rubric) + f", {rubric_path}"
    else:
        grades, note = _seen_grades(qrels)
        click.echo(f"warning: no --rubric, so the grade domain is the grades seen ({grades[0]}..{grades[-1]}); "
                   "a grade of the scale that nobody used at either end is missing from it, which changes "
                   "weighted kappa. Pass --rubric FILE.", err=True)
    return labels_from_qrels(qrels, grades=grades), grades, note


def _rubric_note(rubric) -> str:
    return f"rubric {rubric.name}" + (f" v{rubric.version}" if rubric.version else "")


def _seen_grades(qrels) -> tuple[tuple[int, ...], str]:
    """Every grade from the lowest to the highest judged grade (>= 0) of any assessor."""
    seen = [q.frame["grade"].filter(q.frame["grade"] >= 0) for q in qrels.values()]
    low = min((int(s.min()) for s in seen if len(s)), default=None)
    high = max((int(s.max()) for s in seen if len(s)), default=None)
    if low is None or high is None or low == high:
        raise UsageError("the judgments use fewer than two grades, so the domain cannot be guessed: "
                         "pass --rubric FILE.")
    return tuple(range(low, high + 1)), "no rubric: the grades seen"
