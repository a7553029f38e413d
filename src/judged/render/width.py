"""How wide text output may be: the terminal's width, or none at all in a pipe or a file.

A table fits the width it is given (stacked, labelled or wrapped at whole
words, never cutting a number); a line of prose wraps at whole words in a
terminal and not at all in a pipe, so ``grep`` and ``awk`` see one line per
sentence or row. ``$COLUMNS`` sets the width in either case.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
from collections.abc import Mapping

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table


def output_width(environ: Mapping[str, str] = os.environ) -> int | None:
    """``$COLUMNS`` when set, the terminal's width when stdout is one, else None (a pipe or a file).

    >>> output_width({"COLUMNS": "80"})
    80
    """
    columns = environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout is not None and sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def text_console(buffer: io.StringIO, width: int | None = None, fallback: int = 120) -> Console:
    """A plain-text rich console into ``buffer``: tables at ``width`` (else :func:`output_width`, else
    ``fallback``), prose wrapped only when a width is known."""
    known = width or output_width()
    return Console(file=buffer, width=known or fallback, force_terminal=False, color_system=None,
                   soft_wrap=known is None)


def natural_width(table: Table) -> int:
    """The width ``table`` takes when nothing has to wrap: whether it fits, or must be stacked or split."""
    wide = Console(file=io.StringIO(), width=10_000)
    return Measurement.get(wide, wide.options, table).maximum
