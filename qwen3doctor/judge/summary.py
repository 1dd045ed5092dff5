"""Many diagnoses -> one verdict: each input's outcome, the inputs grouped by root cause, and the exit code.

Grouping: inputs whose top finding is the same rule form one group ("vllm#34948 in 7 logs"); unexplained
crashes are grouped by their fingerprint (fingerprint.py); inputs without a crash, empty inputs, ignored
ones and skipped / unreadable ones get a group each.

The decision (`--fail-on`), one place:
    any    1 if any finding, else 3 if any unexplained crash, else 0     (the engine's contract)
    known  1 if any finding, else 0 (unexplained crashes are reported with a warning)
    high   1 if any high-confidence finding, else 0 (the rest with a warning)
    never  0
and, whatever the policy, 2 when an input named on the command line could not be read. Ignored findings
and fingerprints (`--ignore`, the config file, QWEN3DOCTOR_IGNORE) never fail; they are listed as ignored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..read.config import Ignore
from ..errors import EXIT_CLEAN, EXIT_FINDING, EXIT_UNEXPLAINED, EXIT_USAGE
from .fingerprint import FINGERPRINT_VERSION, Fingerprint, is_fingerprint_id
from ..read.inputs import Input
from ..model import HANG, Finding, Fix, Report, Verdict

FAILING = ("finding", "unexplained")
STATUS_ORDER = ("finding", "unexplained", "ignored", "clean", "empty", "skipped", "unreadable")
CONFIDENCE_ORDER = {"high": 0, "medium": 1, "low": 2}


@dataclass(frozen=True)
class Outcome:
    """What became of one input."""

    input: Input
    status: str  # finding | unexplained | clean | empty | ignored | skipped | unreadable
    report: Report | None = None
    fingerprint: Fingerprint | None = None
    ignored_by: Ignore | None = None
    error: str | None = None

    @property
    def source(self) -> str:
        return self.report.source if self.report is not None else self.input.name

    @property
    def top(self) -> Finding | None:
        return self.report.findings[0] if self.report is not None and self.report.findings else None


class IgnoreMatcher:
    """Which findings and fingerprints the user accepted. A ref is a rule id or alias, a reference
    (vllm#34948, matched against every reference of a finding), or a fingerprint id."""

    def __init__(self, ignores: Iterable[Ignore], catalog=None):
        self.ignores = list(ignores)
        self.unknown: list[Ignore] = []
        self._by_key: dict[str, Ignore] = {}
        for ig in self.ignores:
            key = ig.ref.strip().lower()
            known = is_fingerprint_id(key)
            if catalog is not None and not known:
                rule = catalog.lookup(ig.ref.strip())
                if rule is not None:
                    self._by_key.setdefault(rule.id.lower(), ig)
                    known = True
                if key in catalog.by_reference:
                    known = True
            self._by_key.setdefault(key, ig)
            if catalog is not None and not known:
                self.unknown.append(ig)

    def __bool__(self) -> bool:
        return bool(self.ignores)

    def finding(self, f: Finding) -> Ignore | None:
        for key in (f.rule_id, *f.references):
            hit = self._by_key.get(key.lower())
            if hit is not None:
                return hit
        return None

    def fingerprint(self, fp: Fingerprint | None) -> Ignore | None:
        return None if fp is None else self._by_key.get(fp.id)


def outcome_of(item: Input, report: Report, fingerprint: Fingerprint | None, ignores: IgnoreMatcher | None) -> Outcome:
    """The status of one diagnosed input. An input is ignored when its top finding (or, for an unexplained
    crash, its fingerprint) is ignored: the lower findings of one log are competing explanations of the same
    crash, not further problems."""
    status = {Verdict.FOUND: "finding", Verdict.UNEXPLAINED: "unexplained", Verdict.CLEAN: "clean",
              Verdict.NOTHING: "empty"}[report.verdict]
    hit = None
    if ignores and status == "finding":
        hit = ignores.finding(report.findings[0])
    elif ignores and status == "unexplained":
        hit = ignores.fingerprint(fingerprint)
    return Outcome(item, "ignored" if hit else status, report, fingerprint, hit)


def exit_code_of(report: Report, fail_on: str = "any", ignores: IgnoreMatcher | None = None) -> int:
    """One diagnosed log's exit code, by the same policy (decide) as a batch's."""
    from .fingerprint import of_report

    return decide([outcome_of(None, report, of_report(report), ignores)], fail_on)[0]  # type: ignore[arg-type]


def failed_input(item: Input, error: str) -> Outcome:
    return Outcome(item, "unreadable" if item.explicit else "skipped", error=error)


@dataclass
class Group:
    """The inputs that share one root cause, fingerprint or status."""

    kind: str  # a status
    key: str  # rule id, fingerprint id, or the status
    title: str
    reference: str | None = None
    sources: list[str] = field(default_factory=list)
    confidence: str | None = None
    fix: Fix | None = None
    fingerprint: Fingerprint | None = None
    crash_class: str | None = None
    reason: str = ""
    line: int | None = None  # the crash line of the first member

    @property
    def count(self) -> int:
        return len(self.sources)

    @property
    def name(self) -> str:
        """Short name for charts and titles: the reference, the fingerprint, or the status."""
        if self.kind in ("finding", "ignored") and self.reference:
            return self.reference
        if self.fingerprint is not None:
            return self.fingerprint.id
        return LABELS.get(self.kind, self.kind)

    @property
    def label(self) -> str:
        """'vllm#34948 in 7 logs: <title>'."""
        return f"{self.name} in {self.count} log{'s' if self.count != 1 else ''}: {self.title}"


LABELS = {"clean": "no crash", "empty": "empty", "skipped": "skipped", "unreadable": "unreadable"}
TITLES = {
    "clean": "no crash found", "empty": "nothing to diagnose (empty input)",
    "skipped": "not a readable text log (skipped)", "unreadable": "could not be read",
}


def group(outcomes: list[Outcome]) -> list[Group]:
    groups: dict[tuple[str, str], Group] = {}
    for o in outcomes:
        key = group_key(o)
        g = groups.get((o.status, key))
        if g is None:
            g = groups[(o.status, key)] = _new_group(o, key)
        g.sources.append(o.source)
        top = o.top
        if top is not None and o.status in ("finding", "ignored"):
            if g.confidence is None or CONFIDENCE_ORDER[top.confidence] < CONFIDENCE_ORDER[g.confidence]:
                g.confidence = top.confidence
                g.fix = top.fixes[0] if top.fixes else None
    return sorted(groups.values(), key=lambda g: (STATUS_ORDER.index(g.kind), -g.count, g.key))


def group_key(o: Outcome) -> str:
    top = o.top
    if o.status == "finding" or (o.status == "ignored" and top is not None):
        return top.rule_id
    if o.status in ("unexplained", "ignored") and o.fingerprint is not None:
        return o.fingerprint.id
    return o.status


def _new_group(o: Outcome, key: str) -> Group:
    top = o.top
    crash = o.report.crash if o.report is not None else None
    g = Group(kind=o.status, key=key, title=TITLES.get(o.status, ""), crash_class=crash.crash_class if crash else None,
              line=crash.line_no if crash else None)
    if top is not None and o.status in ("finding", "ignored"):
        g.title, g.reference = top.title, top.references[0] if top.references else top.rule_id
    elif o.fingerprint is not None and o.status in ("unexplained", "ignored"):
        g.fingerprint = o.fingerprint
        g.title = unexplained_title(o.fingerprint, crash)
    if o.status == "ignored" and o.ignored_by is not None:
        g.reason = o.ignored_by.reason or f"by {o.ignored_by.origin or 'configuration'}"
    return g


def unexplained_title(fp: Fingerprint, crash) -> str:
    """'illegal-memory-access: AcceleratorError: CUDA error: ...' or, for a traceback cut before its
    exception line, where it was cut."""
    kind = crash.crash_class if crash is not None and crash.crash_class != "unknown" else "crash"
    parts = [kind]
    if crash is not None and crash.exception_type:
        parts.append(fp.exception_type)
    if fp.template:
        parts.append(fp.template)
    if len(parts) == 1:
        where = f" in {fp.frames[-1]}" if fp.frames else ""
        what = "a hang (a live thread's stack)" if crash is not None and crash.crash_class == HANG else \
            "a traceback cut before its exception line"
        parts = [f"crash: {what}{where}"]
    return "unexplained " + ": ".join(parts)


@dataclass
class Summary:
    """The outcome of a batch: every input, the groups, and the exit code the policy chose."""

    outcomes: list[Outcome]
    groups: list[Group]
    fail_on: str
    exit_code: int
    notes: list[str] = field(default_factory=list)  # what the policy let pass, unknown ignores
    warnings: list[str] = field(default_factory=list)  # from expanding the inputs
    secrets: set[str] = field(default_factory=set)  # secret values found in the inputs (for ::add-mask::)

    @property
    def reports(self) -> list[Report]:
        return [o.report for o in self.outcomes if o.report is not None]

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def fingerprint_version(self) -> int:
        return FINGERPRINT_VERSION

    def failing(self, o: Outcome) -> bool:
        """Whether this outcome fails the build under the policy."""
        if o.status == "unreadable":
            return True
        if o.status == "finding":
            return self.fail_on in ("any", "known") or (self.fail_on == "high" and o.top.confidence == "high")
        return o.status == "unexplained" and self.fail_on == "any"

    def headline(self) -> str:
        n = len(self.outcomes)
        parts = []
        causes = sum(1 for g in self.groups if g.kind == "finding")
        if causes:
            parts.append(f"{self.count('finding')} with a known root cause ({causes} distinct)")
        if self.count("unexplained"):
            fps = sum(1 for g in self.groups if g.kind == "unexplained")
            parts.append(f"{self.count('unexplained')} with an unexplained crash ({fps} fingerprint{'s' if fps != 1 else ''})")
        for status, words in (("ignored", "ignored"), ("clean", "without a crash"), ("empty", "empty"),
                              ("skipped", "skipped"), ("unreadable", "unreadable")):
            if self.count(status):
                parts.append(f"{self.count(status)} {words}")
        return f"{n} log{'s' if n != 1 else ''}: " + ("; ".join(parts) if parts else "nothing to diagnose")


def summarize(outcomes: list[Outcome], fail_on: str = "any", *, warnings: list[str] | None = None,
              secrets: set[str] | None = None, ignores: IgnoreMatcher | None = None) -> Summary:
    code, notes = decide(outcomes, fail_on)
    if ignores is not None:
        for ig in ignores.unknown:
            notes.append(f"ignore {ig.ref!r} ({ig.origin}) names no rule, reference or fingerprint")
    return Summary(outcomes, group(outcomes), fail_on, code, notes, list(warnings or []), set(secrets or ()))


def decide(outcomes: list[Outcome], fail_on: str = "any") -> tuple[int, list[str]]:
    """The exit code under the policy, and notes on what it let pass."""
    statuses = [o.status for o in outcomes]
    findings = [o for o in outcomes if o.status == "finding"]
    high = [o for o in findings if o.top.confidence == "high"]
    return exit_code(len(findings), len(high), statuses.count("unexplained"), "unreadable" in statuses, fail_on)


def exit_code(findings: int, high: int, unexplained: int, unreadable: bool = False,
              fail_on: str = "any") -> tuple[int, list[str]]:
    """The one exit-code policy (diagnose, report, check): from how many findings (of them high-confidence) and
    unexplained crashes there are, and whether an input named on the command line could not be read."""
    notes = []
    if fail_on == "any":
        code = EXIT_FINDING if findings else EXIT_UNEXPLAINED if unexplained else EXIT_CLEAN
    elif fail_on == "known":
        code = EXIT_FINDING if findings else EXIT_CLEAN
        if unexplained:
            notes.append(f"{unexplained} unexplained crash(es) do not fail the build (--fail-on known)")
    elif fail_on == "high":
        code = EXIT_FINDING if high else EXIT_CLEAN
        if findings > high:
            notes.append(f"{findings - high} finding(s) below high confidence do not fail the build (--fail-on high)")
        if unexplained:
            notes.append(f"{unexplained} unexplained crash(es) do not fail the build (--fail-on high)")
    else:
        code = EXIT_CLEAN
        if findings or unexplained:
            notes.append(f"{findings} finding(s) and {unexplained} unexplained crash(es) do not fail the build (--fail-on never)")
    if unreadable:
        code = EXIT_USAGE
    return code, notes
