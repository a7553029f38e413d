"""Shared command-line pieces: the --config option, convention options, and writing output to stdout or a file."""

from __future__ import annotations

import click

from judged.io.output import write_atomic
from judged.measures.conventions import convention

config_option = click.option(
    "--config", type=click.Path(dir_okay=False),
    help="Team conventions (judged.toml); default: ./judged.toml when it exists.",
)


def convention_option(name: str, *, lead: str = "", show_default: bool = True):
    """A ``--NAME`` option taking convention ``name``'s values (its choices, or a depth >= 1), help from the table.

    The option is unset by default, so that the team config (or the measure's
    own value) applies; ``lead`` goes before the table's meaning.

    >>> option = convention_option("missing")(lambda missing: None).__click_params__[0]
    >>> option.type.choices, option.required
    (('skip', 'zero'), False)
    >>> option.help[:45]
    'A judged query the run did not answer: skip ('
    >>> option.help[-16:]
    '(default: skip).'
    """
    c = convention(name)
    meaning = c.meaning.replace("`", "")
    text = lead + meaning if lead else meaning[0].upper() + meaning[1:]
    if show_default and c.default is not None:
        text += f" (default: {c.default})"
    kind = click.IntRange(min=1) if c.kind == "depth" else click.Choice(c.choices)
    return click.option(f"--{name}", type=kind, help=text + ".")


def write_output(text: str, path: str | None) -> None:
    """Print ``text``, or write it to ``path`` so that the file is either complete or untouched."""
    if path is None or path == "-":
        click.echo(text, nl=False)
        return
    write_atomic(text, path)
