"""``judged serve``: run the judging web app over the judgment store with uvicorn."""

from __future__ import annotations

import os

import click

from judged.cli.store_common import db_option, open_store

_LOOPBACK = ("127.0.0.1", "::1", "localhost")


@click.command("serve")
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes; each opens the store, and login limits are shared through it.")
@click.option("--secure-cookies", is_flag=True,
              help="Mark the session cookie Secure (browsers then send it over HTTPS only): use behind TLS.")
@click.option("--log-level", type=click.Choice(["critical", "error", "warning", "info", "debug"]), default="info",
              show_default=True, help="uvicorn's log level (info logs every request).")
def serve_command(db, host, port, workers, secure_cookies, log_level):
    """Serve the web app where assessors grade pooled pairs and leads run efforts, adjudicate and freeze.

    Opens (and migrates) the store first, so a wrong --db fails here. Create accounts with
    `judged users add`. Serve over HTTPS (a TLS-terminating proxy) with --secure-cookies whenever
    the app is reachable beyond this machine.

    \b
    Example:
      judged serve --db judged.db --port 8000
    """
    from judged.extras import require

    require("web", "judged serve")
    import uvicorn

    from judged.judgments.accounts import Accounts

    with open_store(db) as store:
        url = store.url
        users = Accounts(store).users()
    if not users:
        click.echo("judged: no users yet; create one with `judged users add NAME --role lead`", err=True)
    if host not in _LOOPBACK and not secure_cookies:
        click.echo("judged: serving beyond loopback without --secure-cookies; put it behind HTTPS", err=True)
    if db:
        os.environ["JUDGED_DB"] = db
    os.environ["JUDGED_SECURE_COOKIES"] = "1" if secure_cookies else "0"
    click.echo(f"judged: serving {url} at http://{host}:{port}/ (Ctrl+C stops)", err=True)
    uvicorn.run("judged.web.app:app_from_env", factory=True, host=host, port=port, workers=workers,
                log_level=log_level, server_header=False)
