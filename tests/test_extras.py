"""A part of judged whose extra is missing says the one pip line that installs it; the core needs no extra."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from judged.cli import main
from judged.extras import EXTRAS, MissingExtraError, require


@pytest.fixture
def without(monkeypatch):
    """Make ``import NAME`` fail as it does when the package is not installed."""

    def hide(name: str) -> None:
        monkeypatch.setitem(sys.modules, name, None)

    return hide


def test_require_names_the_pip_line(without):
    without("altair")
    with pytest.raises(MissingExtraError, match=r"the HTML report needs judged's report extra \(altair is not "
                       r"installed\): pip install 'judged\[report\]'"):
        require("report", "the HTML report")


@pytest.mark.parametrize(("command", "module", "extra"), [
    (["serve"], "fastapi", "web"),
    (["users", "list"], "argon2", "web"),
    (["report", "examples/runs/bm25.run", "--qrels", "examples/qrels.txt", "-o", "{tmp}/r.html"], "vl_convert",
     "report"),
])
def test_a_command_whose_extra_is_missing_exits_2_with_the_pip_line(without, tmp_path, command, module, extra):
    without(module)
    result = CliRunner().invoke(main, [arg.format(tmp=tmp_path) for arg in command])
    assert result.exit_code == 2
    assert f"pip install 'judged[{extra}]'" in result.stderr


def test_the_core_evaluates_without_any_extra():
    # a child process where every extra's modules are unimportable still evaluates, compares and explains
    hidden = sorted({m for modules in EXTRAS.values() for m in modules})
    code = (
        "import sys\n"
        f"for name in {hidden!r}:\n    sys.modules[name] = None\n"
        "from judged.cli import main\n"
        "for args in (['eval', 'examples/runs/bm25.run', '--qrels', 'examples/qrels.txt', '-m', 'nDCG@10'],\n"
        "             ['compare', 'examples/runs/bm25.run', 'examples/runs/dense.run', '--qrels',\n"
        "              'examples/qrels.txt', '-m', 'nDCG@10', '--permutations', '99', '--resamples', '99'],\n"
        "             ['explain', 'examples/runs/bm25.run', '--qrels', 'examples/qrels.txt', '--query', 'q01']):\n"
        "    try:\n        main(args)\n"
        "    except SystemExit as done:\n        assert done.code in (0, None), (args, done.code)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "nDCG" in done.stdout
