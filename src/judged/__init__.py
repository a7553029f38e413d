"""judged: evaluate rankings against graded relevance judgments, with every convention explicit.

>>> import judged
>>> result = judged.evaluate({"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 2}}, ["nDCG@10"])
>>> round(result.value("nDCG@10"), 4)
0.6309
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from judged import display
from judged.errors import InputError, JudgedError, MeasureError, NoJudgedQueriesError, UsageError
from judged.report import report
from judged.version import __version__

if TYPE_CHECKING:
    from judged.analysis.bounds import BoundsResult, unjudged_bounds
    from judged.analysis.explain import Explanation, explain
    from judged.analysis.sensitivity import Sensitivity, sensitivity
    from judged.engine.evaluate import evaluate, evaluate_runs
    from judged.engine.matching import UnmatchedDocumentsWarning, UnmatchedQueriesWarning
    from judged.engine.result import Result
    from judged.io import read_qrels, read_run
    from judged.io.inputs import Qrels, Run
    from judged.measures import Gain, Measure
    from judged.measures.parse import parse

# The public names, each loaded from its module on first use: importing judged (which
# every ``judged.*`` import does first) loads neither numpy nor polars, so the command
# line can configure polars' allocator before polars is loaded (judged.cli.main).
_LAZY = {
    "BoundsResult": "judged.analysis.bounds",
    "unjudged_bounds": "judged.analysis.bounds",
    "Explanation": "judged.analysis.explain",
    "explain": "judged.analysis.explain",
    "Sensitivity": "judged.analysis.sensitivity",
    "sensitivity": "judged.analysis.sensitivity",
    "evaluate": "judged.engine.evaluate",
    "evaluate_runs": "judged.engine.evaluate",
    "UnmatchedDocumentsWarning": "judged.engine.matching",
    "UnmatchedQueriesWarning": "judged.engine.matching",
    "Result": "judged.engine.result",
    "read_qrels": "judged.io",
    "read_run": "judged.io",
    "Qrels": "judged.io.inputs",
    "Run": "judged.io.inputs",
    "Gain": "judged.measures",
    "Measure": "judged.measures",
    "parse": "judged.measures.parse",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'judged' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def _comparison_html(comparison: Any) -> str:
    from judged.render.compare import render_comparison_html

    return render_comparison_html(comparison)


display.register("judged.stats.compare.Comparison", _comparison_html)


__all__ = [
    "BoundsResult",
    "Explanation",
    "Gain",
    "InputError",
    "JudgedError",
    "Measure",
    "MeasureError",
    "NoJudgedQueriesError",
    "Qrels",
    "Result",
    "Run",
    "Sensitivity",
    "UnmatchedDocumentsWarning",
    "UnmatchedQueriesWarning",
    "UsageError",
    "__version__",
    "evaluate",
    "evaluate_runs",
    "explain",
    "parse",
    "read_qrels",
    "read_run",
    "report",
    "sensitivity",
    "unjudged_bounds",
]
