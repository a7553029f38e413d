"""Every convention judged's numbers depend on, declared once: name, choices, default and meaning.

This table is the only place a convention's choices and default are written.
The :class:`~judged.measures.Measure` fields take their defaults from it, the
measure parser validates against it, ``judged measures`` (and
``docs/measures.md``) prints it, the command line offers its choices, and
``judged.toml`` accepts its names. A convention is either a parameter of a
measure (``gain``, ``rel``, ``ideal``, ``unjudged``, ``ties``, ``norel``, then
the user-model parameters ``p``, ``T`` and ``max_rel``, in the order the
canonical string writes them) or an option of the whole
evaluation (``missing``, ``depth``).

>>> [c.name for c in MEASURE_CONVENTIONS][:6]
['gain', 'rel', 'ideal', 'unjudged', 'ties', 'norel']
>>> convention("missing").choices, convention("missing").default
(('skip', 'zero'), 'skip')
>>> convention("ties").check("random")
Traceback (most recent call last):
judged.errors.MeasureError: ties must be one of trec|input|average|worst|best|docid. Got 'random' instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from judged.errors import MeasureError, UsageError

#: What the value of a convention is: one of ``choices``, an integer grade, a gain rule, a depth, a number
#: (a family's own coefficient, such as set_F's beta, within ``bounds``), a list of such numbers in ascending
#: order, written in brackets (``[0.25,0.5,0.75]``), or a grade scale (a grade >= 1 or ``query``).
Kind = Literal["choice", "grade", "gain", "depth", "number", "numbers", "scale"]
#: Whether a convention belongs to each measure or to the whole evaluation.
Scope = Literal["measure", "evaluation"]


@dataclass(frozen=True)
class Convention:
    """One convention: its name, what values it takes, its default (as canonical text) and its meaning.

    ``choices`` lists the accepted values of a ``choice`` convention (empty for
    the others, whose values are open: grades, gain maps, depths, numbers).
    ``default`` is the text the canonical measure string shows; ``None`` means unset (no
    depth limit). ``pinnable`` says whether ``judged.toml`` may pin it.
    ``bounds`` is the closed range a ``number`` must lie in (None: unbounded
    on that side).
    """

    name: str
    scope: Scope
    kind: Kind
    default: str | None
    meaning: str
    choices: tuple[str, ...] = ()
    pinnable: bool = True
    bounds: tuple[float | None, float | None] = (None, None)

    def check(self, value: str) -> str:
        """``value`` if it is one of the choices (or there are none), else a :class:`~judged.MeasureError` naming them.

        >>> convention("norel").check("skip")
        'skip'
        """
        if self.choices and value not in self.choices:
            raise MeasureError(f"{self.name} must be one of {'|'.join(self.choices)}. Got {value!r} instead.")
        return value


#: Every convention, measure parameters first in canonical order, then the evaluation options.
CONVENTIONS: tuple[Convention, ...] = (
    Convention(
        "gain", "measure", "gain", "linear",
        "grade to gain: `linear` (g), `exp` (2^g-1) or a map `{0:0,1:1,2:3,3:7}`; "
        "unlisted grades gain their own value when positive, else 0",
    ),
    Convention("rel", "measure", "grade", "1", "minimum grade counted relevant (trec_eval's -l)"),
    Convention(
        "ideal", "measure", "choice", "judged",
        "ideal list from every `judged` document of the query (correct) or "
        "from the `returned` documents only (what scikit-learn does)",
        ("judged", "returned"),
    ),
    Convention(
        "unjudged", "measure", "choice", "zero",
        "unjudged documents count as grade 0 (`zero`) or are removed "
        "before the cutoff (`drop`, the condensed list of trec_eval -J)",
        ("zero", "drop"),
    ),
    Convention(
        "ties", "measure", "choice", "trec",
        "equal scores: `trec` (docid descending, trec_eval), `input` (file order), "
        "`average` (mean over the tied group, scikit-learn), `worst` / `best` (lowest / highest "
        "grade first: the bounds any tie order can reach), `docid` (docid ascending, Python's sort, as "
        "ir_measures' msmarco provider ranks for RR@k)",
        ("trec", "input", "average", "worst", "best", "docid"),
    ),
    Convention(
        "norel", "measure", "choice", "0",
        "value for a query with no relevant judgment: `0`, `1` or `skip` "
        "(left out of the mean and counted)",
        ("0", "1", "skip"),
    ),
    Convention(
        "beta", "measure", "number", "1",
        "SetF: weight of recall against precision, (1+beta)PR / (beta P + R) (trec_eval's set_F parameter; "
        "note trec_eval weighs by beta, not beta squared)",
        pinnable=False, bounds=(0.0, None),
    ),
    Convention(
        "recall", "measure", "number", "0",
        "IPrec: the recall level (0..1) whose interpolated precision is read", pinnable=False, bounds=(0.0, 1.0),
    ),
    Convention(
        "rounding", "measure", "choice", "round",
        "IPrec, IPrec11pt: the relevant document at which recall level r is met, of R relevant: `round`, the "
        "lround(r R)-th (trec_eval 10) or `v9`, the (long)(r R + 0.9)-th (trec_eval 9, and so pytrec_eval)",
        ("round", "v9"), pinnable=False,
    ),
    Convention(
        "levels", "measure", "numbers", "[0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1]",
        "IPrec11pt: the recall levels (0..1, ascending, a level may repeat) whose interpolated precisions are "
        "averaged; the default is the 11 points (trec_eval's 11pt_avg parameters: 11pt_avg.0.2,0.5,0.8 is "
        "levels=[0.2,0.5,0.8])",
        pinnable=False, bounds=(0.0, 1.0),
    ),
    Convention(
        "mult", "measure", "number", "1",
        "Rprec_mult: the rank cutoff as a multiple of R, the number of relevant judged documents",
        pinnable=False, bounds=(0.0, None),
    ),
    Convention("rel_ret", "measure", "number", "1", "utility: worth of each relevant document retrieved",
               pinnable=False),
    Convention("nonrel_ret", "measure", "number", "-1", "utility: worth of each non-relevant document retrieved",
               pinnable=False),
    Convention("rel_missed", "measure", "number", "0", "utility: worth of each relevant document not retrieved",
               pinnable=False),
    Convention(
        "p", "measure", "number", "0.8",
        "persistence: the probability that the user goes on from one rank to the next (RBP, NERR10)",
        pinnable=False, bounds=(0.0, 1.0),
    ),
    Convention(
        "T", "measure", "number", "1",
        "target: the total scaled gain the user wants before stopping (INST, INSQ, BPM, NERR11)",
        pinnable=False, bounds=(0.0, None),
    ),
    Convention(
        "max_rel", "measure", "scale", "query",
        "the top grade of the scale: a document's gain is divided by this grade's gain, so gains lie in [0, 1] "
        "(RBP, C/W/L; ERR stops at grade g with probability (2^g-1)/2^max_rel); `query` (default) takes each "
        "query's highest judged grade, at least 1 (trec_eval's rbp); a grade such as 3 fixes the scale, and a "
        "judged grade above it is refused",
    ),
    Convention(
        "missing", "evaluation", "choice", "skip",
        "a judged query the run did not answer: `skip` (left out, as trec_eval without -c "
        "and pytrec_eval) or `zero` (scored as an empty ranking: 0, or the measure's `norel` value when the "
        "query has no relevant judgment; as trec_eval -c and ir_measures)",
        ("skip", "zero"),
    ),
    Convention(
        "depth", "evaluation", "depth", None,
        "keep at most this many documents per query after ranking (trec_eval -M); unset: all",
        pinnable=False,
    ),
)

_BY_NAME = {c.name: c for c in CONVENTIONS}

#: The measure parameters, in the order the canonical string writes them.
MEASURE_CONVENTIONS: tuple[Convention, ...] = tuple(c for c in CONVENTIONS if c.scope == "measure")
#: The options of a whole evaluation.
EVALUATION_CONVENTIONS: tuple[Convention, ...] = tuple(c for c in CONVENTIONS if c.scope == "evaluation")
#: The measure parameter names, in canonical order.
PARAM_ORDER: tuple[str, ...] = tuple(c.name for c in MEASURE_CONVENTIONS)


def convention(name: str) -> Convention:
    """The convention called ``name``; :class:`~judged.UsageError` listing them all when unknown.

    >>> convention("rel").default
    '1'
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UsageError(f"unknown convention {name!r}; known: {', '.join(_BY_NAME)}.") from None


def choices(name: str) -> tuple[str, ...]:
    """The accepted values of the ``choice`` convention ``name``.

    >>> choices("ideal")
    ('judged', 'returned')
    """
    return convention(name).choices


def tie_order(ties: str) -> str:
    """The ranking a tie rule reads: ``average`` averages over ``trec``'s order, every other rule has its own.

    >>> tie_order("average"), tie_order("worst")
    ('trec', 'worst')
    """
    return "trec" if convention("ties").check(ties) == "average" else ties


#: Tie rules that fix one order of the rows (every rule that reads its own ranking).
ORDERED_TIES: tuple[str, ...] = tuple(t for t in choices("ties") if tie_order(t) == t)
#: Tie rules whose order is the run's own (its scores, then its rows or trec_eval's order): no grade and no docid
#: order enters. Pools, the unjudged bounds and the adaptive C/W/L measures take only these.
RUN_ORDER_TIES: tuple[str, ...] = ("trec", "input")
#: What a judged query the run did not answer scores.
MISSING_POLICIES: tuple[str, ...] = choices("missing")
