"""A team's pinned conventions: ``judged.toml`` in the working directory, or ``--config PATH``.

::

    [conventions]
    gain = "exp"                # or a map: gain = { 0 = 0, 1 = 1, 2 = 3, 3 = 7 }
    ideal = "judged"
    unjudged = "zero"
    ties = "trec"
    rel = 1
    norel = "0"
    missing = "skip"            # judged queries the run did not answer
    measures = ["nDCG", "R"]    # the default measures, at every cutoff below
    cutoffs = [3, 10]

A pinned convention is the default of every measure that has it, and a measure
that states a different value is refused, so a number computed under the
config always carries the team's conventions. Every output records the config
(path, sha256 and contents).

>>> config = Config.from_text('[conventions]\\ngain = "exp"\\ncutoffs = [5]\\nmeasures = ["nDCG"]')
>>> [str(m) for m in config.default_measures()]
['nDCG(gain=exp,ideal=judged,unjudged=zero,ties=trec,norel=0)@5']
>>> str(config.measure("P@5"))
'P(rel=1,unjudged=zero,ties=trec)@5'
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from judged.errors import InputError, UsageError
from judged.measures import parse
from judged.measures.conventions import CONVENTIONS, PARAM_ORDER, convention
from judged.measures.parse import canonical_param, explicit_params
from judged.measures.spec import Measure

FILENAME = "judged.toml"
#: Every convention a team may pin, then the default measures and cutoffs.
_KEYS = [c.name for c in CONVENTIONS if c.pinnable] + ["measures", "cutoffs"]


@dataclass(frozen=True)
class Config:
    """Pinned conventions (as measure-parameter strings), the missing policy and default measures."""

    conventions: dict[str, str] = field(default_factory=dict)
    missing: str | None = None
    measures: tuple[str, ...] = ()
    cutoffs: tuple[int, ...] = ()
    path: str | None = None
    sha256: str | None = None

    @classmethod
    def from_text(cls, text: str, path: str | None = None) -> Config:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise InputError(f"invalid TOML: {err}", path=path or FILENAME) from None
        table = data.get("conventions", {})
        unknown = set(data) - {"conventions"} | set(table) - set(_KEYS)
        if unknown:
            raise InputError(f"unknown setting(s): {', '.join(sorted(unknown))}", path=path or FILENAME,
                             expected=f"a [conventions] table with {', '.join(_KEYS)}")
        conventions = {k: _as_param(k, v) for k, v in table.items() if k in PARAM_ORDER}
        missing = table.get("missing")
        policies = convention("missing").choices
        if missing is not None and missing not in policies:
            raise InputError(f"missing must be one of {'|'.join(policies)}", path=path or FILENAME,
                             text=str(missing))
        config = cls(conventions, missing, tuple(table.get("measures", ())), tuple(table.get("cutoffs", ())),
                     path, hashlib.sha256(text.encode()).hexdigest())
        for name in config.measures or ("nDCG",):
            config.measure(name)  # validate the pinned values against a real measure now
        return config

    @classmethod
    def load(cls, path: str | Path | None = None) -> Config:
        """The config at ``path``, else ``./judged.toml`` if it exists, else an empty config."""
        chosen = Path(path) if path else Path(FILENAME)
        if not chosen.is_file():
            if path:
                raise InputError("no such config file", path=str(path))
            return cls()
        return cls.from_text(chosen.read_text(encoding="utf-8"), str(chosen))

    def measure(self, text: str | Measure) -> Measure:
        """Parse ``text`` with the pinned conventions as defaults; a contradicting explicit value is an error."""
        measure = parse(text) if isinstance(text, str) else text
        given = explicit_params(text) if isinstance(text, str) else {}
        updates = {}
        for param, pinned in self.conventions.items():
            if param not in measure.family.params:
                continue
            if param in given and given[param] != pinned:
                raise UsageError(
                    f"{text} sets {param}={given[param]}, but {self.path or FILENAME} pins {param}={pinned}; "
                    "drop the parameter or change the config."
                )
            updates[param] = pinned
        if not updates:
            return measure
        params = {**measure.params(), **updates}
        body = ",".join(f"{k}={v}" for k, v in params.items())
        try:
            return parse(f"{measure.name}({body})" + (f"@{measure.cutoff}" if measure.cutoff else ""))
        except UsageError as err:
            raise UsageError(f"{text} cannot follow {self.path or FILENAME}: {err}") from None

    def default_measures(self) -> list[Measure]:
        """The configured measures at every configured cutoff (a measure with its own @k keeps it)."""
        out = []
        for name in self.measures:
            if "@" in name or not self.cutoffs:
                out.append(self.measure(name))
            else:
                out.extend(self.measure(f"{name}@{k}") for k in self.cutoffs)
        return out

    def record(self) -> dict | None:
        """What outputs store about the config (None when there is none)."""
        if self.sha256 is None:
            return None
        return {"path": self.path, "sha256": self.sha256, "conventions": self.conventions,
                "missing": self.missing, "measures": list(self.measures), "cutoffs": list(self.cutoffs)}

    def with_missing(self, missing: str | None) -> str:
        """The missing policy to use: the command line's, else the config's, else the table's default (``skip``)."""
        return missing or self.missing or str(convention("missing").default)


def _as_param(key: str, value) -> str:
    if key == "gain" and isinstance(value, dict):
        value = "{" + ",".join(f"{g}:{v}" for g, v in value.items()) + "}"
    try:
        return canonical_param(key, value)
    except UsageError as err:
        raise InputError(f"{key}: {err}", path=FILENAME) from None


def ensure_same_conventions(results) -> None:
    """Refuse to compare or merge results made under different conventions, naming what differs."""
    if len(results) < 2:
        return
    first = results[0]
    for other in results[1:]:
        differences = []
        if [str(m) for m in first.measures] != [str(m) for m in other.measures]:
            mine, theirs = {str(m) for m in first.measures}, {str(m) for m in other.measures}
            differences.append(f"measures {sorted(mine - theirs)} vs {sorted(theirs - mine)}")
        for key in ("missing", "depth"):
            if first.provenance["options"].get(key) != other.provenance["options"].get(key):
                differences.append(f"{key}={first.provenance['options'].get(key)} vs "
                                   f"{other.provenance['options'].get(key)}")
        mine_cfg, their_cfg = first.provenance.get("config"), other.provenance.get("config")
        if (mine_cfg or {}).get("sha256") != (their_cfg or {}).get("sha256"):
            differences.append("different judged.toml")
        if differences:
            raise UsageError(f"results for {first.run!r} and {other.run!r} were computed under different "
                             f"conventions: {'; '.join(differences)}")
