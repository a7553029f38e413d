"""The ``judged`` command line: click commands over the library, errors mapped to exit codes.

Exit codes follow click: 0 success, 1 bad input data (:class:`~judged.InputError`),
2 a bad request (:class:`~judged.UsageError`, unknown options).
"""

from __future__ import annotations

import sys

import click

from judged.cli.agreement_command import agreement_command
from judged.cli.assessors_command import assessors_command
from judged.cli.bounds_command import bounds_command
from judged.cli.compare_command import compare_command
from judged.cli.eval_command import eval_command
from judged.cli.explain_command import explain_command
from judged.cli.measures_command import measures_command
from judged.cli.report_command import report_command
from judged.cli.rubric_command import rubric_command
from judged.cli.sensitivity_command import sensitivity_command
from judged.cli.serve_command import serve_command
from judged.cli.users_command import users_command
from judged.cli.store_commands import STORE_COMMANDS
from judged.errors import InputError, JudgedError, UsageError


class _Group(click.Group):
    """Turns judged's own errors into ``Error: ...`` on stderr with the right exit code."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except UsageError as err:
            raise click.UsageError(str(err)) from None
        except (InputError, JudgedError) as err:
            click.echo(f"Error: {err}", err=True)
            sys.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="judged")
def main() -> None:
    """Evaluate rankings against graded relevance judgments, every convention explicit."""


main.add_command(eval_command)
main.add_command(compare_command)
main.add_command(bounds_command)
main.add_command(explain_command)
main.add_command(measures_command)
main.add_command(sensitivity_command)
main.add_command(report_command)
main.add_command(rubric_command)
main.add_command(agreement_command)
main.add_command(assessors_command)
main.add_command(serve_command)
main.add_command(users_command)
for store_command in STORE_COMMANDS:
    main.add_command(store_command)
