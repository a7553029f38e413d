"""The optional parts of judged and what each needs installed: one table for every "pip install" hint.

``pip install judged`` brings what evaluating, comparing, explaining and the
judgment store need. The web app, the HTML report, Spark and PostgreSQL are
extras; a command or function that needs one calls :func:`require`, which
names the one ``pip install`` line that fixes a missing module.

>>> require("report")
>>> EXTRAS["web"]
('fastapi', 'uvicorn', 'python_multipart', 'argon2', 'jinja2')
"""

from __future__ import annotations

import importlib

from judged.errors import UsageError

#: extra -> the modules it installs that judged imports (pyproject.toml's [project.optional-dependencies]).
EXTRAS: dict[str, tuple[str, ...]] = {
    "web": ("fastapi", "uvicorn", "python_multipart", "argon2", "jinja2"),
    "report": ("altair", "vl_convert", "jinja2"),
    "spark": ("pyspark",),
    "postgres": ("psycopg",),
    "irds": ("ir_datasets",),
}


class MissingExtraError(UsageError, ImportError):
    """A part of judged was asked for whose extra is not installed; the message is the line that installs it."""


def require(extra: str, what: str | None = None) -> None:
    """Return if every module of ``extra`` imports, else raise :class:`MissingExtraError` with the pip line.

    ``what`` names the feature in the message (default: ``the <extra> extra``).
    """
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            raise MissingExtraError(
                f"{what or 'this'} needs judged's {extra} extra ({module} is not installed): "
                f"pip install 'judged[{extra}]'"
            ) from None
