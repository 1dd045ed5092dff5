"""Pure matching: (rule, scan) -> every clause hit, miss or unknown, each with the sentence that says why.

No scoring here: rank.py alone decides how much a clause counts.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from typing import Any

from .. import vocab
from ..knowledge.patterns import compile_pattern
from ..read.literals import gate_open
from ..knowledge.catalog import PATTERN_TIMEOUT, clause_anchors
from ..knowledge.generic import PYTHON_WORDING
from ..model import CAPTURE_STEP, HANG, IMPORT_STEP, STEP_NAMES, Clause, Crash, Evidence, Rule, RuleMatch, Scan
from ..read.crash import CALLED, ELLIPSIS
from ..read.phases import CAPTURING, IMPORTING
from ..versions import at_or_past, in_range, parse_version

HIT, MISS, UNKNOWN = "hit", "miss", "unknown"


class PatternTimeout(Exception):
    def __init__(self, rule_id: str, pattern: str):
        super().__init__(f"rule {rule_id}: pattern {pattern!r} took too long and was skipped")
        self.rule_id, self.pattern = rule_id, pattern


def _search(pattern: Any, text: str, rule_id: str, source: str, *, full: bool = False, partial: bool = False) -> Any:
    try:
        if full:
            return pattern.fullmatch(text, timeout=PATTERN_TIMEOUT)
        return pattern.search(text, timeout=PATTERN_TIMEOUT, partial=partial)
    except TimeoutError:
        raise PatternTimeout(rule_id, source) from None


def _short(text: str, limit: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _where(crash: Crash) -> str:
    return f" ({crash.process})" if crash.process else ""


_INSTALL_PREFIX = re.compile(r"""(["'\s(]|^)/[^\s"']*?/((?:site|dist)-packages/)""")
# a message's listing of names (`The available parameters ... are: {'visual.blocks.0.attn.qkv.weight', ...}`):
# every module of the model is in it, so a log pattern naming one says nothing about the crash (ms-swift#8477)
_LISTING = re.compile(r"""[\[{](?:\s*(?P<q>['"])[^'"\n]{1,300}(?P=q)\s*,){8,}[^\]}\n]*(?:[\]}]|$)"""  # (or cut off at the line's end)
                      # (or a line that starts inside one, a paste cut mid-list: `aForSequenceClassification', 'Aria...`)
                      r"""|^[^'"\s]*(?P<q2>['"])\s*,(?:\s*(?P=q2)[^'"\n]{1,300}(?P=q2)\s*,){7,}[^\]}\n]*(?:[\]}]|$)""")


# a line of a pretty-printed JSON object (a pasted response): a member, or a bracket that opens or closes one
_JSON_MEMBER = re.compile(r"""^\s*(?:"[^"]+"\s*:\s*.*|[{}\[\]],?|[{\[]|"[^"]*",?)\s*$""")
MAX_JSON_RUN = 400


def _joined_json(lines: tuple[str, ...]) -> tuple[str, ...]:
    """Each pretty-printed JSON object of the paste once more as one line, the way a `log` pattern for a response
    expects it (`"reasoning_content": "...", "content": null` over two lines, QuantumNous/new-api#1255)."""
    out, run = [], []
    for line in lines + ("",):
        if _JSON_MEMBER.match(line) and len(run) < MAX_JSON_RUN:
            run.append(line.strip())
            continue
        if sum(1 for r in run if r.startswith('"') and ":" in r) >= 2:
            out.append(" ".join(run))
        run = [line.strip()] if _JSON_MEMBER.match(line) else []
    return tuple(out)


def _wrapped_messages(scan: Scan) -> tuple[str, ...]:
    """Each crash message the reader joined from several lines (a message wrapped by the engine, a terminal or a web
    page: `... Consider reducing` / `tensor_parallel_size or running with ...`) once more as one line, the way a
    `log` pattern for it expects it."""
    out = []
    for crash in scan.crashes:
        for exc, msg in ((crash.exception_type, crash.message), *((c.exception_type, c.message) for c in crash.chained)):
            if msg and len(msg) >= 40 and not any(msg in line for line in scan.lines):
                out.append(f"{exc}: {msg}" if exc else msg)
    return tuple(dict.fromkeys(out))


def _without_listings(line: str) -> str:
    return _LISTING.sub("{...}", line) if line.count("', '") + line.count('", "') >= 8 else line


class MatchIndex:
    """A catalog's literals, found in a log in one pass, and which rules' `match` clauses each anchors: rules_out need
    not look clause by clause at a rule none of whose `match` anchors occurs (most rules, on most logs)."""

    def __init__(self, catalog):
        from ..read.scanner import LiteralIndex

        self.literals = LiteralIndex(catalog.literals())
        self.by_anchor: dict[tuple[str, bool], set[str]] = {}
        self.always: set[str] = set()  # a clause that may hit whatever the log holds (no anchor, the import step)
        self.by_message: set[str] = set()  # may hit on a pasted fragment or a message cut short
        self.by_kinds: dict[tuple[frozenset[str], ...], list[str]] = {}  # the rules whose alternatives hold these kinds
        # the same for every clause, `match` or `supports`: a rule none of whose clauses may hit is silent
        self.any_by_anchor: dict[tuple[str, bool], set[str]] = {}
        self.any_always: set[str] = set()
        self.any_by_message: set[str] = set()
        self._open: dict[frozenset[str], frozenset[str]] = {}
        for rule in catalog.rules.values():
            self.by_kinds.setdefault(rule.match_kinds, []).append(rule.id)
            if rule.match_anchors is None:
                self.always.add(rule.id)
            else:
                for anchor in rule.match_anchors:
                    self.by_anchor.setdefault(anchor, set()).add(rule.id)
            if any("message" in kinds for kinds in rule.match_kinds):
                self.by_message.add(rule.id)
            every = tuple(rule.match) + (tuple(rule.supports),)
            anchors = clause_anchors(every)
            if anchors is None:
                self.any_always.add(rule.id)
            else:
                for anchor in anchors:
                    self.any_by_anchor.setdefault(anchor, set()).add(rule.id)
            if any(cl.kind == "message" for alternative in every for cl in alternative):
                self.any_by_message.add(rule.id)

    def present(self, text: str) -> set[tuple[str, bool]]:
        return self.literals.present(text)

    def open_rules(self, misses: frozenset[str]) -> frozenset[str]:
        """The rules an alternative of which holds no clause of a kind that misses on a log when none of its anchors
        occurs there (`misses`, as Haystack.absent says): of the sixteen such sets, each computed once."""
        found = self._open.get(misses)
        if found is None:
            found = self._open[misses] = frozenset(
                rid for kinds, rids in self.by_kinds.items() if not kinds or not all(ks & misses for ks in kinds)
                for rid in rids)
        return found

    def touched(self, present: set[tuple[str, bool]], messages_open: bool, every: bool = False) -> set[str]:
        """The rules a `match` clause of which may hit (`every`: any clause, `supports` too): an anchor present, or
        always."""
        always, by_message, by_anchor = ((self.any_always, self.any_by_message, self.any_by_anchor) if every
                                         else (self.always, self.by_message, self.by_anchor))
        out = set(always)
        if messages_open:
            out |= by_message
        for anchor in present:
            out.update(by_anchor.get(anchor, ()))
        return out


class Haystack:
    """All text a scan's clauses search, joined once, so a clause whose anchors are absent skips its regexes."""

    def __init__(self, scan: Scan, index: MatchIndex | None = None):
        parts = []
        for crash in scan.crashes:
            parts.extend(crash.functions)
            parts.extend(f.function for f in crash.native)
            parts.append(crash.exception_type or "")
            parts.append(crash.message)
            for chained in crash.chained:
                parts.extend((chained.exception_type or "", chained.message))
        parts.extend(scan.lines)
        self.text = "\n".join(parts)
        self.lower = self.text.lower()
        # (where a user installed Python says nothing: `/data/venv_qwen3.5/lib/python3.10/site-packages/` is no model)
        self.lines = tuple(_without_listings(_INSTALL_PREFIX.sub(r"\1/...\2", line) if "-packages/" in line else line)
                           for line in scan.lines) + _joined_json(scan.lines) + _wrapped_messages(scan)
        self.lines_lower = [line.lower() for line in self.lines]
        self._first: dict[str, int | None] = {}
        # which rule literals occur anywhere: one multi-pattern pass, not a substring search per literal
        self.present = index.present(self.text) if index is not None else None
        # what a clause of each kind says when none of its anchors occurs (as clause_state decides it)
        self.absent = {kind: _absent_state(kind, scan) for kind in ("frames", "exception", "message", "log")}
        # a log whose only crash is a hung thread's stack: a message clause misses unless it is about a hang (one
        # clause at a time, so the kind's absent state stays unknown: absent_state)
        hung = hung_only([c for c in scan.crashes if c.role != "wrapper"])
        self._hung = self.absent["message"] == UNKNOWN and hung
        # (and an exception clause, when no crash of the log has a type)
        self._hung_untyped = self.absent["exception"] == UNKNOWN and hung
        # pasted fragments of a message: a message clause may hit on its long literal alone
        self.excerpts = "\n".join(c.message for c in scan.crashes if c.excerpt)
        # a message cut short with "...": a message clause may hit on the literals before the cut alone, when one of
        # them holds the cut's last CUT_END characters (where _literal_chars lets a cut inside a literal end)
        self.cut_ends = (frozenset(head[-CUT_END:] for head in _cut_heads(scan)) if any(c.cut_short for c in scan.crashes)
                         else ())
        # (by the clause's id: the catalog holds every clause for longer than a log's haystack lives)
        self._may: dict[int, bool] = {}
        self._misses = frozenset(kind for kind, state in self.absent.items() if state == MISS)
        self._index = index
        messages_open = bool(self.excerpts or self.cut_ends)
        self._touched = index.touched(self.present, messages_open) if index is not None else None
        self._touched_any = index.touched(self.present, messages_open, every=True) if index is not None else None

    def absent_state(self, clause: Clause) -> str:
        """The state clause_state gives this clause when none of its anchors occurs: its kind's (absent), but on a
        log whose only crash is a hung thread's stack a message clause about an error (not a hang) misses."""
        if clause.kind == "message" and self._hung and not hang_message(clause):
            return MISS
        if clause.kind == "exception" and self._hung_untyped and not hang_message(clause):
            return MISS
        return self.absent[clause.kind]

    def contenders(self, rules) -> list[Rule]:
        """The rules (in their order) that rules_out does not reject: the untouched ones decided once per shape of
        their alternatives' kinds, the rest one by one. (Asked of the whole catalog on every log.)"""
        index = self._index
        if index is None:
            return [rule for rule in rules if not self.rules_out(rule)]
        kept = index.open_rules(self._misses)
        touched = self._touched
        return [rule for rule in rules if rule.id in kept or rule.id in touched and not self.rules_out(rule)]

    def rules_out(self, rule: Rule) -> bool:
        """True when every `match` alternative has a clause that misses without running a regex: the rule is
        rejected, and evaluating it clause by clause would only say so more slowly. (Asked of every rule on every
        log: plain loops, not generators.)"""
        if not rule.match:
            return False
        absent, known, may_hit = self.absent, self._may, self._may_hit
        if self._touched is not None and rule.id not in self._touched:
            # no `match` clause may hit: an alternative misses when it holds a clause of a kind that then misses (the
            # same for every rule whose alternatives hold the same kinds: the index decides it per set of such kinds)
            return rule.id not in self._index.open_rules(self._misses)
        for alt in rule.match:
            for cl in alt:
                if absent[cl.kind] == MISS:
                    hit = known.get(id(cl))  # (may_hit, inlined: asked of every clause of every rule on every log)
                    if hit is None:
                        hit = known[id(cl)] = may_hit(cl)
                    if not hit:
                        break  # this alternative misses
            else:
                return False  # an alternative that may hold
        return True

    def silent(self, rule: Rule) -> bool:
        """No clause of the rule (`match` or `supports`) can hit on this log: none has an anchor in it."""
        if self._touched_any is not None and rule.id not in self._touched_any:
            return True  # (no anchor of any clause in the log)
        may_hit = self.may_hit
        return not any(may_hit(cl) for alt in rule.match for cl in alt) and not any(may_hit(cl) for cl in rule.supports)

    def has(self, literal: str, caseless: bool) -> bool:
        if self.present is not None:
            return (literal, caseless) in self.present
        return literal in (self.lower if caseless else self.text)

    def may_hit(self, clause: Clause) -> bool:
        """Whether a clause can hit on this log at all (its anchors occur, or a pasted fragment may be its message);
        asked by rules_out and again by clause_state, so kept per clause."""
        hit = self._may.get(id(clause))
        if hit is None:
            hit = self._may[id(clause)] = self._may_hit(clause)
        return hit

    def _may_hit(self, clause: Clause) -> bool:
        if clause.anchors is None:
            return True
        if clause.kind == "frames" and not STEP_NAMES.isdisjoint(clause.sources):
            return True  # (a step such as `<import>` hits on where the log places the crash, whatever its frames' names)
        if self.excerpts and clause.kind == "message" and fragment_source(clause, self.excerpts) is not None:
            return True
        if self.cut_ends and clause.kind == "message" and any(
                end in lit for gate in clause.gates or () for lits, _ in gate or () for lit in lits for end in self.cut_ends):
            return True
        if self.present is not None:
            return not self.present.isdisjoint(clause.anchors)
        return any(self.has(lit, nocase) for lit, nocase in clause.anchors)

    def first_line(self, clause: Clause, i: int, rule_id: str) -> int | None:
        """Index of the first kept line pattern i of a log clause matches; computed once per pattern source,
        however many rules share it."""
        source = clause.sources[i]
        if source not in self._first:
            gate = (clause.gates or (None,) * len(clause.sources))[i]
            pattern = compile_pattern("log", source)
            found = None
            for n, (line, low) in enumerate(zip(self.lines, self.lines_lower)):
                if gate_open(gate, line, low) and _search(pattern, line, rule_id, source):
                    found = n
                    break
            self._first[source] = found
        return self._first[source]

    def open_patterns(self, clause: Clause) -> tuple[int, ...]:
        """Indexes of the clause's patterns whose literals all occur somewhere in the log's evidence."""
        gates = clause.gates or (None,) * len(clause.sources)
        return tuple(
            i for i, gate in enumerate(gates)
            if gate is None or any(all(self.has(lit, nocase) for lit in lits) for lits, nocase in gate)
        )


def _absent_state(kind: str, scan: Scan) -> str:
    """The state clause_state gives a clause of this kind that has nothing to search."""
    crashes = [c for c in scan.crashes if c.role != "wrapper"]
    if kind == "frames":
        complete = [c for c in crashes if c.complete and c.frames and c.role != "consequence"]
        return MISS if complete and not library_tail(complete[0]) else UNKNOWN
    if kind == "exception":
        return MISS if any(c.exception_type and c.role != "consequence" for c in crashes) else UNKNOWN
    if kind == "message":
        return MISS if any(c.role != "consequence" and not colon_cut(c) for c in crashes if c.said) else UNKNOWN
    # (a `log` clause that finds nothing misses, unless the paste starts at its crash or ends inside a traceback cut
    # before its exception: clause_state, _unseen_log)
    return UNKNOWN if starts_at_crash(scan) or cut_below(scan) else MISS


def starts_at_crash(scan: Scan) -> bool:
    """The paste begins at its crash: nothing above its first crash but a heading. What the engine logged before it
    (the start-up lines, the warnings, the launch) is not shown, so a `log` clause that finds nothing there rules no
    cause out."""
    return scan.lead == 0 and any(c.role != "consequence" for c in scan.crashes)


def cut_below(scan: Scan) -> bool:
    """A traceback of the log stops before its exception line: the lines under its deeper frames (the code line an
    assertion prints, the frames below the cut) are not shown, so a `log` clause for one of them rules nothing out."""
    return any(c.frames and not c.complete for c in scan.crashes if c.role != "wrapper")


_SENTENCE = re.compile(r"[A-Za-z]{2,} [a-z]{2,} [A-Za-z]{2,}")  # words of a sentence in a pattern, not a name or a path
UNSEEN_LOG = "the paste starts at its crash: the lines logged before it, where this one would be, are not shown"
UNSEEN = "<unseen>"  # Evidence.subject of a `log` clause left unknown by a paste that starts at its crash
CUT_LOG = "the traceback is cut before its exception: a line under its deeper frames, where this one would be, is not shown"
CUT = "<cut>"  # Evidence.subject of a `log` clause for a traceback's own line that a cut traceback may hold below its cut
NEXT_CALL = "<next call>"  # Evidence.line of a frames hit on the frame a traceback was cut inside (Crash.next_call)


def _cut_at(scan: Scan, steps: list[str], rule_id: str) -> bool:
    """A traceback cut before its exception stops in one of these frames (the step the rule names, `_get_kv_connector_output`
    above LMCache's `wait_for_save`): the cut is where the rule's own path goes on, not a path every cause shares."""
    for crash in scan.crashes:
        if crash.frames and not crash.complete and crash.role != "wrapper":
            name = crash.frames[-1].function
            if any(src not in STEP_NAMES and _search(compile_pattern("frames", src), name, rule_id, src, full=True)
                   for src in steps):
                return True
    return False


def _unseen_log(states: tuple[Evidence, ...], alternative, scan: Scan, supports=(), rule_id: str = "") -> tuple[Evidence, ...]:
    """An alternative's states, its `log` clauses left unknown by a paste that starts at its crash (clause_state)
    kept so only when the alternative's message clause hit on words of its own (a literal of MIN_FRAGMENT characters
    that is not Python's wording of an error: `Device string must not be empty`) and, under a whole traceback (from
    its header to its exception, which shows every line it holds), the clause looks for a sentence the engine logs
    (`... NVML Shared Library Not Found`) rather than a frame, a file or a code line; else they miss, as on any
    other log. The finding such an alternative makes is a candidate (rank.score keeps it low).
    A paste that ends inside a traceback cut before its exception (cut_below) in a frame the rule names (its match or
    supports frames: _cut_at) hides what lies under the cut: a clause for a line of the traceback's own (a code line,
    a frame: no sentence), beside a frames clause the cut left unknown, stays unknown for that reason (subject CUT: a
    candidate like any other cut clause). A cut in a frame the rule does not name (a path many causes share) rules
    it out as before."""
    if not any(st.state == UNKNOWN and st.subject == UNSEEN for st in states):
        return states
    below = cut_below(scan) and any(cl.kind == "frames" and (st.state == UNKNOWN or st.line == NEXT_CALL)
                                    for st, cl in zip(states, alternative)) \
        and _cut_at(scan, [src for cl in tuple(alternative) + tuple(supports) if cl.kind == "frames" for src in cl.sources], rule_id)
    said = [c.message for c in scan.crashes if c.said]
    telling = any(st.state == HIT and not st.generic and cl.kind == "message" and any(
        _past_label(words, message) and len(_own_words(words)) >= MIN_FRAGMENT
        for _, words in fragment_literals(cl, MIN_FRAGMENT, 1) for message in said)
        for st, cl in zip(states, alternative))
    whole = any(c.complete and c.headed and c.frames for c in scan.crashes if c.role != "consequence")
    out = []
    for st, cl in zip(states, alternative):
        if st.state == UNKNOWN and st.subject == UNSEEN and (
                not telling or whole and not any(_SENTENCE.search(src) for src in cl.sources)):
            if below and not any(_SENTENCE.search(src) for src in cl.sources):
                st = replace(st, text=CUT_LOG, subject=CUT)
            else:
                st = replace(st, state=MISS, text=f"no log line matches {_names(cl.sources)}")
        out.append(st)
    return tuple(out)


def colon_cut(crash: Crash) -> bool:
    """The crash's message stops right after a colon where the paste ends (`Worker failed with error:`,
    `torch.AcceleratorError: CUDA error:`, `Capture cuda graph failed: ...`): what it announced is not shown, so it can
    rule no message out."""
    return crash.cut_short and ELLIPSIS.sub("", crash.message).rstrip().endswith(":")


HEADLESS_FRAMES = 2
_ENGINE_CODE = re.compile(r"(?:^|/)(?:vllm|sglang|vllm_ascend|vllm_omni|vllm_gaudi)/")


# a message pattern for what a hang makes the engine say (its deadline, a watchdog): a log whose only crash is a live
# thread's stack (model.HANG) may have printed it elsewhere; any other message is an error the stuck thread never raised
_HANG_WORDS = re.compile(r"(?i)tim(?:ed|e)[ _-]?out|watchdog|\bhang|\bstuck\b|deadlock|broadcast block|heartbeat")


def hung_only(crashes: list[Crash]) -> bool:
    """Of crashes that state no message: a hung thread's stack is there, and neither a message cut after its colon nor
    a traceback cut above its exception, either of which leaves every message clause unknown first."""
    return any(c.crash_class == HANG for c in crashes) and not any(colon_cut(c) for c in crashes if c.said) \
        and not any(c.frames and not c.complete and c.crash_class != HANG for c in crashes)


def hang_message(clause: Clause) -> bool:
    """A message (or exception) clause for what a hang makes the engine say (_HANG_WORDS: `TimeoutError`, a watchdog),
    not for an error a thread raised."""
    return any(_HANG_WORDS.search(src) for src in clause.sources)


def library_tail(crash: Crash) -> bool:
    """A traceback without its header that shows at most HEADLESS_FRAMES frames, all in a library the engine called
    (`File ".../triton/language/semantic.py", in dot` over the error): a paste of its last lines, so the engine's
    frames that called the library are not shown, and a frames clause none of the shown frames satisfies is unknown,
    not a miss. (A frame of the engine's own code shown there says where it raised: that rules other frames out.)"""
    return not crash.headed and len(crash.frames) <= HEADLESS_FRAMES \
        and not any(_ENGINE_CODE.search(f.file) for f in crash.frames)


def clause_state(clause: Clause, scan: Scan, rule_id: str, label: str, hay: Haystack | None = None,
                 taken: frozenset[str] = frozenset()) -> Evidence:
    """One clause's state on a scan. `taken`: the frames and log lines a `match` clause already hit, which a `supports`
    clause passes over for the next frame or line it names (a rule naming its raise site in both says more of the path
    than that frame; the line its match found, repeated among its supporting patterns, is one fact, not two)."""
    kind = clause.kind
    crashes = [c for c in scan.crashes if c.role != "wrapper"]
    search = hay is None or hay.may_hit(clause)
    if kind == "frames":
        # the deepest frame the clause names, a specific one before any generic one deeper down (`create_model_config`
        # above `get_config`: nlzy/vllm-gfx906#2)
        generic_hit = None
        passed_over = ""  # a frame the match clause already counted
        if CAPTURE_STEP in clause.sources:
            why = _captured(crashes)
            if why is not None:
                return Evidence(label, HIT, why, CAPTURE_STEP)
        for crash in scan.crashes if search or IMPORT_STEP in clause.sources else ():
            if crash.during == IMPORTING and IMPORT_STEP in clause.sources:
                # a rule whose crash happens while the engine's modules load, and a traceback stopped there
                return Evidence(label, HIT, f"the traceback{_where(crash)} stops while the engine's modules are imported",
                                IMPORT_STEP)
            for frame in reversed(crash.frames + crash.native):
                if frame.file == CALLED:
                    continue  # (the call a cut traceback's last code line makes places the crash in a step, no more)
                if frame.function in taken:
                    passed_over = passed_over or frame.function
                    continue
                for pat, src in candidates(clause, frame.function, frame.function.lower()):
                    if _search(pat, frame.function, rule_id, src, full=True):
                        loc = frame.location if frame.file else "native"
                        where = "the hung thread's stack" if crash.crash_class == HANG else "the traceback"
                        hit = _hit(label, f"frame `{frame.function}` ({loc}) in {where}{_where(crash)}", clause, src,
                                   frame.function)
                        if not hit.generic:
                            return hit
                        generic_hit = generic_hit or hit
        for crash in crashes if search else ():
            # a traceback cut inside its next frame line names that frame by the call on the code line above it
            # (`self._init_pooler(vllm_config)`, crash.next_call): a rule that names it exactly stands on it
            name = crash.next_call
            if name and not crash.complete and not any(f.function == name for f in crash.frames):
                for pat, src in candidates(clause, name, name.lower()):
                    if _search(pat, name, rule_id, src, full=True):
                        hit = _hit(label, f"the traceback{_where(crash)} is cut on its call to `{name}`, the next frame",
                                   clause, src, name, line=NEXT_CALL)
                        if not hit.generic:
                            return hit
        if generic_hit is not None:
            return generic_hit
        complete = [c for c in crashes if c.complete and c.frames and c.role != "consequence"]
        if complete and library_tail(complete[0]):
            deepest = complete[0].functions[-1]
            return Evidence(label, UNKNOWN, f"the traceback is cut above its frame `{deepest}`: the frames that called "
                                            f"it are not in the paste (rule: {_names(clause.sources)})")
        if complete and passed_over:
            return Evidence(label, MISS, f"no frame of {_names(clause.sources)} beyond `{passed_over}`, which the match "
                                         "clause already counts")
        if complete:
            deepest = complete[0].functions[-1]
            return Evidence(label, MISS, f"the traceback ends in `{deepest}`, not in {_names(clause.sources)}")
        if set(clause.sources) == {CAPTURE_STEP}:
            # (where the log places the crash is a fact of the log, as a `log` clause's line is: no phase, no hit)
            return Evidence(label, MISS, f"nothing in the log places the crash in {_names(clause.sources)}")
        return Evidence(label, UNKNOWN, f"no complete traceback to look for {_names(clause.sources)}")
    if kind == "exception":
        typed = [c for c in crashes if c.exception_type]
        # a chained cause cut above its exception line has no type to compare
        for crash in [c for c in typed + list(_chained(typed)) if c.exception_type] if search else ():
            for pat, src in candidates(clause, crash.exception_type, crash.exception_type.lower()):
                if _search(pat, crash.exception_type, rule_id, src, full=True):
                    if crash.role == "consequence" and src in clause.generic_sources:
                        continue  # (a follow-on's `RuntimeError: cancelled` says nothing of the cause's type)
                    return _hit(label, f"exception `{crash.exception_type}`{_where(crash)}", clause, src,
                                crash.exception_type)
        if typed and all(c.role == "consequence" for c in typed):
            # as for a message: a follow-on error's type cannot rule the cause's out
            return Evidence(label, UNKNOWN, "the log shows only a follow-on error's exception type")
        if typed:
            return Evidence(label, MISS, f"the exception is `{typed[0].exception_type}`, not {_names(clause.sources)}")
        if hung_only(crashes) and not hang_message(clause):
            # (as for a message: a thread still running where it is stuck raised no `ZeroDivisionError`)
            return Evidence(label, MISS, f"the log shows a live thread stuck, not an error; this cause raises "
                                         f"{_names(clause.sources)}")
        return Evidence(label, UNKNOWN, "the log shows no exception type")
    if kind == "message":
        said = [c for c in crashes if c.said]
        fits = False  # a message cut short whose shown part could still become one of the clause's patterns
        for crash in said + list(_chained(said)) if search else ():
            text = f"{crash.exception_type}: {crash.message}" if crash.exception_type else crash.message
            for pat, src in candidates(clause, text, text.lower()):
                m = _search(pat, text, rule_id, src)
                if m:
                    if crash.excerpt:
                        return _hit(label, f"pasted lines “{_short(text)}”", clause, src, FRAGMENT, m=m)
                    return _hit(label, f"message “{_short(text)}”{_where(crash)}", clause, src, text, m=m)
            head = _cut_head(crash, text)
            if head is not None:
                # a message the paste shortened with "...", or the last line of a paste that stops mid-line: what it
                # shows may be the start of the pattern's text
                for i, (pat, src) in enumerate(candidates(clause, head, head.lower(), partial=True)):
                    m = _search(pat, head, rule_id, src, partial=True)
                    if m and m.end() == len(head):
                        shown = _literal_chars(clause, i, head[m.start():])
                        if shown >= MIN_FRAGMENT:
                            return _hit(label, f"message “{_short(text)}” (cut short: its start matches {_names((src,))})",
                                        clause, src, FRAGMENT)
                        fits = fits or (m.partial and shown >= MIN_FIT)
            if crash.excerpt:
                src = fragment_source(clause, text)
                if src is not None:
                    return _hit(label, f"message fragment “{_short(text)}” (part of {_names((src,))})", clause, src,
                                FRAGMENT)
        if fits:
            return Evidence(label, UNKNOWN, "the message is cut off where the paste ends, and what it shows fits "
                                            f"{_names(clause.sources)}")
        if any(c.role != "consequence" and not colon_cut(c) for c in said):
            return Evidence(label, MISS, f"no crash message matches {_names(clause.sources)}")
        if any(colon_cut(c) for c in said):
            return Evidence(label, UNKNOWN, "the message stops after its colon where the paste ends: what it goes on "
                                            "to say is not shown")
        if any(c.frames and not c.complete and c.crash_class != HANG for c in crashes):
            return Evidence(label, UNKNOWN, "the traceback stops before its exception line: no message to match")
        if hung_only(crashes):  # (what the two branches above leave: Haystack.absent_state asks the same)
            if not hang_message(clause):
                # a thread still running where it is stuck raised nothing: a cause that is an error's is not this
                return Evidence(label, MISS, f"the log shows a live thread stuck, not an error; this cause raises "
                                             f"{_names(clause.sources)}")
            return Evidence(label, UNKNOWN, "the log shows where a live thread is stuck (py-spy), not the message "
                                            "the engine printed about it")
        if any(c.message_cut for c in crashes):
            return Evidence(label, UNKNOWN, "the paste ends on the exception type: its message is cut off")
        return Evidence(label, UNKNOWN, "the log holds no crash message (only wrappers or follow-on errors)")
    # log: the first line any of the clause's patterns matches; a pattern that also matches what a healthy server
    # prints (knowledge/generic.py ORDINARY_LINES) only when no other pattern of the clause hits
    if search:
        hay = hay if hay is not None else Haystack(scan)
        hits = []
        for i in hay.open_patterns(clause):
            at = hay.first_line(clause, i, rule_id)
            if at is not None:
                hits.append((clause.sources[i] in clause.generic_sources, at, i))
        if taken and hits:
            # (a line the match took is shown once: another line the clause finds says more; with none, it stands)
            hits = [h for h in hits if (scan.lines[h[1]] if h[1] < len(scan.lines) else hay.lines[h[1]]) not in taken] or hits
        if hits:
            _, at, i = min(hits)
            line = scan.lines[at] if at < len(scan.lines) else hay.lines[at]  # (a joined JSON object is the haystack's own)
            source = clause.sources[i]
            m = _search(compile_pattern("log", source), hay.lines[at], rule_id, source) if "(?P<" in source else None
            return _hit(label, f"log line “{_short(line)}”", clause, source, line=line, m=m)
    if starts_at_crash(scan):
        return Evidence(label, UNKNOWN, UNSEEN_LOG, subject=UNSEEN)  # (evaluate's _unseen_log decides whether it stays so)
    if cut_below(scan):
        return Evidence(label, UNKNOWN, CUT_LOG, subject=UNSEEN)  # (the same: below a cut rather than above the paste)
    return Evidence(label, MISS, f"no log line matches {_names(clause.sources)}")


def _captured(crashes: list[Crash]) -> str | None:
    """Why the log places its crash in CUDA graph capture, or None: the crash has no frames of its own to say where
    it was raised (a worker's error quoted by the process that waited for it), and the last phase line before it is
    the capture's (not the warm-up after it: the sampler's dummy run there is a cause of its own)."""
    for crash in crashes:
        if crash.role != "consequence" and not crash.frames and crash.during == CAPTURING:
            return f"the crash{_where(crash)} came while {crash.during} (the log's last start-up line before it)"
    return None


def _cut_heads(scan: Scan):
    """The shown part of every message cut short (the crashes' and their chained causes')."""
    for crash in list(scan.crashes) + list(_chained(scan.crashes)):
        text = f"{crash.exception_type}: {crash.message}" if crash.exception_type else crash.message
        head = _cut_head(crash, text)
        if head is not None:
            yield head


def _cut_head(crash: Crash, text: str) -> str | None:
    """The part of a message before its cut (read.crash sets `cut_short`: "..." at its end, or the paste's last
    line stopping mid-line); None when the message looks whole."""
    return _head_before_cut(text) if crash.cut_short else None


@functools.lru_cache(maxsize=64)  # (asked again by every message clause of every rule left on the log)
def _head_before_cut(text: str) -> str | None:
    cut = ELLIPSIS.search(text)
    head = text[: cut.start()] if cut else text
    return head if len(head) >= MIN_FRAGMENT else None


def _literal_chars(clause: Clause, i: int, shown: str) -> int:
    """How much of pattern i's literal text a message cut short shows: its literals found whole, and the start of
    the one the message stops in; nothing when it stops outside the pattern's text (a pattern that is mostly `.*`
    matches any cut message and shows nothing of it)."""
    if shown.rstrip().endswith((":", ";")):
        # (a message cut right after a wrapper's colon, `Capture cuda graph failed: ...`, shows which step failed, not
        # the inner error that tells the step's causes apart: none of a pattern's text after the colon is shown)
        return 0
    lits = {lit for lits, _ in (clause.gates or ((),) * (i + 1))[i] or () for lit in lits}
    # (a message that stops where the pattern's text goes on with punctuation is more likely a shorter message of its
    # own, `Loading lora X failed`, than one cut short: only a cut inside a phrase counts)
    tail, end = 0, shown[-CUT_END:]
    for lit in lits if len(end) == CUT_END else ():
        if lit in shown:
            continue
        # (a cut after k >= CUT_END characters of a literal ends on its characters k-CUT_END..k: only those places are
        # tried)
        at = lit.rfind(end, 0, len(lit) - 1)
        while at >= 0 and at + CUT_END > tail:
            k = at + CUT_END
            if shown.endswith(lit[:k]) and lit[k] not in ":;.,)]}'\"":
                tail = k
                break
            at = lit.rfind(end, 0, k - 1)
    if not tail:
        return 0  # the cut is not inside the pattern's text: a `.*` swallowed what the paste shows
    return sum(len(lit) for lit in lits if lit in shown) + tail


FRAGMENT = "<fragment>"  # Evidence.subject of a message hit on pasted lines that are no crash line of their own
MIN_FIT = 8  # characters of a cut message that must agree with a pattern for the message to count as unknown
MIN_FRAGMENT = 20  # characters of a message pattern's literal that a pasted fragment must hold
CUT_END = 4  # characters of a literal a message cut inside it must show (Haystack.cut_ends relies on it)


class PerClause:
    """Values kept per clause object (by identity: clauses are frozen and shared by the catalog, hashing one hashes
    all its patterns); the clause is held with its value, so an id is never reused for another clause."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Clause, Any]] = {}

    def get(self, clause: Clause, compute):
        known = self._by_id.get(id(clause))
        if known is None or known[0] is not clause:
            known = self._by_id[id(clause)] = (clause, compute(clause))
        return known[1]


_FRAGMENTS: dict[tuple[int, int], PerClause] = {}  # each clause's fragment literals, per pair of thresholds


def fragment_literals(clause: Clause, min_len: int = MIN_FRAGMENT, min_spaces: int = 2) -> list[tuple[str, str]]:
    """(source, words) per message pattern: its longest literal without the punctuation at its ends, when that
    is long enough to stand for the message (`exceeds available Mamba cache blocks`). Kept per clause (a clause
    is asked on every log that pasted a fragment)."""
    kept = _FRAGMENTS.setdefault((min_len, min_spaces), PerClause())
    return kept.get(clause, lambda c: _fragment_literals(c, min_len, min_spaces))


def _fragment_literals(clause: Clause, min_len: int, min_spaces: int) -> list[tuple[str, str]]:
    out = []
    for i, gate in enumerate(clause.gates or ()):
        if not gate:
            continue
        # (Python's own wording, `object has no attribute`, is in every AttributeError: not the pattern's own text)
        stripped = (lit.strip(" ()[]{}:;,.'\"") for lits, _ in gate for lit in lits)
        words = max((w for w in stripped if not _python_wording(w)), key=len, default="")
        if len(words) >= min_len and words.count(" ") >= min_spaces:
            out.append((clause.sources[i], words))
    return out


_LABEL = re.compile(r"^[^:]{3,60}: (?=\S)")


def _past_label(words: str, message: str) -> bool:
    """The words are in the message and reach past the step's label it may open with (`Capture cuda graph failed: <the
    error>`, `Worker failed with error: ...`): the label is the engine's wording for any failure of that step, the rest
    is this one's. (Words that begin in what looks like a label and go on, `out of resource: shared memory`, are the
    error's own.)"""
    label = _LABEL.match(message)
    end = label.end() if label else 0
    at = message.find(words)
    while at >= 0:
        if at + len(words) > end:
            return True
        at = message.find(words, at + 1)
    return False


def _own_words(words: str) -> str:
    """A literal without the Python wording it holds (`'function' object is not subscriptable` -> `'function'`)."""
    for phrase in PYTHON_WORDING:
        words = words.replace(phrase, "")
    return words.strip(" '\"")


def _python_wording(words: str) -> bool:
    """The literal is part of how Python words an error about any object (generic.PYTHON_WORDING)."""
    return any(words in phrase for phrase in PYTHON_WORDING)


def fragment_source(clause: Clause, text: str) -> str | None:
    """The message pattern whose long literal a pasted fragment holds (the paste began or ended mid-message), and
    whose text from that literal on fits what the fragment shows after it: the whole message of another cause
    with the same opening words (`Repo id must be in the form ...: '/m/Qwen3-8B'` against a pattern that goes on
    with a staging folder's path) is no fragment of this one."""
    for src, words in fragment_literals(clause):
        at = text.find(words)
        if at >= 0 and tail_fits(src, words, text, at) and head_fits(src, words, text, at):
            return src
    return None


_HEAD_LITERAL = re.compile(r"[A-Za-z0-9 _-]{5,}")


def _words_at(source: str, words: str) -> int:
    """Where the literal `words` begins in the pattern's source: its first plain run, found there (-1: not found)."""
    head = _HEAD_LITERAL.match(words)
    return source.find(head.group(0)) if head else -1


def head_fits(source: str, words: str, text: str, at: int) -> bool:
    """The fragment is cut before the pattern's opening, or the whole pattern matches: when the text before the
    literal already holds the words the pattern opens with, the paste shows that part of the message, and it must
    be this pattern's (`argument --speculative-config/-sc: Value '{"model": cannot be converted to ...` holds the
    opening of a pattern that wants `argument --flag: Value image=4 cannot be converted to ...`, and is not it)."""
    begin = _words_at(source, words)
    head = _HEAD_LITERAL.search(re.sub(r"^\(\?[a-zA-Z]+\)", "", source[:begin])) if begin > 0 else None
    if head is None or head.group(0).strip() == "" or text.find(head.group(0), 0, at) < 0:
        return True
    try:
        return compile_pattern("message", source).search(text, timeout=PATTERN_TIMEOUT) is not None
    except TimeoutError:
        return True


_TAILS: dict[tuple[str, str], Any] = {}


def tail_fits(source: str, words: str, text: str, at: int) -> bool:
    """The pattern's part from the literal on matches the text from there, or is cut off by the text's end. When
    that part cannot be cut out of the pattern (the literal inside a group, a class), the literal alone decides."""
    key = (source, words)
    if key not in _TAILS:
        _TAILS[key] = _tail_pattern(source, words)
    tail = _TAILS[key]
    if tail is None:
        return True
    try:
        return tail.match(text, at, partial=True, timeout=PATTERN_TIMEOUT) is not None
    except TimeoutError:
        return True


def _tail_pattern(source: str, words: str):
    at = _words_at(source, words)
    if at < 0:
        return None
    flags = re.match(r"\(\?[a-zA-Z]+\)", source)
    try:
        return compile_pattern("message", (flags.group(0) if flags and at > 0 else "") + source[at:])
    except Exception:  # (a literal inside a group: the cut leaves a closing bracket alone)
        return None


GENERIC_MARK = " (generic)"


def _hit(label: str, text: str, clause: Clause, source: str, subject: str = "", line: str = "", m=None) -> Evidence:
    """A hit; one made by a generic pattern (the bare IMA message, a bare KeyError) says so, and counts as weak.
    The named groups of the match `m` ride along for the fix commands (`{seen.estimate}`)."""
    generic = source in clause.generic_sources
    captured = tuple((k, v) for k, v in m.groupdict().items() if v) if m is not None and not getattr(m, "partial", False) else ()
    return Evidence(label, HIT, text + (GENERIC_MARK if generic else ""), subject, generic=generic, line=line,
                    captured=captured)


def _chained(crashes: list[Crash]):
    for crash in crashes:
        yield from crash.chained


def _names(sources: tuple[str, ...]) -> str:
    shown = ", ".join(f"`{s}`" for s in sources[:4])
    return shown + (f" (+{len(sources) - 4} more)" if len(sources) > 4 else "")


# where a family was read that cannot tell a dense model from its MoE sibling: a traceback's model file, a bare
# family mention
_UNSURE_FAMILY = re.compile(r"traceback frame|family mentioned")


def _condition(clause: str, value: Any, holds, hit: str, miss: str, unknown: str, wants: str = "") -> Evidence:
    """One `when` condition: unknown when the log lacks the fact, else hit or miss as `holds(value)` says."""
    if value is None:
        return Evidence(clause, UNKNOWN, unknown, wants=wants)
    if holds(value):
        return Evidence(clause, HIT, hit, wants=wants)
    return Evidence(clause, MISS, miss, wants=wants)


def _flags_condition(clause: str, flags: list[str], env, *, wanted: bool) -> Evidence:
    """`flags` (wanted: one of them is set) or `not_flags` (none is); unknown without a serve command or config."""
    names = ", ".join(flags)
    seen = [f for f in flags if f in env.flags]
    if seen:
        if wanted:
            return Evidence(clause, HIT, f"flag {seen[0]} is set", wants=names)
        return Evidence(clause, MISS, f"{seen[0]} is set", wants=names)
    if env.flags_known:
        if wanted:
            return Evidence(clause, MISS, f"none of {names} is set", wants=names)
        return Evidence(clause, HIT, f"{names} not set", wants=names)
    where = "no serve command or config in the log to check" if wanted else "no serve command or config to check"
    return Evidence(clause, UNKNOWN, f"{where} {names}", wants=names)


# the platforms that never load an NVIDIA-only kernel library (a rule's `libraries`, vocab.NVIDIA_ONLY)
NO_CUDA_LIBRARIES = ("npu", "xpu", "hpu", "cpu", "tpu", "metal")


def when_states(rule: Rule, scan: Scan) -> list[Evidence]:
    env = scan.environment
    w = rule.when
    engine = env.get("engine")
    engines = "/".join(rule.engines)
    other = env.get("runtime") if engine is None else None
    if other:  # a llama.cpp or Ollama log: no vLLM / SGLang cause applies
        out: list[Evidence] = [Evidence("when.engine", MISS, f"the log is from {other}; this rule is about {engines}",
                                        wants=engines)]
    else:
        out = [_condition(
            "when.engine", engine, lambda e: e in rule.engines, f"engine {engine}",
            f"the log is from {engine}; this rule is about {engines}",
            f"the log does not say which engine ran (rule is for {engines})")]
    if rule.families:
        fam = env.get("family")
        names = ", ".join(rule.families)
        what = "not a Qwen3 model" if fam == vocab.OTHER else fam
        hit_source = env.get("model") or (env.facts["family"].source if fam else "")
        holds = any(vocab.family_covers(r, fam) for r in rule.families) if fam else False
        if fam and not holds and _UNSURE_FAMILY.search(env.facts["family"].source) \
                and any(r in vocab.FAMILY_COVERS.get(fam, ()) for r in rule.families):
            # a family read from a model file or a bare mention (`qwen3_5.py`, "Qwen3.5") that holds both a dense
            # and a MoE variant: which one ran is not in the log, so a rule for the MoE variant is not ruled out
            out.append(Evidence("when.family", UNKNOWN, f"the model is {fam}, but the log does not say which variant "
                                f"({env.facts['family'].source}; rule: {names})", wants=names))
        else:
            out.append(_condition(
                "when.family", fam, lambda _: holds,
                f"model family {fam} ({hit_source})", f"the model is {what} ({env.get('model') or '?'}); rule: {names}",
                f"the model family is not in the log (rule: {names})", names))
    version = env.get("engine_version")
    parsed = parse_version(str(version)) if version else None
    dated = _releases_of_frames(env, engine) if parsed is None else None
    if "engine_version" in w and dated is not None:
        spec = rule.raw_when.get("engine_version")
        inside = [in_range(v, w["engine_version"]) for v in dated]
        span = env.get("engine_releases")
        if all(inside):
            out.append(Evidence("when.engine_version", HIT, f"the traceback's functions date it to {engine} {span}, within {spec}",
                                subject=DATED, wants=str(spec)))
        elif not any(inside):
            out.append(Evidence("when.engine_version", MISS, f"the traceback's functions date it to {engine} {span}, outside {spec}",
                                subject=DATED, wants=str(spec)))
        else:
            dated_unknown = f"no {engine} version in the log; its traceback's functions say {span} (rule: {spec})"
            out.append(Evidence("when.engine_version", UNKNOWN, dated_unknown, wants=str(spec)))
    elif "engine_version" in w:
        spec = rule.raw_when.get("engine_version")
        out.append(_condition(
            "when.engine_version", parsed, lambda v: in_range(v, w["engine_version"]),
            f"{engine} {version} is within {spec}", f"{engine} {version} is outside {spec}",
            f"no {engine or 'engine'} version in the log (rule: {spec})", str(spec)))
    if "quantization" in w:
        quant = env.get("quantization")
        names = ", ".join(w["quantization"])
        out.append(_condition(
            "when.quantization", quant, lambda q: any(vocab.quant_covers(r, q) for r in w["quantization"]),
            f"quantization {quant}", f"quantization is {quant}, rule: {names}",
            f"quantization not in the log (rule: {names})", names))
    if "gpu" in w:
        gpu = env.get("gpu")
        out.append(_condition(
            "when.gpu", gpu, lambda g: _search(compile_pattern("plain", w["gpu"]), str(g), rule.id, "when.gpu"),
            f"GPU {gpu}", f"GPU is {gpu}", "GPU not in the log"))
    if "compute_capability" in w:
        cc = env.get("compute_capability")
        spec = rule.raw_when.get("compute_capability")
        out.append(_condition(
            "when.compute_capability", parse_version(f"{cc}.0") if cc else None,
            lambda v: in_range(v, w["compute_capability"]), f"compute capability {cc}",
            f"compute capability {cc} is outside {spec}", f"compute capability unknown (rule: {spec})", str(spec)))
    if "platform" in w:
        plat = env.get("platform")
        out.append(_condition("when.platform", plat, lambda p: p in w["platform"], f"platform {plat}",
                              f"platform is {plat}", "platform not in the log"))
    elif env.get("platform") in NO_CUDA_LIBRARIES and any(lib in vocab.NVIDIA_ONLY for lib in rule.libraries):
        # a cause inside a CUDA-only kernel library (FlashInfer, DeepGEMM, CUTLASS, ...) cannot be a crash of a
        # platform that does not load it (an Ascend NPU, Intel XPU, a CPU, a TPU, Apple silicon)
        plat = env.get("platform")
        out.append(Evidence("when.platform", MISS, f"platform is {plat}; this cause lives in a CUDA-only library",
                            wants="cuda"))
    if "flags" in w:
        out.append(_flags_condition("when.flags", w["flags"], env, wanted=True))
    if "not_flags" in w:
        out.append(_flags_condition("when.not_flags", w["not_flags"], env, wanted=False))
    for key, pat in w.get("env", {}).items():
        value = env.get(key)
        if value is None and key == "model":
            # (another family's model the log only names, `nemotron-3-ultra` in prose, tells a rule of one such model
            # whether it is that one; a Qwen3 name in prose is often short for the checkpoint, `Qwen3.6-27B` for its
            # FP8 export, so it says nothing of a suffix a rule asks for)
            value = env.get("other_model_mention")
        out.append(_condition(
            f"when.env.{key}", value,
            lambda v, pat=pat, key=key: _search(compile_pattern("plain", pat), str(v), rule.id, f"when.env.{key}"),
            f"{key} {value}", f"{key} is {value}", f"{key} not in the log"))
    fixed = (rule.fixed_in or {}).get("version")
    if fixed and parsed is not None and rule.fixed_engine in (None, engine):  # another engine's version says nothing
        if at_or_past(parsed, fixed):
            out.append(Evidence("fixed_in", MISS, f"you are on {engine} {version}, fixed in {fixed}"))
        else:
            out.append(Evidence("fixed_in", HIT, f"you are on {engine} {version}, before the fix in {fixed}"))
    elif fixed and dated is not None and rule.fixed_engine in (None, engine):
        span = env.get("engine_releases")
        if at_or_past(dated[0], fixed):
            out.append(Evidence("fixed_in", MISS, f"the traceback's functions date it to {engine} {span}, at or past the fix in {fixed}",
                                subject=DATED))
        elif not at_or_past(dated[-1], fixed):
            out.append(Evidence("fixed_in", HIT, f"the traceback's functions date it to {engine} {span}, before the fix in {fixed}",
                                subject=DATED))
    return out


# the subject of a version condition judged by the releases a traceback's functions and lines date it to, not by a
# version the log states: it can cut a candidate the dating contradicts, but it is no evidence for one
DATED = "dated by the traceback"


def _releases_of_frames(env, engine) -> list | None:
    """The releases (parsed, oldest first) that the traceback's functions allow, when the log names no version."""
    span = env.get("engine_releases")
    if not span or engine not in ("vllm", "sglang"):
        return None
    from ..knowledge.releases import _versions

    first, _, last = str(span).partition("-")
    lo, hi = parse_version(first), parse_version(last or first)
    found = [v for v in _versions(engine) if lo <= v <= hi] if lo and hi else []
    if found and not found[0].is_prerelease:
        # the functions came in during the first release's cycle: its own pre-releases and dev builds (which the
        # index does not hold) carry them too, so a cause fixed in that release is not ruled out by the dating
        found.insert(0, parse_version(f"{found[0].base_version}.dev0"))
    return found or None


def evaluate(rule: Rule, scan: Scan, hay: Haystack | None = None, *, explain_rejection: bool = True) -> RuleMatch:
    """The states of a rule's clauses on one scan. `explain_rejection=False` (ranking, which drops a rejected rule)
    stops at the rejection without reading the supports and conditions that only `--why` shows."""
    best: tuple[Evidence, ...] = ()
    best_generic: dict[str, bool] = {}
    rejected = bool(rule.match)
    best_key = (-1, -1, -99)
    chosen: tuple[Clause, ...] = ()
    message_missed = False
    for i, alternative in enumerate(rule.match):
        prefix = "match" if len(rule.match) == 1 else f"match[{i}]"
        if explain_rejection:
            states = tuple(clause_state(cl, scan, rule.id, cl.name(prefix), hay) for cl in alternative)
            states = _unseen_log(states, alternative, scan, rule.supports, rule.id)
        else:
            # (_states_until_miss has already settled the unseen log clauses, and dropped the alternative they miss)
            states = _states_until_miss(alternative, scan, rule.id, prefix, hay, rule.supports)
            if states is None or states is _MESSAGE_MISSED:  # (the alternative is out, whatever its other clauses say)
                message_missed = message_missed or states is _MESSAGE_MISSED
                continue
        generic = {s.clause: s.generic for s in states}
        if explain_rejection and any(s.state == MISS for s in states):  # (the ranking's path drops these above)
            message_missed = message_missed or any(s.state == MISS and s.clause.endswith(".message") for s in states)
            if rejected and not best:
                best, best_generic, chosen = states, generic, alternative
            continue
        hits = [s for s in states if s.state == HIT]
        # (on a tie, the alternative with fewer clauses the log cannot decide: a fully matched message beats the same
        # message beside frames the paste does not show, pascal-pkgs-ci#50)
        key = (sum(1 for s in hits if not generic[s.clause]), len(hits), -sum(1 for s in states if s.state == UNKNOWN))
        if rejected or key > best_key:
            best, best_generic, best_key, rejected, chosen = states, generic, key, False, alternative
    if not rejected and any(s.state == UNKNOWN and s.clause.endswith(".message") for s in best):
        # (a message cut where the paste ends that one alternative's pattern still fits: that another alternative's
        # pattern cannot is no sign the crash is another cause's, `ValueError: invalid l` of `invalid literal for int()`)
        message_missed = False
    if rejected and not explain_rejection:
        return RuleMatch(rule, best, (), (), rejected, dict(best_generic), message_missed)
    taken = frozenset(s.subject if s.clause.endswith(".frames") else s.line for s in best
                      if s.state == HIT and s.clause.endswith((".frames", ".log")))
    supports = tuple(clause_state(cl, scan, rule.id, f"supports.{cl.kind}", hay, taken) for cl in rule.supports)
    # a supporting pattern that a hit `match` clause also holds finds the very line that clause found: one fact, not
    # two (a rule naming the embedding checkpoint in both); it is neither shown nor counted again
    repeated = {(cl.kind, s.text, src) for s, cl in zip(best, chosen) if s.state == HIT for src in cl.sources}
    supports = tuple(s for s, cl in zip(supports, rule.supports) if s.state != HIT or not any(
        (cl.kind, s.text, src) in repeated for src in cl.sources))
    generic_all = dict(best_generic)
    generic_all.update({s.clause: s.generic for s in supports})
    return RuleMatch(rule, best, supports, tuple(when_states(rule, scan)), rejected, generic_all, message_missed)


_MESSAGE_MISSED = object()  # (an alternative out on a message clause: the ranking notes that its message missed)


def _states_until_miss(alternative, scan: Scan, rule_id: str, prefix: str, hay: "Haystack | None", supports=()):
    """An alternative's clause states in its own order; once one misses, `_MESSAGE_MISSED` when a message clause did
    and None otherwise: the ranking drops a missed alternative, so the clauses after the miss are not read. Message
    clauses are read first (whether a message missed is all the ranking keeps of a dropped alternative)."""
    has_message = any(cl.kind == "message" for cl in alternative)
    if not has_message and hay is not None and any(
            hay.absent[cl.kind] == MISS and not hay.may_hit(cl) for cl in alternative):
        return None  # a clause whose anchors the log lacks: a miss without a regex
    found: dict[int, Evidence] = {}
    for j in sorted(range(len(alternative)), key=lambda k: alternative[k].kind != "message"):
        cl = alternative[j]
        state = clause_state(cl, scan, rule_id, cl.name(prefix), hay)
        if state.state == MISS:
            return _MESSAGE_MISSED if cl.kind == "message" else None
        found[j] = state
    states = _unseen_log(tuple(found[j] for j in range(len(alternative))), alternative, scan, supports, rule_id)
    return None if any(st.state == MISS for st in states) else states


def candidates(clause: Clause, text: str, lower: str, only: tuple[int, ...] | None = None, partial: bool = False):
    """(compiled pattern, source) for a clause's patterns whose literals all occur in text: the rest cannot match.
    `only` limits the check to some pattern indexes (those already open on the whole log); `partial` (text cut
    short) tries every pattern, for the literals after the cut are missing."""
    gates = clause.gates or (None,) * len(clause.sources)
    for i in range(len(clause.sources)) if only is None else only:
        if partial or gate_open(gates[i], text, lower):
            yield compile_pattern(clause.kind, clause.sources[i]), clause.sources[i]
