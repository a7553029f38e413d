"""The TREC input grammar as data: files every reader of runs and qrels must accept or refuse alike.

docs/formats.md states the grammar; this table is its executable form. Each
:class:`Case` is a whole file (most are one or two lines) with either the
``(qid, docid, value)`` rows a reader must produce, in file order, or a
fragment of the error it must raise (``path:line: problem: 'text' (expected
...)``, the fragment being the problem and, where it matters, the line).

The table imports nothing but the standard library, so any reader can be
run through it: tests/io/test_grammar.py runs the strict Python parser and
the native C reader; a Spark reader can loop over :data:`CASES` the same way.

>>> by_name("nbsp-inside-docid").rows
(('q1', 'x\\xa0y', 2.5),)
"""

from __future__ import annotations

from dataclasses import dataclass

Row = tuple[str, str, float | int]


@dataclass(frozen=True)
class Case:
    """One file and what reading it must give.

    ``kind`` is ``run`` or ``qrels``; exactly one of ``rows`` (accepted) and
    ``error`` (refused) is set, and ``line`` is the line a refusal names.
    ``native`` says the C reader takes the file itself rather than leaving it
    to the strict parser (a speed promise, not part of the grammar).
    """

    name: str
    kind: str
    text: bytes
    rows: tuple[Row, ...] | None = None
    error: str | None = None
    line: int | None = None
    native: bool = True


def _run(name: str, text: bytes | str, *rows: Row, native: bool = True) -> Case:
    return Case(name, "run", _bytes(text), rows=rows, native=native)


def _qrels(name: str, text: bytes | str, *rows: Row, native: bool = True) -> Case:
    return Case(name, "qrels", _bytes(text), rows=rows, native=native)


def _refused(name: str, kind: str, text: bytes | str, error: str, line: int | None) -> Case:
    return Case(name, kind, _bytes(text), error=error, line=line, native=False)


def _bytes(text: bytes | str) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8")


BOM = b"\xef\xbb\xbf"
GOOD = "q1 Q0 d0 1 9 run\n"  # a line every reader takes, ahead of the line under test

CASES: tuple[Case, ...] = (
    # ---- fields and whitespace: ASCII whitespace only (trec_eval's isspace() in the C locale) ----
    _run("plain", "q1 Q0 d1 1 2.5 run\n", ("q1", "d1", 2.5)),
    _run("tabs-and-runs-of-spaces", "q1\tQ0 \t d1   1\t\t2.5 run\n", ("q1", "d1", 2.5)),
    _run("leading-and-trailing-whitespace", "  q1 Q0 d1 1 2.5 run \t\n", ("q1", "d1", 2.5)),
    _run("vertical-tab-and-form-feed-separate", "q1\vQ0\fd1 1 2.5 run\n", ("q1", "d1", 2.5)),
    _run("carriage-return-separates", "q1\rQ0 d1 1 2.5 run\n", ("q1", "d1", 2.5)),
    _run("crlf-line-ends", "q1 Q0 d1 1 2.5 run\r\nq1 Q0 d2 2 1.5 run\r\n", ("q1", "d1", 2.5), ("q1", "d2", 1.5)),
    _run("last-line-without-line-end", "q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 1.5 run", ("q1", "d1", 2.5), ("q1", "d2", 1.5)),
    _run("fields-after-the-tag-ignored", "q1 Q0 d1 1 2.5 run extra fields\n", ("q1", "d1", 2.5)),
    _run("blank-and-whitespace-lines", "\n \t\nq1 Q0 d1 1 2.5 run\n\r\n\n", ("q1", "d1", 2.5)),
    _run("nbsp-inside-docid", "q1 Q0 x\u00a0y 1 2.5 run\n", ("q1", "x\u00a0y", 2.5)),
    _run("em-space-inside-docid", "q1 Q0 x\u2003y 1 2.5 run\n", ("q1", "x\u2003y", 2.5)),
    _run("ideographic-space-inside-docid", "q1 Q0 x\u3000y 1 2.5 run\n", ("q1", "x\u3000y", 2.5)),
    _run("line-separator-inside-docid", "q1 Q0 x\u2028y 1 2.5 run\n", ("q1", "x\u2028y", 2.5)),
    _run("next-line-inside-docid", "q1 Q0 x\u0085y 1 2.5 run\n", ("q1", "x\u0085y", 2.5)),
    _run("file-separators-inside-docid", "q1 Q0 a\x1cb\x1dc\x1ed\x1fe 1 2.5 run\n",
         ("q1", "a\x1cb\x1dc\x1ed\x1fe", 2.5), native=False),
    _run("other-control-bytes-inside-docid", "q1 Q0 a\x01b\x7fc 1 2.5 run\n", ("q1", "a\x01b\x7fc", 2.5), native=False),
    _run("zero-width-no-break-space-inside-a-line", "q1 Q0 x\ufeffy 1 2.5 run\n", ("q1", "x\ufeffy", 2.5)),
    _run("non-ascii-letters", "q\u00e9 Q0 \u6587\u66f8 1 2.5 run\n", ("q\u00e9", "\u6587\u66f8", 2.5)),
    _run("long-docid", "q1 Q0 clueweb09-en0000-00-00000 1 2.5 run\n", ("q1", "clueweb09-en0000-00-00000", 2.5)),
    _refused("nbsp-is-not-a-separator", "run", "q1 Q0 d1\u00a01 2.5 run\n", "expected 6 columns, found 5", 1),
    _refused("short-line", "run", GOOD + "q1 Q0 d1 1 2.5\n", "expected 6 columns, found 5", 2),
    _qrels("qrels-plain", "q1 0 d1 2\n", ("q1", "d1", 2)),
    _qrels("qrels-nbsp-inside-docid", "q1 0 x\u00a0y 1\n", ("q1", "x\u00a0y", 1)),
    _refused("qrels-extra-field", "qrels", "q1 0 d1 2 x\n", "expected 4 columns, found 5", 1),
    _refused("qrels-nbsp-after-grade", "qrels", "q1 0 d1 2\u00a0x\n", "grade is not an integer", 1),
    # ---- comments: a line whose first byte is '#' (in a run, first after whitespace), whatever follows ----
    _run("comment-lines", "# a comment\nq1 Q0 d1 1 2.5 run\n#another\n", ("q1", "d1", 2.5)),
    _run("comment-with-undecodable-bytes", b"#\xff\xfe not UTF-8\nq1 Q0 d1 1 2.5 run\n", ("q1", "d1", 2.5)),
    _run("hash-inside-docid-is-data", "q1 Q0 doc#7 1 2.5 run\n", ("q1", "doc#7", 2.5)),
    _run("indented-hash-is-a-comment-in-a-run", "q1 Q0 d1 1 2.5 run\n #q Q0 d2 2 1.5 run\n\t# note\n",
         ("q1", "d1", 2.5)),
    _qrels("indented-hash-is-data-in-qrels", " #q 0 d1 1\n", ("#q", "d1", 1)),
    _refused("only-comments", "run", "# nothing\n#\n", "file has no data lines", None),
    _refused("empty-file", "run", "", "file has no data lines", None),
    # ---- scores: ASCII digits, sign, point, exponent ----
    _run("score-forms", "q Q0 a 1 +3 r\nq Q0 b 2 .5 r\nq Q0 c 3 5. r\nq Q0 d 4 -1E3 r\nq Q0 e 5 1e-400 r\n",
         ("q", "a", 3.0), ("q", "b", 0.5), ("q", "c", 5.0), ("q", "d", -1000.0), ("q", "e", 0.0)),
    _run("score-leading-zeros", "q Q0 a 1 0009 r\n", ("q", "a", 9.0)),
    _run("score-many-digits", "q Q0 a 1 0.1000000000000000055511151231257827 r\n", ("q", "a", 0.1)),
    _refused("score-underscore", "run", GOOD + "q1 Q0 d1 1 1_0 run\n", "score is not a number", 2),
    _refused("score-arabic-indic-digit", "run", GOOD + "q1 Q0 d1 1 \u0663 run\n", "score is not a number", 2),
    _refused("score-fullwidth-digit", "run", GOOD + "q1 Q0 d1 1 \uff13 run\n", "score is not a number", 2),
    _refused("score-hex-float", "run", GOOD + "q1 Q0 d1 1 0x1p3 run\n", "score is not a number", 2),
    _refused("score-word", "run", GOOD + "q1 Q0 d1 1 high run\n", "score is not a number", 2),
    _refused("score-lone-point", "run", GOOD + "q1 Q0 d1 1 . run\n", "score is not a number", 2),
    _refused("score-exponent-without-digits", "run", GOOD + "q1 Q0 d1 1 1e run\n", "score is not a number", 2),
    _refused("score-double-sign", "run", GOOD + "q1 Q0 d1 1 --1 run\n", "score is not a number", 2),
    # inf ranks as the float it is (rerankers mask candidates with it), as trec_eval's atof reads it
    _run("score-inf", GOOD + "q1 Q0 d1 1 inf run\n", ("q1", "d0", 9.0), ("q1", "d1", float("inf"))),
    _run("score-infinity", GOOD + "q1 Q0 d1 1 -Infinity run\n", ("q1", "d0", 9.0), ("q1", "d1", float("-inf"))),
    _run("score-inf-any-case", "q Q0 a 1 +INF r\nq Q0 b 2 -iNf r\nq Q0 c 3 InFiNiTy r\n",
         ("q", "a", float("inf")), ("q", "b", float("-inf")), ("q", "c", float("inf"))),
    _run("score-overflows", GOOD + "q1 Q0 d1 1 -1e400 run\n", ("q1", "d0", 9.0), ("q1", "d1", float("-inf"))),
    _run("score-huge-integer", GOOD + "q1 Q0 d1 1 1" + "0" * 5000 + " run\n",
         ("q1", "d0", 9.0), ("q1", "d1", float("inf"))),
    _refused("score-nan", "run", GOOD + "q1 Q0 d1 1 NaN run\n", "score is NaN", 2),
    _refused("score-signed-nan", "run", GOOD + "q1 Q0 d1 1 -nan run\n", "score is NaN", 2),
    _refused("score-inf-prefix", "run", GOOD + "q1 Q0 d1 1 infin run\n", "score is not a number", 2),
    # ---- grades: ASCII digits and sign, 64 bits ----
    _qrels("grade-forms", "q 0 a +2\nq 0 b -1\nq 0 c 0003\n", ("q", "a", 2), ("q", "b", -1), ("q", "c", 3)),
    _qrels("grade-int64-limits", "q 0 a 9223372036854775807\nq 0 b -9223372036854775808\n",
           ("q", "a", 2**63 - 1), ("q", "b", -(2**63)), native=False),
    _refused("grade-past-int64", "qrels", "q 0 a 9223372036854775808\n", "grade is out of range", 1),
    _refused("grade-huge", "qrels", "q 0 a " + "9" * 5000 + "\n", "grade is out of range", 1),
    _refused("grade-fraction", "qrels", "q 0 a 1.0\n", "grade is not an integer", 1),
    _refused("grade-underscore", "qrels", "q 0 a 1_0\n", "grade is not an integer", 1),
    _refused("grade-arabic-indic-digit", "qrels", "q 0 a \u0663\n", "grade is not an integer", 1),
    _refused("grade-exponent", "qrels", "q 0 a 1e2\n", "grade is not an integer", 1),
    # ---- encoding: UTF-8 without a byte-order mark, no NUL ----
    _refused("utf8-bom", "run", BOM + b"q01 Q0 d1 1 2.5 run\n", "file starts with a UTF-8 byte-order mark", 1),
    _refused("utf8-bom-before-a-comment", "run", BOM + b"# header\nq01 Q0 d1 1 2.5 run\n",
             "file starts with a UTF-8 byte-order mark", 1),
    _refused("qrels-utf8-bom", "qrels", BOM + b"q01 0 d1 1\n", "file starts with a UTF-8 byte-order mark", 1),
    _refused("utf16-bom", "qrels", "q01 0 d1 1\n".encode("utf-16"), "file starts with a UTF-16 byte-order mark", 1),
    _refused("undecodable-bytes", "run", GOOD.encode() + b"q1 Q0 d\xff 1 2.5 run\n", "undecodable bytes", 2),
    _refused("nul-byte", "run", GOOD + "q1 Q0 d\x00x 1 2.5 run\n", "NUL byte", 2),
)


def by_name(name: str) -> Case:
    """The case called ``name``."""
    return next(case for case in CASES if case.name == name)


__all__ = ["BOM", "CASES", "Case", "by_name"]
