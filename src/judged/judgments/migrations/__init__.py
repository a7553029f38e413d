"""judged's Alembic migrations: the only way the store's schema changes (applied by :mod:`judged.judgments.migrate`)."""
