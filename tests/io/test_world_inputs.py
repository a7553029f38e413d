"""Inputs the way the world gives them: infinite scores, pipes and FIFOs, unreadable files, odd last lines.

Each reader is run twice, with the C reader and with the strict Python one
(``judged.io.native._native`` set to ``None``). The comparisons with a
trec_eval binary are skipped without one (put it on PATH or set TREC_EVAL).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from click.testing import CliRunner

import judged.io.native as native
from judged import evaluate
from judged.cli import main
from judged.errors import InputError
from judged.io import read_qrels, read_run
from judged.io.inputs import Run
from judged.io.native import order_by_score

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
needs_trec_eval = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary (put it on PATH or set TREC_EVAL)")
JUDGED = str(Path(sys.executable).with_name("judged"))
INF = math.inf

INF_RUN = (
    "q1 Q0 a 1 -inf r\nq1 Q0 b 2 -inf r\nq1 Q0 c 3 inf r\nq1 Q0 d 4 1e400 r\nq1 Q0 e 5 -1e308 r\n"
    "q1 Q0 f 6 0 r\nq1 Q0 g 7 -INF r\nq2 Q0 a 1 +Infinity r\nq2 Q0 b 2 infinity r\nq2 Q0 c 3 5 r\n"
)
INF_QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 0\nq1 0 d 2\nq1 0 g 1\nq1 0 f 1\nq2 0 b 1\nq2 0 a 0\nq2 0 c 1\n"


@pytest.fixture(params=["native", "strict"])
def reader(request, monkeypatch):
    """Which TREC reader reads: the C one, or the strict Python one alone."""
    if request.param == "strict":
        monkeypatch.setattr(native, "_native", None)
    return request.param


# ---- 1. inf and -inf are scores ------------------------------------------------------------------------


def test_inf_scores_in_a_trec_run_are_the_floats_atof_reads(tmp_path, reader):
    path = tmp_path / "run"
    path.write_text(INF_RUN)
    scores = read_run(path).frame["score"].to_list()
    assert scores == [-INF, -INF, INF, INF, -1e308, 0.0, -INF, INF, INF, 5.0]


def test_nan_is_still_refused_in_a_file_naming_the_line(tmp_path, reader):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 inf r\nq Q0 b 2 -NaN r\n")
    with pytest.raises(InputError, match=r":2: score is NaN: 'q Q0 b 2 -NaN r' \(expected a number; NaN"):
        read_run(path)


def test_tied_infinities_rank_by_the_tie_rule_and_infinities_bound_every_score():
    scores = np.array([-INF, -INF, INF, INF, -1e308, 0.0, -INF, 1e308])
    assert order_by_score(scores, np.array([8])).tolist() == [2, 3, 7, 5, 4, 0, 1, 6]


@pytest.mark.parametrize("ties", ["trec", "best", "worst", "average", "docid", "input"])
def test_every_tie_rule_ranks_infinities_as_finite_stand_ins_in_their_place(ties):
    run = {"q1": {"a": -INF, "b": -INF, "c": INF, "d": INF, "e": 0.5, "f": -INF, "g": 1.0},
           "q2": {"a": INF, "b": INF, "c": -INF, "d": 2.0}}
    stand_in = {-INF: -100.0, INF: 100.0}  # the same order, the same ties
    finite = {q: {d: stand_in.get(s, s) for d, s in docs.items()} for q, docs in run.items()}
    qrels = read_qrels({"q1": {"a": 1, "b": 0, "c": 2, "d": 0, "f": 3}, "q2": {"b": 1, "c": 1, "a": 0}})
    measures = [f"nDCG(ties={ties})@3", f"P(ties={ties})@2", "AP" if ties == "trec" else f"nDCG(ties={ties})"]
    ours, theirs = evaluate(read_run(run), qrels, measures), evaluate(read_run(finite), qrels, measures)
    assert {m: v.tolist() for m, v in ours.values.items()} == {m: v.tolist() for m, v in theirs.values.items()}


def test_json_infinity_as_python_json_writes_it_is_a_score(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"q": {"a": -INF, "b": INF, "c": 1.5}}))  # -Infinity, Infinity
    assert read_run(path).frame["score"].to_list() == [-INF, INF, 1.5]
    path.write_text('{"q": {"a": NaN}}')
    with pytest.raises(InputError, match="score is NaN"):
        read_run(path)


def test_jsonl_infinity_is_a_score(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"qid": "q", "docid": "a", "score": -Infinity}\n{"qid": "q", "docid": "b", "score": 2}\n')
    assert read_run(path).frame["score"].to_list() == [-INF, 2.0]


def test_inf_in_dicts_and_frames_is_a_score():
    assert read_run({"q": {"a": -INF, "b": INF}}).frame["score"].to_list() == [-INF, INF]
    frame = pd.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"], "score": [INF, -INF]})
    assert read_run(frame).frame["score"].to_list() == [INF, -INF]
    polars_frame = pl.DataFrame({"qid": ["q"], "docid": ["a"], "score": [-INF]})
    assert Run.from_frame(polars_frame, "r").frame["score"].to_list() == [-INF]


@needs_trec_eval
@pytest.mark.parametrize("seed", range(6))
def test_a_run_with_infinite_scores_evaluates_as_trec_eval_does(tmp_path, seed, reader):
    rng = np.random.default_rng(seed)
    choices = ["inf", "-inf", "-INF", "Infinity", "1e400", "-1e400", "0", "1", "-1e308", "2.5"]
    lines = [f"q{q} Q0 d{d} {d} {rng.choice(choices)} tag" for q in range(3) for d in rng.permutation(12)[:9]]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    qrels = [f"q{q} 0 d{d} {rng.integers(-1, 3)}" for q in range(3) for d in range(12)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    theirs = subprocess.run([TREC_EVAL, "-q", "-m", "all_trec", *files], capture_output=True, text=True, check=True)
    ours = CliRunner().invoke(main, ["trec_eval", "-q", "-m", "all_trec", *files])
    assert ours.exit_code == 0, ours.output
    keep = [line for line in theirs.stdout.splitlines() if not line.startswith("rbp")]
    assert [line for line in ours.stdout.splitlines() if not line.startswith("rbp")] == keep


# ---- 2. pipes, FIFOs and '-' are read once --------------------------------------------------------------


def _fifo(tmp_path: Path, name: str, data: bytes) -> tuple[Path, threading.Thread]:
    """A FIFO and a started thread writing ``data`` into it (once, as a pipe gives it)."""
    path = tmp_path / name
    os.mkfifo(path)

    def write() -> None:
        with open(path, "wb") as fifo:
            fifo.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return path, writer


def _big_qrels() -> bytes:
    """Qrels well past the 4,096 bytes a format probe would take, with CRLF line ends."""
    return "".join(f"q{q} 0 doc-{d:05d} {d % 3}\r\n" for q in range(5) for d in range(400)).encode()


def _big_run() -> bytes:
    return "".join(f"q{q} Q0 doc-{d:05d} {d} {-d / 7} the-tag\n" for q in range(5) for d in range(400)).encode()


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_qrels_through_a_fifo_are_read_whole_and_hashed(tmp_path, reader, packed):
    data = gzip.compress(_big_qrels()) if packed else _big_qrels()
    fifo, writer = _fifo(tmp_path, "qrels", data)
    qrels = read_qrels(fifo)
    writer.join()
    (tmp_path / "file").write_bytes(data)
    assert qrels.frame.equals(read_qrels(tmp_path / "file").frame) and len(qrels) == 2000
    assert qrels.source.path == str(fifo) and qrels.source.sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_a_run_through_a_fifo_keeps_its_tag_and_its_rows(tmp_path, reader, packed):
    data = gzip.compress(_big_run()) if packed else _big_run()
    fifo, writer = _fifo(tmp_path, "run", data)
    run = read_run(fifo)
    writer.join()
    assert (run.name, len(run), run.source.sha256) == ("the-tag", 2000, hashlib.sha256(data).hexdigest())


def test_a_bad_line_through_a_fifo_is_located_at_its_own_line(tmp_path, reader):
    fifo, writer = _fifo(tmp_path, "qrels", _big_qrels() + b"q9 0 d x\n")
    with pytest.raises(InputError, match=r"qrels:2001: grade is not an integer: 'q9 0 d x'"):
        read_qrels(fifo)
    writer.join()


def test_a_repeated_document_through_a_fifo_shows_its_line(tmp_path, reader):
    fifo, writer = _fifo(tmp_path, "run", b"q Q0 a 1 2 r\nq Q0 b 2 1 r\nq Q0 a 3 0 r\n")
    with pytest.raises(InputError, match=r"run:3: document appears twice .*: 'q Q0 a 3 0 r'"):
        read_run(fifo)
    writer.join()


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_json_through_a_fifo(tmp_path, suffix):
    text = '{"q": {"a": 1.5, "b": -Infinity}}' if suffix == ".json" else '{"q": {"a": 1.5, "b": -Infinity}}\n'
    fifo, writer = _fifo(tmp_path, "run" + suffix, text.encode())
    run = read_run(fifo)
    writer.join()
    assert run.frame["score"].to_list() == [1.5, -INF]
    assert run.source.sha256 == hashlib.sha256(text.encode()).hexdigest()


def _parquet_bytes() -> bytes:
    buffer = io.BytesIO()
    pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.5, -INF]}).write_parquet(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("format, data", [
    ("csv", b"query_id,doc_id,score\nq,a,1.5\nq,b,-inf\n"),
    ("tsv", b"query_id\tdoc_id\tscore\nq\ta\t1.5\nq\tb\t-inf\n"),
    ("csv", gzip.compress(b"query_id,doc_id,score\nq,a,1.5\nq,b,-inf\n")),
    ("parquet", _parquet_bytes()),
])
def test_tables_through_a_fifo_are_read_once_and_hashed(tmp_path, format, data):
    fifo, writer = _fifo(tmp_path, "run", data)
    run = read_run(fifo, format=format)
    writer.join()
    assert run.frame.rows() == [("q", "a", 1.5), ("q", "b", -INF)]
    assert run.source.sha256 == hashlib.sha256(data).hexdigest() and run.id_columns == ("query_id", "doc_id")


@pytest.mark.parametrize("reader_name, data, expected", [
    ("read_prefs", b"q1 u1 s1 d1 2\nq1 u1 s1 d2 0\n", [("q1", "u1", "s1", "d1", 2.0), ("q1", "u1", "s1", "d2", 0.0)]),
    ("read_qrels_prefs", b"q1 u1 d1 2\nq1 u1 d2 0\n", [("q1", "u1", "0", "d1", 2.0), ("q1", "u1", "0", "d2", 0.0)]),
])
def test_preferences_through_a_fifo(tmp_path, reader_name, data, expected):
    import judged.io.prefs as prefs

    fifo, writer = _fifo(tmp_path, "prefs", data)
    read = getattr(prefs, reader_name)(fifo)
    writer.join()
    assert read.frame.rows() == expected and read.source.sha256 == hashlib.sha256(data).hexdigest()


def test_judgment_groups_and_zscores_through_a_fifo(tmp_path):
    from judged.io.prefs import read_qrels_jg
    from judged.io.zscores import read_zscores

    data = b"q1 g1 d1 1\nq1 g2 d1 0\n"
    fifo, writer = _fifo(tmp_path, "jg", data)
    groups = read_qrels_jg(fifo)
    writer.join()
    assert sorted(groups.groups) == ["g1", "g2"] and groups.source.sha256 == hashlib.sha256(data).hexdigest()
    fifo, writer = _fifo(tmp_path, "z", b"q1 map 0.25 0.5\n")
    zscores = read_zscores(fifo)
    writer.join()
    assert zscores.convert("map", ["q1"], [0.75]).tolist() == [1.0]


@pytest.mark.parametrize("reader_name", ["read_prefs", "read_qrels_jg"])
def test_other_trec_formats_refuse_a_directory_or_a_missing_file_in_one_line(tmp_path, reader_name):
    import judged.io.prefs as prefs
    from judged.io.zscores import read_zscores

    for read in (getattr(prefs, reader_name), read_zscores):
        with pytest.raises(InputError) as caught:
            read(tmp_path)
        assert str(caught.value) == (f"{tmp_path}: cannot read file: is a directory, not a file "
                                     "(expected a readable file)")
        with pytest.raises(InputError) as caught:
            read(tmp_path / "nope")
        assert str(caught.value) == f"{tmp_path / 'nope'}: no such file"


def _piped(data: bytes) -> int:
    """The reading end of a pipe another thread fills with ``data``, as ``<(...)`` gives one."""
    read_end, write_end = os.pipe()

    def write() -> None:
        with open(write_end, "wb") as pipe:
            pipe.write(data)

    threading.Thread(target=write, daemon=True).start()
    return read_end


def test_judged_eval_reads_dev_fd_pipes_for_run_and_qrels():
    run, qrels = _piped(_big_run()), _piped(_big_qrels())
    done = subprocess.run(
        [JUDGED, "eval", "-q", f"/dev/fd/{qrels}", "-m", "P@5", "-f", "tsv", f"/dev/fd/{run}"],
        pass_fds=(run, qrels), capture_output=True, text=True,
    )
    os.close(run), os.close(qrels)
    assert done.returncode == 0, done.stderr
    assert "the-tag" in done.stdout and "Traceback" not in done.stderr


def test_judged_eval_reads_a_run_from_standard_input(tmp_path):
    (tmp_path / "qrels").write_bytes(_big_qrels())
    done = subprocess.run([JUDGED, "eval", "-q", str(tmp_path / "qrels"), "-m", "P@5", "-f", "tsv", "-"],
                          input=_big_run(), capture_output=True)
    assert done.returncode == 0, done.stderr
    assert b"the-tag" in done.stdout


@needs_trec_eval
def test_judged_trec_eval_reads_pipes_as_trec_eval_reads_files(tmp_path):
    (tmp_path / "qrels").write_bytes(_big_qrels())
    (tmp_path / "run").write_bytes(_big_run())
    theirs = subprocess.run([TREC_EVAL, "-q", "-m", "all_trec", str(tmp_path / "qrels"), str(tmp_path / "run")],
                            capture_output=True, text=True, check=True)
    run, qrels = _piped(_big_run()), _piped(_big_qrels())
    ours = subprocess.run([JUDGED, "trec_eval", "-q", "-m", "all_trec", f"/dev/fd/{qrels}", f"/dev/fd/{run}"],
                          pass_fds=(run, qrels), capture_output=True, text=True)
    os.close(run), os.close(qrels)
    assert ours.returncode == 0, ours.stderr
    keep = [line for line in theirs.stdout.splitlines() if not line.startswith("rbp")]
    assert [line for line in ours.stdout.splitlines() if not line.startswith("rbp")] == keep


# ---- 3. a file that cannot be read is one line ----------------------------------------------------------


def test_a_directory_given_as_a_run_is_a_one_line_error(tmp_path):
    (tmp_path / "qrels").write_text("q 0 a 1\n")
    done = subprocess.run([JUDGED, "eval", "-q", str(tmp_path / "qrels"), str(tmp_path)], capture_output=True,
                          text=True)
    assert done.returncode == 1
    expected = f"Error: {tmp_path}: cannot read file: is a directory, not a file (expected a readable file)"
    assert done.stderr.strip() == expected
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["run", "run.json", "run.jsonl"])
def test_a_file_the_system_refuses_is_a_one_line_error_naming_it_and_the_reason(tmp_path, monkeypatch, name):
    path = tmp_path / name
    path.write_text("q Q0 a 1 1 r\n")
    real_open = open

    def refusing(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refusing)
    with pytest.raises(InputError) as caught:
        read_run(path)
    assert str(caught.value) == f"{path}: cannot read file: Permission denied (expected a readable file)"


@pytest.fixture
def shared_folder():
    """A folder another user can enter (pytest's own are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="judged-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def _as_nobody(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command],
                          capture_output=True, text=True, cwd="/")


def _run_only_root_reaches(folder: Path, closed: str) -> Path:
    """A run that user nobody may not read: the file itself closed, or the folder it is in."""
    inner = folder / "inner"
    inner.mkdir(mode=0o700 if closed == "folder" else 0o755)
    run = inner / "run"
    run.write_text("q Q0 a 1 1 r\n")
    run.chmod(0o600 if closed == "file" else 0o644)
    return run


needs_root = pytest.mark.skipif(shutil.which("setpriv") is None or os.geteuid() != 0, reason="needs root, setpriv")


@needs_root
@pytest.mark.parametrize("closed", ["file", "folder"])
def test_a_file_another_user_cannot_read_is_one_line_naming_it_and_the_reason(shared_folder, closed):
    run = _run_only_root_reaches(shared_folder, closed)
    done = _as_nobody(sys.executable, "-c", f"from judged.io import read_run; read_run({str(run)!r})")
    if "ModuleNotFoundError" in done.stderr:
        pytest.skip("judged cannot be imported as nobody here")
    assert done.stderr.strip().splitlines()[-1] == (
        f"judged.errors.InputError: {run}: cannot read file: Permission denied (expected a readable file)")


@needs_root
def test_a_run_in_a_closed_folder_is_exit_code_1_from_judged_eval(shared_folder):
    run = _run_only_root_reaches(shared_folder, "folder")
    (shared_folder / "qrels").write_text("q 0 a 1\n")
    (shared_folder / "qrels").chmod(0o644)
    if _as_nobody(JUDGED, "--version").returncode != 0:
        pytest.skip("judged does not start as nobody here")
    done = _as_nobody(JUDGED, "eval", "-q", str(shared_folder / "qrels"), str(run))
    assert (done.returncode, done.stderr.strip()) == (
        1, f"Error: {run}: cannot read file: Permission denied (expected a readable file)")


# ---- 4. one rule for a run's name -----------------------------------------------------------------------

TAG_CASES = {
    "last-line-over-64k": b"q1 Q0 d1 1 2 tagA\nq1 Q0 d2 2 1 tagB " + b"x" * 70000 + b"\n",
    "comments-over-64k": b"q1 Q0 d1 1 2 tagA\n" + (b"# " + b"c" * 1000 + b"\n") * 80,
    "bare-cr-in-last-line": b"q1 Q0 d1 1 2 tagA\nq1 Q0 d2 2 1 tagB\rtail\n",
    "cr-between-fields": b"q1 Q0 d1 1 2 tagA\nq1 Q0 d2 2 1\rtagB",
    "indented-comment-last": b"q1 Q0 d1 1 2 tagA\n \t# q1 Q0 d2 2 1 tagC\n\n",
    "crlf-no-final-newline": b"q1 Q0 d1 1 2 tagA\r\nq1 Q0 d2 2 1 tagB\r\n\r\n",
}
TAGS = {"last-line-over-64k": "tagB", "comments-over-64k": "tagA", "bare-cr-in-last-line": "tagB",
        "cr-between-fields": "tagB", "indented-comment-last": "tagA", "crlf-no-final-newline": "tagB"}


@pytest.mark.parametrize("case", TAG_CASES)
@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_a_runs_name_is_the_tag_of_its_last_data_line(tmp_path, reader, case, packed):
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(TAG_CASES[case]) if packed else TAG_CASES[case])
    assert read_run(path).name == TAGS[case]


@needs_trec_eval
@pytest.mark.parametrize("case", TAG_CASES)
def test_trec_eval_names_the_run_alike(tmp_path, case):
    (tmp_path / "run").write_bytes(TAG_CASES[case])
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    done = subprocess.run([TREC_EVAL, "-m", "runid", str(tmp_path / "qrels"), str(tmp_path / "run")],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split("\t")[-1].strip() == TAGS[case]
