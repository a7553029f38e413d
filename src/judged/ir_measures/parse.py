"""ir_measures' two measure grammars: its own (``P(rel=2)@5``) and trec_eval's names (``ndcg_cut.10``).

>>> parse_measure('nDCG(dcg="exp-log2", cutoff=20)@10')
nDCG(dcg='exp-log2')@10
>>> parse_trec_measure("P_5,10"), parse_trec_measure("set_F.1.0,0.5")
([P@5, P@10], [SetF, SetF(beta=0.5)])
"""

from __future__ import annotations

import ast
import re
from typing import Any

from judged.ir_measures import measures as m
from judged.measures.trec_names import DEFAULT_CUTOFFS, RECALL_LEVELS

_FORM = "problem parsing measure {}; must be in format Measure(k1=v1, k2=v2)@c"


def parse_measure(measure: str | m.Measure) -> m.Measure:
    """The measure object a name spells; a measure object is returned as it is, and ir_measures' own is read."""
    if isinstance(measure, m.Measure):
        return measure
    if not isinstance(measure, str) and isinstance(getattr(measure, "params", None), dict):
        return parse_measure(str(getattr(measure, "NAME", "")))(**measure.params)
    try:
        body = ast.parse(measure, mode="eval").body
    except SyntaxError as err:
        raise ValueError(_FORM.format(err)) from None
    at: Any = None
    if isinstance(body, ast.BinOp) and isinstance(body.op, ast.MatMult):
        at, body = _literal(body.right), body.left
    params: dict[str, Any] = {}
    if isinstance(body, ast.Call):
        if body.args:
            raise ValueError(_FORM.format("args must be named"))
        params = {str(k.arg): _literal(k.value) for k in body.keywords}
        body = body.func
    if not isinstance(body, ast.Name):
        raise ValueError(_FORM.format("unexpected expression"))
    if body.id not in m.registry:
        raise NameError(f"measure not found: {body.id}")
    found = m.registry[body.id](**params)
    return found if at is None else found @ at


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ValueError(_FORM.format("values must be str, float, int, bool, etc.")) from None


#: trec_eval's names ir_measures reads: (measure, the parameter a suffix sets, the values of the bare name).
_TREC: dict[str, tuple[m.Measure, str | None, tuple[Any, ...]]] = {
    "map": (m.AP, None, ()), "map_cut": (m.AP, "cutoff", DEFAULT_CUTOFFS), "P": (m.P, "cutoff", DEFAULT_CUTOFFS),
    "recall": (m.R, "cutoff", DEFAULT_CUTOFFS), "ndcg": (m.nDCG, None, ()),
    "ndcg_cut": (m.nDCG, "cutoff", DEFAULT_CUTOFFS), "set_map": (m.SetAP, None, ()), "set_P": (m.SetP, None, ()),
    "set_recall": (m.SetR, None, ()), "set_relative_P": (m.SetRelP, None, ()), "set_F": (m.SetF, "beta", (1.0,)),
    "infAP": (m.infAP, None, ()), "bpref": (m.Bpref, None, ()), "recip_rank": (m.RR, None, ()),
    "Rprec": (m.Rprec, None, ()), "num_q": (m.NumQ, None, ()), "num_ret": (m.NumRet, None, ()),
    "num_rel": (m.NumRel, None, ()), "num_rel_ret": (m.NumRelRet, None, ()),
    "success": (m.Success, "cutoff", (1, 5, 10)), "iprec_at_recall": (m.IPrec, "recall", RECALL_LEVELS),
}
#: trec_eval's ``official`` nickname, in the order ir_measures expands it.
_OFFICIAL = ("P", "Rprec", "bpref", "iprec_at_recall", "map", "num_q", "num_rel", "num_rel_ret", "num_ret",
             "recip_rank")
_SUFFIX = re.compile(r"(?P<name>.+?)[._](?P<args>[0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*)")


def parse_trec_measure(measure: str) -> list[m.Measure]:
    """The measure objects a trec_eval name stands for (``P`` is P at trec_eval's nine cutoffs)."""
    if measure == "official":
        return [found for name in _OFFICIAL for found in parse_trec_measure(name)]
    if measure in _TREC:
        base, key, values = _TREC[measure]
        return [base(**{key: v}) for v in values] if key else [base]
    match = _SUFFIX.fullmatch(measure)
    if match is None or match["name"] not in _TREC:
        raise ValueError(f"unknown measure {measure}")
    base, key, _ = _TREC[match["name"]]
    if key is None:
        raise ValueError(f"unknown argument for {measure}: {match['args']}")
    kind = base.SUPPORTED_PARAMS[key].dtype or float
    return [base(**{key: kind(arg)}) for arg in match["args"].split(",")]
