"""The scikit-learn and TorchMetrics presets: a dense matrix of candidates, nothing outside it."""

from __future__ import annotations

from judged.measures.spec import Gain, Measure
from judged.presets.base import Preset, _drop_ok, _rel_at_least, _Rule


def _dense_gain(value, m) -> str | None:
    gain: Gain = value
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
