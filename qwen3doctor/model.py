"""The nouns: frozen dataclasses shared by every step of the pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping


@dataclass(frozen=True)
class Frame:
    """One stack frame of a traceback."""

    file: str
    line: int | None
    function: str

    @property
    def location(self) -> str:
        """`gpu_worker.py:290`, or the file alone when its line number is not known."""
        return self.file.rsplit("/", 1)[-1] + (f":{self.line}" if self.line is not None else "")


@dataclass(frozen=True)
class Crash:
    """One failure seen in the log: a Python traceback, or a standalone crash line."""

    crash_class: str  # illegal-memory-access, oom, nccl, assertion, ... (crash.classify)
    exception_type: str | None
    message: str
    process: str | None
    line_no: int  # the first line of its block: the traceback's header or first frame, or the crash line
    frames: tuple[Frame, ...] = ()
    complete: bool = False  # the traceback reached its exception line
    headed: bool = False  # the traceback starts at its `Traceback (most recent call last):` header (not cut above)
    role: str = "cause"  # primary (the first cause) | cause | fragment | consequence | wrapper
    chained: tuple["Crash", ...] = ()  # exceptions that led to this one ("During handling ...")
    message_cut: bool = False  # the paste ends on the bare exception type: its message is unknown, not empty
    native: tuple[Frame, ...] = ()  # C++ / cuda-gdb / sanitizer frames naming the native function or kernel
    excerpt: bool = False  # lines of a paste without a crash line, which a rule's message pattern matched (in part)
    last_line: int = 0  # the last line of its block (its exception line, message or native frames); 0: line_no
    during: str = ""  # what the server was doing, from the last start-up or serving line before it (read.phases)
    wraps: str = ""  # the exception type a wrapper names in brackets (`RayTaskError(KeyError): ...`)
    cut_short: bool = False  # its message ends in "..." or stops mid-line where the paste ends: the rest may be missing
    assertion: str = ""  # an AssertionError without a message: the `assert` statement under its last frame
    next_call: str = ""  # a traceback cut inside its next frame line: that frame's function, the call on the line above
    inside: str = ""  # the exception type whose message is this whole traceback (`RuntimeError: Traceback (most ...`)
    raised_at: str = ""  # the function the code line under the last frame calls, where the exception came from

    @property
    def span(self) -> tuple[int, int]:
        """The first and last line number of the crash's own block in the log (its chained causes have theirs)."""
        return self.line_no, max(self.line_no, self.last_line)

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(f.function for f in self.frames)

    @property
    def said(self) -> bool:
        """The crash states a message (or at least an exception type whose message is not cut off)."""
        return bool(self.message or self.exception_type) and not self.message_cut


@dataclass(frozen=True)
class Fact:
    """One known fact about the crashed environment, and its source."""

    value: Any
    source: str  # "log", "log: collect_env", "option", "env-file", ...


@dataclass(frozen=True)
class Environment:
    """The facts and flags known about the crashed server."""

    facts: dict[str, Fact] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()  # canonical long flags seen, e.g. "--enforce-eager"
    flags_known: bool = False  # a serve command or engine config was seen
    conflicts: tuple[str, ...] = ()

    def get(self, key: str) -> Any:
        fact = self.facts.get(key)
        return None if fact is None else fact.value


@dataclass(frozen=True)
class Evidence:
    """One clause of a rule, and whether the log hit it, missed it, or cannot say."""

    clause: str  # "match.frames", "when.engine_version", ...
    state: str  # hit | miss | unknown
    text: str
    subject: str = ""  # what a frames / exception hit matched: the function name or exception type
    generic: bool = False  # a hit made by a generic pattern (the bare IMA message, a bare KeyError): weak
    wants: str = ""  # a `when` condition's value as the rule writes it (">=0.17", "fp8, fp8-block", "--enforce-eager")
    line: str = ""  # the whole log line a `log` clause hit (its text quotes it shortened)
    captured: tuple[tuple[str, str], ...] = ()  # the named groups of the pattern that hit (`(?P<estimate>\d+)`)


@dataclass(frozen=True)
class Fix:
    """One fix of a rule: what it does, the command, and what it costs."""

    title: str
    command: str
    cost: str
    engine_version: str = ""  # the releases this spelling of the fix works on (PEP 440 range); "" = the rule's window
    drop: tuple[str, ...] = ()  # flags of the user's command this fix takes out of {serve_args} (`--kv-transfer-config`)
    platforms: tuple[str, ...] = ()  # the platforms the fix is for (`cpu`); () = any. Hidden on a log of another platform


@dataclass(frozen=True)
class Finding:
    """One ranked root cause, with its evidence and the fixes filled in for this log."""

    rule_id: str
    title: str
    status: str
    score: float
    confidence: str  # high | medium | low
    engines: tuple[str, ...]
    families: tuple[str, ...]
    references: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    fixes: tuple[Fix, ...]
    fixed_in: dict | None
    notes: tuple[str, ...] = ()
    basis: str = "evidence"  # evidence | generic | supporting | path | unseen | combination: what the finding rests on


class Verdict(str, Enum):
    """What the whole diagnosis concluded; decides the exit code."""

    NOTHING = "nothing-to-diagnose"  # empty input
    CLEAN = "no-crash"
    FOUND = "finding"
    UNEXPLAINED = "unexplained-crash"


@dataclass(frozen=True)
class Report:
    """The diagnosis of one log: verdict, environment, crashes, findings and next steps."""

    source: str
    verdict: Verdict
    environment: Environment
    crashes: tuple[Crash, ...]
    findings: tuple[Finding, ...]
    next_steps: tuple[str, ...]
    warnings: tuple[str, ...]
    lines_read: int = 0
    # a log with no crash sign but a launch or an environment listing: the known problems of that launch, shaped
    # like findings (basis "risk", low confidence); they never change the verdict or the exit code
    risks: tuple[Finding, ...] = ()

    @property
    def crash(self) -> Crash | None:
        return self.crashes[0] if self.crashes else None


# the class of a crash that is a live thread's stack from a py-spy dump: where a hung process is stuck, no exception
HANG = "hang"
# the step a rule's `supports.frames` names for a crash at import time (no function of its own: the traceback's
# last frame is a module's top level running an import, read.crash._importing)
IMPORT_STEP = "<import>"
# the step named for a crash the log places in CUDA graph capture (a phase line such as "Capturing CUDA graphs"
# before it) when the crash has no traceback of its own to say where it was raised: a wrapper-quoted OOM
CAPTURE_STEP = "<capture>"
# the steps a `frames` clause may name instead of a function (they hit on what the log says, not on a frame's name)
STEP_NAMES = frozenset((IMPORT_STEP, CAPTURE_STEP))


@dataclass(frozen=True)
class Clause:
    """One `match` / `supports` clause: kind (frames, exception, message, log) and its patterns."""

    kind: str
    sources: tuple[str, ...]  # the patterns as written
    generic: bool = False  # every pattern also matches a generic crash message / common exception type
    anchors: tuple[tuple[str, bool], ...] | None = None  # (literal, caseless) one of which must occur; None: unanchored
    gates: tuple[Any, ...] = ()  # per source: the literals that must all occur (patterns.gate_of), or None
    generic_sources: tuple[str, ...] = ()  # the sources that match a generic message / common exception type
    part: int = 0  # the clause's place among its alternative's clauses of the same kind (`log: [[...], [...]]`)

    def name(self, prefix: str) -> str:
        """The clause's name in evidence: `match[2].log`; a second clause of that kind `match[2]+1.log`."""
        return f"{prefix}.{self.kind}" if not self.part else f"{prefix}+{self.part}.{self.kind}"


@dataclass(frozen=True)
class Rule:
    """One compiled rule signature."""

    id: str
    path: str
    engines: tuple[str, ...]
    title: str
    status: str
    references: tuple[str, ...]
    aliases: tuple[str, ...]
    families: tuple[str, ...]
    match: tuple[tuple[Clause, ...], ...]  # alternatives, each an AND of clauses; () = no match clauses
    supports: tuple[Clause, ...]
    when: dict[str, Any]  # compiled conditions
    cause: str
    symptoms: tuple[str, ...]
    fixes: tuple[Fix, ...]
    fixed_in: dict | None
    tests: dict[str, tuple[Any, ...]]
    notes: str = ""
    raw_when: dict[str, Any] = field(default_factory=dict)
    libraries: tuple[str, ...] = ()  # the NVIDIA-only kernel libraries or tools its cause lives in (vocab.LIBRARIES)
    literals: frozenset[tuple[str, bool]] = frozenset()  # every literal its clauses' gates and anchors name
    log_anchors: frozenset[tuple[str, bool]] = frozenset()  # the anchors of its `log` clauses (for the prefilter)
    frame_steps: frozenset[str] = frozenset()  # the start-up steps whose engine functions its `frames` clauses name
    # the anchors of its `match` clauses, or None when one of them may hit whatever the log holds (no anchor, the
    # import step); and each alternative's clause kinds (judge.match.MatchIndex: kept with the compiled rule, so a
    # single small log does not pay for walking every clause again)
    match_anchors: frozenset[tuple[str, bool]] | None = frozenset()
    match_kinds: tuple[frozenset[str], ...] = ()

    @property
    def fixed_engine(self) -> str | None:
        """The engine whose release `fixed_in.version` names: the rule's one engine, else the engine of the
        fixing pull request (`vllm#39064`); None when neither says."""
        if len(self.engines) == 1:
            return self.engines[0]
        repo = str((self.fixed_in or {}).get("pr") or "").partition("#")[0]
        return repo if repo in self.engines else None

    def clauses(self):
        """Every match and supports clause."""
        for alternative in self.match:
            yield from alternative
        yield from self.supports


@dataclass(frozen=True)
class Scan:
    """Everything one pass over a log found: the crashes, the lines rule `log` patterns flagged, the environment."""

    crashes: tuple[Crash, ...]
    lines: tuple[str, ...]  # lines kept by the prefilter, for `log` clauses
    environment: Environment
    lines_read: int = 0  # every line read, selected or not
    warnings: tuple[str, ...] = ()
    empty: bool = False  # no line holds more than white space
    stopped_in: str | None = None  # the start-up phase the log ends in (its last lines), when it never reached serving
    quiet: frozenset[str] = frozenset()  # kept lines logged at INFO / WARNING / DEBUG level
    # kept lines that came in a logging record (any level), each with its record (`ERROR utils.py:608`, `glog E ...`)
    recorded: Mapping[str, str] = field(default_factory=dict)
    lead: int = 0  # lines of the log above its first crash (judge.pipeline counts up to 4); 0: it starts at the crash
    refused: tuple[int, ...] = ()  # the lines where the server answered a request with a 4xx status (access log)


@dataclass(frozen=True)
class RuleMatch:
    """How one rule fared against one scan: every clause with its state, before any scoring."""

    rule: Rule
    match: tuple[Evidence, ...]  # the best alternative's clauses
    supports: tuple[Evidence, ...]
    when: tuple[Evidence, ...]
    rejected: bool  # a `match` clause missed in every alternative
    generic: dict[str, bool] = field(default_factory=dict)  # clause -> evidence was generic
    # an alternative's message clause missed: the log holds the crash's own message and it is not this rule's
    message_missed: bool = False
