"""One exception hierarchy for everything judged raises on purpose.

The command line maps :class:`InputError` (bad data) to exit code 1 and
:class:`UsageError` (a bad request: unknown measure, impossible option) to 2.
Both are subclasses of ``ValueError``, so code written for other libraries' errors
(``except ValueError:``) catches them too; :class:`InputTypeError`, data of
the wrong type, is also a ``TypeError``, as Python and pytrec_eval raise there.

>>> issubclass(UsageError, ValueError), issubclass(InputTypeError, TypeError)
(True, True)
"""

from __future__ import annotations


class JudgedError(Exception):
    """Base class of every error judged raises deliberately."""


class UsageError(JudgedError, ValueError):
    """The request itself is wrong: an unknown measure, a bad parameter, conflicting options."""


class ParameterTypeError(UsageError, TypeError):
    """A parameter of the wrong type (a str where a count belongs): a ``TypeError`` as well."""


class MeasureError(UsageError):
    """A measure string or parameter that cannot be understood."""


class InputError(JudgedError, ValueError):
    """Input data that cannot be used, located as precisely as it can be.

    ``str()`` reads ``path:line: problem: 'offending text' (expected ...)`` so a
    user can jump straight to the line.
    """

    def __init__(
        self,
        problem: str,
        *,
        path: str | None = None,
        line: int | None = None,
        text: str | None = None,
        expected: str | None = None,
    ) -> None:
        self.problem = problem
        self.path = path
        self.line = line
        self.text = text
        self.expected = expected
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        message = f"{where}: {self.problem}"
        if self.text is not None:
            shown = self.text if len(self.text) <= 120 else self.text[:117] + "..."
            message += f": {shown!r}"
        if self.expected:
            message += f" (expected {self.expected})"
        return message


class NoJudgedQueriesError(InputError):
    """A run shares no query with the judgments, so there is nothing to score (not 0.0)."""


class InputTypeError(InputError, TypeError):
    """Input of the wrong type (a number where a str belongs, a list for a dict): a ``TypeError`` as well."""
