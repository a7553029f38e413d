"""ir_measures' measure objects: ``nDCG@10``, ``P(rel=2)@5``, compared and hashed by the text they print.

An object holds a name and the parameters given; ``@`` sets the cutoff (the
recall level for ``IPrec``) and a call sets any parameter. The text leaves out
the parameters given at their default, so ``AP(rel=1) == AP``, as in
ir_measures; what each measure computes lives in judged's families
(:mod:`judged.measures.families`), reached through :mod:`judged.ir_measures.providers`.

>>> str(P(rel=2)@5), nDCG@10 == nDCG(cutoff=10), MAP == AP
('P(rel=2)@5', True, True)
>>> IPrec@0.2, SetRelP, nDCG(gains={1: 2, 0: 1})
(IPrec@0.2, SetP(relative=True), nDCG(gains={0:1,1:2}))
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

_UNSET: Any = object()


@dataclass(frozen=True)
class ParamInfo:
    """One parameter a measure accepts: its type, whether it must be given, its default."""

    dtype: type | None = None
    required: bool = False
    default: Any = _UNSET
    choices: tuple[Any, ...] | None = None
    desc: str = ""

    def validate(self, value: Any) -> bool:
        """Whether ``value`` (``_UNSET`` when not given) is acceptable."""
        if value is _UNSET:
            return not self.required
        if self.dtype is float and isinstance(value, int) and not isinstance(value, bool):
            return True
        if self.dtype is not None and not isinstance(value, self.dtype):
            return False
        return self.choices is None or value in self.choices


class Measure:
    """A measure name with parameters, as ir_measures writes it; immutable in use, compared by its text."""

    NAME: str = ""
    AT_PARAM = "cutoff"
    SUPPORTED_PARAMS: Mapping[str, ParamInfo] = {}
    DEFAULT = 0.0
    AGGREGATE = "mean"

    def __init__(self, **params: Any) -> None:
        self.params = params

    def __call__(self, **params: Any) -> Measure:
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.params = {**self.params, **params}
        return clone

    def __matmul__(self, at: Any) -> Measure:
        return self(**{self.AT_PARAM: at})

    def __getitem__(self, key: str) -> Any:
        default = self.SUPPORTED_PARAMS[key].default
        value = self.params.get(key, default)
        return None if value is _UNSET else value

    def validate_params(self) -> None:
        """Raise ValueError for a parameter the measure does not take or a value it does not accept."""
        unknown = sorted(set(self.params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            raise ValueError(f"unsupported params found: {unknown}")
        for name, info in self.SUPPORTED_PARAMS.items():
            if not info.validate(self.params.get(name, _UNSET)):
                raise ValueError(f"invalid param {name}={self.params.get(name, _UNSET)!r}")

    def __repr__(self) -> str:
        shown = [f"{k}={_param_text(v)}" for k, v in self.params.items()
                 if k != self.AT_PARAM and not _is_default(self.SUPPORTED_PARAMS.get(k), v)]
        text = self.NAME + (f"({','.join(shown)})" if shown else "")
        return text + (f"@{self.params[self.AT_PARAM]}" if self.AT_PARAM in self.params else "")

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Measure) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def aggregator(self) -> MeanAgg | SumAgg:
        """A fresh accumulator of this measure's per-query values (PyTerrier aggregates with it)."""
        return SumAgg() if self.AGGREGATE == "sum" else MeanAgg()

    def iter_calc(self, qrels: Any, run: Any) -> Iterator[Any]:
        """This measure's per-query values of ``run``."""
        from judged.ir_measures.providers import DefaultPipeline
        return DefaultPipeline.iter_calc([self], qrels, run)

    def calc_aggregate(self, qrels: Any, run: Any) -> float:
        """This measure's aggregate over the judged queries."""
        from judged.ir_measures.providers import DefaultPipeline
        return DefaultPipeline.calc_aggregate([self], qrels, run)[self]

    def calc(self, qrels: Any, run: Any) -> Any:
        """``CalcResults(aggregate, per-query metrics)`` of this measure."""
        from judged.ir_measures.providers import DefaultPipeline
        from judged.ir_measures.records import CalcResults
        aggregated, metrics = DefaultPipeline.calc([self], qrels, run)
        return CalcResults(aggregated[self], metrics)

    def evaluator(self, qrels: Any) -> Any:
        """An evaluator of this measure over ``qrels``, for many runs."""
        from judged.ir_measures.providers import DefaultPipeline
        return DefaultPipeline.evaluator([self], qrels)


BaseMeasure = Measure


class MeanAgg:
    """The mean of the values added; ``default`` (NaN) when none were.

    >>> agg = MeanAgg(); agg.add(1.0); agg.add(0.0); agg.result()
    0.5
    """

    def __init__(self, default: float = float("nan")) -> None:
        self.sum, self.count, self.default = 0.0, 0, default

    def add(self, value: float) -> None:
        """Take one query's value."""
        self.sum += value
        self.count += 1

    def result(self) -> float:
        """The mean so far."""
        return self.sum / self.count if self.count else self.default


class SumAgg:
    """The sum of the values added (counts: NumQ, NumRel, NumRet)."""

    def __init__(self) -> None:
        self.sum = 0.0

    def add(self, value: float) -> None:
        """Take one query's value."""
        self.sum += value

    def result(self) -> float:
        """The sum so far."""
        return self.sum


def _is_default(info: ParamInfo | None, value: Any) -> bool:
    return info is not None and info.default is not _UNSET and value == info.default


def _param_text(value: Any) -> str:
    if isinstance(value, dict):  # as ir_measures prints a gain map: sorted, identity entries left out
        return "{" + ",".join(f"{k}:{v}" for k, v in sorted(value.items()) if k != v) + "}"
    return repr(value)


def _p(dtype: type | None, default: Any = _UNSET, required: bool = False,
       choices: tuple[Any, ...] | None = None) -> ParamInfo:
    return ParamInfo(dtype, required, default, choices)


_CUTOFF, _CUTOFF_REQUIRED = _p(int), _p(int, required=True)
_REL, _JUDGED_ONLY = _p(int, 1), _p(bool, False)
_MIN_REL, _MAX_REL = _p(int, 0), _p(int, required=True)
_T = _p(float, 1.0)

#: ir_measures' measures judged defines: name -> (parameters, the parameter ``@`` sets, how values aggregate).
_CATALOGUE: dict[str, tuple[dict[str, ParamInfo], str, str]] = {
    "Accuracy": ({"cutoff": _CUTOFF, "rel": _REL}, "cutoff", "mean"),
    "AP": ({"cutoff": _CUTOFF, "rel": _REL, "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "BPM": ({"cutoff": _CUTOFF_REQUIRED, "T": _T, "min_rel": _MIN_REL, "max_rel": _MAX_REL}, "cutoff", "mean"),
    "Bpref": ({"rel": _REL}, "cutoff", "mean"),
    "Compat": ({"p": _p(float, 0.95), "normalize": _p(bool, True)}, "cutoff", "mean"),
    "ERR": ({"cutoff": _CUTOFF}, "cutoff", "mean"),
    "INSQ": ({"T": _T, "min_rel": _MIN_REL, "max_rel": _MAX_REL}, "cutoff", "mean"),
    "INST": ({"T": _T, "min_rel": _MIN_REL, "max_rel": _MAX_REL}, "cutoff", "mean"),
    "infAP": ({"rel": _REL}, "cutoff", "mean"),
    "IPrec": ({"recall": _p(float, required=True), "rel": _REL, "judged_only": _JUDGED_ONLY}, "recall", "mean"),
    "Judged": ({"cutoff": _CUTOFF}, "cutoff", "mean"),
    "nDCG": ({"cutoff": _CUTOFF, "dcg": _p(str, "log2", choices=("log2", "exp-log2")), "gains": _p(dict),
              "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "NERR8": ({"cutoff": _CUTOFF_REQUIRED, "min_rel": _MIN_REL, "max_rel": _MAX_REL}, "cutoff", "mean"),
    "NERR9": ({"cutoff": _CUTOFF_REQUIRED, "min_rel": _MIN_REL, "max_rel": _MAX_REL}, "cutoff", "mean"),
    "NERR10": ({"p": _p(float, 0.9), "min_rel": _MIN_REL, "max_rel": _MAX_REL}, "cutoff", "mean"),
    "NERR11": ({"T": _T, "min_rel": _MIN_REL, "max_rel": _MAX_REL}, "cutoff", "mean"),
    "NumQ": ({}, "cutoff", "sum"),
    "NumRel": ({"rel": _REL}, "cutoff", "sum"),
    "NumRet": ({"rel": _p(int)}, "cutoff", "sum"),
    "P": ({"cutoff": _CUTOFF_REQUIRED, "rel": _REL, "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "R": ({"cutoff": _CUTOFF_REQUIRED, "rel": _REL, "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "RBP": ({"cutoff": _CUTOFF, "p": _p(float, 0.8), "rel": _p(int)}, "cutoff", "mean"),
    "Rprec": ({"rel": _REL, "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "RR": ({"cutoff": _CUTOFF, "rel": _REL, "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "SDCG": ({"cutoff": _CUTOFF_REQUIRED, "dcg": _p(str, "log2", choices=("log2",)), "min_rel": _MIN_REL,
              "max_rel": _MAX_REL}, "cutoff", "mean"),
    "SetAP": ({"rel": _REL, "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "SetF": ({"rel": _REL, "beta": _p(float, 1.0), "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "SetP": ({"rel": _REL, "relative": _p(bool, False), "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
    "SetR": ({"rel": _REL}, "cutoff", "mean"),
    "Success": ({"cutoff": _CUTOFF_REQUIRED, "rel": _REL, "judged_only": _JUDGED_ONLY}, "cutoff", "mean"),
}


def _measure_class(name: str) -> type[Measure]:
    params, at, aggregate = _CATALOGUE[name]
    return type(f"_{name}", (Measure,), {"NAME": name, "SUPPORTED_PARAMS": params, "AT_PARAM": at,
                                        "AGGREGATE": aggregate, "__doc__": f"ir_measures' {name}."})


#: Every measure by the names ir_measures registers (aliases included), as ``ir_measures.measures.registry``.
registry: dict[str, Measure] = {name: _measure_class(name)() for name in _CATALOGUE}
registry.update({"MAP": registry["AP"], "BPref": registry["Bpref"], "NDCG": registry["nDCG"],
                 "Precision": registry["P"], "Recall": registry["R"], "RPrec": registry["Rprec"],
                 "MRR": registry["RR"], "NumRelRet": registry["NumRet"](rel=1),
                 "SetRelP": registry["SetP"](relative=True)})

AP, BPM, Bpref, ERR = registry["AP"], registry["BPM"], registry["Bpref"], registry["ERR"]
Accuracy, Compat = registry["Accuracy"], registry["Compat"]
INSQ, INST, infAP, IPrec = registry["INSQ"], registry["INST"], registry["infAP"], registry["IPrec"]
Judged, nDCG, NumQ, NumRel = registry["Judged"], registry["nDCG"], registry["NumQ"], registry["NumRel"]
NERR8, NERR9, NERR10, NERR11 = registry["NERR8"], registry["NERR9"], registry["NERR10"], registry["NERR11"]
NumRet, NumRelRet, P, R, RBP = registry["NumRet"], registry["NumRelRet"], registry["P"], registry["R"], registry["RBP"]
Rprec, RR, SDCG, SetAP = registry["Rprec"], registry["RR"], registry["SDCG"], registry["SetAP"]
SetF, SetP, SetRelP, SetR = registry["SetF"], registry["SetP"], registry["SetRelP"], registry["SetR"]
Success = registry["Success"]
MAP, BPref, NDCG, Precision = registry["MAP"], registry["BPref"], registry["NDCG"], registry["Precision"]
Recall, RPrec, MRR = registry["Recall"], registry["RPrec"], registry["MRR"]


def register(measure: Measure, aliases: Iterable[str] = (), name: str | None = None) -> None:
    """Add ``measure`` to :data:`registry` under its name and ``aliases``, so parse_measure reads it."""
    for key in (name or measure.NAME, *aliases):
        registry[key] = measure
