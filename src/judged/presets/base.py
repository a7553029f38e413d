"""The preset value object and the checks several presets share."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from judged.errors import UsageError
from judged.measures.parse import parse
from judged.measures.spec import DEFAULTS, Measure

#: A check of one convention value the user set: the reason the library cannot apply it, or None.
Check = Callable[[object, Measure], "str | None"]
#: The library's own name (call) for a measure that has already been mapped.
Namer = Callable[[Measure], str]


@dataclass(frozen=True)
class _Rule:
    """How one judged measure family maps under a preset."""

    name: Namer
    cutoff: str = "optional"  # optional | required | none
    fixed: Mapping[str, object] = field(default_factory=dict)
    free: Mapping[str, Check] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Preset:
    """One library's conventions: what each measure maps to, the evaluate options, the caveats.

    ``options`` are keyword arguments for :func:`judged.evaluate` (``missing``);
    ``caveats`` are what the library does that judged's conventions cannot state
    or that the user must do on the library's side to get the same number.
    """

    name: str
    description: str
    library: str
    options: dict = field(hash=False)
    caveats: tuple[str, ...]
    _rules: Mapping[str, _Rule] = field(repr=False, compare=False, hash=False)
    _why: Mapping[str, str] = field(repr=False, compare=False, hash=False)
    _absent: Mapping[str, str] = field(repr=False, compare=False, hash=False)
    #: missing-query policies the library can also apply besides ``options["missing"]`` (trec_eval's -c: zero)
    also_missing: tuple[str, ...] = ()
    #: whether the library orders tied scores arbitrarily (no tie rule reproduces it where a tie straddles a cutoff)
    arbitrary_ties: bool = False

    def evaluate_options(self, missing: str | None = None) -> dict:
        """The evaluate options, with the ``missing`` policy the user chose when the library can apply it.

        A policy the library cannot apply is refused, never silently replaced by the library's own.
        """
        options = dict(self.options)
        if missing is not None and missing != options["missing"]:
            if missing not in self.also_missing:
                raise UsageError(
                    f"preset {self.name!r} cannot apply missing={missing}: {self.library} scores a judged query "
                    f"the run did not answer as missing={options['missing']} "
                    f"({'left out of the mean' if options['missing'] == 'skip' else 'scored 0 and averaged in'}) "
                    "and has no option for the other; leave --missing out or drop the preset."
                )
            options["missing"] = missing
        return options

    def measure(self, measure: Measure | str) -> Measure:
        """``measure`` with the conventions that reproduce this library's number for it.

        Raises :class:`~judged.UsageError` naming the preset and the measure when
        the library has no such measure or cannot apply a convention set in it.
        """
        return self._map(measure)[0]

    def library_measure(self, measure: Measure | str) -> str:
        """The library's own name or call for ``measure``, e.g. ``ndcg_cut_10`` under trec_eval."""
        mapped, rule = self._map(measure)
        return rule.name(mapped)

    def notes(self, measure: Measure | str) -> tuple[str, ...]:
        """The caveats that concern ``measure`` under this preset (a subset of ``caveats``)."""
        return self._map(measure)[1].notes

    def measures(self) -> tuple[str, ...]:
        """The measure families this preset reproduces."""
        return tuple(self._rules)

    def _map(self, measure: Measure | str) -> tuple[Measure, _Rule]:
        label = measure.strip() if isinstance(measure, str) else None
        m = parse(measure) if isinstance(measure, str) else measure
        if not isinstance(m, Measure):
            raise UsageError(f"a measure must be a judged.Measure or a string like 'nDCG@10'. Got {measure!r}.")
        label = label or str(m)
        rule = self._rules.get(m.name)
        if rule is None:
            reason = self._absent.get(m.name) or f"{self.library} has no {m.name} measure"
            raise self._refuse(label, f"{reason}; this preset covers {', '.join(self._rules)}")
        if m.cutoff is None and rule.cutoff == "required":
            raise self._refuse(label, f"{m.name} needs a cutoff in {self.library}; write {m.name}@k")
        if m.cutoff is not None and rule.cutoff == "none":
            raise self._refuse(label, f"{m.name} takes no cutoff in {self.library}")
        changes: dict[str, object] = {}
        for param in m.family.params:
            value, default = getattr(m, param), DEFAULTS[param]
            if param in rule.fixed:
                target = rule.fixed[param]
                if value != default and value != target:
                    raise self._refuse(label, f"{param}={value}: {self._why.get(param, 'fixed there')}")
                changes[param] = target
            elif value != default:
                check = rule.free.get(param)
                why = self._why.get(param, "not applied there") if check is None else check(value, m)
                if why:
                    raise self._refuse(label, f"{param}={value}: {why}")
        return dataclasses.replace(m, **changes), rule  # type: ignore[arg-type]

    def _refuse(self, label: str, reason: str) -> UsageError:
        return UsageError(f"preset {self.name!r} cannot reproduce {label}: {reason}")


# ---------------------------------------------------------------------------------------------
# Checks shared by several presets


def _rel_at_least(low: int, why: str) -> Check:
    return lambda value, m: None if isinstance(value, int) and value >= low else why


def _drop_ok(value, m) -> str | None:
    return None  # unjudged=drop is -J / judged_only / a matrix of judged candidates only


def _integral(value: float) -> bool:
    return float(value).is_integer()
