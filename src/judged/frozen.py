"""Read-only containers for what judged hands its callers: a result that a caller can change would no longer
be the record of how its numbers were made (``values`` and ``value()`` would disagree).

:class:`FrozenDict` is a ``dict`` (``json.dumps``, ``==``, pickling and polars accept it as one) whose every
change raises; :func:`frozen` applies it all the way down, lists become tuples and arrays read-only views.

>>> record = frozen({"measure": "AP", "cutoffs": [5, 10]})
>>> record == {"measure": "AP", "cutoffs": (5, 10)}, isinstance(record, dict)
(True, True)
>>> record["measure"] = "RR"
Traceback (most recent call last):
TypeError: this record is read-only (a result's values, aggregates, counts and provenance are frozen); \
copy it with dict(...) to change it
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np


class FrozenDict(dict):
    """A ``dict`` whose every change raises ``TypeError`` (see the module docstring)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("this record is read-only (a result's values, aggregates, counts and provenance are frozen); "
                        "copy it with dict(...) to change it")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict]]:
        return type(self), (dict(self),)

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict) -> FrozenDict:
        return self


_IMMUTABLE = (str, int, float, bool, type(None))


def frozen(value: Any) -> Any:
    """``value`` with every dict a :class:`FrozenDict`, every list a tuple and every array a read-only view."""
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, dict):
        return FrozenDict({key: frozen(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        items = tuple(value)
        if all(type(item) in _IMMUTABLE for item in items):  # a result's qids: no call per item
            return items
        return tuple(frozen(item) for item in items)
    if isinstance(value, np.ndarray):
        if not value.flags.writeable:
            return value
        view = value.view()
        view.setflags(write=False)
        return view
    return value
