"""The vocabulary the rubric lint uses: comparative wording, and what counts as naming the user and an ability.

A grade is a measurement only if a second person can check it against the
document alone. A comparative word (best, better, most relevant, top) grades
the document against the others retrieved, which changes with the pool; a
description that never says what the user can do with the document gives the
assessor nothing to check. Both heuristics are deliberately plain word lists,
matched whole-word and case-insensitively (a phrase matches across line
breaks), so a finding can always be explained by pointing at the text.
"""

from __future__ import annotations

import re

#: Single words that rank a document against others or against an unstated ideal.
COMPARATIVE_WORDS = (
    "best", "better", "worse", "worst", "ideal", "ideally", "perfect", "perfectly", "top", "superior",
    "inferior", "optimal", "optimally", "highest", "lowest", "greatest",
)
_QUALITIES = ("relevant", "useful", "helpful", "important", "complete", "informative", "authoritative",
              "appropriate", "valuable", "accurate", "specific")
#: Phrases: a degree of a quality (most relevant, less useful) or an explicit comparison.
COMPARATIVE_PHRASES = tuple(f"{degree} {quality}" for degree in ("most", "more", "less", "least")
                            for quality in _QUALITIES) + ("compared to", "compared with", "than the other",
                                                          "than other", "than the rest")

#: Words that name the person judged for, or their need or task.
USER_WORDS = (
    "user", "users", "reader", "readers", "searcher", "searchers", "person", "people", "someone", "you",
    "your", "they", "them", "their", "customer", "customers", "need", "needs", "task", "tasks",
)
#: Words of ability or action: what that person can or cannot do with the document.
ABILITY_WORDS = (
    "can", "cannot", "can't", "could", "couldn't", "able", "unable", "let", "lets", "allow", "allows",
    "enable", "enables", "help", "helps", "use", "uses", "using", "complete", "completes", "finish",
    "finishes", "do", "act", "answer", "answers", "solve", "solves", "fix", "learn", "learns", "progress",
    "decide", "follow", "apply", "perform", "accomplish", "achieve",
)


def phrase_pattern(phrase: str) -> re.Pattern[str]:
    r"""A whole-word, case-insensitive pattern for ``phrase`` whose words may be split by whitespace or a TOML ``\``.

    >>> bool(phrase_pattern("most relevant").search("the MOST\n  relevant page"))
    True
    >>> bool(phrase_pattern("top").search("a stopgap"))
    False
    """
    words = [re.escape(word) for word in phrase.split()]
    return re.compile(r"(?<![\w'])" + r"[\s\\]+".join(words) + r"(?![\w'])", re.IGNORECASE)


COMPARATIVE = tuple((term, phrase_pattern(term)) for term in COMPARATIVE_PHRASES + COMPARATIVE_WORDS)
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def names_user(text: str) -> bool:
    """True when ``text`` names the user (or their need or task)."""
    return any(word in USER_WORDS for word in _WORD.findall(text.lower()))


def names_ability(text: str) -> bool:
    """True when ``text`` has a word of ability or action (can, cannot, help, complete, ...)."""
    return any(word in ABILITY_WORDS for word in _WORD.findall(text.lower()))


def comparative_terms(text: str) -> list[tuple[str, int]]:
    """Every comparative term in ``text`` with the number (0-based) of that match of its pattern, phrases first.

    A word inside a matched phrase is not reported again ("more relevant" is one finding, not two).

    >>> comparative_terms("The best page: more useful than other pages, the best.")
    [('more useful', 0), ('than other', 0), ('best', 0), ('best', 1)]
    """
    found: list[tuple[str, int]] = []
    taken: list[tuple[int, int]] = []
    for term, pattern in COMPARATIVE:
        for occurrence, match in enumerate(pattern.finditer(text)):
            if not any(start < match.end() and match.start() < end for start, end in taken):
                taken.append(match.span())
                found.append((term, occurrence))
    return found
