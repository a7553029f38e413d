"""The options ``judged compare`` and ``judged report`` share: the randomised tests and how p-values are adjusted.

>>> import click
>>> @click.command()
... @comparison_options
... def command(**options):
...     print(resolved_correction(options["correction"], options["tukey"]))
>>> sorted(p.name for p in command.params)
['correction', 'permutations', 'resamples', 'seed', 'tukey']
"""

from __future__ import annotations

from collections.abc import Callable

import click

from judged.cli.output import parameter_option
from judged.errors import UsageError
from judged.stats.compare import CORRECTIONS

_OPTIONS = (
    parameter_option("permutations"),
    parameter_option("resamples"),
    parameter_option("seed"),
    click.option("--correction", type=click.Choice([c for c in CORRECTIONS if c != "tukey"]),
                 help="Adjust the p-values across the runs (and, in the report, the pairs) compared "
                      "(default: holm)."),
    click.option("--tukey", is_flag=True,
                 help="Randomised Tukey HSD over all runs instead of per-pair tests, with the matrix of every pair."),
)


def comparison_options(command: Callable) -> Callable:
    """Add the shared options to ``command``, in the order ``--help`` lists them."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def resolved_correction(correction: str | None, tukey: bool) -> str:
    """The correction the options ask for: ``tukey`` under ``--tukey`` (which takes no ``--correction``), else the
    one named, else Holm's."""
    if tukey and correction:
        raise UsageError("--tukey adjusts for every pair of runs itself; drop --correction.")
    return "tukey" if tukey else correction or "holm"
