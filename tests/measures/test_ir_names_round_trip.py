"""ir_measures' names are read by judged.measures.ir_names and written by the ir_measures preset: the two
directions are inverse, name for name, so neither table can drift from the other unnoticed."""

from __future__ import annotations

import pytest

from judged import presets
from judged.errors import UsageError
from judged.measures.ir_names import from_ir_measures

PRESET = presets.get("ir_measures")

#: ir_measures' own spellings the preset reproduces; each must come back exactly as written.
NAMES = ["nDCG@5", "nDCG", "nDCG(gains={1:1,2:3,3:7})@5", "nDCG(judged_only=True)@5", "P@5", "P(rel=2)@5",
         "P(judged_only=True)@5", "SetP", "R@10", "SetR(rel=2)", "AP", "AP(rel=2)@5", "RR",
         "RR(judged_only=True)", "Success@3", "Rprec", "Bpref(rel=2)", "NumRet", "NumRet(rel=2)", "IPrec@0.2",
         "IPrec(rel=2)@0.7", "infAP", "SetAP", "SetF", "SetF(beta=0.5)", "RR@3", "SetP(relative=True)",
         "SDCG(max_rel=3)@5", "INST(T=2.0,max_rel=3)", "NERR10(max_rel=3)", "ERR@10", "Compat", "Accuracy@10"]

#: Names judged reads but the preset refuses to reproduce, and the reason it gives.
REFUSED = {"RBP(p=0.9)": "cannot reproduce RBP", "nDCG(dcg='exp-log2')@5": "gdeval",
           "Judged@10": "negative", "NumQ": "missing", "NumRel": "missing"}


@pytest.mark.parametrize("name", NAMES)
def test_reading_then_writing_a_name_gives_it_back(name):
    measure = from_ir_measures(name)
    assert PRESET.library_measure(measure) == name
    assert PRESET.measure(from_ir_measures(PRESET.library_measure(measure))) == PRESET.measure(measure)


@pytest.mark.parametrize("name", NAMES)
def test_writing_then_reading_a_measure_gives_the_same_measure(name):
    measure = PRESET.measure(from_ir_measures(name))
    assert PRESET.measure(from_ir_measures(PRESET.library_measure(measure))) == measure


@pytest.mark.parametrize(("name", "reason"), list(REFUSED.items()))
def test_a_name_the_preset_cannot_reproduce_is_refused_with_its_reason(name, reason):
    measure = from_ir_measures(name)
    with pytest.raises(UsageError, match=reason):
        PRESET.library_measure(measure)
