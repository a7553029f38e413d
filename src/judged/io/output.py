"""Writing a text file atomically: a reader sees the old file or the complete new one, never a part.

The library's writers (:func:`judged.report`) and the command line's ``-o``
both use it, so it sits with the other file handling, below every verb.

>>> import tempfile, pathlib
>>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> write_atomic("one\\n", target)
>>> target.read_text()
'one\\n'
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder, then rename it into place.

    The file gets the mode ``open()`` would give it (0666 less the umask); on
    any failure the temporary file is removed and ``path`` is untouched.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600; give the file the mode open() would
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process umask (reading it means setting it, so set it straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
