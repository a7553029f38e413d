"""``judged rubric check``: lint a grading rubric; exit 1 when there is anything to fix."""

from __future__ import annotations

import sys

import click

from judged.cli.output import format_option, write_output
from judged.render.rubric import render_findings, render_findings_json
from judged.rubric import check_rubric, load_rubric


@click.group("rubric")
def rubric_command():
    """Work with grading rubrics (TOML, or YAML with PyYAML installed)."""


@rubric_command.command("check")
@click.argument("path", type=click.Path(dir_okay=False))
@format_option(["text", "json"], default="text")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file (atomically).")
def check_command(path, fmt, output):
    """Lint the rubric at PATH: every level of the scale present and distinct, each description saying
    what the user can do with the document, no comparative wording. Exit 1 on any finding.

    \b
    Example:
      judged rubric check examples/rubric.toml
    """
    rubric = load_rubric(path)
    findings = check_rubric(rubric)
    render = render_findings_json if fmt == "json" else render_findings
    write_output(render(rubric, findings), output)
    if findings:
        sys.exit(1)
