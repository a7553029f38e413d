"""Read a rubric from TOML (always) or YAML (when PyYAML is installed), keeping each level's line in the file.

Both formats hold the same keys: ``name``, ``version``, ``scale = [lowest,
highest]`` and a list ``level`` (``levels`` is accepted too) of tables with
``grade``, ``label`` and ``description``. Structural problems (not TOML, a
level without an integer grade, a malformed scale) are :class:`InputError`
naming the file and line; problems of content (a missing level, comparative
wording) are left to :func:`judged.rubric.check_rubric`.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from judged.errors import InputError, UsageError
from judged.rubric.model import Level, Rubric

_TOML_LEVEL = re.compile(r"^[ \t]*\[\[[ \t]*levels?[ \t]*\]\][ \t]*(#.*)?$", re.MULTILINE)
_TOML_SCALE = re.compile(r"^[ \t]*scale[ \t]*=", re.MULTILINE)
_TOML_ERROR_LINE = re.compile(r"at line (\d+)")


def load_rubric(path: str | Path) -> Rubric:
    r"""Read the rubric at ``path``: ``.yaml``/``.yml`` as YAML, anything else as TOML.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
    ...     _ = f.write('name = "r"\nversion = "1"\nscale = [0, 1]\n'
    ...                 '[[level]]\ngrade = 0\nlabel = "off topic"\ndescription = "The user can do nothing with it."\n'
    ...                 '[[level]]\ngrade = 1\nlabel = "answers"\ndescription = "The user can complete the task."\n')
    >>> load_rubric(f.name).grades
    (0, 1)
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("no such rubric file", path=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text ({err.reason})", path=str(path)) from None
    if path.suffix.lower() in (".yaml", ".yml"):
        data, lines = _parse_yaml(text, str(path))
    else:
        data, lines = _parse_toml(text, str(path))
    return rubric_from_data(data, path=str(path), text=text, lines=lines)


def rubric_from_data(data, *, path: str | None, text: str | None,
                     lines: tuple[list[int], int | None] | None = None) -> Rubric:
    """Validate a parsed rubric mapping; ``lines`` holds each level's start line and the scale's line."""
    where = path or "<rubric>"
    if not isinstance(data, dict):
        raise InputError("a rubric must be a table of keys", path=where, expected="name, version, scale and level")
    if "level" in data and "levels" in data:
        raise InputError("both 'level' and 'levels' are given", path=where, expected="one list of levels")
    raw_levels = data.get("level", data.get("levels"))
    if not isinstance(raw_levels, list) or not raw_levels:
        raise InputError("the rubric has no levels", path=where,
                         expected="one [[level]] table per grade, with grade, label and description")
    level_lines: list[int | None] = list(lines[0]) if lines else []
    scale_line = lines[1] if lines else None
    if len(level_lines) != len(raw_levels):
        level_lines = [None] * len(raw_levels)
    levels = tuple(_level(raw, where, line) for raw, line in zip(raw_levels, level_lines))
    return Rubric(
        name=str(data.get("name", Path(path).stem if path else "rubric")),
        version=str(data.get("version", "")),
        scale=_scale(data.get("scale"), where, scale_line),
        levels=levels,
        path=path,
        text=text,
        scale_line=scale_line,
    )


def _level(raw, where: str, line: int | None) -> Level:
    if not isinstance(raw, dict):
        raise InputError("a level must be a table", path=where, line=line, text=repr(raw),
                         expected="grade, label and description")
    grade = raw.get("grade")
    if isinstance(grade, bool) or not isinstance(grade, int):
        raise InputError("level has no integer grade", path=where, line=line, text=repr(grade),
                         expected="grade = an integer such as 0, 1, 2 or 3")
    texts = {}
    for key in ("label", "description"):
        value = raw.get(key, "")
        if not isinstance(value, str):
            raise InputError(f"level {grade}: {key} is not text", path=where, line=line, text=repr(value),
                             expected=f"{key} = a string")
        texts[key] = value.strip()
    return Level(grade, texts["label"], texts["description"], line)


def _scale(raw, where: str, line: int | None) -> tuple[int, int] | None:
    if raw is None:
        return None
    ok = (isinstance(raw, list) and len(raw) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) for v in raw) and raw[0] < raw[1])
    if not ok:
        raise InputError("scale is not [lowest, highest]", path=where, line=line, text=repr(raw),
                         expected="two integers, the lowest grade first, e.g. scale = [0, 3]")
    return raw[0], raw[1]


def _parse_toml(text: str, path: str):
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = _TOML_ERROR_LINE.search(str(err))
        line = int(found.group(1)) if found else None
        if line is None and "end of document" in str(err):
            line = max(len(text.splitlines()), 1)
        raise InputError(f"invalid TOML: {err}", path=path, line=line) from None
    level_lines = [_line_of(text, match.start()) for match in _TOML_LEVEL.finditer(text)]
    scale = _TOML_SCALE.search(text)
    return data, (level_lines, _line_of(text, scale.start()) if scale else None)


def _parse_yaml(text: str, path: str):
    try:
        import yaml
    except ImportError:
        raise UsageError("YAML rubrics need PyYAML (pip install pyyaml); or write the rubric in TOML.") from None
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(f"invalid YAML: {getattr(err, 'problem', None) or err}", path=path,
                         line=mark.line + 1 if mark else None) from None
    level_lines: list[int] = []
    scale_line = None
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if key.value in ("level", "levels") and isinstance(value, yaml.SequenceNode):
                level_lines = [item.start_mark.line + 1 for item in value.value]
            elif key.value == "scale":
                scale_line = key.start_mark.line + 1
    return data, (level_lines, scale_line)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
