"""Every measure family; importing this package registers them all, in this order."""

from judged.measures.families import ndcg, binary, ranked, counts  # noqa: F401
