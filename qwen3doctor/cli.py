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


def _click_class(name: str) -> type:
    """A class of the click that typer runs on, found through what typer itself exports. A typer that depends
    on click re-exports click's `BadParameter`; a later one that vendors click (0.26 and on) exports its
    copy's. Either way its bases are that click's `UsageError` and `ClickException`, so there is no
    `import click` (not installed beside a typer that vendors it)."""
    return next((c for c in typer.BadParameter.__mro__ if c.__name__ == name), typer.BadParameter)


def usage_message(exc: Exception) -> str:
    """One line for a click usage error: click's message, and where the help is (`qwen3doctor diagnose --help`)."""
    text = " ".join(str(exc.format_message()).split()).rstrip(".")  # type: ignore[attr-defined]
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else _command_path(sys.argv[1:])
    return f"{text[:1].lower()}{text[1:]} (see `{path} --help`)"


def _command_path(args: list[str]) -> str:
    """'qwen3doctor rules lint' from the command line, for an error click raised without its context."""
    words, command = ["qwen3doctor"], typer.main.get_command(app)
    for arg in args:
        sub = getattr(command, "commands", {}).get(arg)
        if arg.startswith("-") or sub is None:
            break
        words.append(arg)
        command = sub
    return " ".join(words)


def main() -> None:
    click_error, usage_error = _click_class("ClickException"), _click_class("UsageError")
    try:
        rc = app(standalone_mode=False)
        sys.exit(rc if isinstance(rc, int) else EXIT_CLEAN)
    except SystemExit as exc:
        # typer's --install-completion / --show-completion end the process themselves, with 1 for a shell they
        # do not support ("Shell sh not supported."): 1 means a finding here, so that becomes a usage error
        completing = any(a.startswith(("--install-completion", "--show-completion")) for a in sys.argv[1:])
        raise SystemExit(EXIT_USAGE if completing and exc.code not in (0, None) else exc.code) from None
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
    except (KeyboardInterrupt, typer.Abort):  # click turns Ctrl-C (and EOF at a prompt) into Abort
        err("interrupted")
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(EXIT_CLEAN)
    except usage_error as exc:
        err(usage_message(exc))
        sys.exit(EXIT_USAGE)
    except click_error as exc:  # e.g. a file option that cannot be opened
        err(" ".join(str(exc.format_message()).split()))  # type: ignore[attr-defined]
        sys.exit(EXIT_USAGE)
    except Exception as exc:  # noqa: BLE001 - the promise is one line, never a traceback
        err(f"internal error: {exc.__class__.__name__}: {exc} (please report it)")
        sys.exit(EXIT_USAGE)


if __name__ == "__main__":
    main()
