"""Notebook display hooks: how a result object finds its HTML without importing a renderer.

A statistics object such as :class:`judged.stats.compare.Comparison` sits
below the renderers, so it must not import them; its ``_repr_html_`` asks
:func:`html` instead, and the layer that owns the renderer registers it here
under the object's class (``judged/__init__.py`` does it for every judged
object at import, so a notebook always gets the HTML).

>>> class Box:
...     pass
>>> register(f"{Box.__module__}.{Box.__qualname__}", lambda box: "<b>box</b>")
>>> html(Box())
'<b>box</b>'
>>> html(object()) is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_RENDERERS: dict[str, Callable[[Any], str]] = {}


def register(type_name: str, render: Callable[[Any], str]) -> None:
    """Render objects of the class ``type_name`` (``module.QualName``) with ``render`` in a notebook."""
    _RENDERERS[type_name] = render


def html(obj: object) -> str | None:
    """The registered HTML for ``obj``, or None (the notebook then shows its text form)."""
    render = _RENDERERS.get(f"{type(obj).__module__}.{type(obj).__qualname__}")
    return None if render is None else render(obj)
