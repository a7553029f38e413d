"""Meta-test: every keyword parameter of every public verb is checked, or is listed here with why it is not.

Each verb is called once as it works; then each checked parameter gets bad values by kind (the wrong type,
out of range, an unknown choice) and must raise a judged error that is also the matching builtin and names the
parameter and the value given. A new public verb, or a new keyword, fails here until it is checked or listed.
"""

from __future__ import annotations

import inspect

import polars as pl
import pytest

import judged
from judged import params
from judged.agreement import agreement
from judged.agreement.calibration import calibrate
from judged.errors import JudgedError, ParameterTypeError, UsageError
from judged.measures.conventions import CONVENTIONS
from judged.stats.compare import compare

QRELS = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"c": 1, "d": 0}}
ONE = judged.Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}, name="one")
TWO = judged.Run.from_dict({"q1": {"b": 2.0, "a": 1.0}, "q2": {"x": 2.0, "c": 1.0}}, name="two")
LABELS = pl.DataFrame({"qid": ["q1"] * 8, "docid": list("abcdabcd"), "assessor": ["ann"] * 4 + ["llm"] * 4,
                       "grade": [0, 1, 3, 3, 0, 1, 3, 1]})
RESULTS = [judged.evaluate(run, QRELS, ["nDCG@10"]) for run in (ONE, TWO)]

#: Each public verb, called as it works; keywords go on top.
VERBS = {
    "evaluate": (judged.evaluate, lambda f, **kw: f(ONE, QRELS, ["AP"], **kw)),
    "evaluate_runs": (judged.evaluate_runs, lambda f, **kw: f([ONE, TWO], QRELS, ["AP"], **kw)),
    "explain": (judged.explain, lambda f, **kw: f(ONE, QRELS, "q1", **kw)),
    "sensitivity": (judged.sensitivity, lambda f, **kw: f([ONE, TWO], QRELS, "nDCG@10", **kw)),
    "unjudged_bounds": (judged.unjudged_bounds, lambda f, **kw: f(ONE, QRELS, "nDCG@10", **kw)),
    "report": (judged.report, lambda f, **kw: f([ONE, TWO], QRELS, ["nDCG@10"], **{
        "permutations": 99, "resamples": 99, "settle_pool": None, **kw})),
    "compare": (compare, lambda f, **kw: f(RESULTS, **{"permutations": 99, "resamples": 99, **kw})),
    "agreement": (agreement, lambda f, **kw: f(LABELS, grades=[0, 1, 2, 3], **{"resamples": 0, **kw})),
    "calibrate": (calibrate, lambda f, **kw: f(LABELS, "llm", "ann", grades=[0, 1, 2, 3], **{"resamples": 0, **kw})),
}

#: Keywords that take no value of a checked kind, and why.
UNCHECKED = {
    "command": "recorded in provenance as given (argv)",
    "config": "a parsed team config, checked by judged.engine.config",
    "progress": "a callback",
    "run_format": "a file format, checked by judged.read_run (one of judged.io.FORMATS)",
    "path": "a file path, opened by the writer",
    "title": "free text",
    "baseline": "a run name, looked up among the runs (an unknown one is a UsageError naming them)",
    "grades": "a rubric's grades, checked against the labels",
    "runs": "runs to calibrate on",
    "measures": "measure names, parsed by judged.parse",
    "measure": "a measure name, parsed by judged.parse",
    "settle_pool": "a pool name or pairs, resolved by judged.analysis.settle",
    "exact_limit": "a search budget; None for the default",
    "scope": "checked by judged.analysis.bounds",
    "tukey": "a flag", "matrix": "a flag",
    "risk_alpha": "a loss weight >= 0, checked by judged.stats.risk",
    "plan_delta": "checked with params.finite (test_params.py)",
    "family": "checked with params.choice below (a choice of judged.stats.compare.FAMILIES)",
    "correction": "checked with params.choice below (a choice of judged.stats.compare.CORRECTIONS)",
}

CHOICES = {c.name: c.choices for c in CONVENTIONS if c.kind == "choice"} | {
    "correction": ("holm",), "family": ("measure",)}
BAD = {
    "probability": [(2, ValueError), (0, ValueError), (1.0, ValueError), ("0.05", TypeError), (True, TypeError)],
    "count": [(-1, ValueError), (1.5, TypeError), ("10", TypeError), (None, TypeError)],
    "seed": [(-1, ValueError), (0.5, TypeError), ("0", TypeError)],
    "choice": [("nope", ValueError), (3, ValueError), (None, ValueError)],
    "depth": [(0, ValueError), (-5, ValueError), (2.5, TypeError), ("10", TypeError)],
    "finite": [(float("inf"), ValueError), (float("nan"), ValueError), ("0.1", TypeError)],
}
#: Numbers that must be finite (judged.params.finite).
FINITE = {"tolerance", "threshold"}


def kind_of(name: str) -> str | None:
    if name in params.PARAMETERS:
        return params.PARAMETERS[name].kind
    if name in CHOICES:
        return "choice"
    if name == "depth":
        return "depth"
    if name in FINITE:
        return "finite"
    return None


def keywords(function) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY or p.default is not inspect.Parameter.empty]


def test_every_public_verb_is_here():
    public = {name for name in judged.__all__ if inspect.isfunction(getattr(judged, name))}
    assert public - {"parse", "read_run", "read_qrels"} <= set(VERBS)  # readers: tests/io; parse: tests/measures


@pytest.mark.parametrize("verb", list(VERBS))
def test_every_keyword_is_checked_or_listed_with_a_reason(verb):
    function, call = VERBS[verb]
    call(function)  # works as given
    unknown = [name for name in keywords(function) if kind_of(name) is None and name not in UNCHECKED]
    assert not unknown, f"{verb}: check these with judged.params or list them in UNCHECKED: {unknown}"


def default(function, name: str) -> object:
    return inspect.signature(function).parameters[name].default


# None is a good value where it is the default (report's missing=None: the team config decides).
CASES = [(verb, name, bad, builtin) for verb, (function, _) in VERBS.items() for name in keywords(function)
         if (kind := kind_of(name)) for bad, builtin in BAD[kind]
         if not (bad is None and default(function, name) is None)]


@pytest.mark.parametrize(("verb", "name", "bad", "builtin"), CASES, ids=[f"{v}-{n}-{b!r}" for v, n, b, _ in CASES])
def test_a_bad_value_is_a_judged_error_that_names_the_parameter_and_the_value(verb, name, bad, builtin):
    function, call = VERBS[verb]
    with pytest.raises(JudgedError) as caught:
        call(function, **{name: bad})
    assert isinstance(caught.value, builtin), f"{type(caught.value).__name__}: {caught.value}"
    assert isinstance(caught.value, UsageError | ParameterTypeError)
    text = str(caught.value)
    assert name in text and repr(bad) in text, text


#: Where a verb's default for a shared parameter is its own, and why.
OWN_DEFAULTS = {
    ("agreement", "resamples"): 2000, ("calibrate", "resamples"): 2000,  # kappa intervals: the lead's page's 2,000
    ("compare", "worst"): 20,  # the comparison keeps 20 worst queries per run; the report shows 10 of them
}


@pytest.mark.parametrize("verb", list(VERBS))
def test_every_shared_parameter_defaults_to_its_declaration(verb):
    """A verb's signature writes the default out (for help() and the docs); it must be the declared one."""
    function, _ = VERBS[verb]
    for name in keywords(function):
        if name in params.PARAMETERS:
            expected = OWN_DEFAULTS.get((verb, name), params.PARAMETERS[name].default)
            assert default(function, name) == expected, (verb, name)
