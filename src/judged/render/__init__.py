"""Rendering of results: terminal table, trec_eval text, JSON and TSV. Results stay data; this is the view."""

from judged.render.jsonout import render_json
from judged.render.table import render_table
from judged.render.trec_eval import render_trec_eval
from judged.render.tsv import render_tsv

FORMATS = ("table", "trec_eval", "json", "tsv")

__all__ = ["FORMATS", "render_json", "render_table", "render_trec_eval", "render_tsv"]
