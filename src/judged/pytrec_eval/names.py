"""Measure names as pytrec_eval reads them, resolved to judged's measures through the trec_eval table.

pytrec_eval expands nicknames (``official``, ``set``, ``all_trec``), then
merges every name into ``entry.params``: ``P.1,4`` and ``P_10`` ask for ``P``
at 1, 4 and 10 (a bare ``P`` adds nothing once ``P`` has parameters), and the
parameter strings are sorted as text before trec_eval reads them. trec_eval
ignores parameters a measure does not take (``map.5`` is ``map``). Only the
measures with cutoffs or levels answer under suffixed names (``P_5``,
``iprec_at_recall_0.10``); the others answer under the entry name, whatever
their parameters (``set_F.0.5`` is ``set_F``).

>>> [key for key, _ in resolve(["ndcg_cut", "ndcg_cut.1,4", "map.5", "set_F.0.5"], 1, False).measures]
['map', 'ndcg_cut_1', 'ndcg_cut_4', 'set_F']
"""

from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass

from judged.errors import UsageError
from judged.measures.spec import Measure
from judged.measures.trec_names import GAIN_MAPS, TABLE, from_trec_eval

#: trec_eval's measures as pytrec_eval lists them: the table entries judged computes that pytrec_eval's
#: trec_eval 9 has, and runid and relstring, which it answers 0.0 for in a dict of numbers.
SUPPORTED: frozenset[str] = frozenset(
    {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
     "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G",
     "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
     "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "runid", "relstring"}
)

#: pytrec_eval's nicknames: trec_eval's measure groups. The last three name measures of trec_eval's
#: preference and jg qrels formats, which pytrec_eval (and so this module) refuses.
NICKNAMES: dict[str, frozenset[str]] = {
    "official": frozenset({"P", "Rprec", "bpref", "gm_map", "iprec_at_recall", "map", "num_q", "num_rel",
                           "num_rel_ret", "num_ret", "recip_rank", "runid"}),
    "set": frozenset({"num_q", "num_rel", "num_rel_ret", "num_ret", "runid", "set_F", "set_map", "set_P",
                      "set_recall", "set_relative_P", "utility"}),
    "all_trec": SUPPORTED,
    "all_prefs": frozenset({"num_q", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret",
                            "prefs_avgjg_imp", "prefs_avgjg_ret", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                            "prefs_num_prefs_poss", "prefs_pair", "prefs_pair_imp", "prefs_pair_ret", "prefs_simp",
                            "prefs_simp_imp", "prefs_simp_ret", "runid"}),
    "prefs": frozenset({"num_q", "prefs_avgjg", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                        "prefs_num_prefs_poss", "prefs_pair", "prefs_simp", "runid"}),
    "qrels_jg": frozenset({"P_avgjg", "Rprec_mult_avgjg", "map_avgjg", "num_q", "runid"}),
}

#: The entries pytrec_eval answers 0.0 for: runid (a text in trec_eval) and relstring (a string of grades).
CONSTANT = ("runid", "relstring")

#: pytrec_eval's parameter pattern, matched at the start of a name after an entry's name.
_PARAMS = r"[._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"



@dataclass(frozen=True)
class Levels:
    """Interpolated precision at recall ``levels`` of which some are above 1, where judged's IPrec stops.

    trec_eval 9 meets level l at the (long)(l R + 0.9)-th relevant document; above 1 that is the R-th
    (IPrec at 1) or one beyond R, never met (0). ``mean`` averages the levels, as 11pt_avg does.
    """

    levels: tuple[float, ...]
    mean: bool
    template: Measure

    def at(self, level: float) -> Measure:
        """The judged measure a level is computed from: IPrec at the level, or at 1 above it."""
        return dataclasses.replace(self.template, recall=min(level, 1.0))


Spec = Measure | Levels | None


@dataclass(frozen=True)
class Resolved:
    """What a measure list asks for: ``(key, spec)`` pairs in trec_eval's order (``None``: the value is 0.0),
    and ``notes``, what pytrec_eval accepts and treats its own way (each said once in a warning)."""

    measures: tuple[tuple[str, Spec], ...]
    notes: tuple[str, ...]


def expand(measures: Iterable[object]) -> set[object]:
    """The names with each nickname replaced by its measures, as pytrec_eval's ``_expand_nicknames``."""
    names: set[object] = set()
    for name in measures:
        if name in NICKNAMES:
            names.update(NICKNAMES[name])
        else:
            names.add(name)
    return names


def combine(names: Iterable[object]) -> dict[str, list[str]]:
    """``{entry: parameter strings}`` in trec_eval's table order, each merged and sorted as text, as
    pytrec_eval's ``_combine_measures`` merges them.

    >>> combine(["P.10,5", "P", "map_2", "recall"])
    {'map': ['2'], 'P': ['10', '5'], 'recall': []}
    """
    params: dict[str, set[str]] = collections.defaultdict(set)
    for name in sorted(names, key=str):
        if not isinstance(name, str):
            raise TypeError(f"a measure name must be a str, as in 'map' or 'P.5,10'. Got {name!r}.")
        if name in SUPPORTED:
            params.setdefault(name, set())
            continue
        entry = next((e for e in sorted(SUPPORTED) if re.match(re.escape(e) + _PARAMS, name)), None)
        if entry is None:
            raise UsageError(f"unsupported measure {name}: pytrec_eval names trec_eval measures, as in 'map', "
                             f"'P_5' or 'ndcg_cut.5,10', or a nickname ({', '.join(NICKNAMES)}); "
                             f"the measures are {', '.join(sorted(SUPPORTED))}.")
        found = re.match(re.escape(entry) + _PARAMS, name)
        params[entry].update(found.group(1).split(","))  # type: ignore[union-attr]
    return {entry: sorted(values) for entry, values in sorted(params.items(), key=lambda item: _position(item[0]))}


def _position(entry: str) -> float:
    """Where trec_eval's table lists ``entry``, the order of a query's values: runid first, relstring after P."""
    if entry == "runid":
        return -1.0
    return list(TABLE).index("P") + 0.5 if entry == "relstring" else float(list(TABLE).index(entry))


def resolve(measures: Iterable[object], rel: int, judged_only: bool) -> Resolved:
    """The judged measures and the keys pytrec_eval answers them under, for its ``measures`` argument."""
    out: list[tuple[str, Spec]] = []
    notes: list[str] = []
    for entry, params in combine(expand(measures)).items():
        pairs, note = _entry_measures(entry, params, rel, judged_only)
        out.extend(pairs)
        notes.extend([note] if note else [])
    keyed = dict(out)  # a level written twice (0.1 and 0.10) is one key, as it is one measure
    return Resolved(tuple(keyed.items()), tuple(notes))


def _entry_measures(entry: str, params: list[str], rel: int,
                    judged_only: bool) -> tuple[list[tuple[str, Spec]], str | None]:
    """One entry's ``(key, measure)`` pairs, and a note if pytrec_eval treats these parameters its own way."""
    if entry in CONSTANT:
        return [(entry, None)], None
    table = TABLE[entry]
    suffixed = table.cutoffs is not None or table.level is not None
    if entry in GAIN_MAPS and params:
        raise UsageError(f"{entry}.{','.join(params)}: pytrec_eval cannot pass a gain map (ndcg.1=3,2=9) through "
                         "its measure names, and its trec_eval stops on what it gets; ask for judged's "
                         "nDCG(gain={1:3,2:9}) with judged.evaluate.")
    if entry == "utility" and params:
        return _utility(params, rel, judged_only)
    if entry in ("iprec_at_recall", "11pt_avg") and any(float(p) > 1 for p in params):
        return _levels(entry, params, rel, judged_only), None
    name = entry
    if params and (suffixed or entry == "11pt_avg"):
        name = f"{entry}.{_numeric(params)}"
    elif params and entry == "set_F":  # trec_eval reads the first parameter as beta
        name = f"{entry}.{params[0]}"
    pairs = [(key, _as_v9(m)) for key, m in from_trec_eval(name, rel=rel, judged_only=judged_only)]
    return (list(pairs) if suffixed else _named(entry, pairs)), None


def _as_v9(measure: Measure) -> Measure:
    """``measure`` meeting recall levels as pytrec_eval's trec_eval 9 does, the (long)(level R + 0.9)-th relevant."""
    return dataclasses.replace(measure, rounding="v9") if "rounding" in measure.family.params else measure


def _numeric(params: list[str]) -> str:
    """Parameters in numeric order: text order differs only for numbers of different widths (10 before 9)."""
    return ",".join(sorted(params, key=float))


def _levels(entry: str, params: list[str], rel: int, judged_only: bool) -> list[tuple[str, Spec]]:
    """iprec_at_recall (a key per level) or 11pt_avg (their mean) at levels of which some are above 1."""
    template = _as_v9(from_trec_eval("iprec_at_recall.1", rel=rel, judged_only=judged_only)[0][1])
    levels = sorted(float(p) for p in params)
    if entry == "11pt_avg":
        return [(entry, Levels(tuple(levels), True, template))]
    return [(f"{entry}_{level:3.2f}", Levels((level,), False, template)) for level in sorted(set(levels))]


def _named(entry: str, pairs: list[tuple[str, Measure]]) -> list[tuple[str, Spec]]:
    """Measures of an entry that pytrec_eval answers under the entry's own name."""
    return [(entry, measure) for _, measure in pairs]


def _utility(params: list[str], rel: int, judged_only: bool) -> tuple[list[tuple[str, Spec]], str | None]:
    """utility with trec_eval's four coefficients a, b, c, d, with the collection size 0 as pytrec_eval sets it.

    The worth d of each non-relevant document not retrieved multiplies ``0 - retrieved - relevant missed``,
    so the value is judged's Utility with coefficients a - d, b - d and c - d. Any other count of
    coefficients is trec_eval's "improper number of coefficients": it answers 0.0.
    """
    if len(params) != 4:
        return [("utility", None)], (f"utility.{','.join(params)} takes four coefficients; pytrec_eval's "
                                     "trec_eval answers 0.0 for it, and so does this module")
    a, b, c, d = (float(p) for p in params)
    base = from_trec_eval("utility", rel=rel, judged_only=judged_only)[0][1]
    return [("utility", dataclasses.replace(base, rel_ret=a - d, nonrel_ret=b - d, rel_missed=c - d))], None
