"""The measure registry: every family registers itself here with :func:`family`.

The registry is the single source of family names for parsing, the ``judged measures``
listing and the generated ``docs/measures.md``; the conventions a family may take
are declared in :mod:`judged.measures.conventions`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from judged.errors import MeasureError
from judged.measures.conventions import PARAM_ORDER, choices, convention

if TYPE_CHECKING:
    from judged.engine.view import RankedView
    from judged.measures.spec import Measure

Kernel = Callable[["RankedView", "Measure"], np.ndarray]
#: How a family's per-query values combine into its aggregate.
AGGREGATES = ("mean", "sum", "gmean")
#: The value below which ``gmean`` floors a query's value (trec_eval's MIN_GEO_MEAN).
GEOMETRIC_FLOOR = 1e-5

@dataclass(frozen=True)
class Family:
    """A named measure family: its kernel and what it accepts.

    ``cutoff`` is ``"optional"`` (``@k`` or the whole list) or ``"none"``.
    ``aggregate`` is ``"mean"``, ``"sum"`` (the counts, as trec_eval sums them)
    or ``"gmean"``: the geometric mean, each value floored at
    :data:`GEOMETRIC_FLOOR` first so that one 0 does not make the mean 0
    (trec_eval's gm_map and gm_bpref, meas_avg.c). ``without`` gives, for a
    convention the family does not take, the reason, which the error for
    setting it carries (``Bpref(unjudged=drop)``: bpref reads judged documents
    only).
    """

    name: str
    kernel: Kernel
    summary: str
    formula: str
    params: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    cutoff: str = "optional"
    ties: tuple[str, ...] = choices("ties")
    aggregate: str = "mean"
    integer: bool = False
    without: tuple[tuple[str, str], ...] = ()

    def validate(self, measure: Measure) -> None:
        """Raise :class:`MeasureError` if ``measure`` sets something this family cannot honour."""
        from judged.measures.spec import Measure as _Measure
        from judged.measures.spec import value_of

        if measure.cutoff is not None:
            if self.cutoff == "none":
                raise MeasureError(f"{self.name} takes no cutoff. Got @{measure.cutoff}.")
            if not isinstance(measure.cutoff, int) or measure.cutoff < 1:
                raise MeasureError(
                    f"cutoff must be an int >= 1. Got {measure.cutoff!r} instead."
                )
        defaults = _Measure.__dataclass_fields__
        for param in PARAM_ORDER:
            if param in self.params:
                continue
            if getattr(measure, param) != defaults[param].default:
                reason = dict(self.without).get(param)
                raise MeasureError(f"{self.name} has no parameter {param!r}" + (f": {reason}." if reason else "."))
        for param in self.params:
            if convention(param).kind == "choice":
                convention(param).check(getattr(measure, param))
            if convention(param).kind == "number":
                value_of(param, repr(float(getattr(measure, param))), self.name)  # its bounds
            if convention(param).kind == "numbers":
                _check_numbers(param, getattr(measure, param), self.name)
        if measure.ties not in self.ties:
            raise MeasureError(
                f"{self.name} does not support ties={measure.ties}: "
                f"it depends on the order inside a tied group, so it accepts ties="
                + "|".join(self.ties)
                + "."
            )


def _check_numbers(param: str, values: object, name: str) -> None:
    """A list convention holds a non-empty tuple of numbers in its bounds, in ascending order (as parsing gives)."""
    from judged.measures.spec import value_of

    if not isinstance(values, tuple) or not values:
        raise MeasureError(f"{name}: {param} must be a non-empty tuple of numbers. Got {values!r}.")
    text = "[" + ",".join(repr(float(v)) for v in values) + "]"
    if value_of(param, text, name) != tuple(float(v) for v in values):
        raise MeasureError(f"{name}: {param} must be in ascending order. Got {values!r}.")


_FAMILIES: dict[str, Family] = {}
_ALIASES: dict[str, str] = {}


def family(
    name: str,
    *,
    summary: str,
    formula: str,
    params: tuple[str, ...],
    aliases: tuple[str, ...] = (),
    cutoff: str = "optional",
    ties: tuple[str, ...] = choices("ties"),
    aggregate: str = "mean",
    integer: bool = False,
    without: dict[str, str] | None = None,
) -> Callable[[Kernel], Kernel]:
    """Register the decorated kernel as the measure family ``name`` (``without``: :class:`Family`)."""

    if aggregate not in AGGREGATES:
        raise MeasureError(f"aggregate must be one of {'|'.join(AGGREGATES)}. Got {aggregate!r} for {name}.")

    def register(kernel: Kernel) -> Kernel:
        entry = Family(
            name=name,
            kernel=kernel,
            summary=summary,
            formula=formula,
            params=params,
            aliases=aliases,
            cutoff=cutoff,
            ties=ties,
            aggregate=aggregate,
            integer=integer,
            without=tuple((without or {}).items()),
        )
        _FAMILIES[name] = entry
        for alias in aliases:
            _ALIASES[alias] = name
        return kernel

    return register


def all_families() -> list[Family]:
    """Every registered family, in registration order."""
    _load()
    return list(_FAMILIES.values())



def family_of(name: str) -> Family:
    """The family called ``name`` (or one of its aliases), with a suggestion when unknown."""
    _load()
    if name in _FAMILIES:
        return _FAMILIES[name]
    if name in _ALIASES:
        return _FAMILIES[_ALIASES[name]]
    raise unknown_measure(name)


def unknown_measure(name: str, others: Iterable[str] = ()) -> MeasureError:
    """The error for an unknown measure name, suggesting the nearest family names, aliases and ``others``.

    ``others`` are further names a reader accepts (trec_eval's, from :mod:`judged.measures.parse`); each
    suggestion is written as the user would type it: a family by its name, another name as it is.

    >>> str(unknown_measure("nDGC"))
    "unknown measure 'nDGC'. Did you mean 'nDCG', 'Rndcg', 'nDCG_p'? `judged measures` lists them all."
    """
    _load()
    lowered = {alias.lower(): canonical for alias, canonical in _ALIASES.items()}
    lowered.update({canonical.lower(): canonical for canonical in _FAMILIES})
    for other in others:
        lowered.setdefault(other.lower(), other)
    close = difflib.get_close_matches(name.lower(), list(lowered), n=5, cutoff=0.6)
    suggestions = list(dict.fromkeys(lowered[c] for c in close))[:3]
    hint = f" Did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
    return MeasureError(f"unknown measure {name!r}.{hint} `judged measures` lists them all.")



def _load() -> None:
    if not _FAMILIES:
        import judged.measures.families  # noqa: F401  (registers every family)
