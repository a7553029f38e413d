"""``judged measures``: every measure, alias and parameter, generated from the registry."""

from __future__ import annotations

import click

from judged.measures.reference import measures_text


@click.command("measures")
def measures_command():
    """List every measure with its aliases, parameters and formula."""
    click.echo(measures_text())
