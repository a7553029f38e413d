"""One self-contained HTML report comparing runs: tables, charts, the worst queries explained, provenance.

:func:`report` evaluates the runs (:mod:`judged.report.model`) and renders the
page (:mod:`judged.report.page`, charts from :mod:`judged.report.charts`).
The page needs no network: the charting JavaScript and every chart's data are
inside it. ``docs/report.md`` says what each chart shows and how to read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence


def report(
    runs: Sequence,
    qrels,
    measures: Sequence | None = None,
    *,
    baseline: str | None = None,
    path: str | None = None,
    config=None,
    missing: str | None = None,
    permutations: int = 10_000,
    resamples: int = 10_000,
    seed: int = 0,
    correction: str = "holm",
    worst: int = 10,
    title: str | None = None,
    command: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    settle_pool: str | Iterable[tuple[str, str]] | None = "top_k",
) -> str:
    """The HTML report comparing ``runs`` on ``qrels`` (written atomically to ``path`` when given).

    ``runs`` and ``qrels`` take what :func:`judged.evaluate` takes; ``measures``
    default to the team config's, else nDCG@10. The significance matrix tests
    every pair of runs with ``correction`` over all pairs (``"tukey"``: a
    randomised Tukey HSD); ``worst`` is how many worst and most changed
    queries each run lists. ``config`` is a :class:`judged.engine.config.Config`;
    ``progress``, when given, is called with a line on each step.
    ``settle_pool`` is the pool whose unjudged documents may take any grade in
    the section on what the judgments settle (each measure's pairs,
    :func:`judged.analysis.settle.settle`): ``top_k`` (every run's top k),
    ``retrieved``, or (qid, docid) pairs; ``None`` leaves the section out.

    >>> import judged
    >>> qrels = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}}
    >>> runs = [judged.Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}, name="one"),
    ...         judged.Run.from_dict({"q1": {"b": 2.0, "a": 1.0}, "q2": {"x": 2.0, "c": 1.0}}, name="two")]
    >>> page = judged.report(runs, qrels, ["nDCG@10"], permutations=99, resamples=99)
    >>> page.startswith("<!DOCTYPE html>"), page.count('class="vega"'), 'id="explain-1"' in page
    (True, 7, True)
    """
    from judged.extras import require

    require("report", "the HTML report")
    from judged.report.model import build
    from judged.report.page import render

    data = build(runs, qrels, measures, baseline=baseline, config=config, missing=missing, permutations=permutations,
                 resamples=resamples, seed=seed, correction=correction, worst=worst, title=title, command=command,
                 progress=progress, settle_pool=settle_pool)
    html = render(data)
    if path is not None:
        from judged.io.output import write_atomic

        write_atomic(html, path)
    return html
