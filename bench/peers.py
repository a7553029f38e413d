"""Evaluate a TREC run with one peer library, as a user of that library would.

Usage: ``python3 bench/peers.py TOOL RUN QRELS OUT``

The benchmark driver (``run_bench.py``) starts this script in a fresh
process per timing, so the measured wall time and peak RSS cover interpreter
start, library import, file parsing, evaluation and writing the per-query
values - the same end-to-end span as the ``judged eval`` CLI.

Every evaluating tool writes ``qid<TAB>measure<TAB>value`` lines to OUT with
the measure names nDCG@10, AP, RR, P@10 and R@100, so the driver can
cross-check all of them the same way.  Writing ~50k lines costs next to
nothing next to reading a 10M-line run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable


def write_rows(out: str, rows: Iterable[tuple[str, str, float]]) -> None:
    """Write (qid, measure, value) rows as TSV with round-trip float precision."""
    with open(out, "w") as f:
        for qid, measure, value in rows:
            f.write(f"{qid}\t{measure}\t{float(value)!r}\n")


def run_pytrec_eval(run: str, qrels: str, out: str) -> None:
    """pytrec_eval: parse both files into dicts with its own helpers, then RelevanceEvaluator."""
    import pytrec_eval

    names = {"ndcg_cut_10": "nDCG@10", "map": "AP", "recip_rank": "RR", "P_10": "P@10", "recall_100": "R@100"}
    with open(qrels) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run) as f:
        ranking = pytrec_eval.parse_run(f)
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"})
    results = evaluator.evaluate(ranking)
    write_rows(out, ((qid, names[m], v) for qid, per_q in results.items() for m, v in per_q.items()))


def run_pytrec_eval_all_trec(run: str, qrels: str, out: str) -> None:
    """pytrec_eval computing every measure it supports (trec_eval's -m all_trec): ``measure qid value`` lines."""
    import pytrec_eval

    with open(qrels) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run) as f:
        ranking = pytrec_eval.parse_run(f)
    results = pytrec_eval.RelevanceEvaluator(qrel, pytrec_eval.supported_measures).evaluate(ranking)
    with open(out, "w") as f:
        for qid, per_q in results.items():
            for measure, value in per_q.items():
                f.write(f"{measure}\t{qid}\t{float(value)!r}\n")


def run_ir_measures(run: str, qrels: str, out: str) -> None:
    """ir_measures: read_trec_* generators fed straight into iter_calc."""
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    measures = [nDCG @ 10, AP, RR, P @ 10, R @ 100]
    results = ir_measures.iter_calc(measures, ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run))
    write_rows(out, ((m.query_id, str(m.measure), m.value) for m in results))


def run_ranx(run: str, qrels: str, out: str) -> None:
    """ranx: Qrels/Run.from_file, then evaluate(..., return_mean=False).

    make_comparable drops run queries without judgments and adds empty
    rankings for judged queries the run lacks (ranx refuses mismatched keys
    otherwise).  Per-query arrays follow the run's query order.
    """
    from ranx import Qrels, Run, evaluate

    names = {"ndcg@10": "nDCG@10", "map": "AP", "mrr": "RR", "precision@10": "P@10", "recall@100": "R@100"}
    q = Qrels.from_file(qrels, kind="trec")
    r = Run.from_file(run, kind="trec")
    scores = evaluate(q, r, list(names), return_mean=False, make_comparable=True)
    qids = r.get_query_ids()
    write_rows(out, ((qid, names[m], v) for m, values in scores.items() for qid, v in zip(qids, values, strict=True)))


def run_pyarrow_floor(run: str, qrels: str, out: str) -> None:
    """Lower bound for any Python tool: pyarrow's multithreaded CSV read of the run alone."""
    import pyarrow.csv as pacsv

    pacsv.read_csv(
        run,
        read_options=pacsv.ReadOptions(column_names=["qid", "q0", "docid", "rank", "score", "tag"]),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
    )


TOOLS: dict[str, Callable[[str, str, str], None]] = {
    "pytrec_eval": run_pytrec_eval,
    "pytrec_eval_all_trec": run_pytrec_eval_all_trec,
    "ir_measures": run_ir_measures,
    "ranx": run_ranx,
    "pyarrow_floor": run_pyarrow_floor,
}


def main(argv: list[str]) -> None:
    """Dispatch ``TOOL RUN QRELS OUT`` to the matching runner."""
    if len(argv) != 4 or argv[0] not in TOOLS:
        sys.exit(f"usage: peers.py {{{','.join(TOOLS)}}} RUN QRELS OUT")
    TOOLS[argv[0]](*argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
