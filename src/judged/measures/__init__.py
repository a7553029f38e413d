"""Measures: frozen value objects with explicit conventions, parsed from ir_measures-style names.

>>> from judged.measures import parse
>>> str(parse("P(rel=2)@10"))
'P(rel=2,unjudged=zero,ties=trec)@10'
"""

from judged.measures.parse import parse
from judged.measures.registry import Family, all_families, family_of
from judged.measures.spec import Gain, Measure

__all__ = ["Family", "Gain", "Measure", "all_families", "family_of", "parse"]
