"""The evaluation engine: the ranked view, the ranking that builds it, the evaluate verb and its Result.

Layered above :mod:`judged.io` (inputs) and :mod:`judged.measures` (the kernels
read :class:`judged.engine.view.RankedView`); everything that analyses results
sits above it.
"""
