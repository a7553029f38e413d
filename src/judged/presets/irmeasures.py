"""The ir_measures preset: each measure under the provider ir_measures sends it to, missing queries 0.

pytrec_eval's conventions for trec_eval's measures, the msmarco provider's
docid-ascending ties for RR@k, cwl_eval's input-order ties for the C/W/L
family and gdeval's top grade 4 for ERR@k. :mod:`judged.ir_measures` is the
exact route (it also yields ir_measures' DEFAULT for queries missing from the
run, which NumQ, NumRel and Judged need).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from judged.measures.parse import parse
from judged.measures.spec import DEFAULTS, Gain, Measure
from judged.presets.base import Preset, _drop_ok, _integral, _rel_at_least, _Rule
from judged.presets.trec import _TREC_WHY


def _irm_gain(value, m) -> str | None:
    gain: Gain = value
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
    if m.name == "SetF" and m.beta != 1:
        params.append(f"beta={m.beta!r}")
    base = {"P": "SetP" if m.cutoff is None else "P", "R": "SetR" if m.cutoff is None else "R",
            "NumRelRet": "NumRet", "RelP": "SetP"}.get(m.name, m.name)
    if m.name == "NumRelRet":
        params = [f"rel={m.rel}"]
    if m.name == "RelP":
        params = ["relative=True", *params]
    if m.name == "IPrec":
        return f"IPrec{'(' + ','.join(params) + ')' if params else ''}@{m.recall!r}"
    text = base + (f"({','.join(params)})" if params else "")
    return text if m.cutoff is None else f"{text}@{m.cutoff}"


def _cwl_name(m: Measure) -> str:
    """ir_measures' name of a C/W/L measure: T and p where they differ from its defaults, then max_rel."""
    params = [f"T={m.T!r}"] if "T" in m.family.params and m.T != 1.0 else []
    if "p" in m.family.params and m.p != 0.9:  # ir_measures' NERR10 persists with 0.9 by default
        params.append(f"p={m.p!r}")
    text = f"{m.name}({','.join([*params, f'max_rel={m.max_rel}'])})"
    return text if m.cutoff is None else f"{text}@{m.cutoff}"


def _cwl_top(value, m) -> str | None:
    if value == "query":
        return "ir_measures' C/W/L measures need max_rel, the top grade of the scale; write max_rel=3"
    return None


def _cwl_linear(value, m) -> str | None:
    return "cwl_eval scales the grades linearly (grade / max_rel); it takes no gain map"


def _irm_rr_drop(value, m) -> str | None:
    if m.cutoff is not None:
        return "ir_measures computes RR@k with the msmarco provider, which has no judged_only"
    return None


_IRM_FIXED = {"ideal": "judged", "ties": "trec", "norel": "0"}
_IRM_REL = _rel_at_least(1, "ir_measures passes rel to pytrec_eval, whose relevance_level must be >= 1")
_IRM_TIE_NOTE = ("ir_measures computes RR@k with its msmarco provider, which sorts tied scores by docid "
                 "ascending (Python's sort): the preset ranks RR@k with ties=docid, RR without a cutoff with "
                 "pytrec_eval's ties=trec.")
_CWL_NOTE = ("ir_measures computes SDCG, INST, INSQ, BPM and NERR8-11 with cwl_eval, which keeps tied scores "
             "in input order (ties=input) and clips a grade above max_rel to max_rel, where judged refuses it.")
_GDEVAL_NOTE = ("ir_measures computes ERR@k with gdeval.pl (top grade 4), which prints each query's value to 5 "
                "decimals and refuses non-numeric query ids; judged gives the unrounded value.")


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
        # through its pytrec_eval provider, whose trec_eval 9 meets a recall level at the (long)(r R + 0.9)-th
        "IPrec": _Rule(_irm_name, cutoff="none", fixed={**_IRM_FIXED, "rounding": "v9"},
                       free={**common, "recall": _any}),
        "infAP": _Rule(_irm_name, cutoff="none", fixed=_IRM_FIXED, free=common),
        "SetAP": _Rule(_irm_name, cutoff="none", fixed=_IRM_FIXED, free=common),
        "SetF": _Rule(_irm_name, cutoff="none", fixed=_IRM_FIXED, free={**common, "beta": _any}),
        "RelP": _Rule(_irm_name, cutoff="none", fixed=_IRM_FIXED, free=common),
        "ERR": _Rule(_irm_name, cutoff="required", fixed={"ties": "trec", "max_rel": 4}, notes=(_GDEVAL_NOTE,)),
        **{name: _Rule(_cwl_name, cutoff=cutoff, fixed={"ties": "input"},
                       free={"max_rel": _cwl_top, "gain": _cwl_linear, "T": _any, "p": _any}, notes=(_CWL_NOTE,))
           for name, cutoff in (("SDCG", "required"), ("BPM", "required"), ("NERR8", "required"),
                                ("NERR9", "required"), ("INST", "none"), ("INSQ", "none"), ("NERR10", "none"),
                                ("NERR11", "none"))},
        **{name: _Rule(_compat_name, cutoff="none", fixed={"ties": "docid", "norel": "0"},
                       free={"rel": _compat_rel, "unjudged": _no_judged_only, "p": _any}, notes=(_COMPAT_NOTE,))
           for name in ("Compat", "Compat_raw")},
        "Accuracy": _Rule(_accuracy_name, fixed={"ties": "input", "norel": "skip"},
                          free={"rel": _ACCURACY_REL, "unjudged": _no_judged_only}, notes=(_ACCURACY_NOTE,)),
    }


def _any(value, m) -> str | None:
    return None


def _compat_name(m: Measure) -> str:
    """ir_measures' Compat: p where it is not its 0.95, normalize=False for Compat_raw."""
    params = [f"p={m.p!r}"] if m.p != 0.95 else []
    return f"Compat({','.join([*params, 'normalize=False'] if m.name == 'Compat_raw' else params)})".replace("()", "")


def _accuracy_name(m: Measure) -> str:
    text = "Accuracy" + (f"(rel={m.rel})" if m.rel != 1 else "")
    return text if m.cutoff is None else f"{text}@{m.cutoff}"


_ACCURACY_REL = _rel_at_least(1, "ir_measures' accuracy counts an unjudged document as grade 0, so relevant under "
                            "rel < 1, where judged never does")
_COMPAT_NOTE = ("ir_measures computes Compat with its compat provider: ties by docid ascending (ties=docid), the "
                "ideal's documents of one grade by the run's score, then the judgments' order, a document not "
                "retrieved at score 0; judged orders them as the run ranks them, those not retrieved last, which "
                "is the same unless two of one grade tie in score or a relevant document scores 0 or less "
                "(judged.ir_measures reproduces those too).")
_ACCURACY_NOTE = ("ir_measures computes Accuracy with its accuracy provider: ties in input order (ties=input) and "
                  "only the queries with a relevant document in the top k (norel=skip).")


def _compat_rel(value, m) -> str | None:
    return "ir_measures' compat takes every document graded above 0 as relevant (rel=1)"


def _no_judged_only(value, m) -> str | None:
    return f"ir_measures' {m.name} takes no judged_only"


@dataclass(frozen=True)
class _IrMeasuresPreset(Preset):
    """The preset, with RR@k ranked as the msmarco provider ranks (ties=docid)."""

    def _map(self, measure: Measure | str) -> tuple[Measure, _Rule]:
        given = parse(measure) if isinstance(measure, str) else measure
        if isinstance(given, Measure) and given.name == "RR" and given.cutoff is not None and given.ties == "docid":
            measure = dataclasses.replace(given, ties=DEFAULTS["ties"])  # the order this preset itself gives RR@k
        mapped, rule = super()._map(measure)
        if mapped.name == "RR" and mapped.cutoff is not None:
            mapped = dataclasses.replace(mapped, ties="docid")
        return mapped, rule


_IR_MEASURES = _IrMeasuresPreset(
    name="ir_measures",
    description="ir_measures 0.4.3: trec_eval's conventions through pytrec_eval; a query missing from the run scores 0",
    library="ir_measures",
    options={"missing": "zero"},
    caveats=(
        ("ir_measures yields its DEFAULT (0) for every judged query its provider did not score, so a query "
         "missing from the run scores 0 and counts in the mean (missing='zero')."),
        _IRM_TIE_NOTE,
        _CWL_NOTE,
        _GDEVAL_NOTE,
        _COMPAT_NOTE,
        _ACCURACY_NOTE,
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
        "NumQ": "ir_measures reports NumQ 0 for a query missing from the run (its DEFAULT), where judged counts "
        "every judged query under missing='zero', as trec_eval -c does",
        "Judged": "ir_measures' Judged@k counts negative grades as judged and sorts ties by docid ascending, "
        "judged counts negative grades as unjudged",
    },
)
