"""ir_measures' module over judged: ``from judged.ir_measures import nDCG, AP`` where ``import ir_measures`` was.

The measure objects and their algebra (``nDCG@10``, ``P(rel=2)@5``), the
readers and records, ``parse_measure``, ``calc``, ``calc_aggregate``,
``iter_calc``, ``evaluator``, the providers (``pytrec_eval``, ``cwl_eval``,
``compat``, ``judged``, ``msmarco``, ``gdeval``, ``accuracy``, ``runtime``) and ``define`` /
``define_byquery``, giving the numbers ir_measures prints: each measure goes
to the provider ir_measures would send it to, and is computed by judged's
family under that provider's habits (:mod:`judged.ir_measures.providers`).
Not here: the diversity family (judged has none) and ranx (docs/compat.md).

>>> from judged import ir_measures
>>> from judged.ir_measures import AP, RR, P
>>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d9": 1}}
>>> run = {"q1": {"d1": 1.0, "d2": 2.0, "d3": 0.5}}
>>> ir_measures.calc_aggregate([AP, P@2, RR@10], qrels, run)
{AP: 0.29166666666666663, P@2: 0.25, RR@10: 0.25}
>>> next(ir_measures.iter_calc([AP], qrels, run))
Metric(query_id='q1', measure=AP, value=0.5833333333333333)
"""

from __future__ import annotations

from judged.ir_measures import measures, providers, util
from judged.ir_measures.define import define, define_byquery
from judged.ir_measures.inputs import InputWarning
from judged.ir_measures.measures import (
    AP,
    BPM,
    ERR,
    INSQ,
    INST,
    MAP,
    MRR,
    NDCG,
    NERR8,
    NERR9,
    NERR10,
    NERR11,
    RBP,
    RR,
    SDCG,
    Accuracy,
    BaseMeasure,
    BPref,
    Bpref,
    Compat,
    IPrec,
    Judged,
    MeanAgg,
    Measure,
    NumQ,
    NumRel,
    NumRelRet,
    NumRet,
    P,
    ParamInfo,
    Precision,
    R,
    Recall,
    RPrec,
    Rprec,
    SetAP,
    SetF,
    SetP,
    SetR,
    SetRelP,
    Success,
    SumAgg,
    infAP,
    nDCG,
)
from judged.ir_measures.parse import parse_measure, parse_trec_measure
from judged.ir_measures.providers import (
    DefaultPipeline,
    Evaluator,
    FallbackProvider,
    Provider,
    accuracy,
    compat,
    cwl_eval,
    gdeval,
    judged,
    msmarco,
    pytrec_eval,
)
from judged.ir_measures.records import (
    CalcResults,
    GenericDoc,
    GenericQrel,
    GenericScoredDoc,
    Metric,
    Qrel,
    ScoredDoc,
    read_trec_qrels,
    read_trec_run,
)

__version__ = "0.4.3"
runtime = providers.registry["runtime"]
evaluator = DefaultPipeline.evaluator
iter_calc = DefaultPipeline.iter_calc
calc_aggregate = DefaultPipeline.calc_aggregate
calc = DefaultPipeline.calc
run_inputs = DefaultPipeline.run_inputs
qrel_inputs = DefaultPipeline.qrel_inputs

__all__ = [
    "AP",
    "BPM",
    "ERR",
    "INSQ",
    "INST",
    "MAP",
    "MRR",
    "NDCG",
    "NERR8",
    "NERR9",
    "NERR10",
    "NERR11",
    "RBP",
    "RR",
    "SDCG",
    "Accuracy",
    "BPref",
    "BaseMeasure",
    "Bpref",
    "CalcResults",
    "Compat",
    "DefaultPipeline",
    "Evaluator",
    "FallbackProvider",
    "GenericDoc",
    "GenericQrel",
    "GenericScoredDoc",
    "IPrec",
    "InputWarning",
    "Judged",
    "MeanAgg",
    "Measure",
    "Metric",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "ParamInfo",
    "Precision",
    "Provider",
    "Qrel",
    "R",
    "RPrec",
    "Recall",
    "Rprec",
    "ScoredDoc",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "SetRelP",
    "Success",
    "SumAgg",
    "accuracy",
    "calc",
    "calc_aggregate",
    "compat",
    "cwl_eval",
    "define",
    "define_byquery",
    "evaluator",
    "gdeval",
    "infAP",
    "iter_calc",
    "judged",
    "measures",
    "msmarco",
    "nDCG",
    "parse_measure",
    "parse_trec_measure",
    "providers",
    "pytrec_eval",
    "qrel_inputs",
    "read_trec_qrels",
    "read_trec_run",
    "run_inputs",
    "runtime",
    "util",
]
