"""Presets: reproduce another evaluation library's per-query numbers with judged's explicit conventions.

A preset names a library (``trec_eval``, ``pytrec_eval``, ``ir_measures``,
``ranx``, ``ranx_burges``, ``sklearn``, ``torchmetrics``) and maps each
measure you ask for to the conventions that library applies, so the number
judged prints is the library's number, with every convention written out.
It also carries the evaluate-level options (what a query missing from the run
scores) and the caveats: what the library does that no convention can state
(ranx orders tied scores arbitrarily, for example). A measure the library does
not have, or a convention it cannot apply, is refused with a
:class:`~judged.UsageError` that says why; a preset never approximates.

>>> import judged
>>> from judged import presets
>>> str(presets.get("sklearn").measure("nDCG@3"))
'nDCG(gain=linear,ideal=returned,unjudged=zero,ties=average,norel=0)@3'
>>> measures, options = presets.apply("ir_measures", ["nDCG@3", "P@2"])
>>> options
{'missing': 'zero'}
>>> run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
>>> qrels = {"q1": {"d1": 3, "d2": 0, "d3": 2}, "q2": {"d9": 1}}
>>> result = judged.evaluate(run, qrels, measures, **options)
>>> round(result.value(measures[0], "q1"), 6), result.value(measures[0], "q2")
(0.938557, 0.0)
>>> presets.get("sklearn").measure("RR")  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
judged.errors.UsageError: preset 'sklearn' cannot reproduce RR: scikit-learn has no reciprocal rank for rankings;
this preset covers nDCG, DCG

Conventions the library fixes replace judged's defaults (``ideal=returned``
for sklearn). A convention you set yourself is kept when the library can apply
it too (``P(rel=2)@10`` is trec_eval's ``-l2``, ``nDCG(unjudged=drop)@10`` its
``-J``) and refused when it cannot. docs/presets.md has the evidence for each
library, read from its source.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from judged.errors import UsageError
from judged.measures.spec import Measure
from judged.presets.base import Preset
from judged.presets.dense import _SKLEARN, _TORCHMETRICS
from judged.presets.irmeasures import _IR_MEASURES
from judged.presets.ranxlib import _RANX, _RANX_BURGES
from judged.presets.trec import _PYTREC_EVAL, _TREC_EVAL

__all__ = ["Preset", "apply", "get", "names"]

_PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (_TREC_EVAL, _PYTREC_EVAL, _IR_MEASURES, _RANX, _RANX_BURGES, _SKLEARN, _TORCHMETRICS)
}
_ALIASES = {"scikit_learn": "sklearn", "pytrec_eval_terrier": "pytrec_eval", "ir_measure": "ir_measures"}


def names() -> list[str]:
    """Every preset name, in registration order."""
    return list(_PRESETS)


def get(name: str | Preset) -> Preset:
    """The preset called ``name`` (case and ``-``/``_`` do not matter); UsageError with a suggestion if unknown."""
    if isinstance(name, Preset):
        return name
    if not isinstance(name, str):
        raise UsageError(f"a preset name must be a string. Got {name!r}; presets: {', '.join(_PRESETS)}.")
    key = name.strip().lower().replace("-", "_")
    key = _ALIASES.get(key, key)
    if key in _PRESETS:
        return _PRESETS[key]
    close = difflib.get_close_matches(key, list(_PRESETS) + list(_ALIASES), n=3, cutoff=0.5)
    suggestions = list(dict.fromkeys(_ALIASES.get(c, c) for c in close))
    hint = f" Did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
    raise UsageError(f"unknown preset {name!r}.{hint} Presets: {', '.join(_PRESETS)}.")


def apply(
    name: str | Preset, measures: Iterable[Measure | str] | Measure | str, *, missing: str | None = None
) -> tuple[list[Measure], dict]:
    """Map every measure through the preset ``name``; returns the measures and the options for evaluate.

    ``missing`` is a missing-query policy the user chose (``--missing``, or pinned in ``judged.toml``): kept
    when the library can apply it, refused when it cannot.

    >>> ms, options = apply("ranx_burges", ["nDCG@10"])
    >>> str(ms[0]), options
    ('nDCG(gain=exp,ideal=judged,unjudged=zero,ties=trec,norel=0)@10', {'missing': 'zero'})
    """
    preset = get(name)
    if isinstance(measures, (str, Measure)):
        measures = [measures]
    return [preset.measure(m) for m in measures], preset.evaluate_options(missing)
