"""The conventions table drives everything that names a convention; nothing else spells its choices or default."""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

import click
import pytest

from judged.cli import main
from judged.engine import config as config_module
from judged.engine.config import Config
from judged.errors import InputError, MeasureError
from judged.measures import Gain, Measure, parse, spec
from judged.measures.conventions import (
    CONVENTIONS,
    EVALUATION_CONVENTIONS,
    MEASURE_CONVENTIONS,
    MISSING_POLICIES,
    PARAM_ORDER,
    convention,
)
from judged.measures.reference import measures_text

SRC = Path(__file__).resolve().parents[2] / "src" / "judged"
CHOICE_CONVENTIONS = [c for c in CONVENTIONS if c.kind == "choice"]


def test_the_table_lists_each_convention_once_measure_parameters_first():
    names = [c.name for c in CONVENTIONS]
    assert len(names) == len(set(names))
    assert names[:6] == ["gain", "rel", "ideal", "unjudged", "ties", "norel"]
    assert names[-2:] == ["missing", "depth"]
    assert PARAM_ORDER == tuple(names[:-2])
    # after the shared conventions come the families' own (set_F's beta, IPrec's rounding, RBP's p, ...)
    assert all(c.kind in ("number", "numbers", "scale", "choice") for c in CONVENTIONS[6:-2])
    assert [c.name for c in EVALUATION_CONVENTIONS] == ["missing", "depth"]


@pytest.mark.parametrize(("literal", "name"), [(spec.Ideal, "ideal"), (spec.Unjudged, "unjudged"),
                                               (spec.Ties, "ties"), (spec.NoRel, "norel"),
                                               (spec.Rounding, "rounding")])
def test_the_literal_types_for_mypy_equal_the_table(literal, name):
    assert typing.get_args(literal) == convention(name).choices


def test_measure_fields_are_the_measure_conventions_in_canonical_order_with_the_table_defaults():
    fields = [f for f in dataclasses.fields(Measure) if f.name not in ("name", "cutoff")]
    assert [f.name for f in fields] == list(PARAM_ORDER)
    defaults = {c.name: spec.value_of(c.name, c.default) for c in MEASURE_CONVENTIONS}
    assert {f.name: f.default for f in fields} == defaults
    assert Measure("nDCG").gain == Gain("linear") and Measure("P").rel == 1


def test_canonical_strings_are_unchanged():
    assert str(parse("nDCG@10")) == "nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@10"
    assert str(parse("P(rel=02)@5")) == "P(rel=2,unjudged=zero,ties=trec)@5"
    assert str(parse("nDCG(norel=skip, gain={ 2: 3, 1:1 }, ties=average)")) == (
        "nDCG(gain={1:1,2:3},ideal=judged,unjudged=zero,ties=average,norel=skip)")


@pytest.mark.parametrize("conv", [c for c in CHOICE_CONVENTIONS if c.scope == "measure"], ids=lambda c: c.name)
def test_the_parser_accepts_exactly_the_table_choices(conv):
    family = {"ties": "P", "rounding": "IPrec"}.get(conv.name, "nDCG")
    for choice in conv.choices:
        assert getattr(parse(f"{family}({conv.name}={choice})"), conv.name) == choice
    with pytest.raises(MeasureError) as err:
        parse(f"{family}({conv.name}=nope)")
    assert str(err.value) == f"{conv.name} must be one of {'|'.join(conv.choices)}. Got 'nope' instead."


def test_a_list_of_numbers_reads_in_brackets_sorted_within_its_bounds():
    m = parse("IPrec11pt(levels=[ .75, 0.25,0.5 ,0.5], rel=2)")
    assert m.levels == (0.25, 0.5, 0.5, 0.75)
    assert str(m) == "IPrec11pt(rel=2,unjudged=zero,ties=trec,norel=0,rounding=round,levels=[0.25,0.5,0.5,0.75])"
    assert parse(str(m)) == m
    assert str(Measure("IPrec11pt")).endswith("levels=[0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1])")
    for text, why in [("levels=0.5", r"levels must be numbers in brackets, as in levels=\[0.25,0.5,0.75\]"),
                      ("levels=[]", "levels must be numbers in brackets"),
                      ("levels=[0.5,1.5]", "levels must be a finite number >= 0 and <= 1. Got '1.5'"),
                      ("levels=[0.5,x]", "levels must be a finite number >= 0 and <= 1. Got 'x'")]:
        with pytest.raises(MeasureError, match=why):
            parse(f"IPrec11pt({text})")
    with pytest.raises(MeasureError, match="levels must be in ascending order"):
        Measure("IPrec11pt", levels=(0.5, 0.25))
    with pytest.raises(MeasureError, match="has no parameter 'levels'"):
        parse("IPrec(levels=[0.5])")


def test_an_unknown_parameter_names_every_measure_convention():
    own = ", ".join(PARAM_ORDER[6:])  # the families' own coefficients follow the shared conventions
    with pytest.raises(MeasureError, match=r"known: gain, rel, ideal, unjudged, ties, norel, " + own + r"\.$"):
        parse("nDCG(colour=red)")


def test_the_missing_policies_are_the_table_choices():
    assert MISSING_POLICIES == ("skip", "zero") == convention("missing").choices
    assert Config().with_missing(None) == convention("missing").default


def test_the_config_accepts_every_pinnable_convention_and_names_them():
    assert config_module._KEYS == ["gain", "rel", "ideal", "unjudged", "ties", "norel", "max_rel", "missing",
                                   "measures", "cutoffs"]
    with pytest.raises(InputError,
                       match="gain, rel, ideal, unjudged, ties, norel, max_rel, missing, measures, cutoffs"):
        Config.from_text("[conventions]\ndepth = 10\n")
    with pytest.raises(InputError, match=r"missing must be one of skip\|zero"):
        Config.from_text('[conventions]\nmissing = "drop"\n')


@pytest.mark.parametrize(("command", "option"), [("eval", "missing"), ("eval", "norel"), ("compare", "missing"),
                                                 ("report", "missing"), ("bounds", "missing"),
                                                 ("sensitivity", "missing"), ("assessors", "missing")])
def test_every_convention_option_offers_the_table_choices(command, option):
    cmd = main.get_command(click.Context(main), command)
    (param,) = [p for p in cmd.params if p.name == option]
    assert tuple(param.type.choices) == convention(option).choices


@pytest.mark.parametrize("command", ["eval", "explain"])
def test_the_depth_option_takes_the_table_meaning_and_refuses_zero(command):
    cmd = main.get_command(click.Context(main), command)
    (param,) = [p for p in cmd.params if p.name == "depth"]
    assert param.help == "Keep at most this many documents per query after ranking (trec_eval -M); unset: all."
    assert param.type.min == 1 and not param.required


def test_the_reference_shows_every_convention_with_its_default_and_meaning():
    text = measures_text()
    for c in CONVENTIONS:
        default = "unset" if c.default is None else f"`{c.default}`"
        assert f"| `{c.name}` | {default} | {c.meaning} |" in text


def _literal_sets(path: Path) -> list[tuple[int, frozenset[str]]]:
    """Every tuple, list or set of string constants in ``path`` outside a ``Literal[...]`` type."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    types = {id(node.slice) for node in ast.walk(tree)
             if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal"}
    found = []
    for node in ast.walk(tree):
        if id(node) in types:
            continue
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            found.append((node.lineno, frozenset(e.value for e in node.elts)))
    return found


def test_no_module_but_the_table_spells_a_conventions_choices():
    # Literal[...] types are exempt: they are types for mypy, checked against the table above
    choice_sets = {frozenset(c.choices): c.name for c in CHOICE_CONVENTIONS}
    spelled = [
        f"{path.relative_to(SRC)}:{line}: {choice_sets[values]}"
        for path in SRC.rglob("*.py")
        if path.name != "conventions.py"
        for line, values in _literal_sets(path)
        if values in choice_sets
    ]
    assert spelled == []
