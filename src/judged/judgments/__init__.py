"""The judgment store: queries, documents, rubrics, pools, assignments, an append-only judgment log,
adjudications and frozen, versioned judgment sets; SQLite by default, PostgreSQL by URL.

Start from :class:`Store`; ``docs/judgments.md`` explains the schema, why the
log is append-only, how a frozen set is hashed and exported, and the
concurrency model.

>>> from judged.judgments import Store
>>> with Store.open("sqlite://") as store:
...     _ = store.import_qrels({"q1": {"d1": 2, "d2": 0}}, assessor="nist")
...     print(store.freeze("nist").judgment_set.id, store.export("nist@1")[0], end="")
nist@1 q1 0 d1 2
q1 0 d2 0
"""

from judged.judgments import account_schema as _account_schema  # noqa: F401  (web app tables join the schema)
from judged.judgments.model import (
    Adjudication,
    AssessorLabel,
    AssignedPair,
    Disagreement,
    Document,
    Judgment,
    JudgmentSet,
    NewJudgment,
    Query,
    Recorded,
)
from judged.judgments.store import Store

__all__ = [
    "Adjudication",
    "AssessorLabel",
    "AssignedPair",
    "Disagreement",
    "Document",
    "Judgment",
    "JudgmentSet",
    "NewJudgment",
    "Query",
    "Recorded",
    "Store",
]
