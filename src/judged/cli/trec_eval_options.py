"""trec_eval 10's command line, read by its own rules (GNU ``getopt_long`` with trec_eval's option string).

Short options may be grouped (``-qc``) and take their value attached or as the
next word (``-M100``, ``-M 100``, ``-mP.5``); long options may be abbreviated
to any unambiguous prefix and take ``--opt=value`` or ``--opt value``;
options and the two file names may come in any order, and ``--`` ends the
options. judged adds one long option of its own, ``--judged-definitions``
(:data:`JUDGED_DEFINITIONS`). A word that breaks these rules is a :class:`CommandLineError` with
getopt's own wording, which the command prints with trec_eval's usage text
(exit status 1, as trec_eval).

>>> options = parse_command_line(["-q", "-M100", "-mP.5,10", "-m", "map", "qrels", "run"])
>>> options.query_flag, options.max_docs, options.measures, options.files
(True, 100, ('P.5,10', 'map'), ('qrels', 'run'))
>>> parse_command_line(["-x", "q", "r"])
Traceback (most recent call last):
judged.cli.trec_eval_options.CommandLineError: invalid option -- 'x'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from judged.errors import UsageError

#: trec_eval's getopt string: a letter followed by ':' takes a value.
SHORT_OPTIONS = "hvqm:cl:nD:JN:M:R:T:oZ:"
#: judged's own long option: its corrected definitions where trec_eval's arithmetic departs from the measure
#: (docs/trec_eval.md). No trec_eval long option starts like it, so their abbreviations stay unambiguous.
JUDGED_DEFINITIONS = "judged-definitions"
#: trec_eval's long options and the short option each stands for (judged's own stands for itself).
LONG_OPTIONS = {
    "help": "h", "version": "v", "query_eval_wanted": "q", "measure": "m", "complete_rel_info_wanted": "c",
    "level_for_rel": "l", "nosummary": "n", "Debug_level": "D", "Judged_docs_only": "J",
    "Number_docs_in_coll": "N", "Max_retrieved_per_topic": "M", "Rel_info_format": "R", "Results_format": "T",
    "Output_old_results_format": "o", "Zscore": "Z", JUDGED_DEFINITIONS: JUDGED_DEFINITIONS,
}
_TAKES_VALUE = {letter for letter, after in zip(SHORT_OPTIONS, SHORT_OPTIONS[1:] + " ", strict=True) if after == ":"}
#: The long options that take a value: trec_eval declares --Output_old_results_format with one, -o without.
_LONG_TAKES_VALUE = _TAKES_VALUE | {"o"}

USAGE = """Usage: judged trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_trec' prints all qrels measures, '-m official' is default)
"""


class CommandLineError(UsageError):
    """A command line trec_eval's getopt refuses (trec_eval prints its usage and exits 1)."""


@dataclass(frozen=True)
class TrecEvalOptions:
    """What a trec_eval command line asks for, with trec_eval's defaults."""

    files: tuple[str, ...] = ()
    measures: tuple[str, ...] = ()
    query_flag: bool = False
    complete: bool = False
    judged_only: bool = False
    summary: bool = True
    relevance_level: int = 1
    max_docs: int | None = None
    rel_format: str = "qrels"
    results_format: str = "trec_results"
    zscores: str | None = None
    help: bool = False
    version: bool = False
    debug: str | None = None
    judged_definitions: bool = False
    ignored: tuple[str, ...] = field(default=())


def parse_command_line(words: Sequence[str]) -> TrecEvalOptions:
    """Read ``words`` (the arguments after ``judged trec_eval``) as trec_eval 10 reads its argv."""
    pairs: list[tuple[str, str | None]] = []
    files: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            files.extend(words[i:])
            break
        if word.startswith("--"):
            letter, value, i = _long_option(word[2:], words, i)
            pairs.append((letter, value))
        elif word.startswith("-") and word != "-":
            position = 1
            while position < len(word):
                letter = word[position]
                if letter == ":" or letter not in SHORT_OPTIONS:
                    raise CommandLineError(f"invalid option -- '{letter}'")
                if letter in _TAKES_VALUE:
                    if position + 1 < len(word):
                        value = word[position + 1:]
                    elif i < len(words):
                        value, i = words[i], i + 1
                    else:
                        raise CommandLineError(f"option requires an argument -- '{letter}'")
                    pairs.append((letter, value))
                    break
                pairs.append((letter, None))
                position += 1
        else:
            files.append(word)
    return _options(pairs, tuple(files))


def _long_option(text: str, words: Sequence[str], i: int) -> tuple[str, str | None, int]:
    name, equals, attached = text.partition("=")
    matches = [long for long in LONG_OPTIONS if long == name] or [long for long in LONG_OPTIONS
                                                                   if long.startswith(name)]
    if not matches:
        raise CommandLineError(f"unrecognized option '--{name}'")
    if len(matches) > 1:
        raise CommandLineError(f"option '--{name}' is ambiguous")
    letter = LONG_OPTIONS[matches[0]]
    if letter not in _LONG_TAKES_VALUE:
        if equals:
            raise CommandLineError(f"option '--{matches[0]}' doesn't allow an argument")
        return letter, None, i
    if equals:
        return letter, attached, i
    if i < len(words):
        return letter, words[i], i + 1
    raise CommandLineError(f"option '--{matches[0]}' requires an argument")


def _options(pairs: list[tuple[str, str | None]], files: tuple[str, ...]) -> TrecEvalOptions:
    found: dict[str, object] = {"files": files}
    measures: list[str] = []
    ignored: list[str] = []
    for letter, value in pairs:
        if letter == JUDGED_DEFINITIONS:
            found["judged_definitions"] = True
        elif letter == "m":
            measures.append(value or "")
        elif letter in "hvqcJ":
            key = {"h": "help", "v": "version", "q": "query_flag", "c": "complete", "J": "judged_only"}[letter]
            found[key] = True
        elif letter == "n":
            found["summary"] = False
        elif letter == "l":
            found["relevance_level"] = _integer(value, "-l", "the relevance level, as in -l2")
        elif letter == "M":
            depth = _integer(value, "-M", "the number of documents kept per query, as in -M100")
            if depth < 1:
                raise CommandLineError(f"-M needs an integer >= 1 (the documents kept per query). Got {value!r}.")
            found["max_docs"] = depth
        elif letter == "R":
            found["rel_format"] = value
        elif letter == "T":
            found["results_format"] = value
        elif letter == "Z":
            found["zscores"] = value
        elif letter == "D":
            found["debug"] = value
        else:  # -N (no trec_eval measure reads it) and -o (obsolete in trec_eval too)
            ignored.append(f"-{letter}")
    return TrecEvalOptions(measures=tuple(measures), ignored=tuple(ignored), **found)  # type: ignore[arg-type]


def _integer(value: str | None, flag: str, what: str) -> int:
    text = (value or "").strip()
    try:
        return int(text)
    except ValueError:
        raise CommandLineError(f"{flag} needs an integer ({what}). Got {value!r}.") from None


__all__ = ["JUDGED_DEFINITIONS", "USAGE", "CommandLineError", "TrecEvalOptions", "parse_command_line"]
