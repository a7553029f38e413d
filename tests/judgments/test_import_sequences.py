"""Imports mean what they say: ``--replace`` makes a file exactly the assessor's labels, whatever came before."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judged.cli import main
from judged.errors import UsageError
from judged.judgments import Store
from judged.judgments.model import Recorded


def _labels(store: Store, assessor: str = "nist") -> dict[tuple[str, str], int]:
    return {(q, d): g for q, d, _, g in store.current_labels(assessors=[assessor]).rows()}


def _write(path, labels: dict[tuple[str, str], int]) -> None:
    path.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in labels.items()))


V1 = {(f"q{i % 5}", f"d{i}"): i % 3 for i in range(100)}
V2 = {**{k: (g + 1) % 3 for k, g in list(V1.items())[:51]}, ("q9", "new"): 2}


def test_v1_then_v2_replacing_then_v1_replacing_is_v1_again(db_url, tmp_path):
    v1, v2 = tmp_path / "v1.qrels", tmp_path / "v2.qrels"
    _write(v1, V1), _write(v2, V2)
    with Store.open(db_url) as store:
        assert store.import_qrels(v1, assessor="nist") == Recorded(100, 0, 0)
        assert store.import_qrels(v2, assessor="nist", mode="replace") == Recorded(52, 0, 49)
        assert _labels(store) == V2
        # every label of v1 differs from what v2 left, or was withdrawn: all 100 recorded again
        assert store.import_qrels(v1, assessor="nist", mode="replace") == Recorded(100, 0, 1)
        assert _labels(store) == V1
        assert store.import_qrels(v1, assessor="nist", mode="replace") == Recorded(0, 100, 0)
        assert store.import_qrels(v1, assessor="nist") == Recorded(0, 100, 0)  # already current: no mode needed


def test_a_different_file_without_a_mode_is_refused_and_stores_nothing(sqlite_store, tmp_path):
    v1, v2 = tmp_path / "v1.qrels", tmp_path / "v2.qrels"
    _write(v1, V1), _write(v2, V2)
    sqlite_store.import_qrels(v1, assessor="nist")
    with pytest.raises(UsageError, match="nist already has 100 label"):
        sqlite_store.import_qrels(v2, assessor="nist")
    assert _labels(sqlite_store) == V1


def test_add_keeps_what_the_file_lacks_and_takes_its_grades(sqlite_store, tmp_path):
    v1, v2 = tmp_path / "v1.qrels", tmp_path / "v2.qrels"
    _write(v1, V1), _write(v2, V2)
    sqlite_store.import_qrels(v1, assessor="nist")
    assert sqlite_store.import_qrels(v2, assessor="nist", mode="add") == Recorded(52, 0, 0)
    assert _labels(sqlite_store) == {**V1, **V2}


PAIRS = [(f"q{q}", f"d{d}") for q in range(2) for d in range(4)]
FILES = st.dictionaries(st.sampled_from(PAIRS), st.integers(0, 2), min_size=1)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(FILES, st.sampled_from(["replace", "add"])), min_size=1, max_size=6))
def test_any_sequence_of_imports_leaves_the_last_replace_and_the_adds_after_it(tmp_path_factory, steps):
    folder = tmp_path_factory.mktemp("imports")
    expected: dict[tuple[str, str], int] = {}
    with Store.open("sqlite://") as store:
        for number, (labels, mode) in enumerate(steps):
            path = folder / f"file{number % 3}.qrels"  # files are rewritten and imported again, as people do
            _write(path, labels)
            store.import_qrels(path, assessor="nist", mode=mode)
            expected = dict(labels) if mode == "replace" else {**expected, **labels}
            assert _labels(store) == expected, (number, mode)
        assert store.verify().ok


def test_the_command_line_says_what_an_import_changed(tmp_path):
    v1, v2, db = tmp_path / "v1.qrels", tmp_path / "v2.qrels", str(tmp_path / "judged.db")
    _write(v1, V1), _write(v2, V2)
    runner = CliRunner()
    first = runner.invoke(main, ["import", "qrels", str(v1), "-a", "nist", "--db", db])
    assert first.exit_code == 0 and first.stdout == f"{v1}: 100 label(s) recorded for nist\n"
    again = runner.invoke(main, ["import", "qrels", str(v1), "-a", "nist", "--db", db])
    assert again.exit_code == 0 and again.stdout == f"{v1}: already nist's labels (100); nothing changed\n"
    replaced = runner.invoke(main, ["import", "qrels", str(v2), "-a", "nist", "--replace", "--db", db])
    assert replaced.stdout == f"{v2}: 52 label(s) recorded for nist, 0 already current, 49 withdrawn\n"
