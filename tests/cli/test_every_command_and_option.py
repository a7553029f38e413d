"""Meta-test over every command: each option has help, each command is in the docs, and each shared parameter
and choice option refuses a bad value naming the option, the value and what is allowed."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.params import PARAMETERS

ROOT = Path(__file__).resolve().parents[2]
DOCS = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def commands() -> list[tuple[str, click.Command]]:
    """Every command and subcommand, as ``judged a b``, loading each (the CLI loads commands lazily)."""
    found = []

    def walk(command: click.Command, path: list[str], parent: click.Context | None) -> None:
        context = click.Context(command, info_name=path[-1], parent=parent)
        found.append((" ".join(path), command))
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                assert sub is not None, name
                walk(sub, [*path, name], context)

    walk(main, ["judged"], None)
    return found


COMMANDS = commands()
OPTIONS = [(path, option) for path, command in COMMANDS for option in command.params
           if isinstance(option, click.Option) and not option.hidden]


def test_the_walk_finds_every_command():
    names = {path for path, _ in COMMANDS}
    assert {"judged eval", "judged trec_eval", "judged db verify", "judged users passwd",
            "judged judge history"} <= names
    assert len(names) >= 48


@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=[f"{p}-{o.name}" for p, o in OPTIONS])
def test_every_option_has_help(path, option):
    assert option.help and option.help.strip()[-1] in ".)?", f"{path} {option.opts[0]}: {option.help!r}"


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS if path != "judged"])
def test_every_command_is_in_the_docs(path):
    assert re.search(rf"\b{re.escape(path)}\b", DOCS), f"`{path}` appears in neither README.md nor docs/"


def bad_values(option: click.Option) -> list[str]:
    """Values the option's type refuses."""
    kind = option.type
    if isinstance(kind, click.Choice):
        return ["no-such-choice"]
    if isinstance(kind, click.FloatRange):
        return ["2", "-0.5", "abc"]
    if isinstance(kind, click.IntRange):
        below = (kind.min or 0) - 1
        return [str(below), "1.5", "abc"]
    return []


CHECKED = [(path, option, bad) for path, option in OPTIONS
           if option.name in PARAMETERS or isinstance(option.type, click.Choice) for bad in bad_values(option)]


@pytest.mark.parametrize(("path", "option", "bad"), CHECKED, ids=[f"{p}-{o.name}-{b}" for p, o, b in CHECKED])
def test_a_bad_value_is_refused_naming_the_option_the_value_and_what_is_allowed(path, option, bad):
    words = path.split()[1:]
    result = CliRunner().invoke(main, [*words, option.opts[0], bad])  # parsed first: given first
    assert result.exit_code == 2, result.output
    message = result.output
    assert "Invalid value for" in message and option.opts[0] in message and bad in message, message
    if isinstance(option.type, click.Choice):
        assert all(choice in message for choice in option.type.choices), message


def test_shared_parameters_take_type_default_and_help_from_their_declaration():
    shared = [(path, option) for path, option in OPTIONS if option.name in PARAMETERS]
    assert {option.name for _, option in shared} >= {"alpha", "seed", "resamples", "permutations", "confidence",
                                                     "worst"}
    for path, option in shared:
        declared = PARAMETERS[option.name]
        if declared.kind == "probability":
            assert isinstance(option.type, click.FloatRange) and option.type.min_open and option.type.max_open
        else:
            assert isinstance(option.type, click.IntRange), (path, option.name)
        if option.name == "seed":
            assert option.type.min == 0, path  # numpy refuses a negative seed
