"""The pipeline: reader -> prefixes -> crash + environment -> match -> rank -> Report."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from . import environment as envmod
from .catalog import Catalog
from .crash import CrashParser
from .match import Haystack, PatternTimeout, evaluate
from .model import Environment, Fact, Report, Scan, Verdict
from .nextsteps import next_steps
from .prefixes import peel
from .rank import rank, score

MAX_KEPT_LINES = 4000  # lines kept for `log` clauses


@dataclass
class Overrides:
    """What the user said on the command line (highest precedence) and in an --env-file (next)."""

    options: dict[str, str] = field(default_factory=dict)
    env_file: dict[str, Fact] = field(default_factory=dict)
    env_file_flags: set[str] = field(default_factory=set)


OPTION_KEYS = ("engine", "engine_version", "model", "quantization", "gpu")


def scan_lines(lines: Iterable[str], catalog: Catalog, overrides: Overrides | None = None) -> Scan:
    """One pass over the lines: crashes, environment, and the lines rule `log` patterns care about."""
    parser = CrashParser()
    collector = envmod.EnvCollector()
    kept: list[str] = []
    kept_tail: list[str] = []
    keep = LogLineSelector(catalog)
    count = nonblank = 0
    for count, line in enumerate(lines, 1):
        if not line or line.isspace():
            parser.feed(count, None, "", False)
            continue
        nonblank += 1
        process, text = peel(line)
        parser.feed(count, process, text, process is not None)
        collector.feed(text, process)
        if keep(text):
            if len(kept) < MAX_KEPT_LINES // 2:
                kept.append(text)
            else:
                kept_tail.append(text)
                if len(kept_tail) > MAX_KEPT_LINES // 2:
                    del kept_tail[: MAX_KEPT_LINES // 4]
    crashes = parser.finish()
    env = merge_environment(collector, overrides or Overrides())
    warnings = []
    if parser.dropped:
        warnings.append(f"{parser.dropped} further distinct crashes were not kept (limit reached)")
    return Scan(tuple(crashes), tuple(kept + kept_tail), env, nonblank, tuple(warnings))


class LogLineSelector:
    """Which lines rule `log` clauses may need: those holding one of their literal anchors (or, for a pattern
    with no anchor, those it matches)."""

    def __init__(self, catalog: Catalog):
        exact, caseless, loose = set(), set(), []
        for _rule, clause in catalog.clauses(("log",)):
            if clause.anchors is None:
                loose.extend(clause.patterns)
                continue
            for literal, nocase in clause.anchors:
                (caseless if nocase else exact).add(literal)
        self._exact = re.compile("|".join(map(re.escape, sorted(exact)))) if exact else None
        self._caseless = re.compile("|".join(map(re.escape, sorted(caseless))), re.I) if caseless else None
        self._loose = loose

    def __call__(self, text: str) -> bool:
        if self._exact is not None and self._exact.search(text):
            return True
        if self._caseless is not None and self._caseless.search(text):
            return True
        for pattern in self._loose:
            try:
                if pattern.search(text, timeout=0.05):
                    return True
            except TimeoutError:
                continue
        return False


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
        from . import vocab

        q = vocab.quantization_of(overrides.options["quantization"]) or overrides.options["quantization"]
        merged["quantization"] = Fact(q, "option")
    votes = collector.engine_votes
    derived = dict(merged)
    if "engine_version" in derived and "engine" in derived:
        pass
    envmod.derive(derived, votes)
    # a derived engine version must follow an overridden engine
    if "engine" in overrides.options and "engine_version" not in overrides.options:
        engine = overrides.options["engine"]
        if engine in derived:
            derived["engine_version"] = derived[engine]
        elif "engine_version" in derived and derived["engine_version"].source != "option":
            derived.pop("engine_version")
    flags = set(collector.flags) | overrides.env_file_flags
    return envmod.build(derived, flags, collector.flags_known, tuple(conflicts))


def diagnose_scan(scan: Scan, catalog: Catalog, source: str) -> Report:
    findings = []
    warnings = list(scan.warnings)
    hay = Haystack(scan)
    for rule in catalog.rules.values():
        try:
            rm = evaluate(rule, scan, hay)
        except PatternTimeout as exc:
            warnings.append(str(exc))
            continue
        finding = score(rm, scan)
        if finding is not None:
            findings.append(finding)
    ranked = rank(findings)
    if scan.lines_read == 0:
        verdict = Verdict.NOTHING
    elif ranked:
        verdict = Verdict.FOUND
    elif scan.crashes:
        verdict = Verdict.UNEXPLAINED
    else:
        verdict = Verdict.CLEAN
    warnings.extend(scan.environment.conflicts)
    return Report(
        source=source, verdict=verdict, environment=scan.environment, crashes=scan.crashes,
        findings=tuple(ranked), next_steps=tuple(next_steps(scan, ranked)), warnings=tuple(warnings),
        lines_read=scan.lines_read,
    )


def diagnose_lines(lines: Iterable[str], catalog: Catalog, source: str = "-", overrides: Overrides | None = None) -> Report:
    return diagnose_scan(scan_lines(lines, catalog, overrides), catalog, source)


def diagnose_text(text: str, catalog: Catalog, source: str = "-", overrides: Overrides | None = None) -> Report:
    from .reader import clean

    return diagnose_lines((clean(part) for part in text.splitlines()), catalog, source, overrides)
