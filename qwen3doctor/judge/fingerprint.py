"""A stable fingerprint of a crash, so the same unknown crash in many logs lands in one group.

Algorithm version 1 (FINGERPRINT_VERSION), from the primary crash of a report:

  1. the exception type, without its module (`torch.AcceleratorError` -> `AcceleratorError`; torch moves
     its exceptions between modules across releases); a crash line with no type uses its crash class;
  2. the function names of the deepest MAX_FRAMES frames from engine code: a frame is engine code when its
     file lies in a `vllm`, `sglang`, `flashinfer` or `sgl_kernel` package (or a `vllm_*` / `sglang_*`
     plugin such as vllm_ascend) - the package right after `site-packages/` / `dist-packages/`, or any folder
     of that name in a source checkout. torch, asyncio, multiprocessing, triton and the rest are left out:
     they are the same for every crash. Function names only, never files or line numbers (code moves
     between files and lines across versions); a run of the same name (recursion) counts once;
  3. the final message, redacted (redact.py, so a redacted log keeps its fingerprint) and masked (see
     `template`): numbers, hex addresses, paths, URLs, ids, IPs and quoted
     values that vary from run to run become `<n>`, `<addr>`, `<path>`, `<url>`, `<id>`, `<ip>`; lists
     of numbers become `<n>, ...`; whitespace is collapsed; at most MAX_TEMPLATE characters.

The id is `fp1-` + the first 10 hex digits of SHA-256 over those three parts. A change to any step is a
new version: ids of different versions are never compared, and every output shows the version.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ..model import Crash, Frame, Report
from ..redact import Redactor

FINGERPRINT_VERSION = 1
MAX_FRAMES = 5
MAX_TEMPLATE = 200

ENGINE_PACKAGES = frozenset({"vllm", "sglang", "flashinfer", "sgl_kernel"})
ENGINE_PREFIXES = ("vllm_", "sglang_")
_INSTALL_DIRS = ("site-packages", "dist-packages")


@dataclass(frozen=True)
class Fingerprint:
    """A stable identity for a crash: exception, engine frames and message template."""

    version: int
    id: str
    exception_type: str
    frames: tuple[str, ...]
    template: str

    def as_dict(self) -> dict:
        return {"version": self.version, "id": self.id, "exception_type": self.exception_type,
                "frames": list(self.frames), "template": self.template}


def is_engine_file(path: str) -> bool:
    folders = [p for p in re.split(r"[/\\]", path) if p][:-1]
    for marker in _INSTALL_DIRS:
        if marker in folders:
            i = len(folders) - 1 - folders[::-1].index(marker)
            return i + 1 < len(folders) and _is_engine_package(folders[i + 1])
    return any(_is_engine_package(p) for p in folders)


def _is_engine_package(name: str) -> bool:
    return name in ENGINE_PACKAGES or name.startswith(ENGINE_PREFIXES)


def engine_frames(frames: tuple[Frame, ...], limit: int = MAX_FRAMES) -> tuple[str, ...]:
    """Function names of the deepest engine frames, outermost first, consecutive repeats folded."""
    names: list[str] = []
    for frame in frames:
        if is_engine_file(frame.file) and (not names or names[-1] != frame.function):
            names.append(frame.function)
    return tuple(names[-limit:])


_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b[a-z][a-z0-9+.\-]*://\S+"), "<url>"),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<id>"),
    (re.compile(r"\b(?:chatcmpl|cmpl|req|request|embd|batch)[-_][A-Za-z0-9\-_]{4,}"), "<id>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<addr>"),
    (re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?(?![\w.])"), "<ip>"),
    (re.compile(r"<ip>:\d+\b"), "<ip>"),  # (an address a redacted copy already masked keeps its port: the same hole)
    # absolute or home paths, and relative ones with at least one folder (a/b.py, Qwen/Qwen3-8B)
    (re.compile(r"(?:[A-Za-z]:)?(?:~|\.{1,2})?[/\\][^\s'\",:;()\[\]{}]+|\b[\w.\-]+/[\w.\-/<>]*[\w\->]"), "<path>"),
    (re.compile(r"\b[0-9a-f]{12,}\b"), "<id>"),  # hashes, long hex ids
    (re.compile(r"(?<![\w<])\d+(?:\.\d+)*(?:[eE][-+]?\d+)?"), "<n>"),
)
_LIST = re.compile(r"<n>(?:\s*,\s*<n>)+")
_SPACE = re.compile(r"\s+")


def template(message: str) -> str:
    """The message with what varies between runs masked (step 3 above)."""
    text = _SPACE.sub(" ", message.replace("\\n", " ")).strip()[: MAX_TEMPLATE * 4]
    text = Redactor().line(text)  # a redacted log has the same fingerprint as the original
    for pattern, tag in _MASKS:
        text = pattern.sub(tag, text)
    text = _LIST.sub("<n>, ...", text)
    if len(text) > MAX_TEMPLATE:  # cut at a word boundary, never inside a <tag>
        cut = text.rfind(" ", 0, MAX_TEMPLATE)
        text = text[: cut if cut > MAX_TEMPLATE // 2 else MAX_TEMPLATE]
        if text.rfind("<") > text.rfind(">"):
            text = text[: text.rfind("<")]
    return text.rstrip()


def exception_name(crash: Crash) -> str:
    if crash.exception_type:
        return re.split(r"\.|::", crash.exception_type)[-1]
    return crash.crash_class


def of_crash(crash: Crash) -> Fingerprint:
    kind = exception_name(crash)
    frames = engine_frames(crash.frames)
    tmpl = template(crash.message or "")
    digest = hashlib.sha256("\n".join((f"v{FINGERPRINT_VERSION}", kind, " ".join(frames), tmpl)).encode("utf-8"))
    return Fingerprint(FINGERPRINT_VERSION, f"fp{FINGERPRINT_VERSION}-{digest.hexdigest()[:10]}", kind, frames, tmpl)


def of_report(report: Report) -> Fingerprint | None:
    """The fingerprint of the report's primary crash, or None when the log holds no crash."""
    return of_crash(report.crash) if report.crash is not None else None


def is_fingerprint_id(text: str) -> bool:
    return re.fullmatch(r"fp\d+-[0-9a-f]{10}", text) is not None


def template_regex(tmpl: str) -> str:
    """A `regex` pattern matching messages of this template (for a draft rule's `message` clause)."""
    holes = {
        "<n>, ...": r"\d[\d.eE+\-]*(?:\s*,\s*\d[\d.eE+\-]*)*", "<n>": r"\d+(?:\.\d+)*(?:[eE][-+]?\d+)?",
        "<addr>": r"0x[0-9a-fA-F]+", "<ip>": r"[\d.:]+", "<path>": r"\S+", "<url>": r"\S+", "<id>": r"\S+",
    }
    out, pos = [], 0
    # the masks above, and the tags of redaction (<user>, <email>, <hf-token>, ...): any non-space run
    hole = re.compile("|".join(re.escape(h) for h in sorted(holes, key=len, reverse=True)) + r"|<[a-z][a-z\-]*>")
    for m in hole.finditer(tmpl):
        out.append(_escape(tmpl[pos:m.start()]))
        out.append(holes.get(m.group(0), r"\S+"))
        pos = m.end()
    out.append(_escape(tmpl[pos:]))
    return "".join(out).replace(r"\ ", " ").replace(" ", r"\s+")


def _escape(text: str) -> str:
    return re.escape(text)
