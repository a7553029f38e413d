"""Rendering of results: terminal table, trec_eval text, JSON and TSV. Results stay data; this is the view.

Each renderer's module loads when first asked for: ``judged trec_eval`` prints trec_eval's text without
loading the table's rich or the JSON writer's configuration (about 45 ms at start-up).

>>> from judged.render import FORMATS, render_tsv
>>> FORMATS
('table', 'trec_eval', 'json', 'tsv')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judged.render.jsonout import render_json
    from judged.render.table import render_table
    from judged.render.trec_eval import render_trec_eval
    from judged.render.tsv import render_tsv

FORMATS = ("table", "trec_eval", "json", "tsv")
_MODULES = {"render_json": "jsonout", "render_table": "table", "render_trec_eval": "trec_eval", "render_tsv": "tsv"}


def __getattr__(name: str) -> Callable[..., str]:
    """A renderer, from its module, loaded on first use (PEP 562)."""
    if name in _MODULES:
        return getattr(importlib.import_module(f"judged.render.{_MODULES[name]}"), name)
    raise AttributeError(f"module 'judged.render' has no attribute {name!r}")


__all__ = ["FORMATS", "render_json", "render_table", "render_trec_eval", "render_tsv"]
