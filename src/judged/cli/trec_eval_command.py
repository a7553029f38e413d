"""``judged trec_eval``: trec_eval 10's command line, and what trec_eval prints for it, byte for byte.

``judged trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-Z FILE] [-R FORMAT] [-m MEASURE]... QRELS RUN``
reads its arguments by trec_eval's own rules (:mod:`judged.cli.trec_eval_options`)
and prints trec_eval's lines: per query with ``-q`` (queries in byte order of
qid, measures in trec_eval's table order), then the ``all`` summary. A
measure name is a trec_eval table entry with optional parameters
(``P.5,10``, ``ndcg.1=3,2=9``) or a nickname (``official``, ``all_trec``,
``set``, ``all_prefs``, ``prefs``, ``qrels_jg``); the entries map to judged's
measures through :mod:`judged.measures.trec_names`. Errors exit as trec_eval
exits: 1 for the command line, 2 for an input file, 4 for a judged query the
run does not answer (without ``-c``), 7 when no query has both. docs/trec_eval.md
lists every option and each place judged's value differs from trec_eval's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TextIO

import click
import numpy as np

from judged.cli.trec_eval_options import USAGE, CommandLineError, TrecEvalOptions, parse_command_line
from judged.engine.evaluate import QueryValues, query_values, reported_queries, result_from_values
from judged.engine.judgment_groups import group_values
from judged.engine.preferences import preference_values
from judged.engine.ranking import build_view
from judged.engine.view import RankedView
from judged.errors import InputError, NoJudgedQueriesError, UsageError
from judged.io import read_qrels, read_run
from judged.io.inputs import Qrels, Run
from judged.io.prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from judged.io.zscores import ZScores, read_zscores
from judged.measures.preferences import PREFERENCE_MEASURES
from judged.measures.spec import Measure
from judged.measures.trec_names import TABLE, from_trec_eval
from judged.render.trec_eval import TrecColumn, render_trec_eval_columns

#: trec_eval 10's measure table, in its order (measures.c, ``te_trec_measures``): the order it prints in.
TREC_EVAL_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
    "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    *PREFERENCE_MEASURES, "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj",
)
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
             "iprec_at_recall", "P")
#: trec_eval 10's measure nicknames (measures.c), each the entries it marks.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": (*_OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                 "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", *PREFERENCE_MEASURES),
    "prefs": ("runid", "num_q", *list(PREFERENCE_MEASURES)[:6]),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
_JUDGMENT_GROUP = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
_RELSTRING_LENGTH = 10
#: What trec_eval resets to 0 for a query -c adds (it scores a one-document stand-in ranking, then cleans up).
_RESET_FOR_MISSING = ("num_ret", "utility", "unj", "rbp_resid")


class TrecEvalExit(Exception):
    """Stop with trec_eval's exit status and message."""

    def __init__(self, status: int, message: str, usage: bool = False) -> None:
        super().__init__(message)
        self.status, self.message, self.usage = status, message, usage


class _Refused(TrecEvalExit):
    """trec_names cannot express an entry with these parameters and flags (exit 1 when it was named)."""

    def __init__(self, entry: str, params: str | None, reason: str) -> None:
        super().__init__(1, f"illegal measure '{entry}{'.' + params if params else ''}': {reason}")
        self.reason = reason


@dataclass(frozen=True)
class Marked:
    """The table entries a command line marks, each with the parameters its first ``-m`` gave (or None)."""

    params: dict[str, str | None]
    named: frozenset[str]  # entries named directly, not through a nickname

    def entries(self) -> list[str]:
        return [e for e in TREC_EVAL_ORDER if e in self.params]


@click.command("trec_eval", add_help_option=False,
               context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("words", nargs=-1, type=click.UNPROCESSED)
def trec_eval_command(words: tuple[str, ...]) -> None:
    """trec_eval 10's command line and output, byte for byte (judged trec_eval -h for its options)."""
    sys.exit(run_trec_eval(list(words), sys.stdout, sys.stderr))


def run_trec_eval(words: Sequence[str], out: TextIO, err: TextIO) -> int:
    """Run a trec_eval command line; its output goes to ``out``, messages to ``err``; returns the exit status."""
    try:
        text, notes = _evaluate(words)
    except TrecEvalExit as stop:
        prefix = "" if stop.status == 0 else "judged trec_eval: "
        err.write(f"{prefix}{stop.message}\n" + (USAGE if stop.usage else ""))
        return stop.status
    for note in notes:
        err.write(f"judged trec_eval: {note}\n")
    out.write(text)
    return 0


def _evaluate(words: Sequence[str]) -> tuple[str, list[str]]:
    try:
        options = parse_command_line(words)
    except CommandLineError as error:
        raise TrecEvalExit(1, str(error), usage=True) from None
    if options.version:
        from judged.version import __version__

        raise TrecEvalExit(0, f"trec_eval version 10.0 (judged {__version__})")
    if options.help:
        return help_text(), []
    if len(options.files) != 2:
        raise TrecEvalExit(1, f"expected 2 file names (rel_info_file results_file), got {len(options.files)}",
                           usage=True)
    if options.debug is not None:
        raise TrecEvalExit(1, "-D (debug output) is not supported; judged explain QUERY shows one query's "
                           "computation")
    if options.results_format != "trec_results":
        raise TrecEvalExit(2, f"Illegal retrieval results format '{options.results_format}'")
    if options.rel_format not in REL_FORMATS:
        raise TrecEvalExit(2, f"Illegal rel_format '{options.rel_format}' (trec_eval's are {', '.join(REL_FORMATS)})")
    marked = mark_measures(options.measures or ("official",))
    notes = [f"{flag} has no effect (as in trec_eval)" for flag in options.ignored]
    return _Evaluation(options, marked, notes).text(), notes


def mark_measures(arguments: Sequence[str]) -> Marked:
    """The table entries ``-m`` arguments mark, as trec_eval's ``mark_measure`` reads them.

    >>> marked = mark_measures(["all_prefs", "P.5,10", "P.20"])
    >>> marked.entries()[:3], marked.params["P"]
    (['runid', 'num_q', 'P'], '5,10')
    """
    params: dict[str, str | None] = {}
    named: set[str] = set()
    for argument in arguments:
        name, dot, parameters = argument.partition(".")
        if dot and not parameters:
            raise TrecEvalExit(1, f"improper measure in parameter '{name}'")
        if name in NICKNAMES:
            for entry in NICKNAMES[name]:
                params.setdefault(entry, None)
            continue
        if name not in TREC_EVAL_ORDER:
            raise TrecEvalExit(1, f"illegal measure '{argument}'")
        if params.get(name) is None:
            params[name] = parameters or None
        named.add(name)
    return Marked(params, frozenset(named))


class _Evaluation:
    """One command line's inputs and columns."""

    def __init__(self, options: TrecEvalOptions, marked: Marked, notes: list[str]) -> None:
        self.options, self.marked, self.notes = options, marked, notes
        self.qrels_path, self.run_path = options.files
        self.run = _read(partial(read_run, format="trec"), self.run_path)  # TREC text, whatever the name
        self.zscores: ZScores | None = _read(read_zscores, options.zscores) if options.zscores else None

    def text(self) -> str:
        try:
            columns, qids = self._columns()
        except NoJudgedQueriesError:
            raise TrecEvalExit(7, "No queries with both results and relevance info") from None
        return render_trec_eval_columns(columns, qids, per_query=self.options.query_flag,
                                        summary=self.options.summary, zscore=self.zscores is not None)

    def _columns(self) -> tuple[list[TrecColumn], list[str]]:
        fmt = self.options.rel_format
        entries = self.marked.entries()
        kinds = {"qrels": set(TABLE) | {"relstring"}, "qrels_jg": set(_JUDGMENT_GROUP),
                 "prefs": set(PREFERENCE_MEASURES), "qrels_prefs": set(PREFERENCE_MEASURES)}[fmt]
        computed = [e for e in entries if e in kinds or e in ("runid", "num_q")]
        left_out = [e for e in entries if e not in computed]
        wrong_format = [e for e in left_out if _format_of(e) not in (None, fmt)]
        if wrong_format:
            raise TrecEvalExit(4, f"measure '{wrong_format[0]}' needs -R {_format_of(wrong_format[0])} judgments, "
                               f"not -R {fmt}")
        if left_out:  # only named ones: every entry of trec_eval's nicknames is computed
            raise TrecEvalExit(1, f"judged does not compute trec_eval's '{left_out[0]}'")
        if fmt == "qrels":
            by_entry, qids = self._graded(computed)
        elif fmt == "qrels_jg":
            by_entry, qids = self._groups(computed)
        else:
            by_entry, qids = self._preferences(computed)
        by_entry["runid"] = [TrecColumn("runid", None, self.run.name)]
        by_entry["num_q"] = [TrecColumn("num_q", None, float(len(qids)), integer=True)]
        return [c for e in computed if e in by_entry for c in by_entry[e]], qids

    def _graded(self, entries: list[str]) -> tuple[dict[str, list[TrecColumn]], list[str]]:
        qrels = _read(partial(read_qrels, format="trec"), self.qrels_path)
        named = {}
        for entry in (e for e in entries if e in TABLE and e != "num_q"):
            try:
                named[entry] = self._named(entry)
            except _Refused as refused:  # through a nickname: left out with the reason, as what judged lacks
                if entry in self.marked.named:
                    raise
                self.notes.append(f"not computed: {entry} ({refused.reason})")
        entries = [e for e in entries if e in named or e not in TABLE]
        measures = list(dict.fromkeys(m for pairs in named.values() for _, m in pairs))
        by_entry: dict[str, list[TrecColumn]] = {}
        views: dict[str, RankedView] = {}  # the rankings the measures read, read again by relstring
        if measures:
            values = query_values(self.run, qrels, measures, self.options.max_docs, views)
            self._check_missing(list(values.qids), values.missing)
            result = result_from_values(self._converted(values, named), measures, run=_record(self.run),
                                        qrels=_record(qrels), run_queries=self.run.num_queries,
                                        missing="zero" if self.options.complete else "skip",
                                        depth=self.options.max_docs)
            qids = list(result.qids)
            for entry, pairs in named.items():
                by_entry[entry] = [TrecColumn(printed, result.values[m] if TABLE[entry].per_query else None,
                                              result.aggregate[m], m.family.integer) for printed, m in pairs]
        else:
            view = build_view(self.run, qrels, "trec", self.options.max_docs)
            reported = reported_queries(view)
            qids = [view.qids[i] for i in reported]
            self._check_missing(qids, view.missing[reported])
        if "relstring" in entries:
            view = views.get("trec") or build_view(self.run, qrels, "trec", self.options.max_docs)
            by_entry["relstring"] = [self._relstring(view, qids)]
        return by_entry, qids

    def _named(self, entry: str, base: str | None = None) -> list[tuple[str, Measure]]:
        """The measures of ``entry`` with the names trec_eval prints, through trec_names; a judgment-group entry
        reads its ``base`` entry's parameters (``P_avgjg.5`` as ``P.5``)."""
        params = self.marked.params.get(entry)
        table_name = base or entry
        try:
            return from_trec_eval(f"{table_name}.{params}" if params else table_name,
                                  rel=self.options.relevance_level, judged_only=self.options.judged_only)
        except UsageError as error:
            raise _Refused(entry, params, str(error)) from None

    def _check_missing(self, qids: list[str], missing: np.ndarray) -> None:
        if missing.any() and not self.options.complete:
            raise TrecEvalExit(4, f"judged query '{qids[int(np.flatnonzero(missing)[0])]}' has no results in the "
                               "run; trec_eval 10 stops here (exit 4), -c scores it 0")

    def _converted(self, values: QueryValues, named: dict[str, list[tuple[str, Measure]]]) -> QueryValues:
        """The per-query values as trec_eval accumulates them: under -c, the entries it resets after scoring a
        missing query's stand-in ranking set to 0 (trec_eval.c); under -Z, z-scores by printed name."""
        raw = dict(values.raw)
        for entry, pairs in named.items():
            for printed, m in pairs:
                scored = np.where(np.isnan(raw[m]), float(m.norel) if m.norel != "skip" else 0.0, raw[m])
                if entry in _RESET_FOR_MISSING:
                    scored = np.where(values.missing, 0.0, scored)
                raw[m] = scored if self.zscores is None else self.zscores.convert(printed, values.qids,
                                                                                  scored.tolist())
        return replace(values, raw=raw)

    def _relstring(self, view: RankedView, qids: list[str]) -> TrecColumn:
        """trec_eval's relstring: one character per ranked document (grade 0-9, '>' above 9, '-' not in the
        judgments, '.' pooled but unjudged), per query only."""
        params = self.marked.params.get("relstring")
        length = _relstring_length(params)
        if self.options.judged_only:
            view = view.judged_only()
        top = view.top(length)
        grade, judged = top.take(view.grade), top.take(view.judged)
        digit = (ord("0") + np.clip(grade, 0, 9)).astype(np.uint8)
        chars = np.where(judged, np.where(grade > 9, ord(">"), digit), np.where(grade < 0, ord("."), ord("-")))
        text = chars.astype(np.uint8).tobytes().decode("ascii")
        ends = np.cumsum(top.counts)
        where = {view.qids[i]: i for i in range(view.num_queries)}
        strings = [f"'{text[ends[q] - top.counts[q]:ends[q]]}'" for q in (where[qid] for qid in qids)]
        return TrecColumn(f"relstring_{params}" if params else "relstring", strings, None)

    def _groups(self, entries: list[str]) -> tuple[dict[str, list[TrecColumn]], list[str]]:
        groups = _read(read_qrels_jg, self.qrels_path)
        named = {e: [(printed.replace(_JUDGMENT_GROUP[e], e, 1), m) for printed, m in
                     self._named(e, _JUDGMENT_GROUP[e])] for e in entries if e in _JUDGMENT_GROUP}
        measures = list(dict.fromkeys(m for pairs in named.values() for _, m in pairs))
        values = group_values(self.run, groups, measures, depth=self.options.max_docs)
        self._check_missing(list(values.qids), values.missing)
        columns = {e: [self._numeric(printed, values.qids, values.values[m], m.family.integer)
                       for printed, m in pairs] for e, pairs in named.items()}
        return columns, list(values.qids)

    def _preferences(self, entries: list[str]) -> tuple[dict[str, list[TrecColumn]], list[str]]:
        names = [e for e in entries if e in PREFERENCE_MEASURES]
        for name in names:
            if self.marked.params.get(name):
                raise TrecEvalExit(1, f"illegal measure '{name}.{self.marked.params[name]}': it takes no parameters")
        reader = read_prefs if self.options.rel_format == "prefs" else read_qrels_prefs
        prefs = _read(reader, self.qrels_path)
        try:
            values = preference_values(self.run, prefs, names, depth=self.options.max_docs)
        except InputError as error:
            raise TrecEvalExit(2, f"{error}\njudged trec_eval: Quit in file '{self.qrels_path}'") from None
        self._check_missing(list(values.qids), values.missing)
        columns = {n: [self._numeric(n, values.qids, values.values[n], PREFERENCE_MEASURES[n][0])] for n in names}
        return columns, list(values.qids)

    def _numeric(self, name: str, qids: Sequence[str], values: np.ndarray, integer: bool) -> TrecColumn:
        """A column whose summary is the mean over queries (the sum for a count), after -Z's conversion."""
        if self.zscores is not None:
            values = self.zscores.convert(name, qids, values.tolist())
        total = float(np.cumsum(values)[-1]) if len(values) else 0.0
        return TrecColumn(name, values.tolist(), total if integer else total / max(len(values), 1), integer)


def _relstring_length(params: str | None) -> int:
    """relstring's length: its first parameter's whole part (a negative one as 0), or the default without one.

    >>> _relstring_length("12.5"), _relstring_length(None), _relstring_length("-3")
    (12, 10, 0)
    """
    if not params:
        return _RELSTRING_LENGTH
    try:
        return max(int(float(params.split(",")[0])), 0)
    except (ValueError, OverflowError):
        raise _Refused("relstring", params, "its parameter is the length of the string, a number such as 20") \
            from None


def _format_of(entry: str) -> str | None:
    """The judgment format an entry needs, or None when it needs none judged computes (or any)."""
    if entry in PREFERENCE_MEASURES:
        return "prefs"
    if entry in _JUDGMENT_GROUP:
        return "qrels_jg"
    return "qrels" if entry in TABLE or entry == "relstring" else None


def _read(reader, path: str):
    try:
        return reader(path)
    except InputError as error:
        raise TrecEvalExit(2, f"{error}\njudged trec_eval: Quit in file '{path}'") from None


def _record(item: Run | Qrels) -> dict:
    source = item.source
    return {"name": item.name, "path": source.path if source else None, "format": source.format if source else None,
            "sha256": None, "rows": len(item), "queries": item.num_queries}


def help_text() -> str:
    """``-h``: the options, the nicknames, and what judged computes of trec_eval's table."""
    lines = [USAGE, "Options (trec_eval 10's; docs/trec_eval.md has the details and every difference):",
             "  -q  per-query lines as well as the summary     -c  average over every judged query (0 if missing)",
             "  -n  no summary lines                           -J  judged documents only",
             "  -l N  relevance level (default 1)              -M N  documents kept per query",
             "  -Z FILE  z-scores (qid measure mean stddev)    -R qrels|qrels_jg|prefs|qrels_prefs",
             "  -m NAME[.PARAMS]  a measure or a nickname; repeat for more", "", "Nicknames:"]
    lines += [f"  {name}: {' '.join(entries)}" for name, entries in NICKNAMES.items()]
    computed = [e for e in TREC_EVAL_ORDER if _format_of(e) or e in ("runid", "num_q")]
    lines += ["", "Measures judged computes: " + " ".join(computed),
              "Not computed: " + (" ".join(e for e in TREC_EVAL_ORDER if e not in computed) or "none"), ""]
    return "\n".join(lines)


__all__ = ["NICKNAMES", "TREC_EVAL_ORDER", "mark_measures", "run_trec_eval", "trec_eval_command"]
