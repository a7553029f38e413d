"""A progress line for long commands: a rich spinner on a terminal once work passes a second, nothing in a pipe.

Every long command (``compare``, ``report``, ``bounds``, ``sensitivity``,
``assessors``, ``agreement``) wraps its work in :func:`progress` and reports
each step through the function it yields. On a terminal (stderr a TTY) the
spinner appears only when the work has taken ``delay`` seconds, so a quick
command prints nothing extra; when stderr is not a terminal nothing is ever
written, so pipes and files stay clean.

>>> import io
>>> from rich.console import Console
>>> piped = Console(file=io.StringIO(), force_terminal=False)
>>> with progress("reading", console=piped) as step:
...     step("evaluating")
>>> piped.file.getvalue()
''
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console


@contextmanager
def progress(first: str, *, delay: float = 1.0, console: Console | None = None) -> Iterator[Callable[[str], None]]:
    """Yield ``step(text)``, which shows ``text`` on the spinner (on a terminal, after ``delay`` seconds)."""
    if console is None:
        if not sys.stderr.isatty():
            yield _ignore
            return
        console = Console(stderr=True)
    if not console.is_terminal:
        yield _ignore
        return
    status = console.status(first)
    lock = threading.Lock()
    state = {"started": False, "done": False}

    def start() -> None:
        with lock:
            if not state["done"]:
                status.start()
                state["started"] = True

    timer = threading.Timer(delay, start)
    timer.daemon = True
    timer.start()
    try:
        yield status.update
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["started"]:
                status.stop()


def _ignore(text: str) -> None:
    """The step function off a terminal: nothing to show."""
