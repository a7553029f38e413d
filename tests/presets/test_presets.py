"""Presets reproduce each library's per-query numbers: equality against the installed libraries, and against
the values of TorchMetrics and ranx recorded by tests/data/<library>/generate.py (PyTorch is gigabytes, ranx
brings numba and LLVM: the test install carries neither; where they are installed, a test regenerates the
values and compares).

Every test draws the seeded collections of tests/presets/preset_collections.py, built
to hit the edges (its docstring lists them). Scores are multiples of 1/8 or
1/4, exact in float32, so trec_eval's and TorchMetrics' float scores change nothing.

Where a library orders tied scores in a way judged cannot state (ranx:
arbitrary; ir_measures' RR@k: docid ascending; TorchMetrics' P, RR, HitRate:
torch.topk), the collection is tie-free, as the presets' caveats say.
TorchMetrics computes in float32, so it is compared to 1e-6; every other
library to 1e-9.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import re
from pathlib import Path

import ir_measures
import pytest
import pytrec_eval
import pytrec_eval_ext
from preset_collections import (  # tests/presets is on sys.path under pytest (no __init__.py)
    GAINS,
    RANX_BURGES_PAIRS,
    RANX_PAIRS,
    TIE_FREE,
    TIED,
    TORCH_BINARY,
    TORCH_NDCG,
    TORCH_NOREL,
    collection_digest,
    rows,
    rows_digest,
    with_written,
)
from sklearn.metrics import dcg_score, ndcg_score

import judged
from judged import presets
from judged.errors import MeasureError, UsageError

EXACT = 1e-9
FLOAT32 = 1e-6

def judged_values(preset: str, measures: list[str], run, qrels) -> dict[str, dict[str, float]]:
    """judged's per-query values under ``preset``, by the measure string as given (NaN left out)."""
    mapped, options = presets.apply(preset, measures)
    result = judged.evaluate(run, qrels, mapped, **options)
    out = {}
    for text, m in zip(measures, mapped):
        values = dict(zip(result.qids, result.values[m]))
        out[text] = {q: float(v) for q, v in values.items() if not math.isnan(v)}
    return out


def assert_same(mine: dict[str, float], theirs: dict[str, float], what: str, tol: float = EXACT) -> None:
    assert set(mine) == set(theirs), (
        f"{what}: judged scores {sorted(set(mine) - set(theirs))} only, "
        f"the library {sorted(set(theirs) - set(mine))} only"
    )
    bad = {q: (mine[q], theirs[q]) for q in mine if not math.isclose(mine[q], theirs[q], rel_tol=0, abs_tol=tol)}
    assert not bad, f"{what}: {len(bad)} queries differ (judged, library): {dict(list(bad.items())[:4])}"


def load_generator(library: str):
    """tests/data/<library>/generate.py as a module, to compare what it records with the installed library."""
    spec = importlib.util.spec_from_file_location(f"generate_{library}",
                                                  Path(__file__).parents[1] / "data" / library / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_params(text: str, **params) -> str:
    """``text`` with ``params`` set on the measure, where its family has them."""
    m = judged.parse(text)
    usable = {k: v for k, v in params.items() if k in m.family.params}
    return str(dataclasses.replace(m, **usable))


# ---------------------------------------------------------------------------------------------
# trec_eval and pytrec_eval

TREC_PAIRS = {
    "nDCG@5": "ndcg_cut_5", "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg", "P@5": "P_5", "P@20": "P_20",
    "P": "set_P", "R@10": "recall_10", "R": "set_recall", "AP": "map", "AP@5": "map_cut_5",
    "RR": "recip_rank", "Success@3": "success_3", "Rprec": "Rprec", "Bpref": "bpref", "NumRet": "num_ret",
    "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "IPrec(recall=0.2)": "iprec_at_recall_0.20",
    "IPrec(recall=0.7)": "iprec_at_recall_0.70", "IPrec11pt": "11pt_avg", "infAP": "infAP",
    "Rprec_mult(mult=2)": "Rprec_mult_2.00", "SetAP": "set_map", "SetF": "set_F", "RelP@5": "relative_P_5",
    "RelP": "set_relative_P", "Utility": "utility", "NumNonRelJudgedRet": "num_nonrel_judged_ret", "binG": "binG",
    "G": "G", "nDCG_rel": "ndcg_rel", "Rndcg": "Rndcg",
}
TREC_REQUEST = {"ndcg_cut.5,10", "ndcg", "P.5,20", "set_P", "recall.10", "set_recall", "map", "map_cut.5",
                "recip_rank", "success.3", "Rprec", "bpref", "num_ret", "num_rel", "num_rel_ret", "iprec_at_recall",
                "11pt_avg", "infAP", "Rprec_mult.2", "set_map", "set_F", "relative_P.5", "set_relative_P", "utility",
                "num_nonrel_judged_ret", "binG", "G", "ndcg_rel", "Rndcg"}


@pytest.mark.parametrize("preset", ["trec_eval", "pytrec_eval"])
@pytest.mark.parametrize("rel,drop", [(1, False), (2, False), (1, True)])
def test_trec_presets_match_pytrec_eval(preset, rel, drop):
    """Every measure, per query, equals pytrec_eval's under -l and -J; the query sets are equal too."""
    run, qrels = TIED
    theirs = pytrec_eval.RelevanceEvaluator(qrels, TREC_REQUEST, relevance_level=rel,
                                            judged_docs_only_flag=drop).evaluate(run)
    # rounding=v9: pytrec_eval's trec_eval 9 meets recall levels its way (the pytrec_eval preset fixes it)
    pairs = {with_params(m, rel=rel, unjudged="drop" if drop else "zero", rounding="v9"): trec
             for m, trec in TREC_PAIRS.items()}
    if drop:
        del pairs["NumRet"]  # under -J num_ret counts judged documents only; judged has no such measure
    mine = judged_values(preset, list(pairs), run, qrels)
    for measure, trec in pairs.items():
        assert presets.get(preset).library_measure(measure).split()[0] == trec
        expected = {q: v[trec] for q, v in theirs.items()}
        for q in [q for q, v in expected.items() if math.isnan(v)]:  # -J left nothing judged: trec_eval's 0/0
            assert drop and trec.startswith(("iprec_at_recall", "11pt_avg")) and mine[measure][q] == 0.0
            expected[q] = 0.0  # judged's value, documented in docs/trec_eval.md
        assert_same(mine[measure], expected, f"{preset} {measure} vs {trec}")


@pytest.mark.parametrize("drop", [False, True])
def test_trec_presets_gain_map_matches_pytrec_eval_ndcg_with_gains(drop):
    """An integer gain map is trec_eval's -m ndcg.1=1,2=3,3=7 (through pytrec_eval's C extension)."""
    run, qrels = TIED
    measure = "nDCG(gain={1:1,2:3,3:7},unjudged=drop)" if drop else "nDCG(gain={1:1,2:3,3:7})"
    theirs = pytrec_eval_ext.RelevanceEvaluator(qrels, {"ndcg.1=1,2=3,3=7"}, 1, drop).evaluate(run)
    for preset in ("trec_eval", "pytrec_eval"):
        assert presets.get(preset).library_measure(measure).startswith("ndcg_1=1,2=3,3=7")
        mine = judged_values(preset, [measure], run, qrels)[measure]
        assert_same(mine, {q: v["ndcg"] for q, v in theirs.items()}, f"{preset} {measure}")


def test_trec_presets_are_judged_defaults():
    for text in TREC_PAIRS:
        assert presets.get("trec_eval").measure(text) == judged.parse(text)
        assert presets.get("pytrec_eval").measure(text) == judged.parse(with_params(text, rounding="v9"))
    assert presets.get("trec_eval").options == {"missing": "skip"}
    assert presets.get("pytrec_eval").options == {"missing": "skip"}


# ---------------------------------------------------------------------------------------------
# ir_measures

IRM_PAIRS = {
    "nDCG@5": "nDCG@5", "nDCG": "nDCG", "nDCG(gain={1:1,2:3,3:7})@5": "nDCG(gains={1:1,2:3,3:7})@5",
    "nDCG(gain={0:1,1:2})@10": "nDCG(gains={0:1,1:2})@10",
    "nDCG(unjudged=drop)@5": "nDCG(judged_only=True)@5", "P@5": "P@5", "P(rel=2)@5": "P(rel=2)@5",
    "P(unjudged=drop)@5": "P(judged_only=True)@5", "P": "SetP", "R@10": "R@10", "R(rel=2)": "SetR(rel=2)",
    "AP": "AP", "AP(rel=2)@5": "AP(rel=2)@5", "RR": "RR", "RR(unjudged=drop)": "RR(judged_only=True)",
    "Success@3": "Success@3", "Rprec": "Rprec", "Bpref(rel=2)": "Bpref(rel=2)", "NumRet": "NumRet",
    "NumRelRet(rel=2)": "NumRet(rel=2)", "IPrec(recall=0.2)": "IPrec@0.2",
    "IPrec(recall=0.7,rel=2)": "IPrec(rel=2)@0.7", "infAP": "infAP", "SetAP": "SetAP", "SetF": "SetF",
    "SetF(beta=0.5)": "SetF(beta=0.5)",
}
IRM_TIE_SENSITIVE = {"RR@3": "RR@3", "RR(rel=2)@5": "RR(rel=2)@5",  # msmarco provider: docid ascending
                     "RelP": "SetP(relative=True)",
                     "SDCG(max_rel=3)@5": "SDCG(max_rel=3)@5", "INST(T=2,max_rel=3)": "INST(T=2.0,max_rel=3)",
                     "NERR10(p=0.9,max_rel=3)": "NERR10(max_rel=3)"}


def ir_measures_values(pairs: dict[str, str], run, qrels) -> dict[str, dict[str, float]]:
    """ir_measures' per-query values, one measure per call with query ids unique to that call.

    trec_eval (under pytrec_eval, under ir_measures) keeps per-topic gain state in static
    variables, so a gain-map measure evaluated earlier in the process can change a later plain
    nDCG of the same topic; which comes first depends on the hash seed. Fresh ids isolate them.
    """
    out: dict[str, dict[str, float]] = {}
    for i, (text, theirs) in enumerate(pairs.items()):
        tag = f"m{i}|"
        tagged_run = {tag + q: docs for q, docs in run.items()}
        tagged_qrels = {tag + q: docs for q, docs in qrels.items()}
        metrics = ir_measures.iter_calc([ir_measures.parse_measure(theirs)], tagged_qrels, tagged_run)
        out[text] = {m.query_id[len(tag):]: float(m.value) for m in metrics}
    return out


@pytest.mark.parametrize("data,pairs", [(TIED, {**IRM_PAIRS, **IRM_TIE_SENSITIVE}),
                                       (TIE_FREE, {**IRM_PAIRS, **IRM_TIE_SENSITIVE})],
                         ids=["tied", "tie-free"])
def test_ir_measures_preset_matches_ir_measures(data, pairs):
    """Per query, over every judged query: a query missing from the run is 0 in both (missing='zero')."""
    run, qrels = data
    theirs = ir_measures_values(pairs, run, qrels)
    mine = judged_values("ir_measures", list(pairs), run, qrels)
    for measure, name in pairs.items():
        assert presets.get("ir_measures").library_measure(measure) == name
        assert set(mine[measure]) == set(qrels), measure
        assert_same(mine[measure], theirs[measure], f"ir_measures {measure} vs {name}")


def test_ir_measures_rr_at_k_breaks_ties_as_the_msmarco_provider_does():
    """The msmarco provider puts tied docids in ascending order: the preset ranks RR@k with ties=docid."""
    run, qrels = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"b": 1.0, "a": 1.0}}, {"q1": {"a": 1}, "q2": {"b": 1}}
    theirs = ir_measures_values({"RR@10": "RR@10"}, run, qrels)["RR@10"]
    mine = judged_values("ir_measures", ["RR@10"], run, qrels)["RR@10"]
    assert theirs == mine == {"q1": 1.0, "q2": 0.5}
    assert any("docid ascending" in note for note in presets.get("ir_measures").notes("RR@10"))


# ---------------------------------------------------------------------------------------------
# ranx (tie-free: ranx orders ties arbitrarily), from values recorded by tests/data/ranx/generate.py

RANX = json.loads((Path(__file__).parents[1] / "data" / "ranx" / "recorded.json").read_text())


def test_the_ranx_values_were_recorded_from_this_collection():
    assert RANX["generated_by"] == "tests/data/ranx/generate.py" and set(RANX["versions"]) >= {"ranx", "python"}
    assert RANX["collection"] == collection_digest(*TIE_FREE), "rerun tests/data/ranx/generate.py"
    assert set(RANX["values"]) == set(RANX_PAIRS.values()) | set(RANX_BURGES_PAIRS.values())


@pytest.mark.parametrize("preset,pairs", [("ranx", RANX_PAIRS), ("ranx_burges", RANX_BURGES_PAIRS)])
def test_ranx_presets_match_ranx(preset, pairs):
    """Per query, with make_comparable=True: missing queries 0, run-only queries dropped."""
    run, qrels = TIE_FREE
    mine = judged_values(preset, list(pairs), run, qrels)
    for measure, name in pairs.items():
        assert presets.get(preset).library_measure(measure) == name
        assert_same(mine[measure], RANX["values"][name], f"{preset} {measure} vs {name}")


def test_ranx_refuses_missing_queries_without_make_comparable():
    """The caveat behind missing='zero': plain ranx.evaluate refuses differing query sets."""
    assert "make_comparable=True" in RANX["without_make_comparable"]
    assert any("make_comparable" in caveat for caveat in presets.get("ranx").caveats)


def test_the_recorded_ranx_values_are_what_the_installed_ranx_gives():
    """Where ranx is installed (it is not in the test extra), the generator reproduces the file."""
    pytest.importorskip("ranx")
    generate = load_generator("ranx")
    assert generate.values() == RANX["values"]
    assert generate.refusal() == RANX["without_make_comparable"]


# ---------------------------------------------------------------------------------------------
# scikit-learn and TorchMetrics: one row of candidates per query, built from what the run retrieved

@pytest.mark.parametrize("gain", list(GAINS))
@pytest.mark.parametrize("drop", [False, True])
def test_sklearn_preset_matches_ndcg_score_and_dcg_score(gain, drop):
    """Ties averaged, ideal from the candidates; queries with fewer than 2 candidates are sklearn errors."""
    run, qrels = TIED
    written = with_written(gain, drop)
    measures = {f"nDCG{written}@5": (ndcg_score, 5), f"nDCG{written}@10": (ndcg_score, 10),
                f"nDCG{written}": (ndcg_score, None), f"DCG{written}@5": (dcg_score, 5),
                f"DCG{written}": (dcg_score, None)}
    mine = judged_values("sklearn", list(measures), run, qrels)
    data = rows(run, qrels, GAINS[gain], drop)
    usable = {q for q, (scores, _) in data.items() if len(scores) >= 2}
    assert len(usable) >= (10 if drop else 20)
    for measure, (fn, k) in measures.items():
        assert set(mine[measure]) == set(data), measure  # every judged query in the run; missing skipped
        theirs = {q: float(fn([data[q][1]], [data[q][0]], k=k)) for q in usable}
        assert_same({q: mine[measure][q] for q in usable}, theirs, f"sklearn {measure}")


def test_sklearn_preset_scores_norel_rows_zero():
    run, qrels = TIED
    mine = judged_values("sklearn", ["nDCG@5"], run, qrels)["nDCG@5"]
    empty = [q for q, (_, relevance) in rows(run, qrels).items() if not relevance.any()]
    assert empty and all(mine[q] == 0.0 for q in empty)


RECORDED = json.loads((Path(__file__).parents[1] / "data" / "torchmetrics" / "recorded.json").read_text())


def recorded(case: str, data: dict | None) -> dict[str, float]:
    """TorchMetrics' per-query values for ``case``, after checking they were computed from ``data``'s rows."""
    entry = RECORDED["cases"][case]
    if data is not None:
        assert entry["rows"] == rows_digest(data), (
            f"{case}: the recorded values were computed from other rows; rerun tests/data/torchmetrics/generate.py")
    return entry["values"]


@pytest.mark.parametrize("gain", list(GAINS))
@pytest.mark.parametrize("drop", [False, True])
def test_torchmetrics_preset_matches_retrieval_normalized_dcg(gain, drop):
    run, qrels = TIED
    written = with_written(gain, drop)
    measures = {measure: measure.replace("nDCG", f"nDCG{written}") for measure in TORCH_NDCG}
    mine = judged_values("torchmetrics", list(measures.values()), run, qrels)
    data = {q: row for q, row in rows(run, qrels, GAINS[gain], drop).items() if len(row[0])}
    for plain, measure in measures.items():
        theirs = recorded(f"ndcg {gain} {'drop' if drop else 'zero'} {plain}", data)
        assert_same({q: mine[measure][q] for q in data}, theirs, f"torchmetrics {measure}", FLOAT32)


@pytest.mark.parametrize("norel", list(TORCH_NOREL))
def test_torchmetrics_norel_is_empty_target_action(norel):
    """The module's empty_target_action for a query with no positive target is judged's norel."""
    run, qrels = TIED
    data = {q: row for q, row in rows(run, qrels).items() if len(row[0])}
    theirs = recorded(f"norel {norel}", data)
    mine = judged_values("torchmetrics", [f"nDCG(norel={norel})@5"], run, qrels)[f"nDCG(norel={norel})@5"]
    assert_same({q: v for q, v in mine.items() if q in data}, theirs, f"torchmetrics norel={norel}", FLOAT32)


@pytest.mark.parametrize("drop", [False, True])
def test_torchmetrics_preset_matches_binary_retrieval_metrics(drop):
    """P, RR and HitRate on tie-free, positive scores (the preset's caveats)."""
    run, qrels = TIE_FREE
    measures = {plain: with_params(plain, unjudged="drop" if drop else "zero") for plain in TORCH_BINARY}
    mine = judged_values("torchmetrics", list(measures.values()), run, qrels)
    for plain, measure in measures.items():
        data = {q: row for q, row in rows(run, qrels, drop=drop, rel=TORCH_BINARY[plain][2]).items() if len(row[0])}
        theirs = recorded(f"binary {'drop' if drop else 'zero'} {plain}", data)
        assert_same({q: mine[measure][q] for q in data}, theirs, f"torchmetrics {measure}", FLOAT32)


def test_torchmetrics_non_positive_scores_differ_as_the_caveat_says():
    """retrieval_precision counts a relevant candidate scored <= 0 as non-relevant; judged does not."""
    assert recorded("non-positive P@2", None) == {"q": 0.0}
    mine = judged_values("torchmetrics", ["P@2"], {"q": {"a": 0.5, "b": -0.5}}, {"q": {"b": 1}})["P@2"]["q"]
    assert mine == 0.5
    assert any("preds > 0" in note for note in presets.get("torchmetrics").notes("P@2"))


def test_the_recorded_values_name_their_generator_and_versions():
    assert RECORDED["generated_by"] == "tests/data/torchmetrics/generate.py"
    assert set(RECORDED["versions"]) == {"torch", "torchmetrics", "numpy", "python"}
    expected = ({f"ndcg {g} {u} {m}" for g in GAINS for u in ("zero", "drop") for m in TORCH_NDCG}
                | {f"norel {n}" for n in TORCH_NOREL}
                | {f"binary {u} {m}" for u in ("zero", "drop") for m in TORCH_BINARY} | {"non-positive P@2"})
    assert set(RECORDED["cases"]) == expected


def test_the_recorded_values_are_what_the_installed_torchmetrics_gives():
    """Where TorchMetrics is installed (it is not in the test extra), the generator reproduces the file."""
    pytest.importorskip("torchmetrics")
    generate = load_generator("torchmetrics")
    live = {**generate.ndcg_cases(), **generate.norel_cases(), **generate.binary_cases(),
            **generate.non_positive_case()}
    assert live == RECORDED["cases"]


# ---------------------------------------------------------------------------------------------
# The API and its errors


def test_names_get_and_apply():
    assert presets.names() == ["trec_eval", "pytrec_eval", "ir_measures", "ranx", "ranx_burges", "sklearn",
                               "torchmetrics"]
    for name in presets.names():
        preset = presets.get(name)
        assert preset.name == name and preset.description and preset.caveats
        assert set(preset.options) == {"missing"}
    assert presets.get("scikit-learn") is presets.get("sklearn")
    assert presets.get("TREC-EVAL") is presets.get("trec_eval")
    measures, options = presets.apply("ranx", "nDCG@10")
    assert [str(m) for m in measures] == ["nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10"]
    options["missing"] = "skip"
    assert presets.get("ranx").options == {"missing": "zero"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        presets.get("ranx").name = "other"  # type: ignore[misc]


def test_fixed_conventions_replace_defaults():
    sk = presets.get("sklearn").measure(judged.parse("nDCG@10"))
    assert (sk.ideal, sk.ties, sk.norel) == ("returned", "average", "0")
    assert presets.get("ranx_burges").measure("nDCG@10").gain == judged.Gain("exp")
    assert presets.get("torchmetrics").measure("nDCG(norel=skip)@10").norel == "skip"


def test_unknown_preset_suggests_a_name():
    with pytest.raises(UsageError, match=r"unknown preset 'rnax'\. Did you mean 'ranx'"):
        presets.get("rnax")
    with pytest.raises(UsageError, match="Presets: trec_eval, pytrec_eval"):
        presets.apply("nothing_like_it", ["nDCG@10"])


@pytest.mark.parametrize("preset,measure,reason", [
    ("sklearn", "RR", "no reciprocal rank"),
    ("sklearn", "P@5", "no precision at k"),
    ("torchmetrics", "R@10", "among the supplied candidates"),
    ("torchmetrics", "AP", "relevant candidates found"),
    ("ranx", "Bpref", "bpref"),
    ("ranx", "nDCG(ties=average)@10", "arbitrarily"),
    ("ranx", "nDCG(unjudged=drop)@10", "judged-only"),
    ("ranx_burges", "P@5", "use the ranx preset"),
    ("ir_measures", "nDCG(gain=exp)@10", "gdeval"),
    ("ir_measures", "NumRel", "missing from the run"),
    ("ir_measures", "RR(unjudged=drop)@10", "msmarco"),
    ("trec_eval", "RR@10", "takes no cutoff"),
    ("trec_eval", "nDCG(gain={1:1,2:3})@10", "ndcg_cut takes no gain map"),
    ("trec_eval", "nDCG(gain={1:1.5,2:1.7})", "gains 1.5 and 1.7 compare equal there"),
    ("pytrec_eval", "P(rel=0)@5", "relevance_level"),
    ("sklearn", "nDCG(ideal=judged,norel=1)@10", "norel=1"),
    ("sklearn", "nDCG(gain={0:1})@10", "grade 0"),
])
def test_unsupported_measure_is_a_clear_error(preset, measure, reason):
    pattern = rf"preset '{preset}' cannot reproduce {re.escape(measure)}: .*{reason}"
    with pytest.raises(UsageError, match=pattern):
        presets.get(preset).measure(measure)


def test_bad_measure_text_is_a_measure_error():
    with pytest.raises(MeasureError, match="Did you mean"):
        presets.get("ranx").measure("nDGC@10")
