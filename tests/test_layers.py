"""judged's modules import downward only: every import of every module, read with ``ast``, against one list of layers.

Imports inside functions count, and so do imports under ``if TYPE_CHECKING:``
(a type is a dependency too). A module may import its own component and any
component of a lower layer; components of one layer are peers and never import
each other. docs/design.md ("Subsystems") describes the layers.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "judged"

#: The layers, lowest first; each is a tuple of peer components (a module, or a package and everything under it).
LAYERS: tuple[tuple[str, ...], ...] = (
    # leaves: the error types, the version, the C reader, the notebook display hooks, read-only containers
    ("judged.errors", "judged.version", "judged._native", "judged.display", "judged.frozen"),
    # which optional extra brings which modules, and the error that names the pip line
    ("judged.extras",),
    # every convention's name, choices, default and meaning, declared once
    ("judged.measures.conventions",),
    # the kinds of parameter the public verbs take, each checked once (conventions' choices come from the table)
    ("judged.params",),
    # reading runs and judgments (TREC, tabular, JSON, the native reader) and writing files atomically
    ("judged.io",),
    # the ranked per-query view every measure kernel reads
    ("judged.engine.view",),
    # measures: the value objects, their parser, the family registry and the kernels
    ("judged.measures",),
    # the evaluation engine: ranking, the evaluate verb, results, provenance, the team config
    ("judged.engine",),
    # what is built on results: analyses, statistics, assessor agreement, rubrics, other libraries' conventions
    ("judged.analysis", "judged.stats", "judged.agreement", "judged.rubric", "judged.presets"),
    # drop-in call shapes of other libraries: pytrec_eval's, then ir_measures' (which reuses pytrec_eval's scores)
    ("judged.pytrec_eval",),
    ("judged.ir_measures",),
    # the judgment store: pools, assignments, judgments, frozen sets
    ("judged.judgments",),
    # text, JSON and HTML renderers of every result
    ("judged.render",),
    # the self-contained HTML report
    ("judged.report",),
    # the services: the assessment web app, evaluation on Apache Spark
    ("judged.web", "judged.spark"),
    # the command line, over everything
    ("judged.cli",),
    # the public re-exports (judged/__init__.py alone)
    ("judged",),
)

_LAYER_OF = {component: level for level, layer in enumerate(LAYERS) for component in layer}


def _modules() -> dict[str, Path]:
    """Every module under src/judged by dotted name (a package by its __init__)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in PACKAGE.glob("_native*.so"):
        found["judged._native"] = path
    return found


MODULES = _modules()


def component(module: str) -> str:
    """The declared component holding ``module``: the longest matching one (``judged`` itself only exactly).

    >>> component("judged.measures.conventions"), component("judged.measures.families.ndcg")
    ('judged.measures.conventions', 'judged.measures')
    """
    if module == "judged":
        return module
    matches = [c for c in _LAYER_OF if c != "judged" and (module == c or module.startswith(c + "."))]
    if not matches:
        raise AssertionError(f"{module} belongs to no layer; add its component to LAYERS in tests/test_layers.py")
    return max(matches, key=len)


def imports(module: str, path: Path, modules: dict[str, Path] = MODULES) -> list[tuple[int, str]]:
    """(line, imported judged module) for every import in ``module``, at any depth, relative ones resolved."""
    if path.suffix != ".py":
        return []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                # ``from judged import display`` imports the module judged.display, not the package
                target = f"{source}.{alias.name}"
                found.append((node.lineno, target if target in modules else source))
    return sorted((line, name) for line, name in found if name == "judged" or name.startswith("judged."))


def violations(modules: dict[str, Path] = MODULES) -> list[str]:
    """One line per import that points to a peer or a higher layer: file, line, what and why."""
    found = []
    for module, path in sorted(modules.items()):
        mine = component(module)
        for line, target in imports(module, path, modules):
            theirs = component(target)
            if theirs == mine or _LAYER_OF[theirs] < _LAYER_OF[mine]:
                continue
            relation = "a peer" if _LAYER_OF[theirs] == _LAYER_OF[mine] else "a higher layer"
            found.append(f"{path.name}:{line}: {module} imports {target} ({relation}: "
                         f"{mine} is in layer {_LAYER_OF[mine]}, {theirs} in layer {_LAYER_OF[theirs]})")
    return found


def test_every_import_points_down():
    assert violations() == []


def test_every_declared_component_exists():
    assert [c for c in _LAYER_OF if c not in MODULES] == []


def test_the_checker_sees_imports_inside_functions_relative_ones_and_peers(tmp_path):
    fake = tmp_path / "fake.py"
    fake.write_text(
        "from . import paired\n"
        "from judged import display\n"
        "def f():\n"
        "    from judged.render.compare import render_comparison_html\n"
        "    import judged.analysis.bounds\n"
    )
    modules = {**MODULES, "judged.stats.fake": fake}
    assert imports("judged.stats.fake", fake, modules) == [
        (1, "judged.stats.paired"), (2, "judged.display"), (4, "judged.render.compare"), (5, "judged.analysis.bounds")]
    stats, render = _LAYER_OF["judged.stats"], _LAYER_OF["judged.render"]
    assert [v for v in violations(modules) if v.startswith("fake.py")] == [
        f"fake.py:4: judged.stats.fake imports judged.render.compare (a higher layer: judged.stats is in layer "
        f"{stats}, judged.render in layer {render})",
        f"fake.py:5: judged.stats.fake imports judged.analysis.bounds (a peer: judged.stats is in layer {stats}, "
        f"judged.analysis in layer {stats})",
    ]


def _fresh(code: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=env).stdout


def test_importing_judged_changes_no_environment_variable():
    # polars itself writes _RJEM_MALLOC_CONF when it loads, so the second check loads the
    # dependencies first and compares what loading judged's verbs adds on top of them
    code = (
        "import json, os, sys; before = dict(os.environ); import judged; bare = dict(os.environ) == before\n"
        "loaded = sorted(m for m in ('numpy', 'polars') if m in sys.modules)\n"
        "import numpy, polars, pyarrow; before = dict(os.environ)\n"
        "judged.evaluate, judged.report, judged.Run, judged.sensitivity, judged.explain\n"
        "print(json.dumps([bare, loaded, dict(os.environ) == before]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    assert json.loads(_fresh(code, env)) == [True, [], True]


def test_the_command_line_sets_the_allocator_before_polars_loads():
    probe = (
        "import importlib.abc, json, os, sys\n"
        "seen = {}\n"
        "class Probe(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'polars' and name not in seen:\n"
        "            seen[name] = os.environ.get('_RJEM_MALLOC_CONF')\n"
        "sys.meta_path.insert(0, Probe())\n"
        "from judged.cli import main\n"
        "loaded_before_main = 'polars' in sys.modules\n"
        "try:\n"
        "    main(['eval', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stdout = sys.__stdout__\n"
        "print(json.dumps([loaded_before_main, seen.get('polars')]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    last = _fresh(probe, env).splitlines()[-1]
    assert json.loads(last) == [False, "background_thread:true,dirty_decay_ms:0,muzzy_decay_ms:0"]


def test_a_user_allocator_setting_is_kept():
    from judged.cli import configure_allocator

    env = {"_RJEM_MALLOC_CONF": "narenas:2"}
    configure_allocator(env)
    assert env == {"_RJEM_MALLOC_CONF": "narenas:2"}


@pytest.mark.parametrize("first", ["judged.stats.compare", "judged"])
def test_a_comparison_shows_its_html_in_a_notebook_whatever_was_imported_first(first):
    code = (
        f"import {first}\n"
        "from judged.stats.compare import compare\n"
        "from judged.engine.evaluate import evaluate\n"
        "qrels = {f'q{i}': {'r': 1} for i in range(4)}\n"
        "runs = [{f'q{i}': {'r': 2.0, 'n': 1.0} for i in range(4)},\n"
        "        {f'q{i}': {'r': 1.0, 'n': 2.0} for i in range(4)}]\n"
        "c = compare([evaluate(r, qrels, ['RR']) for r in runs], permutations=99, resamples=99)\n"
        "from judged.render.compare import render_comparison_html\n"
        "page = c._repr_html_()\n"
        "print(page == render_comparison_html(c), page.count('<tr>'), '<caption>RR(' in page)\n"
    )
    assert _fresh(code).split() == ["True", "3", "True"]
