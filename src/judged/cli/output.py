"""Shared command-line pieces: the --config option, and writing output to stdout or atomically to a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click


config_option = click.option(
    "--config", type=click.Path(dir_okay=False),
    help="Team conventions (judged.toml); default: ./judged.toml when it exists.",
)


def write_output(text: str, path: str | None) -> None:
    """Print ``text``, or write it to ``path`` so that the file is either complete or untouched."""
    if path is None or path == "-":
        click.echo(text, nl=False)
        return
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give the file the mode open() would
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process umask (reading it means setting it, so set it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
