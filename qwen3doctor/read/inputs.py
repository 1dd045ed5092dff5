"""Command-line arguments -> the inputs to diagnose: files, `-`, folders, globs and GitHub Actions log archives.

    expand(["server.log", "logs/", "ci/**/*.log", "logs_123.zip", "-"]) -> Expansion(inputs, warnings)

- A file (plain or .gz) or `-` is one input, named explicitly: if it cannot be read, that is an error
  (exit 2), found when it is opened (Input.open raises InputError).
- A folder is searched recursively for `*.log`, `*.txt`, `*.gz` and `*.zip` (hidden folders skipped, sorted
  order); those files were not named, so a binary or unreadable one is skipped with a warning. A folder
  holding none is an error (a wrong path should not pass a build).
- A glob (`*`, `?`, `[`; `**` recurses) stands for the files the shell would have named: each match is
  explicit. A glob that matches nothing is an error.
- A `.zip` (a GitHub Actions log archive, or any zip of logs) holds one input per `*.log` / `*.txt` / `*.gz`
  member. An Actions archive holds each job's whole log at the top level as `<n>_<job>.txt`, and beside it a
  folder per job with the same lines cut into steps (`<job>/<n>_<step>.txt`, `Set up job` and `Complete job`
  included) and the runner's `system.txt`: only the job logs are read, and one warning counts what was
  skipped. A job folder with no job log beside it (older or partial archives) is read step by step, without
  its set-up, tear-down and system files. Members are found in the archive, so they are skipped with a
  warning when unreadable; a broken archive named on the command line is an error (an Input whose `error`
  is set), one found in a folder is skipped with a warning.

The same file named twice (or found by two arguments) is diagnosed once.
"""

from __future__ import annotations

import glob
import io
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from .reader import LineSource, open_source, prepare

LOG_SUFFIXES = (".log", ".txt", ".gz")
ARCHIVE_SUFFIX = ".zip"
SKIP_DIRS = {"__pycache__", "node_modules"}
MAX_MEMBER_BYTES = 4 << 30  # a zip member claiming more than this is refused (zip bomb guard)
_GLOB = re.compile(r"[*?\[]")
_ACTIONS_JOB_LOG = re.compile(r"^(\d+)_(.+)\.txt$")
_ACTIONS_FRAME_STEP = re.compile(r"^\d+_(?:Set up job|Complete job)\.txt$|^system\.txt$", re.I)


@dataclass(frozen=True)
class Input:
    """One log to diagnose. `name` is how reports call it; `explicit` says whether the user named it."""

    name: str
    path: str  # a file path, "-" for standard input, or the archive's path
    member: str | None = None  # the member of a zip archive
    explicit: bool = True
    error: str | None = None  # known unreadable while expanding (a glob matching nothing, a broken archive)

    def open(self, *, force: bool = False) -> LineSource:
        """Open for reading; raises InputError with a one-line reason."""
        if self.error is not None:
            raise InputError(self.error)
        if self.member is None:
            return open_source(self.path, force=force)
        return _open_member(self, force)


@dataclass
class Expansion:
    """The inputs a command line names, after folders, globs and archives are expanded."""

    inputs: list[Input] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def is_log_name(name: str) -> bool:
    return name.lower().endswith(LOG_SUFFIXES)


def expand(args: list[str]) -> Expansion:
    out = Expansion()
    seen: set[str] = set()

    def add(item: Input) -> None:
        key = item.path if item.path == "-" else os.path.realpath(item.path)
        key += "\0" + (item.member or "")
        if key not in seen:
            seen.add(key)
            out.inputs.append(item)

    for arg in args:
        if arg == "-":
            add(Input("-", "-"))
            continue
        path = Path(arg)
        if not path.exists() and _GLOB.search(arg):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                add(Input(arg, arg, error=f"{arg}: no file matches this pattern"))
            for m in matches:
                _expand_path(m, add, out, explicit=True)
            continue
        _expand_path(arg, add, out, explicit=True)
    return out


def _expand_path(arg: str, add, out: Expansion, *, explicit: bool) -> None:
    path = Path(arg)
    if path.is_dir():
        found = list(_walk(path))
        if not found:  # a folder named for nothing is a wrong path, not a pass
            add(Input(arg, arg, explicit=explicit, error=f"{arg}: no *.log, *.txt, *.gz or *.zip files in this folder"))
        for f in found:
            if f.suffix.lower() == ARCHIVE_SUFFIX:
                _expand_path(str(f), add, out, explicit=False)
            else:
                add(Input(str(f), str(f), explicit=False))
        return
    if path.suffix.lower() == ARCHIVE_SUFFIX and path.is_file():
        try:
            members, skipped = archive_contents(path)
        except InputError as exc:
            add(Input(arg, arg, explicit=explicit, error=str(exc)))
            return
        if skipped:
            out.warnings.append(f"{arg}: {skipped}")
        if not members:
            add(Input(arg, arg, explicit=explicit, error=f"{arg}: no *.log, *.txt or *.gz files in this archive"))
        for member in members:
            add(Input(f"{arg}!{member}", str(path), member=member, explicit=False))
        return
    add(Input(arg, arg, explicit=explicit))


def _walk(root: Path):
    for folder, dirs, files in os.walk(root, onerror=None, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(files):
            if (is_log_name(name) or name.lower().endswith(ARCHIVE_SUFFIX)) and not name.startswith("."):
                yield Path(folder) / name


def archive_members(path: Path) -> list[str]:
    """The log members of a zip, in order (see archive_contents)."""
    return archive_contents(path)[0]


def archive_contents(path: Path) -> tuple[list[str], str]:
    """The log members of a zip, in order, and a sentence on what was skipped ("" when nothing was)."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = [i.filename for i in zf.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise InputError(f"{path}: not a readable zip archive ({exc})") from None
    logs = [n for n in names if is_log_name(n) and not os.path.basename(n).startswith(".")]
    other = len(names) - len(logs)
    jobs = [_norm(m.group(2)) for n in logs if "/" not in n and (m := _ACTIONS_JOB_LOG.match(n))]
    kept, steps, frames = [], 0, 0
    for n in logs:
        folder, _, base = n.rpartition("/")
        if folder and "/" not in folder and (_ACTIONS_JOB_LOG.match(base) or (jobs and base.lower() == "system.txt")):
            if _ACTIONS_FRAME_STEP.match(base):
                frames += 1  # the runner's own set-up, tear-down and machine facts: never a server's log
                continue
            if any(job.startswith(_norm(folder)) for job in jobs):
                steps += 1  # the job's whole log is at the top level
                continue
        kept.append(n)
    said = []
    if steps or frames:
        said.append(f"{steps + frames} step file(s) of GitHub Actions jobs skipped (each job's <n>_<job>.txt log holds "
                    "the same lines; set-up, tear-down and system.txt hold the runner's, not a server's)")
    if other:
        said.append(f"{other} member(s) not named *.log, *.txt or *.gz skipped")
    return sorted(kept, key=_member_order), "; ".join(said)


def _norm(name: str) -> str:
    """A job name as compared with its folder's (the archive sanitises and may cut folder names)."""
    return re.sub(r"[^0-9a-z]+", "", name.lower())


def _member_order(name: str):
    parts = name.split("/")
    return [(int(m.group(1)), m.group(2)) if (m := re.match(r"^(\d+)_(.*)$", p)) else (10**9, p) for p in parts]


def _open_member(item: Input, force: bool) -> LineSource:
    try:
        zf = zipfile.ZipFile(item.path)
        info = zf.getinfo(item.member or "")
        if info.file_size > MAX_MEMBER_BYTES:
            zf.close()
            raise InputError(f"{item.name}: member is {info.file_size} bytes, over the {MAX_MEMBER_BYTES} byte limit")
        raw = zf.open(info)
    except InputError:
        raise
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, RuntimeError) as exc:
        raise InputError(f"{item.name}: cannot read ({exc})") from None
    stream: io.BufferedIOBase = io.BufferedReader(_Closing(raw, zf), buffer_size=1 << 20)  # type: ignore[arg-type]
    return prepare(item.name, stream, force=force)


class _Closing(io.RawIOBase):
    """A zip member stream that also closes its archive."""

    def __init__(self, raw, archive: zipfile.ZipFile):
        self._raw, self._archive = raw, archive

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        try:
            data = self._raw.read(len(b))
        except (zipfile.BadZipFile, EOFError) as exc:  # a damaged member: an I/O error to the readers
            raise OSError(str(exc)) from None
        n = len(data)
        b[:n] = data
        return n

    def close(self) -> None:
        try:
            self._raw.close()
            self._archive.close()
        finally:
            super().close()
