"""How far does each convention move this number? Evaluate under every variation of each convention.

For one measure and one or more runs: every alternative value of each
convention the measure has (gain, ideal, unjudged, ties; for the graded user
models the scale ``max_rel``: each query's top grade against the judgments'
top grade) and of the missing-query policy, one at a time, with the mean, the change against the
chosen conventions, how many queries changed, how many queries reach 1.0 only
under the variation, and whether the order of the runs changes.

>>> import judged
>>> s = judged.sensitivity([{"q": {"a": 2.0, "b": 1.0}}], {"q": {"a": 1, "b": 2}}, "nDCG@2")
>>> [(v.convention, v.value, round(v.means[0], 4)) for v in s.variations if v.convention == "ideal"]
[('ideal', 'returned', 0.8597)]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from judged.engine.evaluate import evaluate
from judged.engine.result import Result
from judged.io import read_qrels, read_run
from judged.measures import parse
from judged.measures.conventions import MISSING_POLICIES
from judged.measures.spec import IDEALS, TIES, UNJUDGED, Gain, Measure
from judged.params import convention_choice

#: Variations that can score 1.0 without a perfect ranking: the ideal shrinks to what was
#: returned, unjudged documents vanish, or ties are credited in the best order.
OPTIMISTIC = {("ideal", "returned"), ("unjudged", "drop"), ("ties", "best")}

_ALTERNATIVES = {
    "gain": ("linear", "exp"),
    "ideal": IDEALS,
    "unjudged": UNJUDGED,
    "ties": TIES,
}


@dataclass(frozen=True)
class Variation:
    """One convention changed to one other value; per-run figures are in run order."""

    convention: str
    value: str
    measure: Measure
    missing: str
    means: tuple[float, ...]
    deltas: tuple[float, ...]
    changed: tuple[int, ...]
    new_ones: tuple[int, ...]
    optimistic: bool
    order_changed: bool


@dataclass(frozen=True)
class Sensitivity:
    """The chosen conventions' means and every variation's; see the module docstring."""

    measure: Measure
    missing: str
    runs: tuple[str, ...]
    means: tuple[float, ...]
    variations: tuple[Variation, ...]
    ties_across_cutoff: tuple[int, ...]
    queries: int


def sensitivity(runs, qrels, measure: Measure | str, *, missing: str = "skip") -> Sensitivity:
    """Evaluate ``runs`` under ``measure`` and under every one-convention variation of it."""
    convention_choice("missing", missing)
    measure = parse(measure) if isinstance(measure, str) else measure
    qrels = read_qrels(qrels)
    runs = [read_run(r) for r in runs]
    variants = _variants(measure, missing, _top_grade(qrels))
    all_measures = [measure] + [m for _, _, m, _ in variants if m != measure]
    # every variant under the chosen policy; only the measure itself under the other one
    results = {
        policy: [evaluate(r, qrels, all_measures if policy == missing else [measure], missing=policy) for r in runs]
        for policy in MISSING_POLICIES
    }
    base = [r.values[measure] for r in results[missing]]
    means = tuple(r.aggregate[measure] for r in results[missing])
    variations = []
    for convention, value, variant, policy in variants:
        per_run = [r.values[variant] for r in results[policy]]
        new_means = tuple(r.aggregate[variant] for r in results[policy])
        variations.append(
            Variation(
                convention=convention,
                value=value,
                measure=variant,
                missing=policy,
                means=new_means,
                deltas=tuple(n - b for n, b in zip(new_means, means)),
                changed=tuple(_changed(v, b) for v, b in zip(per_run, base)),
                new_ones=tuple(int(((v == 1.0) & ~(b == 1.0)).sum()) for v, b in zip(per_run, base)),
                optimistic=(convention, value) in OPTIMISTIC,
                order_changed=_order(new_means) != _order(means),
            )
        )
    first: Result = results[missing][0]
    key = str(measure.cutoff) if measure.cutoff is not None else None
    return Sensitivity(
        measure=measure,
        missing=missing,
        runs=tuple(r.name for r in runs),
        means=means,
        variations=tuple(variations),
        ties_across_cutoff=tuple(
            r.provenance["queries_with_ties_across_cutoff"].get(key, 0) if key else 0 for r in results[missing]
        ),
        queries=len(first.qids),
    )


def _top_grade(qrels) -> int:
    """The highest judged grade of the judgments (at least 1): the fixed scale ``max_rel`` is varied to."""
    grades = qrels.frame["grade"].to_numpy()
    return max(1, int(grades.max(initial=1)))


def _variants(measure: Measure, missing: str, top_grade: int) -> list[tuple[str, str, Measure, str]]:
    out = []
    if "max_rel" in measure.family.params:  # each query's own top grade against the judgments' top grade
        for scale in ("query", top_grade):
            if scale != measure.max_rel:
                out.append(("max_rel", str(scale), replace(measure, max_rel=scale), missing))
    for convention, values in _ALTERNATIVES.items():
        if convention not in measure.family.params:
            continue
        current = str(getattr(measure, convention))
        for value in values:
            if value == current or (convention == "ties" and value not in measure.family.ties):
                continue
            change: dict[str, Any] = {convention: Gain.parse(value) if convention == "gain" else value}
            out.append((convention, value, replace(measure, **change), missing))
    for policy in MISSING_POLICIES:
        if policy != missing:
            out.append(("missing", policy, measure, policy))
    return out


def _changed(values: np.ndarray, base: np.ndarray) -> int:
    both = ~np.isnan(values) & ~np.isnan(base)
    differ = (np.isnan(values) != np.isnan(base)) | (both & (np.abs(np.nan_to_num(values - base)) > 1e-12))
    return int(differ.sum())


def _order(means: tuple[float, ...]) -> tuple[int, ...]:
    return tuple(np.argsort([-m for m in means], kind="stable"))
