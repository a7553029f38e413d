"""Revision 0007: the targeting log's ``changed_by``, on a store upgraded from 0006 with settings already logged."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

import judged
from judged.judgments import Store
from judged.judgments.engine import create_engine, resolve_url, writing
from judged.judgments.migrate import MIGRATIONS, head
from judged.judgments.worklist import Worklist
from judged.rubric import Level, Rubric


def test_a_store_at_0006_with_logged_settings_upgrades_and_keeps_them_unattributed(db_url):
    engine = create_engine(resolve_url(db_url))
    with writing(engine) as connection:  # a store as judged left it at revision 0006, with two settings logged
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = connection
        command.upgrade(config, "0006")
        connection.exec_driver_sql("INSERT INTO pools (name, created) VALUES ('p', '2026-01-01 00:00:00')")
        connection.exec_driver_sql("INSERT INTO targeted_efforts (pool, measure, created) VALUES "
                                   "('p', 'nDCG@3', '2026-01-01 00:00:01'), ('p', NULL, '2026-01-01 00:00:02')")
    engine.dispose()
    with Store.open(db_url, upgrade=False) as store:
        assert store.schema_status().current == "0006"
        assert store.upgrade()[0] == "0007" and store.schema_status().current == head()
        log = Worklist(store).target_log("p")
        assert [(s.measure, s.changed_by) for s in log] == [("nDCG@3", None), (None, None)]
        assert [s.created.isoformat() for s in log] == ["2026-01-01T00:00:01+00:00", "2026-01-01T00:00:02+00:00"]
        assert store.targets() == {}  # the latest row, a stop, is still the one in force
        with store.engine.connect() as connection:
            columns = {c["name"]: c for c in sa.inspect(connection).get_columns("targeted_efforts")}
        assert columns["changed_by"]["nullable"] and isinstance(columns["changed_by"]["type"], sa.String)


def test_a_setting_made_after_the_upgrade_records_who_made_it(db_url):
    with Store.open(db_url) as store:
        store.add_rubric(Rubric("docs", "1", (0, 1), (Level(0, "no", "no use"), Level(1, "yes", "of use"))))
        runs = [judged.Run.from_dict({"q1": {"a": 2.0, "b": 1.0}}, name="A"),
                judged.Run.from_dict({"q1": {"b": 2.0, "a": 1.0}}, name="B")]
        store.build_pool(runs, depth=2)
        store.assign(["ana"], overlap_queries=0, target="nDCG@2", by="lena")
        store.set_target("default", "P@1")
        store.set_target("default", "off", by="lena")
        log = Worklist(store).target_log("default")
    assert [(s.measure, s.changed_by) for s in log] == [
        ("nDCG(gain=linear,ideal=judged,unjudged=zero,ties=trec,norel=0)@2", "lena"),
        ("P(rel=1,unjudged=zero,ties=trec)@1", None), (None, "lena")]
