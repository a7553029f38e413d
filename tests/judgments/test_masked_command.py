"""A password in a ``--db`` URL never reaches the recorded command line: eval's JSON and the HTML report."""

from __future__ import annotations

import json
import sys

import sqlalchemy as sa
from click.testing import CliRunner

from judged.cli import main
from judged.judgments import Store

SECRET = "s3cret-pw"


def _frozen_store_with_password(postgres_url: str, examples) -> str:
    with Store.open(postgres_url) as store:
        store.import_qrels(examples / "qrels.txt", assessor="nist")
        store.freeze("nist")
    # the test server trusts loopback, so any password connects: the point is what gets recorded
    return sa.engine.make_url(postgres_url).set(password=SECRET).render_as_string(hide_password=False)


def _run(monkeypatch, args: list[str]):
    monkeypatch.setattr(sys, "argv", ["judged", *args])
    return CliRunner().invoke(main, args)


def test_eval_json_records_the_command_with_the_password_masked(postgres_url, examples, monkeypatch):
    db = _frozen_store_with_password(postgres_url, examples)
    args = ["eval", str(examples / "runs" / "bm25.run"), "--judgments", "nist@1", f"--db={db}", "-m", "nDCG@10",
            "--format", "json"]
    result = _run(monkeypatch, args)
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    document = json.loads(result.output)
    recorded = [part for part in json.dumps(document).split('"') if "--db=" in part]
    assert recorded and all(":***@" in part for part in recorded)


def test_the_html_report_never_shows_the_password(postgres_url, examples, monkeypatch, tmp_path):
    db = _frozen_store_with_password(postgres_url, examples)
    out = tmp_path / "report.html"
    args = ["report", str(examples / "runs" / "bm25.run"), str(examples / "runs" / "dense.run"), "--judgments",
            "nist@1", "--db", db, "-o", str(out), "--permutations", "200", "--resamples", "200"]
    result = _run(monkeypatch, args)
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert SECRET not in html
    assert html.count(":***@") >= 1
