"""Which releases a traceback can come from, when the log does not say: every engine frame names a module and a
function, and the release index knows the releases in which that function exists in that module.

`vllm/v1/worker/gpu_worker.py ... in load_model` exists in every indexed release and says nothing;
`vllm/tracing/otel.py ... in sync_wrapper` exists from vLLM 0.16.0 on, so a traceback through it is 0.16.0 or
later. The window is the intersection of what each frame allows (each function's first to last release: a
function removed and re-added counts as present in between). Checked on the corpus: where a report states its
version, the window holds it.
"""
from __future__ import annotations

from dataclasses import dataclass

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
    if lo > hi or not because:
        return None
    return Window(engine, t.releases[lo], t.releases[hi], tuple(because))
