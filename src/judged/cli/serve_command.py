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
@click.option("--max-body-bytes", type=click.IntRange(min=1), default=None,
              help="Largest request body read, in bytes (default 1048576); a larger one is refused with 413.")
@click.option("--trusted-proxy", "trusted_proxies", multiple=True, metavar="ADDR",
              help="A proxy (address, network such as 10.0.0.0/8, or *) whose X-Forwarded-For and "
                   "X-Forwarded-Proto are believed; repeat for several. Without it they are ignored.")
@click.option("--log-level", type=click.Choice(["critical", "error", "warning", "info", "debug"]), default="info",
              show_default=True, help="uvicorn's log level (info logs every request).")
def serve_command(db, host, port, workers, secure_cookies, max_body_bytes, trusted_proxies, log_level):
    """Serve the web app where assessors grade pooled pairs and leads run efforts, adjudicate and freeze.

    Opens (and migrates) the store first, so a wrong --db fails here. Create accounts with
    `judged users add`. Serve over HTTPS (a TLS-terminating proxy) with --secure-cookies whenever
    the app is reachable beyond this machine, and name that proxy with --trusted-proxy so that
    login limits see the browser's address rather than the proxy's.

    \b
    Example:
      judged serve --db judged.db --port 8000
      judged serve --db judged.db --secure-cookies --trusted-proxy 127.0.0.1
    """
    from judged.extras import require

    require("web", "judged serve")
    import uvicorn

    from judged.judgments.accounts import Accounts
    from judged.web.settings import MAX_BODY_BYTES, WebSettings

    settings = WebSettings(secure_cookies=secure_cookies, max_body_bytes=max_body_bytes or MAX_BODY_BYTES,
                           trusted_proxies=tuple(trusted_proxies))

    with open_store(db) as store:
        url = store.url
        users = Accounts(store).users()
    if not users:
        click.echo("judged: no users yet; create one with `judged users add NAME --role lead`", err=True)
    if host not in _LOOPBACK and not secure_cookies:
        click.echo("judged: serving beyond loopback without --secure-cookies; put it behind HTTPS", err=True)
    if db:
        os.environ["JUDGED_DB"] = db
    os.environ.update(settings.to_env())
    click.echo(f"judged: serving {url} at http://{host}:{port}/ (Ctrl+C stops)", err=True)
    uvicorn.run("judged.web.app:app_from_env", factory=True, host=host, port=port, workers=workers,
                log_level=log_level, server_header=False, proxy_headers=False)
