"""The judging web app: assessors grade pooled pairs against the rubric; leads run efforts, adjudicate, freeze.

FastAPI with Jinja2 templates and one hand-written script for the grading
page, served by uvicorn (``judged serve``) over the judgment store
(:mod:`judged.judgments`). ``docs/web.md`` explains the architecture and the
security model.

>>> from judged.judgments import Store
>>> from judged.web import create_app
>>> create_app(Store.open("sqlite://")).title
'judged'
"""

from judged.extras import require

require("web", "judged.web")

from judged.web.app import create_app  # noqa: E402  (after the check that names the missing extra)
from judged.web.settings import WebSettings  # noqa: E402

__all__ = ["WebSettings", "create_app"]
