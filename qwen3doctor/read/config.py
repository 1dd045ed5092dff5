"""Project settings for CI runs: `[tool.qwen3doctor]` in pyproject.toml, a `.qwen3doctor.toml`, and the
QWEN3DOCTOR_IGNORE environment variable.

    # pyproject.toml                          # .qwen3doctor.toml (same keys, top level or [tool.qwen3doctor])
    [tool.qwen3doctor]                        fail-on = "known"
    fail-on = "known"                         ignore = ["vllm#34948"]
    ignore = [
      "vllm#34948",                                    # a reference, a rule id or alias,
      { ref = "fp1-3a9c0e7d12", reason = "flaky" },    # or a fingerprint; a reason is shown with it
    ]
    redact-hosts = true
    jobs = 4

The files are looked for in the current folder and its parents, up to the repository root (a folder
holding `.git`); `.qwen3doctor.toml` wins over `pyproject.toml` in the same folder, and the nearest folder
with either wins. Precedence for single values: command line > `.qwen3doctor.toml` > `pyproject.toml`.
Ignore lists add up: `--ignore` (repeatable) + QWEN3DOCTOR_IGNORE (comma or whitespace separated) + the file.
An invalid file is a usage error (exit 2) naming the file and key.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

IGNORE_ENV = "QWEN3DOCTOR_IGNORE"
FAIL_ON = ("any", "known", "high", "never")
KEYS = ("fail-on", "ignore", "redact-hosts", "jobs", "rules", "disable")


@dataclass(frozen=True)
class Ignore:
    """One accepted finding or crash, and where the acceptance came from."""

    ref: str  # as written: vllm#34948, a rule id / alias, or fp1-...
    reason: str = ""
    origin: str = ""  # "--ignore", "QWEN3DOCTOR_IGNORE", or the file


@dataclass
class Config:
    """The settings of one source (a file, the environment, the command line) before they are merged."""

    fail_on: str | None = None
    ignore: list[Ignore] = field(default_factory=list)
    redact_hosts: bool | None = None
    jobs: int | None = None
    rules: list[str] = field(default_factory=list)
    disable: list[str] = field(default_factory=list)
    source: str | None = None  # the file it came from


def find_file(start: Path | None = None) -> Path | None:
    """The nearest .qwen3doctor.toml, or pyproject.toml with a [tool.qwen3doctor] table."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        dotfile = folder / ".qwen3doctor.toml"
        if dotfile.is_file():
            return dotfile
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _has_table(pyproject):
            return pyproject
        if (folder / ".git").exists():
            break
    return None


def _has_table(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r"^\s*\[\s*tool\s*\.\s*qwen3doctor\s*[\].]", text, re.M) is not None


def load(path: Path | None = None, *, environ: dict | None = None) -> Config:
    """The settings of the nearest file (or `path`) plus QWEN3DOCTOR_IGNORE."""
    environ = os.environ if environ is None else environ
    path = path if path is not None else find_file()
    config = Config()
    if path is not None:
        config = _read(path)
    for ref in split_refs(environ.get(IGNORE_ENV, "")):
        config.ignore.append(Ignore(ref, "", IGNORE_ENV))
    return config


def split_refs(text: str) -> list[str]:
    return [p for p in re.split(r"[\s,]+", text or "") if p]


def _read(path: Path) -> Config:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib

    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{where}: cannot read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("qwen3doctor") if isinstance(data.get("tool"), dict) else None
    if table is None:
        table = {} if path.name == "pyproject.toml" else {k: v for k, v in data.items() if k != "tool"}
    prefix = f"{where}: [tool.qwen3doctor]" if path.name == "pyproject.toml" or "tool" in data else where + ":"
    if not isinstance(table, dict):
        raise InputError(f"{prefix} must be a table")
    config = Config(source=where)
    for key, value in table.items():
        norm = key.replace("_", "-")
        if norm not in KEYS:
            raise InputError(f"{prefix} {key}: unknown key (known: {', '.join(KEYS)})")
        if norm == "fail-on":
            if value not in FAIL_ON:
                raise InputError(f"{prefix} fail-on: must be one of {', '.join(FAIL_ON)}, not {value!r}")
            config.fail_on = value
        elif norm == "ignore":
            config.ignore = _ignores(value, prefix, where)
        elif norm == "redact-hosts":
            if not isinstance(value, bool):
                raise InputError(f"{prefix} redact-hosts: must be true or false")
            config.redact_hosts = value
        elif norm == "jobs":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InputError(f"{prefix} jobs: must be a positive integer")
            config.jobs = value
        else:  # rules, disable
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise InputError(f"{prefix} {key}: must be a list of strings")
            items = [str((path.parent / v).resolve()) if norm == "rules" else v for v in value]
            setattr(config, norm, items)
    return config


def _ignores(value, prefix: str, where: str) -> list[Ignore]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise InputError(f"{prefix} ignore: must be a list of references, rule ids or fingerprints")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str) and item.strip():
            out.append(Ignore(item.strip(), "", where))
        elif isinstance(item, dict) and isinstance(item.get("ref"), str) and item["ref"].strip():
            extra = set(item) - {"ref", "reason"}
            if extra:
                raise InputError(f"{prefix} ignore[{i}]: unknown key {sorted(extra)[0]!r} (known: ref, reason)")
            out.append(Ignore(item["ref"].strip(), str(item.get("reason", "")), where))
        else:
            raise InputError(f"{prefix} ignore[{i}]: must be a string or {{ ref = \"...\", reason = \"...\" }}")
    return out


def resolve(config: Config, *, fail_on: str | None = None, ignore: list[str] | None = None, jobs: int | None = None,
            redact_hosts: bool = False) -> Config:
    """The settings in force: command line > file (ignore lists add up)."""
    if fail_on is not None and fail_on not in FAIL_ON:
        raise InputError(f"--fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be a positive integer, not {jobs}")
    cli = [Ignore(ref, "", "--ignore") for item in ignore or [] for ref in split_refs(item)]
    return Config(
        fail_on=fail_on or config.fail_on or "any", ignore=cli + config.ignore,
        redact_hosts=redact_hosts or bool(config.redact_hosts), jobs=jobs or config.jobs,
        rules=list(config.rules), disable=list(config.disable), source=config.source,
    )
