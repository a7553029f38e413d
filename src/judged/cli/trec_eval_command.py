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
run does not answer (without ``-c``) or one trec_eval cannot calculate, after
the per-query lines trec_eval printed before it, 7 when no query has both.
``--judged-definitions`` prints judged's own definitions where trec_eval's
arithmetic departs from the measure. docs/trec_eval.md lists every option and
each place judged's output differs from trec_eval's.
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
from judged.measures.registry import GEOMETRIC_FLOOR
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
#: What trec_eval resets for a query -c adds: it scores a stand-in ranking of one document not in the judgments,
#: then clears the values printed with these names (trec_eval.c compares the names: these exactly, and any name
#: starting "unj"), so ``utility_2,-1,0,0`` and ``relstring_20`` keep the stand-in's document (:func:`_reset`).
_RESET_FOR_MISSING = ("num_ret", "utility", "relstring", "rbp_resid")
#: The entries whose value trec_eval starts from num_rel_ret / num_ret, each with the convention holding its
#: recall levels: -J can make that 0 / 0 (m_iprec_at_recall.c, m_11pt_avg.c).
_ZERO_BY_ZERO = {"iprec_at_recall": "recall", "11pt_avg": "levels"}


class TrecEvalExit(Exception):
    """Stop with trec_eval's exit status and message, after the ``output`` trec_eval printed before it stopped."""

    def __init__(self, status: int, message: str, usage: bool = False, output: str = "") -> None:
        super().__init__(message)
        self.status, self.message, self.usage, self.output = status, message, usage, output


class _Refused(TrecEvalExit):
    """trec_names cannot express an entry with these parameters and flags (exit 1 when it was named)."""

    def __init__(self, entry: str, params: str | None, reason: str) -> None:
        super().__init__(1, f"illegal measure '{entry}{'.' + params if params else ''}': {reason}")
        self.reason = reason


@dataclass(frozen=True)
class _Stop:
    """The query at which trec_eval stops with exit 4, and judged's message for it."""

    qid: str
    message: str


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
        out.write(stop.output)
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
        self.stop: _Stop | None = None

    def text(self) -> str:
        """trec_eval's output; where it stops (exit 4), the per-query lines it printed before, in the exit."""
        try:
            columns, qids = self._columns()
        except NoJudgedQueriesError:
            if self.stop is not None:  # the run answers no judged query: trec_eval stops at the first
                raise TrecEvalExit(4, self.stop.message) from None
            raise TrecEvalExit(7, "No queries with both results and relevance info") from None
        if self.stop is None:
            return render_trec_eval_columns(columns, qids, per_query=self.options.query_flag,
                                            summary=self.options.summary, zscore=self.zscores is not None)
        before = qids.index(self.stop.qid)
        printed = render_trec_eval_columns(_head(columns, before), qids[:before], per_query=self.options.query_flag,
                                           summary=False, zscore=self.zscores is not None)
        raise TrecEvalExit(4, self.stop.message, output=printed)

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
            view = views["trec"]
            qids, missing = list(values.qids), values.missing
        else:
            view = build_view(self.run, qrels, "trec", self.options.max_docs)
            reported = reported_queries(view)
            qids, missing = [view.qids[i] for i in reported], view.missing[reported]
        self._find_stop(qids, missing, self._unscorable(view, qids) if measures or "relstring" in entries else None)
        if measures:
            converted = self._converted(values, named, view)
            result = result_from_values(converted, measures, run=_record(self.run), qrels=_record(qrels),
                                        run_queries=self.run.num_queries,
                                        missing="zero" if self.options.complete else "skip",
                                        depth=self.options.max_docs,  # -c prints a run with no shared query's 0s
                                        allow_unshared=self.options.complete and not self.options.judged_definitions)
            for entry, pairs in named.items():
                by_entry[entry] = [self._column(entry, printed, m, converted.raw[m], result.aggregate[m], qrels)
                                   for printed, m in pairs]
        if "relstring" in entries:
            by_entry["relstring"] = [self._relstring(view, qids)]
        return by_entry, qids

    def _column(self, entry: str, printed: str, m: Measure, values: np.ndarray, aggregate: float,
                qrels: Qrels) -> TrecColumn:
        """One graded measure's column from its per-query values as trec_eval accumulates them."""
        return TrecColumn(printed, values if TABLE[entry].per_query else None,
                          self._summary(entry, m, values, aggregate, qrels), m.family.integer)

    def _summary(self, entry: str, m: Measure, values: np.ndarray, aggregate: float, qrels: Qrels) -> float:
        """The ``all`` value as trec_eval's averaging makes it from the per-query ``values``, else judged's
        ``aggregate``: NaN when a query's value is (its sum meets the 0 / 0); under -c, ``num_rel`` recounted
        from the judgments of grade > 0 whatever -l says (m_num_rel.c; --judged-definitions keeps the sum of
        the lines); under -Z, a geometric mean's the exp of the mean z-score of the logs (meas_avg.c)."""
        if np.isnan(values).any():
            return float("nan")
        if entry == "num_rel" and self.options.complete and not self.options.judged_definitions:
            return float((qrels.frame["grade"] > 0).sum())
        if self.zscores is not None and m.family.aggregate == "gmean":
            return float(np.exp(np.cumsum(values)[-1] / len(values)))
        return aggregate

    def _named(self, entry: str, base: str | None = None) -> list[tuple[str, Measure]]:
        """The measures of ``entry`` with the names trec_eval prints, through trec_names; a judgment-group entry
        reads its ``base`` entry's parameters (``P_avgjg.5`` as ``P.5``)."""
        params = self.marked.params.get(entry)
        table_name = base or entry
        try:  # unj under -J is 0 by construction, which trec_names refuses as a measure: _zeroed prints the 0
            return from_trec_eval(f"{table_name}.{params}" if params else table_name,
                                  rel=self.options.relevance_level,
                                  judged_only=self.options.judged_only and entry != "unj")
        except UsageError as error:
            raise _Refused(entry, params, str(error)) from None

    @staticmethod
    def _unscorable(view: RankedView, qids: list[str]) -> np.ndarray:
        """Per query, whether trec_eval cannot calculate a measure reading its ranking: only the first query it
        evaluates, when every grade it has is negative (te_form_res_rels sizes its buffer of grade counts by the
        top grade + 1, so the buffer is never allocated and the function fails; a later such query reuses the
        buffer of an earlier one)."""
        unscorable = np.zeros(len(qids), dtype=bool)
        unscorable[:1] = _by_qid(view, qids[:1], view.ideal_top(None).counts == 0)  # no grade >= 0
        return unscorable

    def _find_stop(self, qids: list[str], missing: np.ndarray, unscorable: np.ndarray | None = None) -> None:
        """Note the first of ``qids`` (trec_eval's order) at which trec_eval stops with exit 4: one the run lacks,
        without -c (trec_eval.c: "result qid not found"), or one of the ``unscorable`` (:meth:`_unscorable`:
        "Can't calculate measure"), which --judged-definitions scores as a query without a relevant document."""
        lacking = missing & (not self.options.complete)
        failing = np.zeros_like(lacking) if unscorable is None or self.options.judged_definitions else unscorable
        if not (lacking | failing).any():
            return
        first = int(np.flatnonzero(lacking | failing)[0])
        qid = qids[first]
        if lacking[first]:
            why = "has no results in the run; trec_eval 10 stops here (exit 4), -c scores it 0"
        else:
            why = ("has no grade >= 0 (every document pooled but unjudged): trec_eval 10 cannot calculate its "
                   "measures and stops here (exit 4); --judged-definitions scores it as a query without a relevant "
                   "document")
        self.stop = _Stop(qid, f"judged query '{qid}' {why}")

    def _converted(self, values: QueryValues, named: dict[str, list[tuple[str, Measure]]],
                   view: RankedView) -> QueryValues:
        """The per-query values as trec_eval accumulates them: a query without a relevant judgment at the
        measure's norel value; 0 where trec_eval leaves 0 (:meth:`_zeroed`); NaN where it divides 0 by 0
        (:meth:`_zero_by_zero`, unless --judged-definitions); under -Z, z-scores by printed name, a geometric
        mean's of the log it accumulates (m_gm_map.c)."""
        raw = dict(values.raw)
        for entry, pairs in named.items():
            zeroed = self._zeroed(entry, values, view)
            for printed, m in pairs:
                scored = np.where(np.isnan(raw[m]), float(m.norel) if m.norel != "skip" else 0.0, raw[m])
                scored = np.where(zeroed | (values.missing & _reset(printed)), 0.0, scored)
                if entry == "utility" and self._stand_in(printed):  # its one non-relevant document retrieved
                    scored = np.where(values.missing, scored + m.nonrel_ret, scored)
                if not self.options.judged_definitions:
                    scored = np.where(self._zero_by_zero(entry, m, values.qids, view), np.nan, scored)
                if self.zscores is not None:
                    logged = np.log(np.maximum(scored, GEOMETRIC_FLOOR)) if m.family.aggregate == "gmean" else scored
                    scored = self.zscores.convert(printed, values.qids, logged.tolist())
                raw[m] = scored
        return replace(values, raw=raw)

    def _stand_in(self, printed: str) -> bool:
        """Does a query -c adds keep the trace of trec_eval's stand-in document in the value printed as
        ``printed``? Only where trec_eval does not reset it, and not under -J (which drops the document)."""
        return self.options.complete and not self.options.judged_only and not _reset(printed)

    def _zeroed(self, entry: str, values: QueryValues, view: RankedView) -> np.ndarray:
        """Per query, whether trec_eval leaves ``entry`` at 0 beyond what it resets for a query -c adds
        (:data:`_RESET_FOR_MISSING`): ``unj`` under -J (nothing unjudged is left to count); ``rbp_resid`` when
        no retrieved document is unjudged (m_rbp_resid.c adds the residual only then, leaving out the weight
        p^n of the ranks after the n retrieved, which --judged-definitions keeps)."""
        if entry == "unj" and self.options.judged_only:
            return np.ones(len(values.qids), dtype=bool)
        if entry == "rbp_resid" and not self.options.judged_definitions:
            return _by_qid(view, values.qids, self.options.judged_only | (view.judged_within(None) == view.lengths))
        return np.zeros(len(values.qids), dtype=bool)

    def _zero_by_zero(self, entry: str, m: Measure, qids: Sequence[str], view: RankedView) -> np.ndarray:
        """Per query, whether trec_eval's ``entry`` is 0 / 0: iprec_at_recall and 11pt_avg start from the
        precision num_rel_ret / num_ret, which -J leaves 0 / 0 when nothing judged was retrieved (a query the run
        lacks keeps its unjudged stand-in document without -J), and that value stays at each recall level met
        at rank lround(level R) = 0 (11pt_avg averages them all)."""
        if entry not in _ZERO_BY_ZERO or not self.options.judged_only:
            return np.zeros(len(qids), dtype=bool)
        levels = np.atleast_1d(np.asarray(getattr(m, _ZERO_BY_ZERO[entry]), dtype=np.float64))
        met = np.outer(view.num_relevant(m.rel), levels)
        at_zero = (np.sign(met) * np.floor(np.abs(met) + 0.5) == 0).any(axis=1)  # C's lround
        return _by_qid(view, qids, at_zero & (view.judged_within(None) == 0))

    def _relstring(self, view: RankedView, qids: list[str]) -> TrecColumn:
        """trec_eval's relstring: one character per ranked document (grade 0-9, '>' above 9, '-' not in the
        judgments, '.' pooled but unjudged), per query only; for a query -c adds, its stand-in document's '-'
        where trec_eval keeps it (:meth:`_stand_in`)."""
        params = self.marked.params.get("relstring")
        printed = f"relstring_{params}" if params else "relstring"
        length = _relstring_length(params)
        if self.options.judged_only:
            view = view.judged_only()
        top = view.top(length)
        grade, judged = top.take(view.grade), top.take(view.judged)
        digit = (ord("0") + np.clip(grade, 0, 9)).astype(np.uint8)
        chars = np.where(judged, np.where(grade > 9, ord(">"), digit), np.where(grade < 0, ord("."), ord("-")))
        text = chars.astype(np.uint8).tobytes().decode("ascii")
        ends = np.cumsum(top.counts)
        strings = [f"'{text[end - count:end]}'" for end, count in zip(_by_qid(view, qids, ends),
                                                                   _by_qid(view, qids, top.counts), strict=True)]
        if self._stand_in(printed):
            stand_in = f"'{'-'[:length]}'"
            strings = [stand_in if lacking else string
                       for string, lacking in zip(strings, _by_qid(view, qids, view.missing), strict=True)]
        return TrecColumn(printed, strings, None)

    def _groups(self, entries: list[str]) -> tuple[dict[str, list[TrecColumn]], list[str]]:
        groups = _read(read_qrels_jg, self.qrels_path)
        named = {e: [(printed.replace(_JUDGMENT_GROUP[e], e, 1), m) for printed, m in
                     self._named(e, _JUDGMENT_GROUP[e])] for e in entries if e in _JUDGMENT_GROUP}
        measures = list(dict.fromkeys(m for pairs in named.values() for _, m in pairs))
        values = group_values(self.run, groups, measures, depth=self.options.max_docs)
        self._find_stop(list(values.qids), values.missing)
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
        self._find_stop(list(values.qids), values.missing)
        columns = {n: [self._numeric(n, values.qids, values.values[n], PREFERENCE_MEASURES[n][0])] for n in names}
        return columns, list(values.qids)

    def _numeric(self, name: str, qids: Sequence[str], values: np.ndarray, integer: bool) -> TrecColumn:
        """A column whose summary is the mean over queries (the sum for a count), after -Z's conversion."""
        if self.zscores is not None:
            values = self.zscores.convert(name, qids, values.tolist())
        total = float(np.cumsum(values)[-1]) if len(values) else 0.0
        return TrecColumn(name, values.tolist(), total if integer else total / max(len(values), 1), integer)


def _reset(printed: str) -> bool:
    """Does trec_eval reset the value printed as ``printed`` for a query -c adds (:data:`_RESET_FOR_MISSING`)?

    >>> _reset("unj_5"), _reset("utility"), _reset("utility_2,-1,0,0"), _reset("relstring_20")
    (True, True, False, False)
    """
    return printed in _RESET_FOR_MISSING or printed.startswith("unj")


def _by_qid(view: RankedView, qids: Sequence[str], per_query: np.ndarray) -> np.ndarray:
    """``per_query`` (one value per query of ``view``) in the order of ``qids``."""
    where = {qid: i for i, qid in enumerate(view.qids)}
    return per_query[[where[qid] for qid in qids]]


def _head(columns: Sequence[TrecColumn], count: int) -> list[TrecColumn]:
    """``columns`` with the per-query values of their first ``count`` queries only."""
    return [replace(c, values=None if c.values is None else c.values[:count]) for c in columns]


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
             "  -m NAME[.PARAMS]  a measure or a nickname; repeat for more",
             "  trec_top_file  the run; - reads it from standard input",
             "  --judged-definitions  judged's definitions where trec_eval's arithmetic departs from the measure",
             "      (rbp_resid's tail, 0 for trec_eval's -nan, num_rel summed under -c -l, a query whose grades",
             "      are all negative scored 0); without it the output is trec_eval's", "", "Nicknames:"]
    lines += [f"  {name}: {' '.join(entries)}" for name, entries in NICKNAMES.items()]
    computed = [e for e in TREC_EVAL_ORDER if _format_of(e) or e in ("runid", "num_q")]
    lines += ["", "Measures judged computes: " + " ".join(computed),
              "Not computed: " + (" ".join(e for e in TREC_EVAL_ORDER if e not in computed) or "none"), ""]
    return "\n".join(lines)


__all__ = ["NICKNAMES", "TREC_EVAL_ORDER", "mark_measures", "run_trec_eval", "trec_eval_command"]
