"""The pipeline: reader -> prefixes -> crash + environment -> match -> rank -> Report."""

from __future__ import annotations

import io
import re
from types import MappingProxyType
from dataclasses import dataclass, field, replace

from ..read import environment as envmod
from ..knowledge.catalog import PATTERN_TIMEOUT, Catalog
from ..read.crash import (FRAME_IPYTHON, IPYTHON_CODE_LINE, LEAD_LINES, PROSE_MAX_LINES, PYBIND_AT, QUIET_LEVELS, CrashParser,
                          classify, lines_above_crash, prose_crash)
from .combination import GATES
from .match import Haystack, MatchIndex, PatternTimeout, candidates, evaluate, fragment_literals, tail_fits, when_states
from ..model import Crash, Environment, Evidence, Fact, Finding, Report, Scan, Verdict
from .nextsteps import next_steps
from ..read.phases import DIED_SERVING, SERVING, later, phase_of, phase_of_frames, stopped_in
from ..read.prefixes import FOLLOWS, JOINED, PROGRESS_BAR_RE, RECORD_START, SGLANG_RECORD, dedented, oldest_first, peel_record, record_lines, rejoined_commands, unflattened, unwrapped, without_viewer_rows
from ..read.reader import LineSource
from ..read.scanner import CRASH, ENV, RULE, Prefilter, make_prefilter, selected_lines
from .rank import rank, score, scoreless

MAX_KEPT_LINES = 4000  # lines kept for `log` clauses
# lines of request logging (vLLM --enable-log-requests / --enable-log-outputs, SGLang --log-requests)
REQUEST_ECHO = ("Received request ", "Generated response ", "Receive: obj=", "Finish: obj=", "Added request ")


@dataclass
class Overrides:
    """What the user said on the command line (highest precedence) and in an --env-file (next); below the
    log, this machine's facts (`--env-auto`, lowest)."""

    options: dict[str, str] = field(default_factory=dict)
    env_file: dict[str, Fact] = field(default_factory=dict)
    env_file_flags: set[str] = field(default_factory=set)
    env_file_engine: str | None = None  # the engine an env file speaks for (collect-env: vllm, check_env: sglang)
    local: dict[str, Fact] = field(default_factory=dict)  # qwen3doctor env facts, used where the log is silent


def scan_source(source: LineSource, catalog: Catalog, overrides: Overrides | None = None, prefilter: Prefilter | None = None) -> Scan:
    """One pass over a log: the prefilter picks the lines worth reading; crashes, environment and the lines
    rule `log` patterns care about come out of those."""
    prefilter = prefilter or prefilter_for(catalog)
    parser = CrashParser()
    collector = envmod.EnvCollector()
    kept: list[str] = []
    kept_tail: list[str] = []
    phases: list[tuple[int, str]] = []  # (line number, phase) as the log moves through start-up to serving
    quiet: set[str] = set()  # kept lines logged at INFO / WARNING / DEBUG: what the server reported and went on with
    recorded: dict[str, str] = {}  # kept lines that came in a logging record of any level, and that record
    refused: list[int] = []  # the lines where the server answered a request with a 4xx status (its access log)
    lines = dedented(unwrapped(oldest_first(unflattened(without_viewer_rows(selected_lines(source, prefilter))))))
    head: list[tuple[int, str]] = []  # the paste's first lines, for what it shows above its first crash
    for line_no, line, why in rejoined_commands(lines, _known_flag):
        if line.startswith("```"):
            continue  # a Markdown code fence around the paste: no line of the log (a blank would end a frame cut short)
        if len(head) < LEAD_LINES and line.strip():
            head.append((line_no, line))
        pieces = record_lines(line) if line.startswith('{"') else None
        if pieces is not None:
            # a log shipper's record holding several lines (a whole traceback in one JSON `log` / `message`
            # field): each is a line of its own, with its own prefix
            for piece in pieces:
                _take(parser, collector, kept, kept_tail, line_no, piece, why, phases, quiet, recorded, refused)
            continue
        _take(parser, collector, kept, kept_tail, line_no, line, why, phases, quiet, recorded, refused)
    crashes = _with_phase(parser.finish(), phases)
    collector.note_frames(crashes)
    env = merge_environment(collector, overrides or Overrides())
    warnings = list(source.warnings)
    if parser.dropped:
        warnings.append(f"{parser.dropped} further distinct crashes were not kept (limit reached)")
    return Scan(tuple(crashes), tuple(kept + kept_tail), env, source.lines_read, tuple(warnings), empty=not source.text_seen,
                stopped_in=stopped_in(phases, source.lines_read), quiet=frozenset(quiet), recorded=MappingProxyType(recorded),
                lead=lines_above_crash(head, crashes), refused=tuple(refused))


def _take(parser, collector, kept: list[str], kept_tail: list[str], line_no: int, line: str, why: int,
          phases: list[tuple[int, str]], quiet: set[str], recorded: dict[str, str], refused: list[int]) -> None:
    """One line of the log into the crash parser, the environment collector, the phases and the kept lines."""
    if not line or line.isspace():
        parser.feed(line_no, None, "", False)
        return
    process, text, record = peel_record(line)
    bar = PROGRESS_BAR_RE.search(line) if "%|" in line and text is not line else None
    if bar is not None and text and line.endswith(text) and bar.end() <= len(line) - len(text):
        # a progress bar the next record was glued to (`DeepGEMM warmup:   2%|▏ | 11/512 [01:09<57:05][rank0]:...`):
        # the bar, with what it says the server was doing, is a line of its own
        _take(parser, collector, kept, kept_tail, line_no, line[: bar.end()], why & ~CRASH, phases, quiet, recorded, refused)
    if text.startswith(REQUEST_ECHO):
        return  # a prompt or an output echoed by request logging says nothing about the server
    phase = phase_of(text)
    if phase == SERVING and len(refused) < MAX_REFUSED and REFUSED.search(text):
        refused.append(line_no)
    if phase is not None and (not phases or phases[-1][1] != phase):  # a run of one phase counts from its first line
        phases.append((line_no, phase))
        if len(phases) > MAX_PHASES:
            del phases[: MAX_PHASES // 2]
    if why & (CRASH | RULE) or parser.reading(process):
        if 'File \\"' in text or "\\n" in text and ("Traceback" in text or f"\\n{PYBIND_AT}\\n" in text):
            # a traceback inside a JSON string (escaped newlines and quotes), or one of its frame lines; an exception
            # pybind11 passed through C++ with its stack (`TypeError: ...\\n\\nAt:\\n  /x/model.py(301): f\\n`)
            for piece in text.replace('\\"', '"').split("\\n"):
                parser.feed(line_no, process, piece, process is not None, record, bool(why & FOLLOWS))
        else:
            parser.feed(line_no, process, text, process is not None, record, bool(why & FOLLOWS))
    if process is not None:
        collector.note_process(process)
    if why & ENV:
        collector.feed(text, process, line_no, line_no + why // JOINED, record)
        if process is not None and " TP" in line[:160] and SGLANG_RECORD.search(line, 0, 160):
            collector.vote_engine("sglang")  # an SGLang record inside a wrapper's tag (`(RolloutRayActor pid=1) [... TP0] `)
    if record is not None:
        collector.record_format(record)
    if why & RULE:  # holds a rule `log` anchor, or is in the head of the log or a crash's context
        if record is not None and record.startswith(QUIET_LEVELS) and len(quiet) < MAX_KEPT_LINES:
            quiet.add(text)
        if record is not None and len(recorded) < MAX_KEPT_LINES:
            recorded.setdefault(text, record)
        if len(kept) < MAX_KEPT_LINES // 2:
            kept.append(text)
        else:
            kept_tail.append(text)
            if len(kept_tail) > MAX_KEPT_LINES // 2:
                del kept_tail[: MAX_KEPT_LINES // 4]


MAX_PHASES = 4096  # a restart loop logs its start-up again and again: the oldest half goes
# an access-log line of a request the server answered with a client error (`"POST /v1/chat/completions HTTP/1.1" 400
# Bad Request`): the request was refused and the server went on
REFUSED = re.compile(r'"(?:POST|GET) /\S* HTTP/1\.[01]" 4\d\d\b')
MAX_REFUSED = 64


def _known_flag(engine: str, flag: str) -> bool:
    """A flag some indexed release of the engine accepts (the release index is read only for a wrapped command)."""
    from ..knowledge.releases import available, flag_key, table

    flags = table(engine, "flags") if available() else None
    return flags is not None and flag_key(engine, flag) in flags.facts


def _with_phase(crashes: list, phases: list[tuple[int, str]]) -> list:
    """Each crash with the phase of the last marker line before it, else the phase its frames show."""
    crashes = [c if c.during or not c.frames else replace(c, during=phase_of_frames(c.functions) or "") for c in crashes]
    # (a wrapper that only a started server raises dates the death when nothing else does)
    crashes = [replace(c, during=SERVING) if not c.during and c.role == "wrapper"
               and DIED_SERVING.search(f"{c.exception_type}: {c.message}") else c for c in crashes]
    if not phases:
        return crashes
    import bisect

    starts = [n for n, _ in phases]
    if starts != sorted(starts):
        return crashes  # a newest-first export read last line first: its line numbers run backwards
    out = []
    for c in crashes:
        i = bisect.bisect_left(starts, c.line_no) - 1
        out.append(replace(c, during=phases[i][1]) if i >= 0 and not later(c.during, phases[i][1]) else c)
    return out


def match_index_for(catalog: Catalog) -> MatchIndex:
    """The catalog's match index (its literals, and the rules each anchors), built once per loaded catalog."""
    cached = catalog.derived.get("match_index")
    if cached is None:
        cached = catalog.derived["match_index"] = MatchIndex(catalog)
    return cached


def prefilter_for(catalog: Catalog, backend: str | None = None) -> Prefilter:
    """The catalog's prefilter for one backend (None: the best installed), built once per loaded catalog."""
    key = ("prefilter", backend)
    cached = catalog.derived.get(key)
    if cached is None:
        cached = catalog.derived[key] = make_prefilter(catalog.log_anchors(), backend=backend)
    return cached


def _own_flags(flags: frozenset[str]) -> dict[str, int]:
    """How many of these flags only vLLM's / only SGLang's indexed releases accept (no index: none)."""
    from ..knowledge.releases import available, flag_key, table

    out = {"vllm": 0, "sglang": 0}
    if not available():
        return out
    known = {e: table(e, "flags") for e in out}
    for flag in flags:
        has = {e: known[e] is not None and flag_key(e, flag) in known[e].facts for e in out}
        if has["vllm"] != has["sglang"]:
            out["vllm" if has["vllm"] else "sglang"] += 1
    return out


def merge_environment(collector: envmod.EnvCollector, overrides: Overrides) -> Environment:
    """Precedence, one rule everywhere: options > --env-file > the log. Conflicts are reported."""
    log_facts = collector.facts(derived=False)
    merged: dict[str, Fact] = dict(log_facts)
    conflicts = []
    for key, fact in overrides.env_file.items():
        if key in merged and str(merged[key].value) != str(fact.value) and key in ("vllm", "sglang", "torch", "gpu", "model"):
            conflicts.append(f"{key}: the log says {merged[key].value}, the env file says {fact.value} (env file wins)")
        merged[key] = fact
    for key, value in overrides.options.items():
        if value is None:
            continue
        fact = Fact(value, "option")
        if key == "model":
            merged.pop("served_model_name", None)
        old = merged.get(key)
        if old is not None and str(old.value) != str(value):
            conflicts.append(f"{key}: the log says {old.value}, --{key.replace('_', '-')} says {value} (option wins)")
        merged[key] = fact
    if "quantization" in overrides.options:
        from .. import vocab

        q = vocab.quantization_of(overrides.options["quantization"]) or overrides.options["quantization"]
        merged["quantization"] = Fact(q, "option")
    votes = collector.engine_votes
    if not votes["vllm"] and not votes["sglang"] and collector.loose_flags:
        # nothing else names the engine: flags that only one engine's releases accept (`--speculative-algorithm`,
        # `--mem-fraction-static` are SGLang's; `--max-model-len`, `--enable-expert-parallel` vLLM's), named in
        # prose or inline code, give that engine one vote
        own = _own_flags(collector.loose_flags)
        if own["vllm"] != own["sglang"]:
            votes = {**votes, ("sglang" if own["sglang"] > own["vllm"] else "vllm"): 1}
    derived = dict(merged)
    envmod.derive(derived, votes)
    # a derived engine version must follow an overridden engine
    if "engine" in overrides.options and "engine_version" not in overrides.options:
        engine = overrides.options["engine"]
        if engine in derived:
            derived["engine_version"] = derived[engine]
        elif "engine_version" in derived and derived["engine_version"].source != "option":
            derived.pop("engine_version")
    flags = set(collector.flags) | overrides.env_file_flags
    env = envmod.build(derived, flags, collector.flags_known, tuple(conflicts))
    if overrides.env_file_engine or overrides.local:
        from ..read.localenv import layered

        env = layered(env, overrides.env_file_engine, overrides.local)
    return env


MIN_TELLING = 16  # characters of literal text a message pattern needs to count on pasted lines
MAX_PASTE_LINES = 2000  # a paste this short with no crash line is searched for fragments of rule messages


def message_fragments(scan: Scan, catalog: Catalog) -> tuple[Crash, ...]:
    """A short paste with no crash line: the lines (alone, or with the next one, for a message the engine wrapped
    over two lines) that a rule's message pattern matches, or that hold its long literal (a paste that begins or
    ends mid-message). Each becomes a crash with no type: crash evidence, as the engine's own message is."""
    if scan.lines_read > MAX_PASTE_LINES or any(c.said for c in scan.crashes):
        return ()  # a long log, or one with its own crash lines
    # A traceback cut before its exception line says no message: a bare line of the paste may hold it, as an issue's
    # title above the traceback does ("[Bug] awq quantization requires some operators from vllm ...", sglang#6580).
    # A logged record beside it does not: the header `logger.exception` prints above the traceback ("Error in
    # extracting tool call from response.") or an error the server logged and went on with.
    cut = scan.recorded.keys() if scan.crashes else frozenset()
    # (a warning or an info record is what the server said and went on with: never a crash's message)
    lines = [line.strip() for line in _without_listed_code(scan.lines) if line.strip() and line not in scan.quiet
             and line not in cut]
    windows = [(n, line, 1) for n, line in enumerate(lines)] + [
        (n, f"{a} {b}", 2) for n, (a, b) in enumerate(zip(lines, lines[1:]))]
    whole = " ".join(lines)
    lower = whole.lower()
    singles: dict[int, str] = {}  # lines that matched by themselves
    pairs: dict[int, str] = {}  # a line and the next, matched together (a message the engine wrapped over two)
    seen: set[tuple[str, ...]] = set()
    for _, clause in catalog.clauses(("message",)):
        if clause.sources in seen:
            continue
        seen.add(clause.sources)
        literals = [(src, words) for src, words in fragment_literals(clause) if words in whole]
        # a whole pattern counts on pasted lines only when it says something specific (`bfloat16` alone does not)
        # (and never one that matches what every crash of a class says, whatever literal another branch holds)
        telling = {src for src, _ in fragment_literals(clause, MIN_TELLING, 0) if src not in clause.generic_sources}
        if not literals and not any(src in telling for _, src in candidates(clause, whole, lower)):
            continue  # neither a pattern's literals nor a long literal occur anywhere in the paste
        for n, text, size in windows:
            if n in (singles if size == 1 else pairs):
                continue
            # (a telling pattern counts by what it matched, not by the branch that holds its long literal: a
            # `ninja|build|...|Capture cuda graph failed` must not take an environment listing's "debug build")
            hit = any(words in text and tail_fits(src, words, text, text.find(words)) for src, words in literals) or any(
                src in telling and _telling_match(pat, text) for pat, src in candidates(clause, text, text.lower()))
            if hit:
                (singles if size == 1 else pairs)[n] = text
    # a pair is a message the engine wrapped (`... KV cache is needed,` + `which is larger than ...`), unless only its
    # second line matched by itself: then the first is a line of its own glued on (`--port 30000` + `"The input ...`)
    # (and a line that starts a record of its own, `INFO:     10.0.2.15:48812 - "POST ...`, continues nothing)
    found = dict(singles)
    found.update((n, text) for n, text in pairs.items()
                 if (n in singles or n + 1 not in singles) and not RECORD_START.match(lines[n + 1]))
    return tuple(Crash(classify(None, text), None, text[:2000], None, n + 1, role="fragment", excerpt=True)
                 for n, text in sorted(found.items()))


def _without_listed_code(lines: tuple[str, ...]) -> list[str]:
    """The lines, less the numbered source listing IPython / Jupyter prints under each of its frames: a raise or an
    assert in that listing (`), f"{self.model.__class__.__name__} does not support LoRA yet."`) is the code that
    would raise, not a message the crash printed."""
    out, listing = [], False
    for line in lines:
        if FRAME_IPYTHON.match(line):
            listing = True
        elif listing and IPYTHON_CODE_LINE.match(line):
            continue
        elif line.strip():
            listing = False
        out.append(line)
    return out


def _telling_match(pattern, text: str) -> bool:
    """The pattern matches MIN_TELLING characters or more of the line: something specific, not a short word."""
    try:
        m = pattern.search(text, timeout=PATTERN_TIMEOUT)
    except TimeoutError:
        return False
    return m is not None and len(m.group(0)) >= MIN_TELLING


def with_crash_signs(scan: Scan, catalog: Catalog) -> Scan:
    """The scan with the crash signs of a paste that has no crash line of its own: the fragments of rule messages
    it holds, else the words of a short paste that says it crashed (an issue title)."""
    fragments = message_fragments(scan, catalog)
    if fragments:
        return replace(scan, crashes=scan.crashes + fragments)
    if not scan.crashes and scan.lines_read <= PROSE_MAX_LINES:
        # (a warning or an info record that names an exception it caught and went on is no account of a crash)
        said = prose_crash([line if line not in scan.quiet else "" for line in scan.lines])
        if said is not None:
            return replace(scan, crashes=(said,))
    return scan


def diagnose_scan(scan: Scan, catalog: Catalog, source: str, *, signed: bool = False) -> Report:
    """The report of one scanned log. (`signed`: the scan already went through with_crash_signs.)"""
    warnings = list(scan.warnings)
    if not signed:
        scan = with_crash_signs(scan, catalog)
    scan = _engine_by_frames(scan) or scan
    hay = Haystack(scan, match_index_for(catalog))
    evaluated: list = []  # every rule's clause states on this scan (a crash-free log's shown risks read them again)
    findings = _score_rules(scan, catalog, hay, warnings, evaluated)
    if not scan.crashes:
        # no crash sign: a known-bad combination is a risk of the launch (`launch_risks`), never a finding, so a
        # clean log's verdict and exit code do not depend on what its launch might hit
        findings = [f for f in findings if f.basis != "combination"]
    dated = _dated_by_frames(scan, findings)
    if dated is not None:  # candidates only, no version in the log: the frames' releases decide version windows
        scan = dated
        findings = _score_rules(scan, catalog, Haystack(scan, match_index_for(catalog)), [])
    findings = _with_unregistered(scan, catalog, findings)
    findings = _with_shape_facts(scan, catalog, findings)
    from ..knowledge.releases.findings import raise_site_notes, release_findings

    extra, release_warnings = release_findings(scan)
    warnings.extend(release_warnings)
    ranked = rank(findings, scan)
    if any(f.rule_id == "release-index/renamed-architecture" for f in extra):
        # (no release registers the class, a registered one with a prefix: an engine too old for it is refuted)
        ranked = [f for f in extra if f.rule_id == "release-index/renamed-architecture"] + rank(
            findings + [f for f in extra if f.rule_id != "release-index/renamed-architecture"], scan)
    elif extra and not any(f.basis == "evidence" and f.confidence != "low" for f in ranked):
        ranked = rank(findings + extra, scan)
    elif extra:  # a rule explains the crash: the releases become notes on it
        # (the flags a refused setting names add nothing to the rule that explains the refusal)
        facts = tuple(ev.text for f in extra if f.rule_id != "release-index/config" for ev in f.evidence[1:])
        # (a dated import or value says which release to install: that command joins the rule's fixes)
        known = {fx.command for fx in ranked[0].fixes}
        dated = tuple(fx for f in extra if f.rule_id == "release-index/import" for fx in f.fixes if fx.command not in known)
        # (the release that brought a refused value is this log's own answer: it comes before the rule's general ones)
        first = tuple(fx for f in extra if f.rule_id == "release-index/choice" for fx in f.fixes
                      if fx.command and fx.command not in known)
        ranked = [replace(ranked[0], notes=tuple(ranked[0].notes) + facts,
                          fixes=first + tuple(ranked[0].fixes) + dated)] + ranked[1:]
    ranked, site_steps = raise_site_notes(scan, ranked, catalog)
    if scan.empty:
        verdict = Verdict.NOTHING
    elif ranked:
        verdict = Verdict.FOUND
    elif scan.crashes:
        verdict = Verdict.UNEXPLAINED
    else:
        verdict = Verdict.CLEAN
    warnings.extend(scan.environment.conflicts)
    risks: tuple = ()
    steps = next_steps(scan, ranked, site_steps)
    if verdict is Verdict.CLEAN:
        from .preflight import MAX_RISKS, launch_risks, shown_risks, step_risks  # only a crash-free log pays for the preflight tables

        risks = launch_risks(scan, catalog)
        shown = shown_risks(scan, evaluated)
        if shown:  # a cause whose own lines the log shows, before the launch's possible problems
            listed = {s.rule_id for s in shown}
            risks = (shown + tuple(r for r in risks if r.rule_id not in listed))[:MAX_RISKS]
        if scan.stopped_in:
            step = step_risks(scan, catalog)
            listed = {s.rule_id for s in step}
            # a cause of the step it stopped in first, then the launch's own problems
            risks = (step + tuple(r for r in risks if r.rule_id not in listed))[:MAX_RISKS]
        if risks:
            steps.insert(0, RISK_STEP)
        if scan.stopped_in:
            steps.insert(0, STOPPED_STEP.format(phase=scan.stopped_in))
    return Report(
        source=source, verdict=verdict, environment=scan.environment, crashes=scan.crashes,
        findings=tuple(ranked), next_steps=tuple(steps), warnings=tuple(warnings),
        lines_read=scan.lines_read, risks=risks,
    )


def _with_unregistered(scan: Scan, catalog: Catalog, findings: list) -> list:
    """A crash on a release that registers none of the model family's architectures: the rule for that crash, from
    the release index (judge/preflight.py), unless the rule's own evidence already ranks it higher."""
    env = scan.environment
    if not scan.crashes or not env.get("family") or (env.get("engine_version") or env.get("engine_releases")) is None:
        return findings  # checked here too, so that a log without these facts never imports the preflight tables
    from .preflight import unregistered_finding

    found = unregistered_finding(scan, catalog)
    if found is None:
        return findings
    own = next((f for f in findings if f.rule_id == found.rule_id), None)
    if own is not None and own.score >= found.score:
        return findings
    return [f for f in findings if f is not own] + [found]


def _with_shape_facts(scan: Scan, catalog: Catalog, findings: list) -> list:
    """A crash that says nothing of its own (a traceback cut before its exception) while the model is built, from a
    launch whose arithmetic cannot load: the model's shapes (data/model_shapes.yaml) split over the log's TP size
    leave a slice the FP8 block or the head count cannot take (`check`'s shape alerts). The rule for that check is
    then the crash's cause, at medium confidence: the arithmetic is certain, the paste only lacks the message. A
    crash with a message of its own, or a finding a message backs, is left as it is."""
    env = scan.environment
    if not scan.crashes or not env.get("model") or not env.get("tp") or any(c.said for c in scan.crashes) \
            or any(f.basis == "evidence" and f.confidence != "low" for f in findings):
        return findings
    from ..read.phases import LOADING, phase_of_frames
    if phase_of_frames(f.function for c in scan.crashes for f in c.frames) not in (None, LOADING):
        return findings
    from ..knowledge.shapes import shapes_of
    if shapes_of(env.get("model")) is None:
        return findings  # (checked here too: a model the table lacks never loads the preflight module)
    from .preflight import flag_values, shape_alerts

    alerts, _, _, _ = shape_alerts(env, flag_values(str(env.get("serve_command") or "")), catalog)
    by_rule = {a.key: a for a in alerts if a.key in catalog.rules}
    if not by_rule:
        return findings
    out = []
    for f in findings:
        alert = by_rule.pop(f.rule_id, None)
        if alert is not None:
            f = replace(f, confidence="medium", score=max(f.score, max(g.score for g in findings) + 0.01),
                        evidence=tuple(Evidence("shape", "hit", b) for b in (alert.title,) + alert.because) + f.evidence,
                        notes=f.notes + (SHAPE_NOTE,))
        out.append(f)
    for key, alert in by_rule.items():  # a cause the paste's frames did not list: the arithmetic alone names it
        rule = catalog.rules[key]
        out.append(Finding(rule_id=key, title=rule.title, status=rule.status,
                           score=max((g.score for g in findings), default=0.0) + 0.01, confidence="medium",
                           engines=rule.engines, families=rule.families, references=rule.references,
                           evidence=tuple(Evidence("shape", "hit", b) for b in (alert.title,) + alert.because),
                           fixes=alert.fixes, fixed_in=rule.fixed_in, notes=(SHAPE_NOTE,), basis="combination"))
    return out


SHAPE_NOTE = ("the model's shapes over this TP size cannot load (the arithmetic of `qwen3doctor check`); the paste stops "
              "before the message that would confirm it")


def _score_rules(scan: Scan, catalog: Catalog, hay: Haystack, warnings: list[str], evaluated: list | None = None) -> list:
    """The finding of every rule that has one on this scan; `evaluated` collects each evaluated rule's clause states."""
    findings = []
    for rule in hay.contenders(catalog.rules.values()):
        if scoreless(rule, scan, hay):
            continue
        try:
            rm = evaluate(rule, scan, hay, explain_rejection=False)
        except PatternTimeout as exc:
            warnings.append(str(exc))
            continue
        if evaluated is not None:
            evaluated.append(rm)
        finding = _judged(rm, scan, catalog)
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(rm, scan: Scan, catalog: Catalog | None):
    """The finding one rule's clauses make on a scan (rank.score), cut to a candidate when a message other rules
    share stands in for the clause the log lacks (the diagnosis and --why alike)."""
    finding = score(rm, scan)
    if catalog is not None and finding is not None and finding.confidence != "low" \
            and any(ev.state == "unknown" for ev in rm.match):
        finding = _shared_stand_in(finding, scan, catalog)
    return finding


STAND_IN_NOTE = ("{others} {verb} on the same message, and the clause that tells them apart is not in the log: a "
                 "candidate, not a claim")
def _shared_stand_in(finding, scan: Scan, catalog: Catalog):
    """A finding whose rule needs a clause the paste cut off (the frames of a one-line paste) and has it stood in for
    by its crash message: unless another rule, which the log's gates (engine, family, platform) do not rule out, keys on
    that same message too (`'Parameter' object has no attribute 'weight_loader'` of a reload after sleep, and of an RL
    trainer's weight sync): then the message cannot tell them apart, and the finding is a low candidate. (Keying on
    the same message: a pattern that matches the crash and whose own words hold this rule's, or are held in them; a
    broad `'\\w+' object has no attribute '\\w+'` beside another clause keys on no message at all.)"""
    rule = catalog.rules[finding.rule_id]
    texts = [f"{c.exception_type}: {c.message}" if c.exception_type else c.message
             for c in scan.crashes[:5] if c.role != "wrapper" and c.message]
    own = {(t, words) for alt in rule.match for clause in alt if clause.kind == "message"
           for t in texts for words in _matching_words(clause, t)}
    if not own:
        return finding
    others = []
    for other, clause in catalog.clauses(("message",)):
        if other.id == rule.id or other.id in others or not any(clause in alt for alt in other.match):
            continue
        if not any(mine in theirs or theirs in mine for t, mine in own for theirs in _matching_words(clause, t)):
            continue
        if any(ev.clause in GATES and ev.state == "miss" for ev in when_states(other, scan)):
            continue
        others.append(other.id)
    if not others:
        return finding
    return replace(finding, confidence="low", notes=finding.notes + (
        STAND_IN_NOTE.format(others=", ".join(others[:3]), verb="key" if len(others) > 1 else "also keys"),))


def _matching_words(clause, text: str) -> list[str]:
    """The own words (fragment_literals) of the clause's non-generic patterns that match the text."""
    words = dict(fragment_literals(clause, 8, 1))
    out = []
    for pattern, source in candidates(clause, text, text.lower()):
        if source in clause.generic_sources or source not in words:
            continue
        try:
            if pattern.search(text, timeout=PATTERN_TIMEOUT):
                out.append(words[source])
        except TimeoutError:
            continue
    return out


def _dated_by_frames(scan: Scan, findings: list) -> Scan | None:
    """A crash with engine frames, a log that names no engine version, and nothing better than candidates or
    medium-confidence findings whose release window the log cannot check: the scan with the releases its frames exist
    in (`engine_releases`), or None. Only then is the function table of the release index read; a high-confidence
    finding never pays for it."""
    env = scan.environment
    engine = env.get("engine")
    if engine not in ("vllm", "sglang") or env.get("engine_version") is not None or not scan.crashes:
        return None
    if any(f.basis == "evidence" and (f.confidence == "high" or f.confidence == "medium" and not _window_unchecked(f))
           for f in findings):
        return None  # (a high-confidence finding is not re-dated: the function tables cost a short log a third more)
    frames = [f for c in scan.crashes for f in c.frames]
    if not any(f"/{engine}/" in f.file for f in frames):
        return None  # no engine frame: the function table is not read
    from ..knowledge.releases.frames import release_window

    window = release_window(engine, frames)  # frames of other packages are passed over there
    if window is None:
        return None
    facts = dict(env.facts)
    facts["engine_releases"] = Fact(window.text, "log: release index, the traceback's " + ", ".join(window.because[:3]))
    return replace(scan, environment=replace(env, facts=facts))


def _engine_by_frames(scan: Scan) -> Scan | None:
    """A traceback whose paths the reporter shortened (`.../memory_pool.py`), in a log that names no engine: the scan
    with the engine whose sources hold its functions (knowledge/releases/frames.py: engine_of_frames), or None."""
    env = scan.environment
    if env.get("engine") is not None or not scan.crashes:
        return None
    frames = [f for c in scan.crashes for f in c.frames]
    if not frames or any("/vllm/" in f.file or "/sglang/" in f.file for f in frames):
        return None  # (a whole engine path already voted; another package's traceback is not the engine's)
    from ..knowledge.releases.frames import engine_of_frames

    found = engine_of_frames(frames)
    if found is None:
        return None
    engine, pairs = found
    facts = dict(env.facts)
    facts["engine"] = Fact(engine, "log: release index, the traceback's " + ", ".join(pairs[:3]))
    return replace(scan, environment=replace(env, facts=facts))


def _window_unchecked(finding) -> bool:
    """The finding's rule holds only in a release window and the log names no release (a KeyError that one release's
    refactor causes, on a log that may be older than it)."""
    return any(ev.clause == "when.engine_version" and ev.state == "unknown" for ev in finding.evidence)


RISK_STEP = ("The paste shows no crash line: if the server did stop, paste the last lines it printed (the "
             "`Traceback (most recent call last):` block or the `ERROR` lines); the known problems listed are what this "
             "launch or these lines can lead to, not a diagnosis.")


STOPPED_STEP = ("The log ends while {phase}, with no error after it and before the server was ready: if it died or "
                "hung there, paste what it printed next (rerun with `2>&1 | tee server.log`; a process killed by the "
                "kernel leaves its trace in `dmesg`, a hang in `py-spy dump --pid <pid>`).")


def why_of(rule, scan: Scan, catalog: Catalog | None = None, report: Report | None = None):
    """(every clause of one rule on a scan, the finding the ranking makes of it or None, the finding the diagnosis
    shows for it or None): --why's data, by the same matching and scoring as the diagnosis - on the scan with the
    crash signs the diagnosis adds (pasted fragments a rule's message matches), and with the report's own finding,
    which the release index may have made (an engine too old for the model) where the clauses alone make none."""
    if catalog is not None:
        scan = with_crash_signs(scan, catalog)
    rm = evaluate(rule, scan)
    shown = next((f for f in report.findings if f.rule_id == rule.id), None) if report is not None else None
    return rm, _judged(rm, scan, catalog), shown


def diagnose_source(source: LineSource, catalog: Catalog, overrides: Overrides | None = None, prefilter: Prefilter | None = None) -> Report:
    return diagnose_scan(scan_source(source, catalog, overrides, prefilter), catalog, source.name)


def diagnose_text(text: str, catalog: Catalog, source: str = "-", overrides: Overrides | None = None, prefilter: Prefilter | None = None) -> Report:
    """Diagnose a log held in memory (tests, rule tests): the same path as a file."""
    return diagnose_source(LineSource(source, io.BytesIO(text.encode("utf-8"))), catalog, overrides, prefilter)
