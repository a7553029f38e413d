"""The ``judged`` command line: click commands over the library, errors mapped to exit codes.

Exit codes follow click: 0 success, 1 bad input data (:class:`~judged.InputError`),
2 a bad request (:class:`~judged.UsageError`, unknown options).
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from collections.abc import MutableMapping

import click

from judged.errors import InputError, JudgedError, UsageError

# Each command's module is imported only when that command runs (or help lists it): the web app,
# the store, Spark and scipy.stats are not loaded to evaluate a run. Name -> "module:attribute".
COMMANDS = {
    "eval": "eval_command:eval_command",
    "trec_eval": "trec_eval_command:trec_eval_command",
    "compare": "compare_command:compare_command",
    "report": "report_command:report_command",
    "bounds": "bounds_command:bounds_command",
    "settle": "settle_command:settle_command",
    "explain": "explain_command:explain_command",
    "sensitivity": "sensitivity_command:sensitivity_command",
    "measures": "measures_command:measures_command",
    "rubric": "rubric_command:rubric_command",
    "agreement": "agreement_command:agreement_command",
    "assessors": "assessors_command:assessors_command",
    "calibrate": "calibrate_command:calibrate_command",
    "db": "db_command:db_command",
    "import": "import_command:import_command",
    "pool": "pool_command:pool_command",
    "assign": "assign_command:assign_command",
    "judge": "judge_command:judge_command",
    "adjudicate": "adjudicate_command:adjudicate_command",
    "freeze": "judgment_sets_command:freeze_command",
    "export": "judgment_sets_command:export_command",
    "serve": "serve_command:serve_command",
    "users": "users_command:users_command",
}


#: polars' allocator (jemalloc) keeps freed pages for seconds, so ranking a large run would hold
#: more memory than it needs; this returns them at once, from jemalloc's background thread
#: (docs/performance.md has the measured trade-off: about 680 MB instead of 720 MB for ten million
#: run lines, at no measurable cost in time). jemalloc reads it when polars loads.
ALLOCATOR = ("_RJEM_MALLOC_CONF", "background_thread:true,dirty_decay_ms:0,muzzy_decay_ms:0")


def configure_allocator(environ: MutableMapping[str, str] = os.environ) -> None:
    """Set polars' allocator to return freed memory at once, unless the user configured jemalloc.

    The command line calls it before any command loads polars; the library
    never does, so importing judged changes nothing in the caller's process.

    >>> env = {}
    >>> configure_allocator(env)
    >>> env["_RJEM_MALLOC_CONF"]
    'background_thread:true,dirty_decay_ms:0,muzzy_decay_ms:0'
    >>> env = {"_RJEM_MALLOC_CONF": "narenas:1"}
    >>> configure_allocator(env)
    >>> env["_RJEM_MALLOC_CONF"]
    'narenas:1'
    """
    environ.setdefault(*ALLOCATOR)


class _Group(click.Group):
    """Loads each command on first use; turns judged's own errors into ``Error: ...`` with the right exit code."""

    def main(self, *args, **kwargs):
        """The process's entry point: configure the allocator before a command (or --version) loads polars."""
        configure_allocator()
        return super().main(*args, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute = COMMANDS[name].split(":")
        return getattr(importlib.import_module(f"judged.cli.{module}"), attribute)

    def invoke(self, ctx: click.Context):
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _one_line
                return super().invoke(ctx)
        except UsageError as err:
            raise click.UsageError(str(err)) from None
        except (InputError, JudgedError) as err:
            click.echo(f"Error: {err}", err=True)
            sys.exit(1)


def _one_line(message, category, filename, lineno, file=None, line=None) -> None:
    """judged's own warnings as one ``warning: ...`` line on stderr (stdout stays the output); others as Python
    shows them."""
    if category.__module__.startswith("judged."):
        click.echo(f"warning: {message}", err=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: judged's version and whether the native TREC reader is built (io/native.py says why not)."""
    if not value or ctx.resilient_parsing:
        return
    from judged.io.native import NATIVE_STATUS
    from judged.version import __version__

    click.echo(f"judged, version {__version__}\nnative reader: {NATIVE_STATUS}")
    ctx.exit()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show the version and whether the native reader is available, then exit.")
def main() -> None:
    """Evaluate rankings against graded relevance judgments, every convention explicit."""
