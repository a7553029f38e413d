"""Every judgment-store command, gathered for registration in :mod:`judged.cli`."""

from judged.cli.adjudicate_command import adjudicate_command
from judged.cli.assign_command import assign_command
from judged.cli.db_command import db_command
from judged.cli.import_command import import_command
from judged.cli.judge_command import judge_command
from judged.cli.judgment_sets_command import export_command, freeze_command
from judged.cli.pool_command import pool_command

STORE_COMMANDS = (
    db_command, import_command, pool_command, assign_command, judge_command, adjudicate_command, freeze_command,
    export_command,
)
