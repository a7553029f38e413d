"""The ranx presets (ranx 0.3.21): ndcg, ndcg_burges and the binary measures."""

from __future__ import annotations

from judged.measures.spec import Gain, Measure
from judged.presets.base import Preset, _rel_at_least, _Rule


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
    gain: Gain = value
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
    description=(
        "ranx 0.3.21 with make_comparable=True: linear gain (ndcg), ideal from the judged set, missing queries 0"
    ),
    library="ranx",
    options={"missing": "zero"},
    caveats=(*_RANX_CAVEATS, "nDCG(gain=exp) under this preset is ranx's ndcg_burges."),
    _rules=_ranx_rules(None),
    _why=_RANX_WHY,
    _absent=_RANX_ABSENT,
    arbitrary_ties=True,
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
    arbitrary_ties=True,
)
