"""The agreement gate: is the overlap set big enough, and do the assessors agree well enough to judge the rest?

Every pair of assessors that graded pairs in common is checked: at least
``min_pairs`` pairs graded by both, and a kappa (``weights``, linear by
default) of at least ``min_kappa``. The gate passes only when every such
pair passes; an undefined kappa fails. The verdict says, in plain words,
what to do next. A kappa that clears the threshold while its interval
(which resamples queries) reaches below it, or has no interval because all
the pairs come from one query, passes with a warning: more overlap would
settle it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judged.agreement.kappa import WEIGHTS, Kappa
from judged.agreement.pairs import AssessorPair
from judged.agreement.report import Agreement
from judged.errors import UsageError


@dataclass(frozen=True)
class GateCheck:
    """One pair of assessors against the gate's two conditions."""

    first: str
    second: str
    pairs: int
    enough_pairs: bool
    kappa: Kappa
    kappa_ok: bool
    settled: bool

    @property
    def passed(self) -> bool:
        """Both conditions hold for this pair of assessors."""
        return self.enough_pairs and self.kappa_ok


@dataclass(frozen=True)
class Gate:
    """The gate's conditions, each assessor pair's check, the outcome and a plain-language verdict."""

    passed: bool
    min_pairs: int
    min_kappa: float
    weights: str
    checks: tuple[GateCheck, ...]
    verdict: str


def gate(result: Agreement, *, min_pairs: int = 300, min_kappa: float = 0.6, weights: str = "linear") -> Gate:
    """Check ``result`` against the gate: enough pairs graded by both, and kappa at least ``min_kappa``.

    >>> import polars as pl
    >>> from judged.agreement import agreement
    >>> labels = pl.DataFrame({"qid": "q1", "docid": list("abcdabcd"),
    ...                        "assessor": ["ann"] * 4 + ["bob"] * 4, "grade": [0, 1, 3, 3, 0, 1, 3, 1]})
    >>> g = gate(agreement(labels, grades=[0, 1, 2, 3], resamples=0), min_pairs=4, min_kappa=0.7)
    >>> g.passed, g.verdict.split(":")[0]
    (False, 'FAIL')
    """
    if weights not in WEIGHTS:
        raise UsageError(f"weights must be one of {'|'.join(WEIGHTS)}. Got {weights!r} instead.")
    if not isinstance(min_pairs, int) or min_pairs < 1:
        raise UsageError(f"min_pairs must be an int >= 1. Got {min_pairs!r} instead.")
    if not -1 <= min_kappa <= 1:
        raise UsageError(f"min_kappa must be between -1 and 1. Got {min_kappa!r} instead.")
    checks = tuple(_check(p, min_pairs, min_kappa, weights) for p in result.pairs if p.pairs)
    passed = bool(checks) and all(c.passed for c in checks)
    return Gate(passed, min_pairs, min_kappa, weights, checks, _verdict(checks, min_pairs, min_kappa, weights))


def _check(p: AssessorPair, min_pairs: int, min_kappa: float, weights: str) -> GateCheck:
    kappa = p.kappa(weights)
    ok = not math.isnan(kappa.value) and kappa.value >= min_kappa
    # the query-resampled interval must clear the threshold; asked for (resamples) but absent (one query): not settled
    settled = ok and (kappa.low >= min_kappa if kappa.resamples else True)
    return GateCheck(p.first, p.second, p.pairs, p.pairs >= min_pairs, kappa, ok, settled)


def _verdict(checks: tuple[GateCheck, ...], min_pairs: int, min_kappa: float, weights: str) -> str:
    if not checks:
        return ("FAIL: no pair was graded by two assessors, so agreement cannot be measured. Have two assessors "
                "grade the same pairs (the overlap queries `judged assign` samples) before judging the rest.")
    sentences = []
    for c in checks:
        who = f"{c.first} and {c.second}"
        figure = _figure(c.kappa, weights)
        if math.isnan(c.kappa.value):
            sentences.append(f"{who}: {weights} kappa is undefined ({c.kappa.reason}); the gate cannot pass.")
            continue
        if c.kappa_ok:
            agree = f"{who} agree well beyond chance: {figure}, at least {min_kappa:g}"
            if not c.settled and math.isnan(c.kappa.low):
                agree += (", but with every pair from one query there is no interval across queries, so the "
                          "agreement is not settled yet")
            elif not c.settled:
                agree += f", but the interval reaches below {min_kappa:g}, so the agreement is not settled yet"
        else:
            agree = (f"{who} agree too little: {figure}, below {min_kappa:g}. Rewrite the rubric where they "
                     "disagree (the confusion matrix and the grades with low specific agreement show where) "
                     "and judge the overlap again")
        if c.enough_pairs:
            sentences.append(f"{agree}; {c.pairs} pairs graded by both (at least {min_pairs}).")
        else:
            sentences.append(f"{agree}; but only {c.pairs} pairs were graded by both, and the gate asks for "
                             f"{min_pairs} before trusting any agreement figure: have both grade more of "
                             "the same pairs.")
    if all(c.passed for c in checks):
        return "PASS: " + " ".join(sentences) + " The rubric is working: judge the rest."
    return "FAIL: " + " ".join(sentences)


def _figure(kappa: Kappa, weights: str) -> str:
    text = f"{weights} kappa {kappa.value:.2f}"
    if not math.isnan(kappa.low):
        text += f" ({kappa.confidence:.0%} CI {kappa.low:.2f} to {kappa.high:.2f})"
    return text
