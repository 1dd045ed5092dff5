"""The entry point: runs the typer app of `commands/` and turns every error into one line and an exit code.

Exit codes: 0 no crash found; 1 at least one finding; 2 usage error, unreadable input or invalid rules;
3 a crash that no rule explains. Over several inputs: 2 if an input named on the command line could not
be read, else 1 if any finding, else 3 if any unexplained crash, else 0.
"""

from __future__ import annotations

import sys

import typer

from .commands import app, err
from .errors import EXIT_CLEAN, EXIT_USAGE, Qwen3DoctorError, RuleError


def main() -> None:
    try:
        rc = app(standalone_mode=False)
        sys.exit(rc if isinstance(rc, int) else EXIT_CLEAN)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except RuleError as exc:
        for p in exc.problems:
            print(p, file=sys.stderr)
        err(f"{len(exc.problems)} problem(s) in the rules; nothing was diagnosed")
        sys.exit(EXIT_USAGE)
    except Qwen3DoctorError as exc:
        err(str(exc))
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err("interrupted")
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(EXIT_CLEAN)
    except Exception as exc:  # noqa: BLE001 - the promise is one line, never a traceback
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(EXIT_USAGE)
        if isinstance(exc, click.exceptions.Abort):
            sys.exit(130)
        err(f"internal error: {exc.__class__.__name__}: {exc} (please report it)")
        sys.exit(EXIT_USAGE)


if __name__ == "__main__":
    main()
