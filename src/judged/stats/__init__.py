"""Paired statistics for comparing systems over the same queries: pure functions, seeded, results as data.

See ``docs/statistics.md`` for what each test is, its formula and defaults.
"""

from judged.stats.bootstrap import BootstrapCI, bootstrap_ci
from judged.stats.multiple import (
    TukeyHSD,
    benjamini_hochberg,
    holm,
    tukey_hsd_randomized,
)
from judged.stats.paired import (
    EffectSize,
    Interval,
    RandomizationTest,
    TTest,
    Wilcoxon,
    WinsTiesLosses,
    effect_size,
    paired_scores,
    randomization_test,
    t_test,
    wilcoxon,
    wins_ties_losses,
)
from judged.stats.planning import minimum_detectable_difference, queries_needed
from judged.stats.risk import Risk, risk_against_baseline, trisk, urisk

__all__ = [
    "BootstrapCI",
    "EffectSize",
    "Interval",
    "RandomizationTest",
    "Risk",
    "TTest",
    "TukeyHSD",
    "Wilcoxon",
    "WinsTiesLosses",
    "benjamini_hochberg",
    "bootstrap_ci",
    "effect_size",
    "holm",
    "minimum_detectable_difference",
    "paired_scores",
    "queries_needed",
    "randomization_test",
    "risk_against_baseline",
    "t_test",
    "trisk",
    "tukey_hsd_randomized",
    "urisk",
    "wilcoxon",
    "wins_ties_losses",
]
