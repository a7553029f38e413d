"""ir_measures' providers over judged: each ranks a run as that provider does and computes with judged's families.

A provider is the program ir_measures hands a measure to, and each has its
own habits, which decide the numbers it prints; here each is that habit and
nothing else, the measure itself being judged's one definition:

* ``pytrec_eval``: scores as 32-bit floats, ties by docid descending (trec_eval);
  IPrec meets a recall level at the (long)(rR + 0.9)-th relevant document.
* ``cwl_eval``: ties in input order (a stable sort by score); grades binarised
  at ``rel`` (P, RR, AP, RBP) or clipped to ``[min_rel, max_rel]`` and scaled.
* ``judged``: ties by docid ascending (Python's sort); any judgment, a negative
  grade too, makes a document judged.
* ``msmarco``: RR@k with ties by docid ascending.
* ``gdeval``: ERR@k and nDCG(dcg='exp-log2')@k with ties by docid descending,
  top grade 4, each query's value printed to 5 decimals.
* ``compat`` and ``accuracy``: :mod:`judged.ir_measures.compat_accuracy`.

Each ranks every query by its rule (a NaN score below every number) and hands
judged the ranking, so judged's own tie rule never decides. A judged query the
provider did not score gets the measure's DEFAULT (0), and aggregates are taken
over the metrics as yielded (the mean, or the sum for counts), as ir_measures does.
:data:`DefaultPipeline` sends each measure to the first provider that takes it,
in ir_measures' order.

>>> from judged.ir_measures.measures import RR
>>> qrels, run = {"q": {"a": 1}}, {"q": {"b": 1.0, "a": 1.0}}
>>> pytrec_eval.calc_aggregate([RR], qrels, run), msmarco.calc_aggregate([RR@10], qrels, run)
({RR: 0.5}, {RR@10: 1.0})
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import polars as pl

from judged.engine.evaluate import evaluate
from judged.engine.matching import unshared_problem, warn_unshared
from judged.errors import UsageError
from judged.io import read_qrels, read_run
from judged.io.foreign import unwrapped
from judged.ir_measures.inputs import qrels_frame, run_frame
from judged.ir_measures.measures import Measure
from judged.ir_measures.records import CalcResults, Metric
from judged.measures.ir_names import from_ir_measures
from judged.measures.spec import Measure as JudgedMeasure
from judged.measures.trec_names import TABLE

_TREC_ORDER = {entry: i for i, entry in enumerate(TABLE)}

#: The trec_eval table entry pytrec_eval computes each measure with (its order is the order of the output).
_TREC_ENTRY = {"P": "P", "RR": "recip_rank", "Rprec": "Rprec", "AP": "map", "nDCG": "ndcg", "R": "recall",
               "Bpref": "bpref", "NumRet": "num_ret", "NumQ": "num_q", "NumRel": "num_rel", "SetAP": "set_map",
               "SetF": "set_F", "SetP": "set_P", "SetR": "set_recall", "Success": "success",
               "IPrec": "iprec_at_recall", "infAP": "infAP"}

#: How a provider orders a tied group: "docid_desc" (trec_eval), "docid_asc" (Python's sort) or "input".
Ties = str

class Evaluator:
    """Judgments read once, scoring many runs for the measures given, as ir_measures' evaluator does."""

    def __init__(self, provider: Provider, measures: Iterable[Measure], qrels: Any) -> None:
        self.measures = list(measures)
        self._provider = provider
        self._qrels = qrels_frame(qrels)
        self.qrel_qids = set(self._qrels["qid"].to_list())
        self._judged = {m: provider.judged_measure(m) for m in self.measures}

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Every (query, measure, value): the provider's, then each judged query's DEFAULT where it gave none."""
        return self.iter_frame(run_frame(run))

    def iter_frame(self, run: pl.DataFrame) -> Iterator[Metric]:
        """:meth:`iter_calc` of a run already read by :func:`~judged.ir_measures.inputs.run_frame`."""
        scored: set[tuple[Measure, str]] = set()
        for metric in self._scored(run):
            scored.add((metric.measure, metric.query_id))
            yield metric
        if not self._provider.defaults:
            return
        unscored = set(itertools.product(self.measures, self.qrel_qids)) - scored
        for measure, qid in sorted(unscored, key=lambda pair: (str(pair[0]), pair[1])):
            yield Metric(qid, measure, measure.DEFAULT)

    def calc_aggregate(self, run: Any) -> dict[Measure, float]:
        """Each measure's aggregate over the metrics :meth:`iter_calc` yields."""
        return self.calc(run).aggregated

    def calc(self, run: Any) -> CalcResults:
        """The aggregates and the per-query metrics of ``run``."""
        metrics = list(self.iter_calc(run))
        return CalcResults(aggregate(self.measures, metrics), metrics)

    def _scored(self, run: pl.DataFrame) -> Iterator[Metric]:
        ranked = rank(run.filter(pl.col("qid").is_in(list(self.qrel_qids))), self._provider.ties,
                      self._provider.float32)
        if ranked.height == 0:
            if run.height:  # every query takes its default: say it is for sharing none, not for the ranking
                warn_unshared(unshared_problem(run["qid"].n_unique(), len(self.qrel_qids)))
            return
        judged_run = read_run(ranked)
        invocations: dict[Any, list[Measure]] = {}
        for measure in self.measures:
            invocations.setdefault(self._provider.invocation(measure, list(invocations)), []).append(measure)
        for group in invocations.values():
            group = sorted(group, key=self._provider.order)
            graded = self._qrels.with_columns(self._provider.grades(group[0])[1].alias("grade"))
            qrels = read_qrels(self._provider.judgments(graded, run))
            wanted = list(dict.fromkeys(self._judged[m] for m in group))
            result = evaluate(judged_run, qrels, wanted, missing="skip")
            at = {qid: i for i, qid in enumerate(result.qids)}
            for qid in self._provider.query_order(run["qid"].unique(maintain_order=True).to_list()):
                if qid not in at:
                    continue
                i = at[qid]
                for measure in group:
                    value = float(result.values[self._judged[measure]][i])
                    if value == value:
                        yield Metric(qid, measure, self._provider.printed(value))


def aggregate(measures: Sequence[Measure], metrics: Iterable[Metric]) -> dict[Measure, float]:
    """Each measure's :meth:`~Measure.aggregator` over its metrics in the order given (mean, or sum for counts)."""
    accumulators = {m: m.aggregator() for m in measures}
    for metric in metrics:
        accumulators[metric.measure].add(metric.value)
    return {m: accumulator.result() for m, accumulator in accumulators.items()}


def ranked_rows(run: pl.DataFrame, ties: Ties, float32: bool = False) -> list[int]:
    """The rows of ``run`` (``qid, docid, score``) in ranked order: per query, score descending (NaN last), then ties.

    >>> ranked_rows(pl.DataFrame({"qid": ["q"] * 3, "docid": ["a", "b", "c"], "score": [1.0, 2.0, 1.0]}),
    ...             "docid_asc")
    [1, 0, 2]
    """
    score = pl.col("score").cast(pl.Float32) if float32 else pl.col("score")
    keyed = run.with_row_index("row").with_columns(
        pl.col("qid").rank("min").alias("block"), pl.when(score.is_nan()).then(None).otherwise(score).alias("key"))
    by, descending = ["block", "key"], [False, True]
    if ties != "input":
        by, descending = [*by, "docid"], [*descending, ties == "docid_desc"]
    ordered = keyed.sort([*by, "row"], descending=[*descending, False], nulls_last=True, maintain_order=True)
    return ordered["row"].to_list()


def rank(run: pl.DataFrame, ties: Ties, float32: bool = False) -> pl.DataFrame:
    """``run`` ranked by :func:`ranked_rows`, each score replaced by minus its rank, so no tie is left."""
    ordered = run[ranked_rows(run, ties, float32)]
    position = ordered.select(pl.int_range(pl.len()).over("qid").alias("at"))["at"]
    return ordered.select("qid", "docid").with_columns((-position.cast(pl.Float64)).alias("score"))


class Provider:
    """One of ir_measures' providers: the measures it takes and how it ranks and reads judgments."""

    NAME = ""
    ties: Ties = "docid_desc"
    float32 = False
    #: whether a judged query the provider did not score gets the measure's DEFAULT (all but accuracy's)
    defaults = True

    def __init__(self, supported: dict[str, Callable[[Measure], bool]]) -> None:
        self._supported = supported

    def supports(self, measure: Measure) -> bool:
        """Whether this provider computes ``measure`` (ir_measures' ``supports``)."""
        measure.validate_params()
        accepts = self._supported.get(measure.NAME)
        return accepts is not None and accepts(measure)

    def is_available(self) -> bool:
        """Always: every provider here is judged itself."""
        return True

    def judged_measure(self, measure: Measure) -> JudgedMeasure:
        """judged's measure with this provider's conventions."""
        if not self.supports(measure):
            raise UsageError(f"provider {self.NAME} does not support {measure}")
        return from_ir_measures(measure)

    def grades(self, measure: Measure) -> tuple[str, pl.Expr]:
        """A key and the grades this provider reads for ``measure``; the same key, the same grades."""
        return "as given", pl.col("grade")

    def printed(self, value: float) -> float:
        """A value as the provider hands it to ir_measures."""
        return value

    def judgments(self, qrels: pl.DataFrame, run: pl.DataFrame) -> pl.DataFrame:
        """The judgments (``qid, docid, grade``) judged reads for ``run``: as given, by default."""
        return qrels

    def invocation(self, measure: Measure, earlier: list[Any]) -> Any:
        """The run of the provider's program that computes ``measure`` (``earlier``: those already started)."""
        return self.grades(measure)[0]

    def order(self, measure: Measure) -> Any:
        """Where ``measure`` comes among one invocation's metrics of a query (the order given, by default)."""
        return 0

    def query_order(self, qids: list[str]) -> list[str]:
        """The order the provider yields queries in, given the run's order (the run's, by default)."""
        return qids

    def evaluator(self, measures: Iterable[Measure], qrels: Any) -> Evaluator:
        """Judgments read once for many runs."""
        return Evaluator(self, [_measure(m) for m in measures], qrels)

    def iter_calc(self, measures: Iterable[Measure], qrels: Any, run: Any) -> Iterator[Metric]:
        """Per-query metrics of ``run``."""
        return self.evaluator(measures, qrels).iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Measure], qrels: Any, run: Any) -> dict[Measure, float]:
        """``{measure: aggregate}`` of ``run``."""
        return self.evaluator(measures, qrels).calc_aggregate(run)

    def calc(self, measures: Iterable[Measure], qrels: Any, run: Any) -> CalcResults:
        """The aggregates and the per-query metrics of ``run``."""
        return self.evaluator(measures, qrels).calc(run)

    def run_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """The run columns these measures read."""
        return ["query_id", "doc_id", "score"]

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """The qrels columns these measures read."""
        return ["query_id", "doc_id", "relevance"]


def _measure(measure: Any) -> Measure:
    from judged.ir_measures.parse import parse_measure
    return parse_measure(measure)


def _always(measure: Measure) -> bool:
    return True


def _no_cutoff(measure: Measure) -> bool:
    return "cutoff" not in measure.params


def _all_docs(measure: Measure) -> bool:
    return not measure["judged_only"]


class PytrecEvalProvider(Provider):
    """pytrec_eval: trec_eval's measures, scores as 32-bit floats, ties by docid descending."""

    NAME = "pytrec_eval"
    float32 = True

    def __init__(self) -> None:
        log2: Callable[[Measure], bool] = lambda m: m["dcg"] == "log2"  # noqa: E731
        super().__init__({
            "P": _always, "RR": _no_cutoff, "Rprec": _always, "AP": _always, "nDCG": log2, "R": _always,
            "Bpref": _always, "NumRet": _always, "NumQ": _always, "NumRel": lambda m: m["rel"] == 1,
            "SetAP": _always, "SetF": _always, "SetP": _always, "SetR": _always, "Success": _always,
            "IPrec": _always, "infAP": _always})

    def judged_measure(self, measure: Measure) -> JudgedMeasure:
        found = super().judged_measure(measure)
        return dataclasses.replace(found, rounding="v9") if found.name == "IPrec" else found

    def invocation(self, measure: Measure, earlier: list[Any]) -> Any:
        """One pytrec_eval evaluator per (rel, gains, judged_only); counts and plain nDCG join the first."""
        joins_first = (measure.NAME == "NumQ" or (measure.NAME == "NumRet" and measure["rel"] is None)
                       or (measure.NAME == "nDCG" and measure["gains"] is None))
        if joins_first and earlier:
            return earlier[0]
        rel = measure["rel"] if "rel" in measure.SUPPORTED_PARAMS and measure["rel"] is not None else 1
        judged_only = bool(measure["judged_only"]) if "judged_only" in measure.SUPPORTED_PARAMS else False
        gains = repr(sorted(measure["gains"].items())) if measure.NAME == "nDCG" and measure["gains"] else None
        return rel, gains, judged_only

    def query_order(self, qids: list[str]) -> list[str]:
        """By qid, as pytrec_eval's result dict is."""
        return sorted(qids)

    def order(self, measure: Measure) -> Any:
        """trec_eval's table order, then the cutoff, as pytrec_eval hands out a query's values."""
        entry = _TREC_ENTRY[measure.NAME]
        if measure.NAME in ("AP", "nDCG") and measure["cutoff"] is not None:
            entry += "_cut"
        elif measure.NAME == "NumRet" and measure["rel"] is not None:
            entry = "num_rel_ret"
        elif measure.NAME == "SetP" and measure["relative"]:
            entry = "set_relative_P"
        at = measure[measure.AT_PARAM] if measure.AT_PARAM in measure.SUPPORTED_PARAMS else None
        return _TREC_ORDER[entry], at or 0


class CwlEvalProvider(Provider):
    """cwl_eval: the C/W/L measures over gains scaled to [0, 1], ties in input order."""

    NAME = "cwl_eval"
    ties = "input"
    _SCALED = ("BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ")

    def __init__(self) -> None:
        plain: Callable[[Measure], bool] = lambda m: _no_cutoff(m) and _all_docs(m)  # noqa: E731
        supported: dict[str, Callable[[Measure], bool]] = {name: _always for name in self._SCALED}
        supported.update({"P": _all_docs, "RR": plain, "AP": plain,
                          "RBP": lambda m: _no_cutoff(m) and m["rel"] is not None})
        super().__init__(supported)

    def judged_measure(self, measure: Measure) -> JudgedMeasure:
        if measure.NAME in self._SCALED:
            if measure["min_rel"] != 0:
                raise UsageError(f"judged's scaled gains start at grade 0; {measure} sets min_rel="
                                 f"{measure['min_rel']}")
            return from_ir_measures(measure)
        if measure.NAME == "RBP":
            return from_ir_measures(f"RBP(p={measure['p']!r},max_rel=1)")
        return super().judged_measure(measure(rel=1))

    def grades(self, measure: Measure) -> tuple[str, pl.Expr]:
        if measure.NAME in self._SCALED:
            top = measure["max_rel"]
            return f"clip {top}", pl.col("grade").clip(0, top)
        return f"rel {measure['rel']}", (pl.col("grade") >= measure["rel"]).cast(pl.Int64)


class JudgedProvider(Provider):
    """OpenNIR's Judged@k: any judgment counts, ties by docid ascending."""

    NAME = "judged"
    ties = "docid_asc"

    def __init__(self) -> None:
        super().__init__({"Judged": _always})

    def grades(self, measure: Measure) -> tuple[str, pl.Expr]:
        return "judged", pl.col("grade").clip(0, None)


class MsMarcoProvider(Provider):
    """MS MARCO's RR@k: ties by docid ascending."""

    NAME = "msmarco"
    ties = "docid_asc"

    def __init__(self) -> None:
        super().__init__({"RR": _all_docs})


class GdevalProvider(Provider):
    """gdeval.pl: ERR@k and exponential nDCG@k, ties by docid descending, values printed to 5 decimals."""

    NAME = "gdeval"

    def __init__(self) -> None:
        super().__init__({
            "ERR": lambda m: m["cutoff"] is not None,
            "nDCG": lambda m: (m["cutoff"] is not None and m["dcg"] == "exp-log2" and m["gains"] is None
                               and _all_docs(m))})

    def judged_measure(self, measure: Measure) -> JudgedMeasure:
        if measure.NAME == "nDCG":  # gdeval.pl's nDCG is the exponential one, whatever the measure says
            measure = measure(dcg="exp-log2")
        return super().judged_measure(measure)

    def printed(self, value: float) -> float:
        return float(f"{value:.5f}")

    def query_order(self, qids: list[str]) -> list[str]:
        """By topic number, as gdeval.pl sorts the run."""
        return sorted(qids, key=lambda q: (int(q), q) if q.isdigit() else (0, q))


class FallbackProvider:
    """Each measure to the first provider that takes it, as ir_measures' DefaultPipeline does."""

    def __init__(self, providers: Sequence[Any]) -> None:
        self.providers = list(providers)

    def supports(self, measure: Any) -> bool:
        """Whether some provider takes ``measure``."""
        return any(p.supports(_measure(measure)) for p in self.providers)

    def evaluator(self, measures: Iterable[Any], qrels: Any) -> PipelineEvaluator:
        """Judgments read once for many runs, each measure with its provider."""
        qrels = unwrapped(qrels, "qrels")  # a ranx Qrels, an ir_datasets dataset: what it holds
        if not isinstance(qrels, Mapping) and not hasattr(qrels, "columns"):
            qrels = list(qrels)  # namedtuples, read by each provider in turn
        chosen: dict[Any, list[Measure]] = {}
        given = list(dict.fromkeys(_measure(m) for m in measures))  # equal measures are one, as in ir_measures
        for measure in given:
            provider = next((p for p in self.providers if p.supports(measure)), None)
            if provider is None:
                raise ValueError(f"unsupported measure {measure}")
            chosen.setdefault(provider, []).append(measure)
        ordered = sorted(chosen.items(), key=lambda pair: self.providers.index(pair[0]))  # providers' metrics in turn
        return PipelineEvaluator([p.evaluator(ms, qrels) for p, ms in ordered], given)

    def iter_calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
        """Per-query metrics of ``run``."""
        return self.evaluator(measures, qrels).iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Any], qrels: Any, run: Any) -> dict[Measure, float]:
        """``{measure: aggregate}`` of ``run``."""
        return self.evaluator(measures, qrels).calc_aggregate(run)

    def calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
        """The aggregates and the per-query metrics of ``run``."""
        return self.evaluator(measures, qrels).calc(run)

    def run_inputs(self, measures: Iterable[Any]) -> list[str]:
        """The run columns these measures read, over their providers."""
        return self._inputs(measures, "run_inputs")

    def qrel_inputs(self, measures: Iterable[Any]) -> list[str]:
        """The qrels columns these measures read, over their providers."""
        return self._inputs(measures, "qrel_inputs")

    def _inputs(self, measures: Iterable[Any], kind: str) -> list[str]:
        found: dict[str, None] = {}
        for measure in (_measure(m) for m in measures):
            provider = next((p for p in self.providers if p.supports(measure)), None)
            if provider is not None:
                found.update(dict.fromkeys(getattr(provider, kind)([measure])))
        return list(found)


class PipelineEvaluator:
    """Several providers' evaluators as one: metrics in provider order, aggregates in the order given."""

    def __init__(self, parts: Sequence[Any], measures: Sequence[Measure]) -> None:
        self._parts = list(parts)
        self.measures = list(measures)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Every (query, measure, value) of ``run``, the run read once (one warning) for every provider."""
        if not isinstance(run, Mapping) and not hasattr(run, "columns"):
            run = list(run)
        frame: pl.DataFrame | None = None
        for part in self._parts:
            if isinstance(part, Evaluator):
                frame = run_frame(run) if frame is None else frame
                yield from part.iter_frame(frame)
            else:
                yield from part.iter_calc(run)

    def calc_aggregate(self, run: Any) -> dict[Measure, float]:
        """Each measure's aggregate."""
        return self.calc(run).aggregated

    def calc(self, run: Any) -> CalcResults:
        """The aggregates and the per-query metrics of ``run``."""
        metrics = list(self.iter_calc(run))
        return CalcResults(aggregate(self.measures, metrics), metrics)


pytrec_eval = PytrecEvalProvider()
cwl_eval = CwlEvalProvider()
judged = JudgedProvider()
msmarco = MsMarcoProvider()
gdeval = GdevalProvider()
registry: dict[str, Any] = {p.NAME: p for p in (pytrec_eval, cwl_eval, judged, msmarco, gdeval)}


# these modules build on Provider, aggregate and ranked_rows above, so they join the pipeline after them
from judged.ir_measures.compat_accuracy import AccuracyProvider, CompatProvider  # noqa: E402
from judged.ir_measures.define import RuntimeProvider, runtime  # noqa: E402

compat = CompatProvider()
accuracy = AccuracyProvider()
DefaultPipeline = FallbackProvider([runtime, pytrec_eval, cwl_eval, compat, judged, msmarco, gdeval, accuracy])
registry.update({"runtime": runtime, "compat": compat, "accuracy": accuracy})
__all__ = ["AccuracyProvider", "CompatProvider", "CwlEvalProvider", "DefaultPipeline", "Evaluator",
           "FallbackProvider", "GdevalProvider", "JudgedProvider", "MsMarcoProvider", "PipelineEvaluator", "Provider",
           "PytrecEvalProvider", "RuntimeProvider", "accuracy", "aggregate", "compat", "cwl_eval", "gdeval", "judged",
           "msmarco", "pytrec_eval", "rank", "ranked_rows", "registry", "runtime"]
