"""What every part of the :class:`~judged.judgments.Store` shares: its engine and the one way it opens a transaction.

:class:`StoreBase` holds the database engine and its two transactions,
``_write`` (one writer, ``BEGIN IMMEDIATE`` on SQLite) and ``_read``, each
turning a database error into judged's error that says what to do. The
groups of store methods kept in their own modules
(:mod:`~judged.judgments.store_automatic`,
:mod:`~judged.judgments.store_targeting`) build on it, and
:class:`~judged.judgments.Store` inherits them all: to callers it is one class.

>>> from judged.judgments.engine import create_engine
>>> with StoreBase(create_engine("sqlite://")) as base:
...     base.url
'sqlite://'
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Self

import sqlalchemy as sa

from judged.judgments.engine import display_url, reading, writing
from judged.judgments.failures import explain


class StoreBase:
    """A judgment store's engine and transactions; every method of the store opens one through these."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return display_url(self.engine)

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def _write(self, snapshot: bool = False) -> Iterator[sa.Connection]:
        try:
            with writing(self.engine, snapshot) as connection:
                yield connection
        except sa.exc.DBAPIError as err:
            raise explain(err, self.url) from None

    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        try:
            with reading(self.engine) as connection:
                yield connection
        except sa.exc.DBAPIError as err:
            raise explain(err, self.url) from None
