"""The one pass over a whole log: find the lines worth reading, in bounded memory, without a Python loop per line.

A multi-pattern prefilter looks for every literal anchor at once (crash markers, environment markers and
every rule's anchors) over large blocks of bytes; only the lines holding an anchor, the first HEAD_LINES
lines (start-up: serve command, versions, config), and a few lines after each crash marker (multi-line
messages) go on to the Python parsers, and so do the lines that continue a kept line ending in a backslash
(a serve command written over several lines, wherever it appears). Hyperscan does the looking where it is
installed; elsewhere a chunked `bytes.find` does, and both select exactly the same lines, so diagnoses never
depend on which ran. (Hyperscan skips the anchors that hold another anchor of the same kind and looks for a few
anchors by a prefix, confirmed on the line: that changes its speed, never the lines.)
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator

from .crash import SHAPE_WORDS
from .reader import MAX_LINE, NUL_WARNING, LineSource, clean

HEAD_LINES = 2000
MIN_PREFILTER_ANCHOR = 5  # shorter rule anchors (`b300`, `T4`) hit random ids and hex in request traffic
AFTER_CRASH = 3
MAX_CONTINUATION = 200  # lines a backslash-continued command may run on
CHUNK = 256 << 10  # bytes per read: small enough that most blocks hold no anchor and are only counted (see _newlines)

# Lines that may start or continue a crash: a traceback's own words and those of every crash-line shape
# (crash.SHAPE_WORDS). A hit also keeps the AFTER_CRASH lines that follow.
CRASH_ANCHORS = tuple(dict.fromkeys((
    "Traceback", "Exception raised", 'File "', '", line ', ".py, line ", "what():", "During handling", "direct cause", "signal",
    "NCCL", "out of memory", "Aborted", "SIGKILL", "SIGSEGV", "SIGABRT", "by --disable-cuda-graph", "(active",
) + SHAPE_WORDS))
# Lines that may say something about the environment after the start-up region.
ENV_ANCHORS = (
    "vLLM Version", "vllm serve", "launch_server", "sglang serve", "non-default args", "LLM engine (v", "ServerArgs(",
    "PyTorch version", "PyTorch:", "GPU models", "NVIDIA", "Compute Capability", "CUDA runtime", "Driver Version",
    "Cuda compilation", "Resolved architecture", "ForCausalLM", "ForConditionalGeneration", "docker run", "image:",
    "torch==", "vllm==", "sglang==", "sglang:", "vllm:", "API server version",
    # (a library's listing row, not the bare word, which a request's prompt may hold: `transformers==4.57.1`,
    # `transformers: 4.57.1`, pip's `transformers      4.57.1`, `pip show`'s `Name: transformers`, `flashinfer-python`)
    "transformers==", "transformers:", "transformers  ", "transformers\t", "Name: transformers", "import transformers",
    "flashinfer==", "flashinfer:", "flashinfer  ", "flashinfer\t", "flashinfer-", "flashinfer_", "Name: flashinfer",
    "import flashinfer",
    "Qwen3", "qwen3", "--model", "Platform plugin", "detected platform", "device_name=", "aclgraph", "acl_graph",
    "Maca version", "with arguments: serve", "CUDA_VISIBLE_DEVICES=", "Tesla ", "Quadro ",
)
# Ordinary traffic of a healthy server. A rule anchor found in any of these lines would select every request
# line of a busy log, so the prefilter drops it (the pattern still runs on the lines other anchors select).
# what the request line below asks about (rules lint puts a pattern's plain word here: tools.ruletools._in_prose)
PROMPT_TOPIC = "the kernel method schedule"
NOISE = (
    "(APIServer pid=1) INFO 03-02 10:15:22 [logger.py:41] Received request chatcmpl-0f3a9c: prompt: '<|im_start|>system\\n"
    "You are a helpful assistant.<|im_end|>\\n<|im_start|>user\\nWhy does my build fail with an error, and how do I fix "
    f"{PROMPT_TOPIC} in my code?<|im_end|>\\n<|im_start|>assistant\\n', params: SamplingParams(n=1, "
    "presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.7, top_p=0.8, top_k=20, "
    "min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, "
    "max_tokens=1024, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, "
    "spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None, structured_outputs=None, "
    "extra_args=None), prompt_token_ids: None, prompt_embeds shape: None, lora_request: None.",
    "(APIServer pid=1) INFO 03-02 10:15:22 [async_llm.py:270] Added request chatcmpl-0f3a9c.",
    '(APIServer pid=1) INFO:     10.12.0.7:52214 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    '(APIServer pid=1) INFO:     10.12.0.7:52230 - "POST /v1/completions HTTP/1.1" 200 OK',
    '(APIServer pid=1) INFO:     127.0.0.1:40418 - "GET /metrics HTTP/1.1" 200 OK',
    '(APIServer pid=1) INFO:     127.0.0.1:40418 - "GET /health HTTP/1.1" 200 OK',
    "(APIServer pid=1) INFO 03-02 10:15:30 [loggers.py:123] Engine 000: Avg prompt throughput: 1234.5 tokens/s, Avg "
    "generation throughput: 456.7 tokens/s, Running: 128 reqs, Waiting: 12 reqs, GPU KV cache usage: 23.4%, Prefix cache "
    "hit rate: 56.7%",
    "[2025-05-01 10:00:00 TP0] Decode batch, #running-req: 21, #full token: 348160, full token usage: 0.13, mamba num: 81, "
    "mamba usage: 0.02, cuda graph: True, gen throughput (token/s): 1420.09, #queue-req: 0",
    "[2025-05-01 10:00:00 TP0] Prefill batch, #new-seq: 1, #new-token: 64, #cached-token: 192, token usage: 0.01, "
    "#running-req: 21, #queue-req: 0, input throughput (token/s): 168.63",
    '[2025-05-01 10:00:00] INFO:     127.0.0.1:34224 - "POST /generate HTTP/1.1" 200 OK',
    '[2025-05-01 10:00:00] INFO:     127.0.0.1:34224 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
)


CRASH, ENV, RULE, ALL = 1, 2, 4, 7  # why a line was selected; ALL: the head of the log or a crash's context
_TEXT = re.compile(rb"\S")  # a byte that is not white space
WHOLE = 8  # inside the scanner: a line kept whole (head or context), apart from the anchors it holds


class Prefilter:
    """Finds, in a block of bytes, where each anchor occurs. Subclasses differ only in speed.

    `kinds[i]` says what anchor i is for (CRASH, ENV or RULE)."""

    def __init__(self, anchors: list[tuple[str, bool]], kinds: list[int]):
        self.anchors = [(a.encode("utf-8"), caseless) for a, caseless in anchors]
        self.kinds = kinds

    def find(self, data: bytes, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
        """(offset in data, kind) of anchor hits in data[lo:hi], unsorted, without copying the bytes."""
        raise NotImplementedError


class FindPrefilter(Prefilter):
    """Pure Python: one `bytes.find` sweep per anchor over each block (caseless ones over a lowered copy)."""

    name = "bytes.find"

    def find(self, data: bytes, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
        hi = len(data) if hi is None else hi
        lowered = None
        hits: list[tuple[int, int]] = []
        for (needle, caseless), kind in zip(self.anchors, self.kinds):
            hay, base, end = data, lo, hi
            if caseless:
                if lowered is None:
                    lowered = data[lo:hi].lower()
                hay, base, end = lowered, 0, hi - lo
            shift = lo - base
            pos = hay.find(needle, base, end)
            while pos != -1:
                hits.append((pos + shift, kind))
                nl = hay.find(b"\n", pos, end)  # the rest of this line cannot add anything for this anchor
                if nl == -1:
                    break
                pos = hay.find(needle, nl, end)
        return hits


class HyperscanPrefilter(Prefilter):
    name = "hyperscan"

    def __init__(self, anchors: list[tuple[str, bool]], kinds: list[int]):
        super().__init__(anchors, kinds)
        import hyperscan

        self._hs = hyperscan
        self.db, ids, searched = _prefilter_db(self.anchors, kinds)
        self.hs_kinds = [kinds[i] for i in ids]  # Hyperscan id -> kind (ids: the anchors it looks for)
        # (anchor, caseless, the prefix Hyperscan looks for) of each anchor looked for by a prefix, and by
        # Hyperscan id the whole anchor (lowered if caseless) to confirm on the line of a hit
        self.shortened = [(*self.anchors[i], lit) for i, lit in zip(ids, searched) if lit != self.anchors[i][0]]
        self.confirm: dict[int, tuple[bytes, bool]] = {}
        for n, (i, lit) in enumerate(zip(ids, searched)):
            whole, caseless = self.anchors[i]
            if lit != whole:
                self.confirm[n] = (whole.lower() if caseless else whole, caseless)
        self.scratch = hyperscan.Scratch(self.db)

    def find(self, data: bytes, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
        hi = len(data) if hi is None else hi
        hits: list[tuple[int, int]] = []
        append, kinds, confirm = hits.append, self.hs_kinds, self.confirm
        shift = lo - 1
        checked: dict[int, int] = {}  # shortened anchor id -> start of the last line it was checked on

        def on_match(ident, start, end, flags, context):
            pos = end + shift
            if ident in confirm:  # only a prefix of this anchor was looked for: does its line hold all of it?
                line = data.rfind(b"\n", lo, pos) + 1 or lo
                if checked.get(ident) == line:
                    return
                checked[ident] = line
                stop = data.find(b"\n", pos, hi)
                stop = hi if stop == -1 else stop
                whole, caseless = confirm[ident]
                if (whole not in data[line:stop].lower()) if caseless else data.find(whole, line, stop) == -1:
                    return
            append((pos, kinds[ident]))

        view = memoryview(data)[lo:hi] if (lo or hi != len(data)) else data
        self.db.scan(view, match_event_handler=on_match, scratch=self.scratch)
        return hits


def _load_or_compile(anchors: list[tuple[bytes, bool]]):
    import hyperscan

    key = hashlib.sha256(repr(anchors).encode() + hyperscan.__name__.encode()).hexdigest()[:32]
    from ..cache import CACHE_ENV, cache_dir, prune

    path = cache_dir() / f"hyperscan-{key}.db"
    if not os.environ.get(CACHE_ENV):
        try:
            return hyperscan.loadb(path.read_bytes(), hyperscan.HS_MODE_BLOCK)
        except Exception:  # noqa: BLE001 - a missing or stale cache is rebuilt
            pass
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=[a for a, _ in anchors],
        ids=list(range(len(anchors))),
        flags=[hyperscan.HS_FLAG_CASELESS if caseless else 0 for _, caseless in anchors],
        literal=True,
    )
    if not os.environ.get(CACHE_ENV):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(hyperscan.dumpb(db))
            os.replace(tmp, path)
            prune(path.parent, "hyperscan-*.db")
        except OSError:
            pass
    return db


def _prefilter_db(anchors: list[tuple[bytes, bool]], kinds: list[int]):
    """The prefilter's Hyperscan database, the ids of the anchors it looks for (not those another anchor of the
    same kind covers) and the literal it looks for in place of each (see searched_literal), cached together:
    working them out takes longer than a start-up may (about 10 ms on the bundled rules)."""
    import hyperscan

    key = hashlib.sha256(repr((anchors, kinds, FRAGMENT)).encode() + hyperscan.__name__.encode()).hexdigest()[:32]
    from ..cache import CACHE_ENV, cache_dir, prune

    path = cache_dir() / f"prefilter-{key}.hs"
    if not os.environ.get(CACHE_ENV):
        try:
            ids, searched, blob = pickle.loads(path.read_bytes())
            return hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK), ids, searched
        except Exception:  # noqa: BLE001 - a missing or stale cache is rebuilt
            pass
    covered = _covered([(a.decode("utf-8"), caseless) for a, caseless in anchors], kinds)
    ids = [i for i in range(len(anchors)) if i not in covered]
    searched = [searched_literal(*anchors[i]) for i in ids]
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=searched,
        ids=list(range(len(ids))),
        flags=[hyperscan.HS_FLAG_CASELESS if anchors[i][1] else 0 for i in ids],
        literal=True,
    )
    if not os.environ.get(CACHE_ENV):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(pickle.dumps((ids, searched, hyperscan.dumpb(db)), protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, path)
            prune(path.parent, "prefilter-*.hs")
        except OSError:
            pass
    return db, ids, searched


class LiteralIndex:
    """Answers "which of these literals occur in this text" in one pass (Hyperscan) or one `in` per literal."""

    def __init__(self, literals: Iterable[tuple[str, bool]], *, backend: str | None = None):
        self.literals = sorted(set(literals))
        backend = backend or ("hyperscan" if hyperscan_available() else "python")
        self.db = None
        if backend == "hyperscan" and self.literals:
            import hyperscan

            self.db = _load_or_compile([(lit.encode("utf-8"), nocase) for lit, nocase in self.literals])
            self.scratch = hyperscan.Scratch(self.db)

    def present(self, text: str) -> set[tuple[str, bool]]:
        if self.db is None:
            lower = text.lower()
            return {(lit, nocase) for lit, nocase in self.literals if lit in (lower if nocase else text)}
        found: set[int] = set()

        def on_match(ident, start, end, flags, context):
            found.add(ident)

        self.db.scan(text.encode("utf-8", errors="replace"), match_event_handler=on_match, scratch=self.scratch)
        return {self.literals[i] for i in found}


def hyperscan_available() -> bool:
    if os.environ.get("QWEN3DOCTOR_PREFILTER") == "python":
        return False
    try:
        import hyperscan  # noqa: F401
    except Exception:  # noqa: BLE001 - any import problem means: use the fallback
        return False
    return True


def make_prefilter(rule_anchors: Iterable[tuple[str, bool]], *, backend: str | None = None) -> Prefilter:
    """The prefilter for crash markers, environment markers and the rules' `log` anchors (minus any that
    ordinary traffic contains: see NOISE)."""
    anchors: list[tuple[str, bool]] = []
    kinds: list[int] = []
    seen: set[tuple[str, bool]] = set()
    for group, kind in ((CRASH_ANCHORS, CRASH), (ENV_ANCHORS, ENV)):
        for a in group:
            anchors.append((a, False))
            kinds.append(kind)
            seen.add((a, False))
    for item in sorted(set(rule_anchors)):
        if item not in seen and len(item[0]) >= MIN_PREFILTER_ANCHOR and not is_noise(item):
            anchors.append(item)
            kinds.append(RULE)
            seen.add(item)
    backend = backend or ("hyperscan" if hyperscan_available() else "python")
    if backend == "hyperscan":
        return HyperscanPrefilter(anchors, kinds)
    return FindPrefilter(anchors, kinds)


def _covered(anchors: list[tuple[str, bool]], kinds: list[int]) -> set[int]:
    """The anchors that hold another anchor of the same kind (`awq_marlin_repack` beside `awq_marlin`, `NVFP4` beside
    a caseless `nvfp4`, `qwen3-omni` beside `qwen3`, both caseless): a line holding one holds the other, so it is
    selected for the same kind without them, and a matcher looking for fewer literals runs faster (182 bundled
    rules: 186 of 950 anchors; Hyperscan 12-17% faster). The anchors of a kind are joined by NUL (never in an
    anchor) into one string: one search per anchor finds every anchor holding it."""
    out: set[int] = set()
    encoded = [a.encode("utf-8") for a, _ in anchors]  # as the matchers see them: caseless means ASCII case only
    for kind in set(kinds):
        group = [i for i, k in enumerate(kinds) if k == kind]
        joined = b"\0".join(encoded[i] for i in group)
        lowered = joined.lower()
        starts, at = [], 0
        for i in group:
            starts.append(at)
            at += len(encoded[i]) + 1
        for i in group:
            literal, caseless = encoded[i], anchors[i][1]
            hay, needle = (lowered, literal.lower()) if caseless else (joined, literal)
            pos = hay.find(needle)
            while pos != -1:
                j = group[bisect_right(starts, pos) - 1]  # the anchor this occurrence lies in
                # a caseless literal covers any anchor holding it in any case; a case-sensitive one only the
                # case-sensitive anchors holding it as written (equal pairs cannot occur: the anchors are a set)
                if j != i and (caseless or not anchors[j][1]) and i not in out:
                    out.add(j)
                pos = hay.find(needle, pos + 1)
    return out


# one string each (NUL never occurs in an anchor, so no match can span two lines): one search per anchor
_NOISE_TEXT = "\0".join(NOISE)
_NOISE_LOWER = _NOISE_TEXT.lower()


def is_noise(anchor: tuple[str, bool]) -> bool:
    literal, caseless = anchor
    if caseless:
        return literal.lower() in _NOISE_LOWER
    return literal in _NOISE_TEXT


# Hyperscan looks for a literal longer than FRAGMENT bytes by its last FRAGMENT bytes and confirms the rest only
# on a hit (Rose's literal fragments, ROSE_SHORT_LITERAL_LEN_MAX). An anchor that ends the way ordinary traffic
# does (`num_spec_tokens=` like every request's `max_tokens=`, a caseless `vllmhttpserver pid` like every
# `(APIServer pid=1)`) costs a failed confirmation on every request line, and so does its neighbours' bucket in
# the literal matcher. Hyperscan therefore looks for the longest prefix of such an anchor whose last FRAGMENT bytes
# no NOISE line holds, and the scanner confirms the whole anchor on the line of a hit: the same lines are selected.
# On the 1 GiB benchmark log (182 rules: 11 of 949 anchors shortened) Hyperscan went from 0.99 to 1.27 GB/s.
# Not done: caseless anchors as case-sensitive case variants (as written, lower, Title, UPPER). It selects fewer
# lines only by missing spellings a `(?i)` pattern matches (`Qwen3.5` / `QWEN3.5` / `qwen3.5` miss `QWen3.5`), and
# gained nothing measurable: 949 literals became 1,263 and Hyperscan's speed falls with their number about as much
# as it rises without the caseless flag (0.12-0.14 s per 128 MiB either way).
FRAGMENT = 8
_NOISE_BYTES = _NOISE_TEXT.encode("utf-8")
_NOISE_BYTES_LOWER = _NOISE_BYTES.lower()


def searched_literal(literal: bytes, caseless: bool) -> bytes:
    """What Hyperscan looks for in place of the anchor `literal`: the anchor itself, or, when its last FRAGMENT
    bytes occur in ordinary traffic, its longest prefix (FRAGMENT bytes at least) whose last FRAGMENT do not."""
    hay, text = (_NOISE_BYTES_LOWER, literal.lower()) if caseless else (_NOISE_BYTES, literal)
    if len(text) <= FRAGMENT or text[-FRAGMENT:] not in hay or b"\n" in text or b"\r" in text:
        return literal
    for end in range(len(text) - 1, FRAGMENT - 1, -1):
        if text[end - FRAGMENT:end] not in hay:
            return literal[:end]
    return literal


PARALLEL_MIN = 64 << 20  # a regular file this big is scanned by two processes, one part each
PARENT_SHARE = 42  # percent of such a file the parent scans; the forked child scans the rest


def selected_lines(source: LineSource, prefilter: Prefilter) -> Iterator[tuple[int, str, int]]:
    """(line number, clean text, why) of every line worth reading, in order; `why` is a mask of CRASH, ENV,
    RULE (ALL for the head of the log and the lines after a crash marker). Lines are split on \\n; the
    CR-separated parts of one line (progress bars) come out as separate texts with the same number.

    A large regular file is split at a line boundary and its second part scanned by a forked process at the
    same time (where fork exists); the lines come out the same as from one pass."""
    split = _split_point(source)
    if split is None:
        state = _State(source)
        yield from _scan(source.stream, prefilter, state)
        _finish(source, state)
        return
    yield from _scan_in_two(source, prefilter, split)


class _State:
    def __init__(self, source: LineSource, first_line: int = 1):
        self.source = source
        self.line_no = first_line  # the number of the line that starts the unread data
        self.after_until = 0  # lines up to this number are kept whole (context after a crash marker)
        self.cut = 0


def _finish(source: LineSource, state: _State) -> None:
    source.lines_read = state.line_no - 1
    if state.cut:
        source.warnings.append(f"{source.name}: {state.cut} line(s) longer than {MAX_LINE // (1 << 20)} MiB were cut")


def _scan(stream, prefilter: Prefilter, state: _State, limit: int | None = None) -> Iterator[tuple[int, str, int]]:
    """Read blocks; the lines inside a block are handled by bounds on it, never copied; only the line cut by
    a block's end is carried (a small copy) into the next."""
    source = state.source
    carry = b""
    left = limit
    while True:
        want = CHUNK if left is None else min(CHUNK, left)
        try:
            data = stream.read(want) if want > 0 else b""
        except (OSError, EOFError, ValueError) as exc:
            source.warnings.append(f"{source.name}: stopped reading: {exc}")
            data = b""
        if left is not None:
            left -= len(data)
        if not data:
            if carry:
                yield from _block(carry + b"\n", 0, len(carry) + 1, prefilter, state)
            break
        source.bytes_read += len(data)
        if b"\0" in data:  # NUL runs past the sniffed head (a writer's machine crashed, a rotation): damage, not text
            data = data.replace(b"\0", b"")
            _warn_once(source, f"{source.name}: {NUL_WARNING}")
            if not data:
                continue
        first = data.find(b"\n")
        if first == -1:  # no line ends in this read: the carried line grows
            carry += data
            if len(carry) > MAX_LINE:  # an overlong line: read its head, skip the rest as it streams
                state.cut += 1
                head = carry[:MAX_LINE] + b"\n"
                yield from _block(head, 0, len(head), prefilter, state)
                carry = _skip_line(stream, source)
            continue
        lo = 0
        if carry:  # the line that straddles two reads
            joined = carry + data[: first + 1]
            if len(joined) > MAX_LINE + 1:
                state.cut += 1
                joined = joined[:MAX_LINE] + b"\n"
            yield from _block(joined, 0, len(joined), prefilter, state)
            lo = first + 1
        last = data.rfind(b"\n") + 1
        if last > lo:
            yield from _block(data, lo, last, prefilter, state)
        carry = data[last:]


def _warn_once(source: LineSource, warning: str) -> None:
    if warning not in source.warnings:
        source.warnings.append(warning)


def _block(data: bytes, lo: int, hi: int, prefilter: Prefilter, state: _State) -> Iterator[tuple[int, str, int]]:
    """The lines worth reading in data[lo:hi], a run of whole lines."""
    at, last = state.line_no, lo
    if not state.source.text_seen and _TEXT.search(data, lo, hi):
        state.source.text_seen = True
    starts = _line_starts(data, lo, hi, prefilter, state.line_no, state.after_until)
    if not starts:  # most blocks: nothing to keep, only their lines to count
        state.line_no = at + _newlines(data, lo, hi)
        return
    for start, why in starts:
        at += data.count(b"\n", last, start)
        last = start
        if why & CRASH:
            state.after_until = max(state.after_until, at + AFTER_CRASH)
        yield from _emit(data, start, at, ALL if why & WHOLE else why)
    if _continues(data, last, hi) and data.find(b"\n", last, hi) + 1 >= hi:  # the block's last line goes on
        state.after_until = max(state.after_until, at + 1)
    state.line_no = at + data.count(b"\n", last, hi)


def _newlines(data: bytes, lo: int, hi: int) -> int:
    """The newlines in data[lo:hi]. Over a whole block `replace` (a memchr-driven copy) counts them about three
    times faster than `count`, which compares byte by byte; the ragged ends are counted apart."""
    if hi - lo < len(data) // 2:
        return data.count(b"\n", lo, hi)
    return len(data) - len(data.replace(b"\n", b"")) - data.count(b"\n", 0, lo) - data.count(b"\n", hi)


def _split_point(source: LineSource) -> int | None:
    """The offset of a line start at PARENT_SHARE percent of a large, seekable, uncompressed file; else None."""
    if not hasattr(os, "fork") or os.environ.get("QWEN3DOCTOR_JOBS") == "1":
        return None
    raw = getattr(source.stream, "raw", None)
    try:
        if raw is None or not hasattr(raw, "fileno") or source.stream.tell() != 0:
            return None
        size = os.fstat(raw.fileno()).st_size
        if size < PARALLEL_MIN or not isinstance(raw, io.FileIO):
            return None
        # the parent also parses every line the scan selects (the whole head of the log, then the child's
        # lines): give it the smaller part (on 1 GiB, 42% gave 1.85-2.12 s where halves gave 2.19-2.34 s)
        mid = max(size * PARENT_SHARE // 100, _head_end(raw.fileno(), size))
        if mid >= size:
            return None
        window = os.pread(raw.fileno(), MAX_LINE + 1, mid)
        nl = window.find(b"\n")
        return None if nl == -1 or mid + nl + 1 >= size else mid + nl + 1
    except (OSError, ValueError, io.UnsupportedOperation):
        return None


def _head_end(fd: int, size: int) -> int:
    """The offset just past the head of the log (its first HEAD_LINES lines): the child numbers its lines as if
    they came after the head, so the split may not fall inside it (long lines can push the head past the
    parent's share of the file)."""
    pos, left = 0, HEAD_LINES
    while pos < size:
        data = os.pread(fd, CHUNK, pos)
        if not data:
            break
        n = data.count(b"\n")
        if n >= left:
            at = -1
            for _ in range(left):
                at = data.find(b"\n", at + 1)
            return pos + at + 1
        left -= n
        pos += len(data)
    return size


class _Range(io.RawIOBase):
    """The bytes of a file from `start` to its end, read with pread (no shared file position)."""

    def __init__(self, fd: int, start: int):
        self.fd, self.pos = fd, start

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        data = os.pread(self.fd, n if n > 0 else CHUNK, self.pos)
        self.pos += len(data)
        return data


def _scan_in_two(source: LineSource, prefilter: Prefilter, split: int) -> Iterator[tuple[int, str, int]]:
    fd = source.stream.raw.fileno()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child scans the second part, as if it were not in the head of the log
        os.close(read_end)
        code = 0
        try:
            child_src = LineSource(source.name, _Range(fd, split))
            state = _State(child_src, first_line=HEAD_LINES + 1)
            lines = list(_scan(child_src.stream, prefilter, state))
            result = (lines, state.line_no - HEAD_LINES - 1, state.cut, child_src.warnings, child_src.bytes_read,
                      child_src.text_seen)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which then reads that part itself
            result = ("error", repr(exc))
            code = 1
        with os.fdopen(write_end, "wb") as out:
            pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)
        os._exit(code)
    os.close(write_end)
    state = _State(source)
    try:
        yield from _scan(source.stream, prefilter, state, limit=split)
        with os.fdopen(read_end, "rb") as inp:
            result = pickle.load(inp)
    finally:
        os.waitpid(pid, 0)
    if result[0] == "error":
        source.warnings.append(f"{source.name}: parallel scan failed ({result[1]}); read the second part in one pass")
        source.stream.seek(split)
        yield from _scan(source.stream, prefilter, state)
        _finish(source, state)
        return
    lines, n_lines, cut, warnings, nbytes, text_seen = result
    source.text_seen = source.text_seen or text_seen
    offset = state.line_no - HEAD_LINES - 1  # child numbers start at HEAD_LINES + 1
    boundary = state.line_no
    context = set()
    if state.after_until >= boundary:  # the crash context of the first part runs into the second
        context = set(range(boundary, state.after_until + 1))
        have = {n + offset for n, _, _ in lines}
        missing = sorted(context - have)
        if missing:
            extra = _read_lines(fd, split, len(context))
            lines = sorted(lines + [(boundary + i - offset, t, ALL) for i, t in enumerate(extra) if boundary + i in missing],
                           key=lambda rec: rec[0])
    for n, text, why in lines:
        line = n + offset
        yield line, text, (ALL if line in context else why)
    source.bytes_read += nbytes
    for w in warnings:
        _warn_once(source, w)
    state.line_no = boundary + n_lines
    state.cut += cut
    _finish(source, state)


def _read_lines(fd: int, start: int, count: int) -> list[str]:
    data = os.pread(fd, (MAX_LINE + 1) * count, start)
    out = []
    for raw in data.split(b"\n")[:count]:
        out.append(clean(raw[:MAX_LINE].decode("utf-8", errors="replace")))
    return out


def _skip_line(stream, source: LineSource) -> bytes:
    while True:
        more = stream.read(CHUNK)
        if not more:
            return b""
        source.bytes_read += len(more)
        nl = more.find(b"\n")
        if nl != -1:
            return more[nl + 1:]


def _line_starts(data: bytes, lo: int, hi: int, prefilter: Prefilter, first_line: int, after_until: int) -> list[tuple[int, int]]:
    """Sorted (line start offset, why) of the lines to keep in data[lo:hi], a run of whole lines."""
    keep: dict[int, int] = {}
    rfind = data.rfind
    for pos, kind in prefilter.find(data, lo, hi):
        start = max(lo, rfind(b"\n", lo, pos) + 1)
        keep[start] = keep.get(start, 0) | kind
    # the head of the log, and the lines after each line holding a crash marker (also across blocks: _block
    # carries `after_until` on), are kept whole; only a marker extends the context, never a context line
    if first_line <= HEAD_LINES or first_line <= after_until:
        start, line = lo, first_line
        while start < hi and (line <= HEAD_LINES or line <= after_until):
            keep[start] = keep.get(start, 0) | WHOLE
            start, line = data.find(b"\n", start, hi) + 1, line + 1
            if start == 0:
                break
    for start in [s for s, why in keep.items() if why & CRASH]:
        _keep_following(data, start, hi, AFTER_CRASH, keep)
    # a kept line that ends in a backslash (a shell command continued) brings the lines that continue it
    for start in [s for s in keep if _continues(data, s, hi)]:
        _keep_following(data, start, hi, MAX_CONTINUATION, keep, lambda nxt: _continues(data, nxt, hi))
    return sorted(keep.items())


def _keep_following(data, start: int, hi: int, count: int, keep: dict[int, int], go_on=None) -> None:
    """Keep whole up to `count` lines after the line at `start` (within `hi`), while `go_on(next_start)` holds."""
    nxt = start
    for _ in range(count):
        nl = data.find(b"\n", nxt, hi)
        if nl == -1 or nl + 1 >= hi:
            break
        nxt = nl + 1
        keep[nxt] = keep.get(nxt, 0) | WHOLE
        if go_on is not None and not go_on(nxt):
            break


def _continues(data: bytes, start: int, hi: int) -> bool:
    nl = data.find(b"\n", start, hi)
    return data[start: nl if nl != -1 else hi].rstrip(b" \t\r").endswith(b"\\")


def _emit(block: bytes, start: int, line_no: int, why: int) -> Iterator[tuple[int, str, int]]:
    nl = block.find(b"\n", start)
    raw = block[start: nl if nl != -1 else len(block)]
    if len(raw) > MAX_LINE:
        raw = raw[:MAX_LINE]
    text = raw.decode("utf-8", errors="replace")
    if "\r" in text.rstrip("\r"):
        for part in text.rstrip("\r").split("\r"):
            yield line_no, clean(part), why
    else:
        yield line_no, clean(text), why
