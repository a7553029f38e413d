"""Shared command-line pieces: the --config option, convention options, and writing output to stdout or a file."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import click

from judged.engine.provenance import output_record
from judged.errors import UsageError
from judged.io.output import write_atomic
from judged.measures.conventions import convention
from judged.params import PARAMETERS

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


def parameter_option(name: str, **changes: object):
    """A ``--NAME`` option for the shared parameter ``name`` (:data:`judged.params.PARAMETERS`): its type, default
    and help come from the declaration, with this command's own ``default``, ``minimum`` or ``help`` in ``changes``.

    >>> option = parameter_option("alpha")(lambda alpha: None).__click_params__[0]
    >>> option.default, option.type, option.help
    (0.05, <FloatRange 0<x<1>, 'Significance level of the tests; intervals are at confidence 1 - alpha.')
    >>> parameter_option("seed")(lambda seed: None).__click_params__[0].type
    <IntRange x>=0>
    """
    declared = PARAMETERS[name].but(**changes) if changes else PARAMETERS[name]
    kind: click.ParamType
    if declared.kind == "probability":
        kind = click.FloatRange(0, 1, min_open=True, max_open=True)
    else:
        kind = click.IntRange(min=0 if declared.kind == "seed" else declared.minimum)
    return click.option(f"--{name}", type=kind, default=declared.default, show_default=declared.default is not None,
                        help=declared.help + ".")


def format_option(choices: Sequence[str], default: str = "table", help: str = "Output format."):
    """The ``--format``/``-f`` option of a command that writes ``choices`` (the first few words of its help)."""
    return click.option("--format", "-f", "fmt", type=click.Choice(list(choices)), default=default,
                        show_default=True, help=help)


def write_output(text: str, path: str | None) -> None:
    """Print ``text``, or write it to ``path`` so that the file is either complete or untouched, and say so."""
    if path is None or path == "-":
        click.echo(text, nl=False)
        return
    check_output(path, ())
    try:
        write_atomic(text, path)
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror or err}.") from None
    say_written(path)


def say_written(path: str) -> None:
    """One line on stderr naming the file a command wrote and its size (stdout stays the output's)."""
    click.echo(f"wrote {path} ({os.path.getsize(path):,} bytes)", err=True)


def check_output(output: str | None, inputs: Iterable[str | None]) -> None:
    """A UsageError, before any work, when ``-o`` cannot be written or names one of the command's inputs."""
    if output is None or output == "-":
        return
    folder = Path(output).parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {output}: the folder {str(folder)!r} does not exist.")
    if not Path(output).exists():
        return
    for source in inputs:
        if source is not None and Path(source).exists() and os.path.samefile(output, source):
            raise UsageError(f"-o {output} is one of the inputs ({source}); write the output somewhere else.")


def with_provenance(text: str, fmt: str, *, results: Sequence = (), inputs: Sequence = (), measures: Sequence = (),
                    config: dict | None = None) -> str:
    """JSON ``text`` with a ``provenance`` key: :func:`judged.engine.provenance.output_record` for this command.

    ``inputs`` take ``Run``/``Qrels`` objects, or file paths (recorded with
    their sha256). Other formats are returned unchanged.

    >>> print(with_provenance("run\\n", "table"), end="")
    run
    >>> sorted(json.loads(with_provenance('{"x": 1}', "json"))["provenance"])[:4]
    ['command', 'config', 'created', 'inputs']
    """
    if fmt != "json":
        return text
    document = json.loads(text)
    records = [file_record(item) if isinstance(item, (str, Path)) else item for item in inputs]
    document["provenance"] = output_record(results=results, inputs=records, measures=measures, command=sys.argv,
                                           config=config)
    return json.dumps(document, indent=2) + "\n"


def file_record(path: str | Path) -> dict:
    """An input read by path: its path and sha256 (the form of an evaluation's input record)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"name": Path(path).name, "path": str(path), "format": "file", "sha256": digest.hexdigest()}
