"""Which releases a traceback can come from, when the log does not say: every engine frame names a module and a
function, and the release index knows the releases in which that function exists in that module.

`vllm/v1/worker/gpu_worker.py ... in load_model` exists in every indexed release and says nothing;
`vllm/tracing/otel.py ... in sync_wrapper` exists from vLLM 0.16.0 on, so a traceback through it is 0.16.0 or
later. The window is the intersection of what each frame allows (each function's first to last release: a
function removed and re-added counts as present in between). Checked on the corpus: where a report states its
version, the window holds it.

Line numbers narrow it further (the `lines` table, for the engine's plumbing and the Qwen model files): code moves
between releases, so `multiproc_executor.py, line 680, in __init__` is 0.29.0 or 0.30.0 only. One function alone
holds a given line in many releases, and a build between releases holds lines no release has, so the lines count
only when two functions or more agree on a release and none contradicts them. Checked on the 26 corpus reports with
a stated version and engine frames: 6 are dated by lines, 5 to a window holding the stated version, the sixth to
0.5.1.post3 where the report says "~0.5.2".
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ... knowledge import releases as index
from ...model import Frame


@dataclass(frozen=True)
class Window:
    engine: str
    first: str  # the oldest release the frames allow
    last: str  # the newest
    because: tuple[str, ...]  # the frames that narrowed it, as `module:function (first-last)`

    @property
    def text(self) -> str:
        return self.first if self.first == self.last else f"{self.first}-{self.last}"


def function_key(engine: str, file: str) -> str | None:
    """`/usr/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py` -> `vllm.v1.worker.gpu_worker` (the last
    `/vllm/` of the path: a source checkout is `.../vllm/vllm/...`, SGLang's `.../sglang/python/sglang/...`)."""
    i = file.rfind(f"/{engine}/")
    if i < 0 or not file.endswith(".py"):
        return None
    return file[i + 1:-3].replace("/", ".")


def release_window(engine: str, frames: tuple[Frame, ...] | list[Frame]) -> Window | None:
    """The releases every indexed engine frame exists in; None when no frame narrows the whole index, when the
    frames disagree (a patched build, a fork), or when the index is not shipped."""
    t = index.table(engine, "func")
    if t is None or not t.releases:
        return None
    lo, hi = 0, len(t.releases) - 1
    because: list[str] = []
    for frame in frames:
        module = function_key(engine, frame.file)
        iv = t.facts.get(f"{module}:{frame.function}") if module else None
        if not iv:
            continue
        first, last = iv[0], iv[-1]
        if first > lo or last < hi:
            lo, hi = max(lo, first), min(hi, last)
            because.append(f"{module}:{frame.function} ({t.releases[first]}-{t.releases[last]})")
    if lo > hi:
        return None
    lo, hi, dated = _by_lines(engine, frames, lo, hi)
    if not because and not dated:
        return None
    return Window(engine, t.releases[lo], t.releases[hi], tuple(dated + because))


# functions whose lines must agree before they date a traceback: one long function holds a given line number in
# many releases, and in a build between releases it may hold it in a release it is not from
MIN_DATED_FUNCTIONS = 2


def _by_lines(engine: str, frames, lo: int, hi: int) -> tuple[int, int, list[str]]:
    """Narrow [lo, hi] by the frames' line numbers: a frame of a function the lines table covers was raised in a
    release in which that function spans its line. A frame whose line no release has (a source build between
    releases, a patched install) or frames that agree on no release leave the window as the functions made it."""
    allowed = set(range(lo, hi + 1))
    dated: list[str] = []
    functions: set[str] = set()  # the functions that narrowed the window
    for frame in frames:
        module = function_key(engine, frame.file)
        if module is None or frame.line is None:
            continue
        found = index.releases_at_line(engine, f"{module}:{frame.function}", frame.line)
        if found is None:
            continue
        if not found:
            return lo, hi, []
        if not allowed <= found:
            allowed &= found
            functions.add(f"{module}:{frame.function}")
            dated.append(f"{module}:{frame.function} at line {frame.line}")
    if not allowed or len(functions) < MIN_DATED_FUNCTIONS:
        return lo, hi, []
    return min(allowed), max(allowed), dated


# a frame's file with its folders cut by the reporter (`.../qwen4_exp.py`, `…/memory_pool.py`) or given without any
# (`memory_pool.py`), as against a whole path that names its package (`/usr/lib/python3.12/threading.py`)
_SHORTENED = re.compile(r"^(?:\.\.\.|…|<[^>]*>)[/\\]|^[\w.-]+\.py$")
MIN_ENGINE_FRAMES = 2  # frames only one engine's sources hold before they name the engine


@lru_cache(maxsize=None)
def _file_functions(engine: str) -> frozenset[str] | None:
    """`file:function` (the module's last part) for every function the engine's releases define."""
    t = index.table(engine, "func")
    if t is None:
        return None
    return frozenset(f"{module.rsplit('.', 1)[-1]}:{function}"
                     for module, _, function in (key.partition(":") for key in t.facts))


def engine_of_frames(frames) -> tuple[str, list[str]] | None:
    """(engine, the frames that name it) for a traceback whose paths were shortened, so that no `/vllm/` or
    `/sglang/` folder says whose code it is: the engine whose sources hold two or more of its file-and-function
    pairs when the other engine's hold none of them. None when the frames fit both, neither, or too few."""
    pairs = []
    for frame in frames:
        file = frame.file.strip()
        if not _SHORTENED.match(file) or not file.endswith(".py") or frame.function.startswith("<"):
            continue
        name = file.replace("\\", "/").rsplit("/", 1)[-1][:-3]
        pairs.append(f"{name}:{frame.function}")
    if len(pairs) < MIN_ENGINE_FRAMES:
        return None
    held = {}
    for engine in index.ENGINES:
        names = _file_functions(engine)
        if names is None:
            return None
        held[engine] = [p for p in dict.fromkeys(pairs) if p in names]
    found = [e for e, hits in held.items() if len(hits) >= MIN_ENGINE_FRAMES]
    if len(found) != 1 or any(hits for e, hits in held.items() if e != found[0]):
        return None
    return found[0], held[found[0]]
