"""``judged users``: accounts for the web app (assessors and leads), with argon2-hashed passwords."""

from __future__ import annotations

import sys

import click

from judged.cli.store_common import db_option, open_store, table
from judged.errors import UsageError


@click.group("users")
def users_command() -> None:
    """Manage the web app's user accounts in the judgment store."""
    from judged.extras import require

    require("web", "judged users")


def _password(from_stdin: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline()
        if not line:
            raise UsageError("--password-stdin was given but standard input is empty.")
        return line.rstrip("\r\n")
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


@users_command.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(["assessor", "lead"]), required=True,
              help="assessor: grades their own queue. lead: also runs efforts, adjudicates, freezes and exports.")
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of standard input.")
@db_option
def add_command(name, role, password_stdin, db):
    """Create the user NAME; their grades are recorded under this name. The password is asked for twice
    (at least 8 characters) unless --password-stdin is given.

    \b
    Example:
      judged users add alice --role assessor
      printf '%s\\n' "$PASSWORD" | judged users add lena --role lead --password-stdin
    """
    from judged.judgments.accounts import Accounts

    password = _password(password_stdin)
    with open_store(db) as store:
        user = Accounts(store).add_user(name, role, password)
        click.echo(f"added {user.role} {user.name} to {store.url}")


@users_command.command("passwd")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of standard input.")
@db_option
def passwd_command(name, password_stdin, db):
    """Set a new password for NAME and end their open sessions.

    \b
    Example:
      judged users passwd alice
    """
    from judged.judgments.accounts import Accounts

    password = _password(password_stdin)
    with open_store(db) as store:
        Accounts(store).set_password(name, password)
        click.echo(f"changed the password of {name}; their sessions are closed")


@users_command.command("list")
@db_option
def list_command(db):
    """List the users and their roles.

    \b
    Example:
      judged users list
    """
    from judged.judgments.accounts import Accounts

    with open_store(db) as store:
        users = Accounts(store).users()
    click.echo(table(["name", "role"], [(u.name, u.role) for u in users]), nl=False)
