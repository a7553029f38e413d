"""Alembic's environment: run the migrations inside the transaction judged opened.

judged applies migrations itself (on opening a store, or ``judged db upgrade``)
and passes its connection, already holding the write lock, in
``config.attributes["connection"]``; see :mod:`judged.judgments.migrate`.
"""

from alembic import context

from judged.judgments.schema import metadata

if hasattr(context, "config"):  # False when the file is imported outside Alembic (doctest collection)
    context.configure(connection=context.config.attributes["connection"], target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()
