"""The few exception types and the documented exit codes.

Exit codes (one contract for every command):
    0  no crash found (or nothing to diagnose)
    1  at least one finding
    2  usage error, unreadable input or invalid rules
    3  a crash that no rule explains
"""

from __future__ import annotations

EXIT_CLEAN = 0
EXIT_FINDING = 1
EXIT_USAGE = 2
EXIT_UNEXPLAINED = 3


class Qwen3DoctorError(Exception):
    """An error shown to the user as one line; `exit_code` says how the process ends."""

    exit_code = EXIT_USAGE


class InputError(Qwen3DoctorError):
    """An input could not be read (missing, a directory, binary, permission denied)."""


class RuleError(Qwen3DoctorError):
    """One or more rule files are invalid. `problems` holds every message, each naming file, line and field."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        head = self.problems[0] if self.problems else "invalid rules"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(head + more)


class UnknownKeyError(Qwen3DoctorError):
    """`explain` was given a key that names no rule."""


class UsageProblem(Qwen3DoctorError):
    """The command line itself is wrong (no command named, an option the command has not)."""
