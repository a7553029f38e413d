"""trec_eval's other judgment formats (prefs, qrels_prefs, qrels_jg) and its z-score file: what they read, and
each bad line refused with file, line, text and what was expected."""

from __future__ import annotations

import pytest

from judged.errors import InputError
from judged.io.prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from judged.io.zscores import MISSING_ZSCORE, read_zscores


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_prefs_and_qrels_prefs_read_the_same_preferences(tmp_path):
    prefs = read_prefs(write(tmp_path, "p", "# a comment\nq1 u1 0 d1 2\nq1\tu1 0 d2  0.5\n\nq0 u2 0 d1 1e0\n"))
    qrels = read_qrels_prefs(write(tmp_path, "q", "q1 u1 d1 2\nq1 u1 d2 0.5\nq0 u2 d1 1\n"))
    assert prefs.frame.rows() == qrels.frame.rows() == [
        ("q1", "u1", "0", "d1", 2.0), ("q1", "u1", "0", "d2", 0.5), ("q0", "u2", "0", "d1", 1.0)]
    assert prefs.qids == ["q0", "q1"]


@pytest.mark.parametrize(("text", "message"), [
    ("q1 u1 s1 d1\n", "p:1: expected 5 columns, found 4: 'q1 u1 s1 d1' (expected qid jg jsg docid level)"),
    ("q1 u1 s1 d1 2 extra\n", "p:1: expected 5 columns, found 6"),
    ("q1 u1 s1 d1 2\nq1 u1 s1 d2 high\n", "p:2: preference level is not a finite number: 'q1 u1 s1 d2 high'"),
    ("q1 u1 s1 d1 nan\n", "p:1: preference level is not a finite number"),
    ("q1 u1 s1 d1 2\nq1 u1 s2 d1 1\nq1 u1 s1 d1 1\n", "p:3: document appears twice in the same judgment sub-group"),
    ("", "p: file has no data lines"),
])
def test_bad_prefs_lines_are_located(tmp_path, text, message):
    with pytest.raises(InputError) as caught:
        read_prefs(write(tmp_path, "p", text))
    assert message in str(caught.value)


def test_judgment_groups_read_one_qrels_per_group(tmp_path):
    groups = read_qrels_jg(write(tmp_path, "jg", "q1 b d1 1\nq1 a d1 0\nq2 a d2 3\nq1 a d1 0\n"))
    assert list(groups.groups) == ["a", "b"]  # byte order of the group id
    assert groups.groups["a"].frame.rows() == [("q1", "d1", 0), ("q2", "d2", 3)]  # the exact repeat collapsed
    assert groups.qids == ["q1", "q2"]


def test_a_conflicting_grade_inside_one_group_is_located(tmp_path):
    path = write(tmp_path, "jg", "q1 a d1 1\nq1 b d1 0\nq1 a d1 2\n")
    with pytest.raises(InputError, match=r"jg:3: conflicting judgment"):
        read_qrels_jg(path)


def test_zscores_read_and_convert(tmp_path):
    table = read_zscores(write(tmp_path, "z", "q1 map 0.2 0.1\nq1 P_5 0.4 0\n"))
    assert table.convert("map", ["q1"], [0.35]).tolist() == pytest.approx([1.5])  # (0.35 - 0.2) / 0.1
    assert table.convert("P_5", ["q1", "q1"], [0.4, 0.5]).tolist() == [0.0, MISSING_ZSCORE]
    with pytest.raises(InputError, match=r"z:2: query and measure listed twice"):
        read_zscores(write(tmp_path, "z", "q1 map 0.2 0.1\nq1 map 0.3 0.1\n"))
    with pytest.raises(InputError, match=r"z:1: mean or standard deviation is not a finite number"):
        read_zscores(write(tmp_path, "z", "q1 map x 0.1\n"))
