"""Presets: reproduce another evaluation library's per-query numbers with judged's explicit conventions.

A preset names a library (``trec_eval``, ``pytrec_eval``, ``ir_measures``,
``ranx``, ``ranx_burges``, ``sklearn``, ``torchmetrics``) and maps each
measure you ask for to the conventions that library applies, so the number
judged prints is the library's number, with every convention written out.
It also carries the evaluate-level options (what a query missing from the run
scores) and the caveats: what the library does that no convention can state
(ranx orders tied scores arbitrarily, for example). A measure the library does
not have, or a convention it cannot apply, is refused with a
:class:`~judged.UsageError` that says why; a preset never approximates.

>>> import judged
>>> from judged import presets
>>> str(presets.get("sklearn").measure("nDCG@3"))
'nDCG(gain=linear,ideal=returned,unjudged=zero,ties=average,norel=0)@3'
>>> measures, options = presets.apply("ir_measures", ["nDCG@3", "P@2"])
>>> options
{'missing': 'zero'}
>>> run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
>>> qrels = {"q1": {"d1": 3, "d2": 0, "d3": 2}, "q2": {"d9": 1}}
>>> result = judged.evaluate(run, qrels, measures, **options)
>>> round(result.value(measures[0], "q1"), 6), result.value(measures[0], "q2")
(0.938557, 0.0)
>>> presets.get("sklearn").measure("RR")
Traceback (most recent call last):
...
judged.errors.UsageError: preset 'sklearn' cannot reproduce RR: scikit-learn has no reciprocal rank for rankings; this preset covers nDCG, DCG

Conventions the library fixes replace judged's defaults (``ideal=returned``
for sklearn). A convention you set yourself is kept when the library can apply
it too (``P(rel=2)@10`` is trec_eval's ``-l2``, ``nDCG(unjudged=drop)@10`` its
``-J``) and refused when it cannot. docs/presets.md has the evidence for each
library, read from its source.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from judged.errors import UsageError
from judged.measures.parse import parse
from judged.measures.spec import Gain, Measure

__all__ = ["Preset", "apply", "get", "names"]

#: A check of one convention value the user set: the reason the library cannot apply it, or None.
Check = Callable[[object, Measure], "str | None"]
#: The library's own name (call) for a measure that has already been mapped.
Namer = Callable[[Measure], str]


@dataclass(frozen=True)
class _Rule:
    """How one judged measure family maps under a preset."""

    name: Namer
    cutoff: str = "optional"  # optional | required | none
    fixed: Mapping[str, object] = field(default_factory=dict)
    free: Mapping[str, Check] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Preset:
    """One library's conventions: what each measure maps to, the evaluate options, the caveats.

    ``options`` are keyword arguments for :func:`judged.evaluate` (``missing``);
    ``caveats`` are what the library does that judged's conventions cannot state
    or that the user must do on the library's side to get the same number.
    """

    name: str
    description: str
    library: str
    options: dict = field(hash=False)
    caveats: tuple[str, ...]
    _rules: Mapping[str, _Rule] = field(repr=False, compare=False, hash=False)
    _why: Mapping[str, str] = field(repr=False, compare=False, hash=False)
    _absent: Mapping[str, str] = field(repr=False, compare=False, hash=False)

    def measure(self, measure: Measure | str) -> Measure:
        """``measure`` with the conventions that reproduce this library's number for it.

        Raises :class:`~judged.UsageError` naming the preset and the measure when
        the library has no such measure or cannot apply a convention set in it.
        """
        return self._map(measure)[0]

    def library_measure(self, measure: Measure | str) -> str:
        """The library's own name or call for ``measure``, e.g. ``ndcg_cut_10`` under trec_eval."""
        mapped, rule = self._map(measure)
        return rule.name(mapped)

    def notes(self, measure: Measure | str) -> tuple[str, ...]:
        """The caveats that concern ``measure`` under this preset (a subset of ``caveats``)."""
        return self._map(measure)[1].notes

    def measures(self) -> tuple[str, ...]:
        """The measure families this preset reproduces."""
        return tuple(self._rules)

    def _map(self, measure: Measure | str) -> tuple[Measure, _Rule]:
        label = measure.strip() if isinstance(measure, str) else None
        m = parse(measure) if isinstance(measure, str) else measure
        if not isinstance(m, Measure):
            raise UsageError(f"a measure must be a judged.Measure or a string like 'nDCG@10'. Got {measure!r}.")
        label = label or str(m)
        rule = self._rules.get(m.name)
        if rule is None:
            reason = self._absent.get(m.name) or f"{self.library} has no {m.name} measure"
            raise self._refuse(label, f"{reason}; this preset covers {', '.join(self._rules)}")
        if m.cutoff is None and rule.cutoff == "required":
            raise self._refuse(label, f"{m.name} needs a cutoff in {self.library}; write {m.name}@k")
        if m.cutoff is not None and rule.cutoff == "none":
            raise self._refuse(label, f"{m.name} takes no cutoff in {self.library}")
        changes: dict[str, object] = {}
        for param in m.family.params:
            value, default = getattr(m, param), _DEFAULTS[param]
            if param in rule.fixed:
                target = rule.fixed[param]
                if value != default and value != target:
                    raise self._refuse(label, f"{param}={value}: {self._why.get(param, 'fixed there')}")
                changes[param] = target
            elif value != default:
                check = rule.free.get(param)
                reason = self._why.get(param, "not applied there") if check is None else check(value, m)
                if reason:
                    raise self._refuse(label, f"{param}={value}: {reason}")
        return dataclasses.replace(m, **changes), rule

    def _refuse(self, label: str, reason: str) -> UsageError:
        return UsageError(f"preset {self.name!r} cannot reproduce {label}: {reason}")


_DEFAULTS: dict[str, object] = {
    name: f.default for name, f in Measure.__dataclass_fields__.items() if name not in ("name", "cutoff")
}


# ---------------------------------------------------------------------------------------------
# Checks shared by several presets


def _rel_at_least(low: int, why: str) -> Check:
    return lambda value, m: None if value >= low else why


def _drop_ok(value, m) -> str | None:
    return None  # unjudged=drop is -J / judged_only / a matrix of judged candidates only


def _integral(value: float) -> bool:
    return float(value).is_integer()


def _named(at_k: str | None, whole: str | None) -> Namer:
    """The library's name with a cutoff (``{k}`` stands for it) and without one."""

    def name(m: Measure) -> str:
        if m.cutoff is None:
            return whole or ""
        return (at_k or "").format(k=m.cutoff)

    return name


# ---------------------------------------------------------------------------------------------
# trec_eval and pytrec_eval: judged's defaults are theirs


def _trec_gain(value, m) -> str | None:
    gain: Gain = value  # type: ignore[assignment]
    if m.cutoff is not None:
        return ("trec_eval's ndcg_cut takes no gain map (m_ndcg_cut.c uses the grade as the gain); "
                "drop the cutoff to use ndcg with -m ndcg.1=..,2=..")
    if gain.kind == "exp":
        return ("trec_eval's ndcg takes an explicit map (-m ndcg.1=1,2=3,3=7), not gain=exp; "
                "write gain={1:1,2:3,3:7} with the grades your judgments use")
    if any(grade < 0 for grade, _ in gain.mapping):
        return "in trec_eval a gain for a negative level applies to unjudged documents, which judged always gains 0"
    if not all(_integral(v) for _, v in gain.mapping):
        return ("trec_eval orders gains through an int (gain_init.c comp_rel_gain), so gains less than "
                "1 apart compare equal and its ideal list is wrong; only integer gains reproduce")
    return None


def _trec_name(m: Measure) -> str:
    if m.name == "nDCG" and m.gain.kind == "map":
        text = "ndcg_" + ",".join(f"{g}={int(v)}" for g, v in m.gain.mapping)
    else:
        text = _TREC_NAMES[m.name](m)
    flags = []
    if "rel" in m.family.params and m.rel != 1:
        flags.append(f"-l{m.rel}")
    if "unjudged" in m.family.params and m.unjudged == "drop":
        flags.append("-J")
    return " ".join([text, *flags])


_TREC_NAMES: dict[str, Namer] = {
    "nDCG": _named("ndcg_cut_{k}", "ndcg"),
    "P": _named("P_{k}", "set_P"),
    "R": _named("recall_{k}", "set_recall"),
    "AP": _named("map_cut_{k}", "map"),
    "RR": _named(None, "recip_rank"),
    "Success": _named("success_{k}", None),
    "Rprec": _named(None, "Rprec"),
    "Bpref": _named(None, "bpref"),
    "NumRet": _named(None, "num_ret"),
    "NumRel": _named(None, "num_rel"),
    "NumRelRet": _named(None, "num_rel_ret"),
}

_TREC_CUTOFF = {
    "nDCG": "optional", "P": "optional", "R": "optional", "AP": "optional", "RR": "none",
    "Success": "required", "Rprec": "none", "Bpref": "none", "NumRet": "none", "NumRel": "none",
    "NumRelRet": "none",
}

_TREC_WHY = {
    "gain": "trec_eval's ndcg_cut uses the grade as the gain",
    "ideal": "trec_eval builds the ideal list from every judged document of the query",
    "unjudged": "trec_eval scores unjudged documents 0, or drops them with -J",
    "ties": "trec_eval breaks tied scores by docid descending (form_res_rels.c comp_sim_docno) and nothing else",
    "norel": "trec_eval scores a query with no relevant judgment 0 and averages it in",
    "rel": "trec_eval's -l is the relevance threshold",
}

_TREC_ABSENT = {
    "DCG": "trec_eval's dcg is not in pytrec_eval, so this preset cannot verify it",
    "Judged": "trec_eval has no judged share; its unj_k (v10 only) divides by k, judged's Judged@k by min(k, retrieved)",
}

_TREC_CAVEATS = (
    ("trec_eval stores run scores as C float: scores equal after rounding to 32 bits tie there (and fall to "
     "the docid rule) but not in judged; runs written with fewer than 7 significant digits are unaffected."),
    "trec_eval reads grades with atol, so a fractional grade is truncated there; judged refuses it.",
    ("Gain maps apply to ndcg without a cutoff only (-m ndcg.1=1,2=3,3=7) and must be integers: trec_eval "
     "compares gains through an int."),
)


def _trec_rules(min_rel: int | None, rel_why: str) -> dict[str, _Rule]:
    rules = {}
    for name, cutoff in _TREC_CUTOFF.items():
        free: dict[str, Check] = {"unjudged": _drop_ok}
        if min_rel is not None:
            free["rel"] = _rel_at_least(min_rel, rel_why)
        else:
            free["rel"] = lambda value, m: None
        if name == "nDCG":
            free["gain"] = _trec_gain
        rules[name] = _Rule(_trec_name, cutoff=cutoff, fixed={"ideal": "judged", "ties": "trec", "norel": "0"},
                            free=free)
    return rules


_TREC_EVAL = Preset(
    name="trec_eval",
    description="trec_eval 9.x (and 10.0 without -c): judged's defaults; queries missing from the run are skipped",
    library="trec_eval",
    options={"missing": "skip"},
    caveats=(
        ("Missing queries are skipped, as trec_eval 9.x and pytrec_eval do; trec_eval 10.0 refuses a judged "
         "query missing from the run unless -c is given, and -c scores it 0: use missing='zero' for -c."),
        *_TREC_CAVEATS,
        "trec_eval's -M depth is evaluate(depth=...); -J is unjudged=drop; -l is rel.",
    ),
    _rules=_trec_rules(None, ""),
    _why=_TREC_WHY,
    _absent=_TREC_ABSENT,
)

_PYTREC_EVAL = Preset(
    name="pytrec_eval",
    description="pytrec_eval (trec_eval's C code): judged's defaults; only queries in both run and judgments",
    library="pytrec_eval",
    options={"missing": "skip"},
    caveats=(
        ("pytrec_eval returns the queries that are in both the run and the judgments and leaves averaging to "
         "you; judged skips missing queries (missing='skip') and means the rest."),
        "relevance_level must be >= 1 in pytrec_eval (rel=0 raises TypeError there).",
        *_TREC_CAVEATS,
        ("A gain map reaches pytrec_eval only through its C extension (measure 'ndcg.1=1,2=3'), and an evaluator "
         "built with one fails on its second evaluate(); build a new one per call."),
    ),
    _rules=_trec_rules(1, "pytrec_eval refuses relevance_level < 1"),
    _why=_TREC_WHY,
    _absent=_TREC_ABSENT,
)


# ---------------------------------------------------------------------------------------------
# ir_measures 0.4.3: pytrec_eval underneath, missing queries 0, RR@k from the msmarco provider


def _irm_gain(value, m) -> str | None:
    gain: Gain = value  # type: ignore[assignment]
    if gain.kind == "exp":
        if m.cutoff is not None:
            return ("ir_measures computes nDCG(dcg='exp-log2')@k with gdeval.pl, which rounds each query to "
                    "5 decimals and rejects grades > 4 and non-numeric query ids; for an exact number ask "
                    "ir_measures for nDCG(gains={0:0,1:1,2:3,3:7})@k and judged for nDCG(gain={1:1,2:3,3:7})@k")
        return ("ir_measures sends nDCG(dcg='exp-log2') without a cutoff to ranx, which fails with the "
                "installed pandas; ask for nDCG(gains={0:0,1:1,2:3,3:7}) instead")
    if any(grade < 0 for grade, _ in gain.mapping):
        return "ir_measures relabels the judgments with the map, and a negative grade is unjudged in judged"
    if not all(_integral(v) and v >= 0 for _, v in gain.mapping):
        return ("ir_measures applies gains= by relabelling the judgments for pytrec_eval, which takes only "
                "non-negative integer labels here (a negative label is unjudged there)")
    return None


def _irm_name(m: Measure) -> str:
    params = []
    if "rel" in m.family.params and m.rel != 1:
        params.append(f"rel={m.rel}")
    if "unjudged" in m.family.params and m.unjudged == "drop" and not (m.name == "R" and m.cutoff is None):
        params.append("judged_only=True")  # SetR has none: dropping unjudged documents cannot change it
    if m.name == "nDCG" and m.gain.kind == "map":
        params.append("gains={" + ",".join(f"{g}:{int(v)}" for g, v in m.gain.mapping) + "}")
    base = {"P": "SetP" if m.cutoff is None else "P", "R": "SetR" if m.cutoff is None else "R",
            "NumRelRet": "NumRet"}.get(m.name, m.name)
    if m.name == "NumRelRet":
        params = [f"rel={m.rel}"]
    text = base + (f"({','.join(params)})" if params else "")
    return text if m.cutoff is None else f"{text}@{m.cutoff}"


def _irm_rr_drop(value, m) -> str | None:
    if m.cutoff is not None:
        return "ir_measures computes RR@k with the msmarco provider, which has no judged_only"
    return None


_IRM_FIXED = {"ideal": "judged", "ties": "trec", "norel": "0"}
_IRM_REL = _rel_at_least(1, "ir_measures passes rel to pytrec_eval, whose relevance_level must be >= 1")
_IRM_TIE_NOTE = ("ir_measures computes RR@k with its msmarco provider, which sorts tied scores by docid "
                 "ascending; judged has no such rule (ties=trec is docid descending), so RR@k agrees only "
                 "where no tied group holds the first relevant document.")


def _irm_no_drop(value, m) -> str | None:
    return f"ir_measures' {_irm_name(dataclasses.replace(m, unjudged='zero'))} takes no judged_only"


def _irm_rules() -> dict[str, _Rule]:
    common = {"rel": _IRM_REL, "unjudged": _drop_ok}
    return {
        "nDCG": _Rule(_irm_name, fixed=_IRM_FIXED, free={"gain": _irm_gain, "unjudged": _drop_ok}),
        "P": _Rule(_irm_name, fixed=_IRM_FIXED, free=common),
        "R": _Rule(_irm_name, fixed=_IRM_FIXED, free=common),
        "AP": _Rule(_irm_name, fixed=_IRM_FIXED, free=common),
        "RR": _Rule(_irm_name, fixed=_IRM_FIXED, free={"rel": _IRM_REL, "unjudged": _irm_rr_drop},
                    notes=(_IRM_TIE_NOTE,)),
        "Success": _Rule(_irm_name, cutoff="required", fixed=_IRM_FIXED, free=common),
        "Rprec": _Rule(_irm_name, fixed=_IRM_FIXED, free=common),
        "Bpref": _Rule(_irm_name, fixed=_IRM_FIXED, free={"rel": _IRM_REL}),
        "NumRet": _Rule(_irm_name, cutoff="none"),
        "NumRelRet": _Rule(_irm_name, cutoff="none", fixed=_IRM_FIXED,
                           free={"rel": _IRM_REL, "unjudged": _irm_no_drop}),
    }


_IR_MEASURES = Preset(
    name="ir_measures",
    description="ir_measures 0.4.3: trec_eval's conventions through pytrec_eval; a query missing from the run scores 0",
    library="ir_measures",
    options={"missing": "zero"},
    caveats=(
        ("ir_measures yields its DEFAULT (0) for every judged query its provider did not score, so a query "
         "missing from the run scores 0 and counts in the mean (missing='zero')."),
        _IRM_TIE_NOTE,
        ("nDCG(dcg='exp-log2') is refused: gdeval.pl rounds to 5 decimals (with a cutoff) and the ranx provider "
         "fails (without one); the exact exponential nDCG in ir_measures is nDCG(gains={0:0,1:1,2:3,3:7})."),
        ("NumRel is refused: ir_measures reports 0 for a query missing from the run, not its number of relevant "
         "documents."),
        "Judged@k is refused: ir_measures counts negative grades as judged and breaks ties by docid ascending.",
        "Scores pass through pytrec_eval's C float, as with trec_eval.",
    ),
    _rules=_irm_rules(),
    _why={**_TREC_WHY, "ties": "ir_measures' providers fix the tie order (pytrec_eval: docid descending)"},
    _absent={
        "DCG": "ir_measures has no unnormalised DCG",
        "NumRel": "ir_measures reports NumRel 0 for a query missing from the run (its DEFAULT), "
        "judged its true count, under missing='zero'",
        "Judged": "ir_measures' Judged@k counts negative grades as judged and sorts ties by docid ascending, "
        "judged counts negative grades as unjudged",
    },
)


# ---------------------------------------------------------------------------------------------
# ranx 0.3.21


def _ranx_level(gain: Gain) -> int | None:
    """The ``-lL`` of a map that only zeroes grades below L (ranx's label filter), else None."""
    zeroed = {g for g, v in gain.mapping if v == 0}
    if len(zeroed) != len(gain.mapping) or any(g < 0 for g in zeroed):
        return None
    positive = zeroed - {0}
    if not positive or positive != set(range(1, max(positive) + 1)):
        return None
    return max(positive) + 1


def _ranx_gain(value, m) -> str | None:
    gain: Gain = value  # type: ignore[assignment]
    if gain.kind == "map" and _ranx_level(gain) is None:
        return ("ranx has no gain maps; its only lever is the -lL suffix, which removes labels below L "
                "(judged: gain={1:0,...,L-1:0})")
    return None


def _ranx_name(m: Measure) -> str:
    base = _RANX_NAMES[m.name]
    level = m.rel if "rel" in m.family.params else 1
    if m.name in ("nDCG", "DCG"):
        if m.gain.kind == "exp":
            base += "_burges"
        elif m.gain.kind == "map":
            level = _ranx_level(m.gain) or 1
    text = base if m.cutoff is None else f"{base}@{m.cutoff}"
    return text if level == 1 else f"{text}-l{level}"


_RANX_NAMES = {
    "nDCG": "ndcg", "DCG": "dcg", "P": "precision", "R": "recall", "AP": "map", "RR": "mrr",
    "Success": "hit_rate", "Rprec": "r-precision",
}
_RANX_TIES = ("ranx sorts each query by score with numba's argsort, which orders tied scores arbitrarily "
              "(neither docid nor input order in general); no judged tie rule reproduces it, so a preset number "
              "agrees with ranx only where no tied group straddles a cutoff or a relevant document.")


def _ranx_rules(gain: Gain | None) -> dict[str, _Rule]:
    fixed = {"ideal": "judged", "unjudged": "zero", "ties": "trec", "norel": "0"}
    rel = {"rel": _rel_at_least(1, "this preset maps rel to ranx's -lL for L >= 1 only")}
    graded_fixed = dict(fixed) if gain is None else {**fixed, "gain": gain}
    graded_free = {} if gain is not None else {"gain": _ranx_gain}
    notes = (_RANX_TIES,)
    rules = {
        "nDCG": _Rule(_ranx_name, fixed=graded_fixed, free=graded_free, notes=notes),
        "DCG": _Rule(_ranx_name, fixed=graded_fixed, free=graded_free, notes=notes),
    }
    if gain is None:
        for name in ("P", "R", "AP", "RR", "Success"):
            rules[name] = _Rule(_ranx_name, fixed=fixed, free=rel, notes=notes)
        rules["Rprec"] = _Rule(_ranx_name, cutoff="none", fixed=fixed, free=rel, notes=notes)
    return rules


_RANX_WHY = {
    "gain": "ranx's ndcg gains the label (ndcg_burges: 2^label - 1)",
    "ideal": "ranx builds the ideal list from the judged documents (labels >= the level), cut at k",
    "unjudged": "ranx has no judged-only option: unjudged documents gain 0",
    "ties": "ranx orders tied scores arbitrarily; no tie rule can be requested",
    "norel": "ranx scores a query with no relevant judgment 0 (ndcg divides by 1 when the ideal DCG is 0)",
    "rel": "ranx's -lL is the relevance threshold",
}
_RANX_ABSENT = {
    "Bpref": "ranx's bpref divides by min(R, N) even when N is 0 and counts negative grades as judged "
    "non-relevant, which judged does not",
    "NumRelRet": "ranx's hits@k is a per-query count that ranx averages while judged sums NumRelRet",
    "Judged": "ranx has no judged share",
    "NumRet": "ranx has no number retrieved",
    "NumRel": "ranx has no number relevant",
}
_RANX_CAVEATS = (
    _RANX_TIES,
    ("ranx.evaluate refuses a run whose query ids differ from the judgments' unless make_comparable=True, "
     "which gives each missing query an empty ranking (0) and drops run-only queries: the preset uses "
     "missing='zero', the make_comparable=True numbers."),
    ("ranx's -lL suffix removes labels below L before nDCG, so unlike trec_eval the threshold changes nDCG: "
     "ranx ndcg@k-lL is judged nDCG(gain={1:0,...,L-1:0})@k under the ranx preset."),
    "ranx hashes document ids (numba hash) to compare them; a hash collision would merge two documents.",
)

_RANX = Preset(
    name="ranx",
    description="ranx 0.3.21 with make_comparable=True: linear gain (ndcg), ideal from the judged set, missing queries 0",
    library="ranx",
    options={"missing": "zero"},
    caveats=(*_RANX_CAVEATS, "nDCG(gain=exp) under this preset is ranx's ndcg_burges."),
    _rules=_ranx_rules(None),
    _why=_RANX_WHY,
    _absent=_RANX_ABSENT,
)

_RANX_BURGES = Preset(
    name="ranx_burges",
    description="ranx 0.3.21 ndcg_burges / dcg_burges: exponential gain (2^g - 1), otherwise as the ranx preset",
    library="ranx",
    options={"missing": "zero"},
    caveats=(*_RANX_CAVEATS, "Only nDCG and DCG are exponential in ranx; for P, R, AP, RR use the ranx preset."),
    _rules=_ranx_rules(Gain("exp")),
    _why={**_RANX_WHY, "gain": "ranx's ndcg_burges gains 2^label - 1 and takes no gain map"},
    _absent={
        **_RANX_ABSENT,
        **{name: "ranx_burges covers ndcg_burges and dcg_burges only; use the ranx preset"
           for name in ("P", "R", "AP", "RR", "Success", "Rprec")},
    },
)


# ---------------------------------------------------------------------------------------------
# scikit-learn and TorchMetrics: a dense matrix of candidates, nothing outside it


def _dense_gain(value, m) -> str | None:
    gain: Gain = value  # type: ignore[assignment]
    if any(v < 0 for _, v in gain.mapping):
        return "the library's relevance (y_true / target) is the gain and must not be negative"
    if any(g <= 0 and v != 0 for g, v in gain.mapping):
        return ("in a dense matrix an unjudged candidate has relevance 0 like a grade-0 one, so a map giving "
                "grade 0 (or below) a gain cannot be written there")
    return None


def _sklearn_name(m: Measure) -> str:
    fn = "ndcg_score" if m.name == "nDCG" else "dcg_score"
    k = "" if m.cutoff is None else f", k={m.cutoff}"
    return f"{fn}(y_true, y_score{k})"


_DENSE_NOTE = ("The library sees only the candidates you put in the matrix: build each query's row from its "
               "retrieved documents with relevance = the judged grade's gain (0 for unjudged); unjudged=drop "
               "means leaving unjudged documents out of the row.")

_SKLEARN = Preset(
    name="sklearn",
    description="scikit-learn ndcg_score/dcg_score: linear gain, ideal from the supplied candidates, ties averaged",
    library="scikit-learn",
    options={"missing": "skip"},
    caveats=(
        _DENSE_NOTE,
        ("ndcg_score builds the ideal list from the candidates supplied (ideal=returned): a run that retrieved "
         "one relevant document of ten scores 1.0 there."),
        ("Tied scores are averaged over each tied group (McSherry & Najork; ignore_ties=False, the default): "
         "ties=average. ignore_ties=True orders ties by numpy's argsort instead and is not reproduced."),
        ("A row whose relevance is all 0 scores 0 (norel=0); a query with fewer than 2 candidates raises in "
         "ndcg_score, and negative relevance is refused there."),
        "y_true is the gain: gain=exp means passing 2^grade - 1 as y_true, a gain map passing the mapped values.",
        "A query missing from the run has no row and is not scored (missing='skip').",
    ),
    _rules={
        "nDCG": _Rule(_sklearn_name, fixed={"ideal": "returned", "ties": "average", "norel": "0"},
                      free={"gain": _dense_gain, "unjudged": _drop_ok}),
        "DCG": _Rule(_sklearn_name, fixed={"ties": "average"}, free={"gain": _dense_gain, "unjudged": _drop_ok}),
    },
    _why={
        "ideal": "ndcg_score builds the ideal list from the supplied candidates only",
        "ties": "ndcg_score averages over tied scores (ignore_ties=False)",
        "norel": "ndcg_score scores an all-zero row 0",
        "gain": "y_true is the gain",
        "unjudged": "unjudged candidates have relevance 0",
    },
    _absent={
        "P": "scikit-learn has no precision at k for rankings (precision_score is a classification measure)",
        "R": "scikit-learn has no recall at k for rankings (recall_score is a classification measure)",
        "AP": "scikit-learn's average_precision_score is a classification AP over the candidates (its "
        "denominator is the positives among them and tied scores form one threshold)",
        "RR": "scikit-learn has no reciprocal rank for rankings",
    },
)


def _torch_name(m: Measure) -> str:
    if m.name == "nDCG" and m.norel != "0":
        action = {"1": "pos", "skip": "skip"}[m.norel]
        k = "" if m.cutoff is None else f"top_k={m.cutoff}, "
        return f"RetrievalNormalizedDCG({k}empty_target_action={action!r})"
    fn = {"nDCG": "retrieval_normalized_dcg", "P": "retrieval_precision", "RR": "retrieval_reciprocal_rank",
          "Success": "retrieval_hit_rate"}[m.name]
    k = "" if m.cutoff is None else f", top_k={m.cutoff}"
    return f"{fn}(preds, target{k})"


def _torch_norel(value, m) -> str | None:
    return None  # empty_target_action: neg = 0, pos = 1, skip = skip


_TORCH_FLOAT32 = ("TorchMetrics computes in float32 (preds are cast with .float(); nDCG accumulates in "
                  "float32), so it agrees to about 1e-7, not to double precision, and scores that differ only "
                  "beyond float32 precision tie there.")
_TORCH_POSITIVE = ("retrieval_precision and retrieval_reciprocal_rank treat every candidate scored <= 0 as "
                   "non-relevant (torch.where(preds > 0, target, 0)); judged has no such rule, so P and RR agree "
                   "only when every score is positive.")
_TORCH_TIES = ("P, RR and HitRate rank with torch.topk / torch.argsort, which order tied scores arbitrarily; "
               "they agree only where no tied group straddles the cutoff or the first relevant document.")

_TORCHMETRICS = Preset(
    name="torchmetrics",
    description="TorchMetrics retrieval metrics: nDCG with ideal from the supplied targets and ties averaged",
    library="TorchMetrics",
    options={"missing": "skip"},
    caveats=(
        _DENSE_NOTE,
        ("retrieval_normalized_dcg is a translation of scikit-learn's: linear gain on the target, ideal from "
         "the supplied targets (ideal=returned), ties averaged (ties=average)."),
        ("A query with no positive target is the module's empty_target_action: 'neg' (default, and the "
         "functional form) is norel=0, 'pos' is norel=1, 'skip' is norel=skip (nDCG only; P, RR and HitRate "
         "reproduce the default)."),
        "P, RR and HitRate take a binary target: target = 1 when grade >= rel.",
        _TORCH_FLOAT32,
        _TORCH_POSITIVE,
        _TORCH_TIES,
        "A query missing from the run has no candidates and is not scored (missing='skip').",
    ),
    _rules={
        "nDCG": _Rule(_torch_name, fixed={"ideal": "returned", "ties": "average"},
                      free={"gain": _dense_gain, "unjudged": _drop_ok, "norel": _torch_norel},
                      notes=(_TORCH_FLOAT32,)),
        "P": _Rule(_torch_name, free={"rel": _rel_at_least(1, "the binary target is grade >= rel, rel >= 1"),
                                      "unjudged": _drop_ok},
                   notes=(_TORCH_FLOAT32, _TORCH_POSITIVE, _TORCH_TIES)),
        "RR": _Rule(_torch_name, free={"rel": _rel_at_least(1, "the binary target is grade >= rel, rel >= 1"),
                                       "unjudged": _drop_ok},
                    notes=(_TORCH_FLOAT32, _TORCH_POSITIVE, _TORCH_TIES)),
        "Success": _Rule(_torch_name, free={"rel": _rel_at_least(1, "the binary target is grade >= rel, rel >= 1"),
                                            "unjudged": _drop_ok},
                         notes=(_TORCH_FLOAT32, _TORCH_TIES)),
    },
    _why={
        "ideal": "retrieval_normalized_dcg builds the ideal list from the supplied targets only",
        "ties": "TorchMetrics averages tied scores in nDCG and orders them arbitrarily elsewhere",
        "norel": "only empty_target_action applies",
        "gain": "the target is the gain",
        "unjudged": "unjudged candidates have target 0",
        "rel": "the binary target is grade >= rel",
    },
    _absent={
        "R": "retrieval_recall divides by the relevant documents among the supplied candidates, not by every "
        "relevant judged document; judged has no recall with that base",
        "AP": "retrieval_average_precision divides by the relevant candidates found in the top k (or supplied), "
        "not by every relevant judged document; judged has no AP with that base",
        "Rprec": "retrieval_r_precision takes R from the supplied candidates, not from the judgments",
        "DCG": "TorchMetrics has no unnormalised retrieval DCG",
    },
)


# ---------------------------------------------------------------------------------------------
# Registry

_PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (_TREC_EVAL, _PYTREC_EVAL, _IR_MEASURES, _RANX, _RANX_BURGES, _SKLEARN, _TORCHMETRICS)
}
_ALIASES = {"scikit_learn": "sklearn", "pytrec_eval_terrier": "pytrec_eval", "ir_measure": "ir_measures"}


def names() -> list[str]:
    """Every preset name, in registration order."""
    return list(_PRESETS)


def get(name: str) -> Preset:
    """The preset called ``name`` (case and ``-``/``_`` do not matter); UsageError with a suggestion if unknown."""
    if isinstance(name, Preset):
        return name
    if not isinstance(name, str):
        raise UsageError(f"a preset name must be a string. Got {name!r}; presets: {', '.join(_PRESETS)}.")
    key = name.strip().lower().replace("-", "_")
    key = _ALIASES.get(key, key)
    if key in _PRESETS:
        return _PRESETS[key]
    close = difflib.get_close_matches(key, list(_PRESETS) + list(_ALIASES), n=3, cutoff=0.5)
    suggestions = list(dict.fromkeys(_ALIASES.get(c, c) for c in close))
    hint = f" Did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
    raise UsageError(f"unknown preset {name!r}.{hint} Presets: {', '.join(_PRESETS)}.")


def apply(name: str | Preset, measures: Iterable[Measure | str] | Measure | str) -> tuple[list[Measure], dict]:
    """Map every measure through the preset ``name``; returns the measures and the options for evaluate.

    >>> ms, options = apply("ranx_burges", ["nDCG@10"])
    >>> str(ms[0]), options
    ('nDCG(gain=exp,ideal=judged,unjudged=zero,ties=trec,norel=0)@10', {'missing': 'zero'})
    """
    preset = get(name)
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    return [preset.measure(m) for m in measures], dict(preset.options)
