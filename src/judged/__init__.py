"""judged: evaluate rankings against graded relevance judgments, with every convention explicit.

>>> import judged
>>> result = judged.evaluate({"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 2}}, ["nDCG@10"])
>>> round(result.value("nDCG@10"), 4)
0.6309
"""

import os

# polars' allocator (jemalloc) keeps freed pages for seconds, so ranking a large run
# would hold more memory than it needs; return them at once, from jemalloc's
# background thread, unless the user configured jemalloc (docs/performance.md has
# the measured trade-off: about 680 MB instead of 720 MB for ten million run lines,
# at no measurable cost in time). Only effective when judged is imported before polars.
os.environ.setdefault("_RJEM_MALLOC_CONF", "background_thread:true,dirty_decay_ms:0,muzzy_decay_ms:0")

from judged.analysis.bounds import BoundsResult, unjudged_bounds
from judged.errors import InputError, JudgedError, MeasureError, NoJudgedQueriesError, UsageError
from judged.engine.evaluate import evaluate
from judged.analysis.explain import Explanation, explain
from judged.io.inputs import Qrels, Run
from judged.io import read_qrels, read_run
from judged.measures import Gain, Measure, parse
from judged.report import report
from judged.version import __version__
from judged.engine.result import Result
from judged.analysis.sensitivity import Sensitivity, sensitivity


__all__ = [
    "BoundsResult",    "Explanation",
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
    "UsageError",
    "__version__",
    "evaluate",
    "explain",
    "parse",
    "read_qrels",
    "read_run",
    "report",
    "sensitivity",
    "unjudged_bounds",
]
