"""Assessor agreement on graded labels: Cohen's kappa, Krippendorff's alpha, the breakdowns and the gate.

The unit is the (query, document) pair. Labels are plain data, a polars
DataFrame with columns ``qid, docid, assessor, grade`` (one row per pair per
assessor), read over the rubric's fixed grade domain, so the judgment store,
the command line and the web app all call the same functions.

>>> import polars as pl
>>> from judged.agreement import agreement, gate
>>> labels = pl.DataFrame({"qid": "q1", "docid": list("abcabc"), "assessor": list("xxxyyy"),
...                        "grade": [0, 2, 3, 0, 2, 2]})
>>> result = agreement(labels, grades=range(4), resamples=0)
>>> round(result.kappa("linear").value, 4), gate(result).passed
(0.7273, False)
"""

from judged.agreement.alpha import METRICS, Alpha, krippendorff_alpha
from judged.agreement.gate import Gate, GateCheck, gate
from judged.agreement.kappa import WEIGHTS, Kappa, cohen_kappa
from judged.agreement.labels import code_labels, labels_from_qrels
from judged.agreement.pairs import AssessorPair, GradeAgreement, QueryAgreement
from judged.agreement.report import Agreement, agreement

__all__ = [
    "METRICS",
    "WEIGHTS",
    "Agreement",
    "Alpha",
    "AssessorPair",
    "Gate",
    "GateCheck",
    "GradeAgreement",
    "Kappa",
    "QueryAgreement",
    "agreement",
    "code_labels",
    "cohen_kappa",
    "gate",
    "krippendorff_alpha",
    "labels_from_qrels",
]
