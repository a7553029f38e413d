"""Bad input: every error names path and line, shows the offending text and says what was expected."""

from __future__ import annotations

import gzip

import pytest

from judged import InputError
from judged.io import read_qrels, read_run

GOOD_RUN = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n"


def write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize(
    "body, line, problem, shown, expected",
    [
        (GOOD_RUN + "q1 Q0 d3 3 1.0\n", 3, "expected 6 columns, found 5", "q1 Q0 d3 3 1.0",
         "qid Q0 docid rank score tag"),
        (GOOD_RUN + "q1 Q0 d3 3 high tag\n", 3, "score is not a number", "q1 Q0 d3 3 high tag", "a number in column 5"),
        (GOOD_RUN + "q1 Q0 d3 3 nan tag\n", 3, "score is NaN", "q1 Q0 d3 3 nan tag", "NaN is neither above nor below"),
        ("# header comment\n" + GOOD_RUN + "q1 Q0 d1 3 0.5 tag\n", 4, "document appears twice", "q1 Q0 d1 3 0.5 tag",
         "each docid at most once per query"),
        ("q1  Q0\td1 1 2.5 tag\nq1 Q0 d1 2 1.0 tag\n", 2, "document appears twice", "q1 Q0 d1 2 1.0 tag", "each docid"),
    ],
)
def test_run_errors_name_file_line_text_and_expectation(tmp_path, body, line, problem, shown, expected):
    path = write(tmp_path, "bad.run", body)
    with pytest.raises(InputError) as caught:
        read_run(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: {problem}")
    assert repr(shown) in message or shown in message
    assert expected in message


def test_fractional_grade_is_an_error_not_truncated(tmp_path):
    path = write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d2 1.7\n")
    with pytest.raises(InputError, match=r":2: grade is not an integer: 'q1 0 d2 1.7' \(expected an integer grade"):
        read_qrels(path)


def test_conflicting_duplicate_judgment_is_an_error(tmp_path):
    path = write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\n")
    with pytest.raises(InputError, match=r"qrels:3: conflicting judgment.*'q1 0 d1 2'.*one grade per"):
        read_qrels(path)


def test_identical_duplicate_judgments_collapse_and_are_counted(tmp_path):
    qrels = read_qrels(write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d1 1\nq1 0 d2 0\n"))
    assert qrels.num_judged == 2
    assert qrels.collapsed_duplicates == 1


@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_empty_file(tmp_path, reader):
    path = write(tmp_path, "empty", "")
    with pytest.raises(InputError, match="file has no data lines"):
        reader(path)


def test_comments_only_file_is_empty(tmp_path):
    with pytest.raises(InputError, match="no data lines"):
        read_run(write(tmp_path, "c.run", "# nothing\n# here\n"))


def test_undecodable_bytes(tmp_path):
    path = write(tmp_path, "bin.run", b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d\xff\xfe 2 1.0 tag\n", mode="wb")
    with pytest.raises(InputError, match=r"bin.run:2: undecodable bytes.*expected UTF-8 text"):
        read_run(path)


def test_missing_file():
    with pytest.raises(InputError, match="no such file"):
        read_run("does/not/exist.run")


def test_gzip_is_transparent(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(GOOD_RUN.encode()))
    run = read_run(path)
    assert run.frame.rows() == [("q1", "d1", 2.5), ("q1", "d2", 1.5)]
    assert run.name == "tag"


def test_any_whitespace_and_blank_lines(tmp_path):
    run = read_run(write(tmp_path, "ws.run", "q1\tQ0  d1 1   2.5 tag\n\n  q1 Q0 d2 2 1.5 tag  \r\n"))
    assert run.frame.rows() == [("q1", "d1", 2.5), ("q1", "d2", 1.5)]


def test_gzip_error_is_located_too(tmp_path):
    path = tmp_path / "bad.run.gz"
    path.write_bytes(gzip.compress((GOOD_RUN + "q1 Q0 d3\n").encode()))
    with pytest.raises(InputError, match=r"bad.run.gz:3: expected 6 columns, found 3"):
        read_run(path)


def test_run_fields_after_the_tag_are_ignored_like_trec_eval(tmp_path):
    run = read_run(write(tmp_path, "x.run", "q1 Q0 d1 1 2.5 tag and a comment\nq1 Q0 d2 2 1.5 tag\n"))
    assert run.frame.rows() == [("q1", "d1", 2.5), ("q1", "d2", 1.5)]
    assert run.name == "tag"


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_qrels_line_with_an_extra_field_is_an_error(tmp_path, sep):
    body = sep.join(["q1", "0", "d1", "1"]) + "\n" + sep.join(["q1", "0", "d2", "0", "x"]) + "\n"
    with pytest.raises(InputError, match=r"qrels:2: expected 4 columns, found 5"):
        read_qrels(write(tmp_path, "qrels", body))


def test_run_line_missing_its_tag_is_an_error_in_a_large_file(tmp_path):
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i % 100} t\n" for i in range(5000)]
    lines[4321] = "q43 Q0 d4321 22 979\n"
    with pytest.raises(InputError, match=r"big.run:4322: expected 6 columns, found 5"):
        read_run(write(tmp_path, "big.run", "".join(lines)))


def test_tab_separated_qrels_with_spaces_inside_a_field_go_to_the_strict_reader(tmp_path):
    with pytest.raises(InputError, match=r"qrels:1: expected 4 columns, found 5"):
        read_qrels(write(tmp_path, "qrels", "q1\t0\td 1\t1\n"))


def test_a_truncated_gzip_is_a_located_error_not_an_abort(tmp_path):
    from click.testing import CliRunner

    from judged.cli import main

    lines = b"".join(b"q%d Q0 d%d 1 %d.5 tag\n" % (q, d, d) for q in range(40) for d in range(20))
    run = tmp_path / "run.gz"
    packed = gzip.compress(lines)
    run.write_bytes(packed[: len(packed) // 2])
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    result = CliRunner().invoke(main, ["eval", str(run), "--qrels", str(qrels)])
    assert result.exit_code == 1
    message = result.stderr.strip()
    assert message.startswith(f"Error: {run}: cannot read file after line ")
    assert message.endswith("Compressed file ended before the end-of-stream marker was reached "
                            "(expected the whole file; a .gz cut short in copying ends like this)")
