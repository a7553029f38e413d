"""``judged users`` and ``judged serve``: accounts from the command line, and the server's options."""

from __future__ import annotations

from click.testing import CliRunner

from judged.cli import main
from judged.judgments import Store
from judged.judgments.accounts import Accounts, User


def _run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_users_add_from_stdin_then_list_and_log_in(tmp_path):
    db = str(tmp_path / "judged.db")
    added = _run("users", "add", "ann", "--role", "lead", "--password-stdin", "--db", db, input="ann-password\n")
    assert added.exit_code == 0, added.output
    assert added.output == f"added lead ann to sqlite:///{db}\n"
    listed = _run("users", "list", "--db", db)
    assert listed.output == "name  role\nann   lead\n"
    with Store.open(db) as store:
        assert Accounts(store).authenticate("ann", "ann-password") == User("ann", "lead")


def test_users_add_prompts_twice_for_the_password(tmp_path):
    db = str(tmp_path / "judged.db")
    result = _run("users", "add", "bo", "--role", "assessor", "--db", db, input="bo-password\nbo-password\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("Password") == 1 and "Repeat for confirmation" in result.output
    with Store.open(db) as store:
        assert Accounts(store).authenticate("bo", "bo-password") == User("bo", "assessor")


def test_users_add_refusals_are_usage_errors(tmp_path):
    db = str(tmp_path / "judged.db")
    _run("users", "add", "ann", "--role", "lead", "--password-stdin", "--db", db, input="ann-password\n")
    again = _run("users", "add", "ann", "--role", "lead", "--password-stdin", "--db", db, input="ann-password\n")
    assert again.exit_code == 2 and "user 'ann' already exists" in again.output
    short = _run("users", "add", "cy", "--role", "lead", "--password-stdin", "--db", db, input="short\n")
    assert short.exit_code == 2 and "at least 8 characters" in short.output
    empty = _run("users", "add", "cy", "--role", "lead", "--password-stdin", "--db", db, input="")
    assert empty.exit_code == 2 and "standard input is empty" in empty.output
    role = _run("users", "add", "cy", "--role", "admin", "--password-stdin", "--db", db, input="long-enough\n")
    assert role.exit_code == 2 and "'admin' is not one of 'assessor', 'lead'" in role.output


def test_users_passwd_changes_the_password(tmp_path):
    db = str(tmp_path / "judged.db")
    _run("users", "add", "ann", "--role", "lead", "--password-stdin", "--db", db, input="ann-password\n")
    changed = _run("users", "passwd", "ann", "--password-stdin", "--db", db, input="new-password\n")
    assert changed.exit_code == 0 and "sessions are closed" in changed.output
    with Store.open(db) as store:
        assert Accounts(store).authenticate("ann", "new-password") is not None
    unknown = _run("users", "passwd", "nobody", "--password-stdin", "--db", db, input="new-password\n")
    assert unknown.exit_code == 2 and "no user 'nobody'" in unknown.output


def test_serve_help_documents_its_options():
    result = _run("serve", "--help")
    assert result.exit_code == 0
    for option in ("--db", "--host", "--port", "--workers", "--secure-cookies", "--max-body-bytes", "--trusted-proxy",
                   "--log-level"):
        assert option in result.output
    assert "judged serve --db judged.db --port 8000" in result.output


def test_serve_refuses_a_bad_database_url_before_starting():
    result = _run("serve", "--db", "mysql://nowhere/judged")
    assert result.exit_code == 2 and "the judgment store supports SQLite and PostgreSQL" in result.output
