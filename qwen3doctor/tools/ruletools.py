"""Rule authoring: every rule's own tests (shared by pytest and `rules test`), lint checks, list, skeleton."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import pickle
import re
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import regex

from ..knowledge.catalog import Catalog
from ..knowledge.generic import STATISTICS_LINES
from ..judge.pipeline import diagnose_scan, match_index_for, scan_source, with_crash_signs
from ..model import Report, Scan
from ..read.reader import LineSource, open_source
from ..errors import InputError


@dataclass(frozen=True)
class RuleTest:
    """One of a rule's own tests: a log it must match, or one it must not."""

    rule_id: str
    kind: str  # match | no_match
    index: int
    how: str  # file | text
    value: str  # path or text
    label: str

    @property
    def test_id(self) -> str:
        return f"{self.rule_id}::{self.kind}[{self.index}]"


@dataclass(frozen=True)
class TestResult:
    """How one rule test went."""

    test: RuleTest
    ok: bool
    detail: str


def rule_tests(catalog: Catalog, only: set[str] | None = None) -> list[RuleTest]:
    out = []
    for rule in sorted(catalog.rules.values(), key=lambda r: r.id):
        if only and rule.id not in only:
            continue
        for kind in ("match", "no_match"):
            for i, (how, value, label) in enumerate(rule.tests.get(kind, ())):
                out.append(RuleTest(rule.id, kind, i, how, value, label))
    return out


Key = tuple[str, str]  # (how, value) of a test log: the same log named by several rules is read once
Job = tuple[Key, str, tuple[str, ...]]  # a test log, its label, the rules that must match it


def _key(how: str, value: str) -> Key:
    """A test log's key: a file by its normalized path (rules of two engine folders name one example log as
    `../../examples/...` from each)."""
    return how, os.path.normpath(value) if how == "file" else value


class ReportCache:
    """Diagnose each test log once, however many rules name it; with it, which `match` alternatives of the rules
    that must match the log it satisfies on its own (for `untested_alternatives`). `fill` reads the logs in
    parallel processes, as `diagnose` reads many inputs.

    `stored`: the reports are also kept on disk (`rules test`), under a fingerprint of everything they depend on (the
    package's code and data, every rule file, the Python and library versions), each by its log's content: a second
    run over unchanged rules and code reads them back instead of diagnosing every log again. Any change to a rule or
    to the code is a new fingerprint, and every log is diagnosed again."""

    def __init__(self, catalog: Catalog, stored: bool = False):
        self.catalog = catalog
        self._cache: dict[Key, Report | str] = {}
        self._satisfied: dict[Key, frozenset[tuple[str, int]]] = {}
        self._matchers: dict[Key, list[str]] = {}
        for t in rule_tests(catalog):
            if t.kind == "match":
                self._matchers.setdefault(_key(t.how, t.value), []).append(t.rule_id)
        self._store = _ReportStore(catalog) if stored else None

    def _job(self, test: RuleTest) -> Job:
        key = _key(test.how, test.value)
        return key, test.label, tuple(self._matchers.get(key, ()))

    def get(self, test: RuleTest) -> Report | str:
        key, label, matchers = self._job(test)
        if key not in self._cache:
            self._cache[key], self._satisfied[key] = _diagnose_test_log(self.catalog, key, label, matchers)
        return self._cache[key]

    def satisfied(self, test: RuleTest) -> frozenset[tuple[str, int]]:
        """(rule id, alternative index) pairs the test log satisfies with every clause a hit."""
        self.get(test)
        return self._satisfied[self._job(test)[0]]

    def fill(self, tests: list[RuleTest], jobs: int) -> None:
        """Diagnose the logs of these tests not yet read, `jobs` processes at a time."""
        todo = {}
        for t in tests:
            job = self._job(t)
            if job[0] not in self._cache:
                todo.setdefault(job[0], job)
        if self._store is not None:
            for key, job in list(todo.items()):
                found = self._store.get(job)
                if found is not None:
                    self._cache[key], self._satisfied[key] = found
                    del todo[key]
        self._diagnose(todo, jobs)
        if self._store is not None and todo:
            self._store.save({job: (self._cache[key], self._satisfied[key]) for key, job in todo.items()})

    def _diagnose(self, todo: dict[Key, Job], jobs: int) -> None:
        if jobs <= 1 or len(todo) < 2 * jobs:
            for key, label, matchers in todo.values():
                self._cache[key], self._satisfied[key] = _diagnose_test_log(self.catalog, key, label, matchers)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if multiprocessing.get_start_method() == "fork":
            _compile_all(self.catalog)  # once here, inherited by every worker (each compiled them all again)
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(self.catalog,)) as pool:
            for key, (report, satisfied) in zip(todo, pool.map(_worker_job, todo.values(), chunksize=8)):
                self._cache[key], self._satisfied[key] = report, satisfied


class _ReportStore:
    """The test logs' reports on disk (ReportCache's `stored`): one file per fingerprint in the cache folder, each
    report under a digest of its log's content, label and matching rules. Unreadable or foreign files are ignored and
    a read-only cache folder only means nothing is kept."""

    def __init__(self, catalog: Catalog):
        from ..cache import CACHE_ENV, cache_dir

        self.path = None if os.environ.get(CACHE_ENV) else cache_dir() / f"ruletests-{_fingerprint(catalog)}.pickle.gz"
        self.entries: dict[str, tuple[Report | str, frozenset[tuple[str, int]]]] = {}
        if self.path is None:
            return
        try:
            entries = pickle.loads(gzip.decompress(self.path.read_bytes()))
        except (OSError, EOFError, zlib.error, gzip.BadGzipFile, pickle.UnpicklingError, AttributeError, ImportError,
                TypeError, ValueError, IndexError, KeyError):
            return
        if isinstance(entries, dict):
            self.entries = entries

    def get(self, job: Job) -> tuple[Report | str, frozenset[tuple[str, int]]] | None:
        digest = _job_digest(job)
        return self.entries.get(digest) if digest is not None else None

    def save(self, new: dict[Job, tuple[Report | str, frozenset[tuple[str, int]]]]) -> None:
        from ..cache import prune

        if self.path is None:
            return
        for job, found in new.items():
            digest = _job_digest(job)
            if digest is not None:
                self.entries[digest] = found
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f"{self.path.name}.tmp{os.getpid()}")
            tmp.write_bytes(gzip.compress(pickle.dumps(self.entries, protocol=pickle.HIGHEST_PROTOCOL), compresslevel=1))
            os.replace(tmp, self.path)
            prune(self.path.parent, "ruletests-*.pickle.gz")
        except OSError:
            pass


def _fingerprint(catalog: Catalog) -> str:
    """A digest of everything a test log's report depends on besides the log: the package's files (code and release
    data), every rule file of the catalog, and the versions of Python and of the libraries that read and match."""
    from importlib import metadata

    from .. import __version__
    from ..bundled import ROOT

    h = hashlib.sha256(f"{__version__}\0{sys.version}\0{os.environ.get('QWEN3DOCTOR_PREFILTER', '')}\0".encode())
    for dist in ("regex", "hyperscan", "packaging", "PyYAML"):
        try:
            h.update(f"{dist}={metadata.version(dist)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=-\0".encode())
    for path in sorted(p for p in ROOT.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                       and "_bundled" not in p.relative_to(ROOT).parts):
        h.update(f"{path.relative_to(ROOT).as_posix()}\0".encode())
        h.update(path.read_bytes())
    for rule in sorted(catalog.rules.values(), key=lambda r: r.id):
        h.update(f"{rule.id}\0{rule.path}\0".encode())
        try:
            h.update(Path(rule.path).read_bytes())
        except OSError:
            h.update(b"\0unreadable")
    return h.hexdigest()[:32]


def _job_digest(job: Job) -> str | None:
    """A test log's digest: what it says (a file's bytes, read now) with its label and the rules that must match it;
    None when the file cannot be read (it is diagnosed, and its error reported, as any other)."""
    (how, value), label, matchers = job
    h = hashlib.sha256(repr((how, value, label, matchers)).encode())
    if how == "file":
        try:
            h.update(Path(value).read_bytes())
        except OSError:
            return None
    return h.hexdigest()


def _compile_all(catalog: Catalog) -> None:
    """Compile every pattern of the catalog's clauses (compile_pattern keeps them)."""
    from ..knowledge.patterns import compile_pattern

    for rule in catalog.rules.values():
        for clause in [c for alt in rule.match for c in alt] + list(rule.supports):
            for source in clause.sources:
                compile_pattern(clause.kind, source)


_WORKER: dict = {}


def _init_worker(catalog: Catalog) -> None:
    _WORKER["catalog"] = catalog


def _worker_job(job: Job) -> tuple[Report | str, frozenset[tuple[str, int]]]:
    return _diagnose_test_log(_WORKER["catalog"], *job)


def _diagnose_test_log(catalog: Catalog, key: Key, label: str,
                       matchers: tuple[str, ...]) -> tuple[Report | str, frozenset[tuple[str, int]]]:
    """A test log's report (or why it could not be read), and the alternatives of the rules that must match it
    which it satisfies on its own."""
    from dataclasses import replace

    from ..judge.match import Haystack, evaluate

    how, value = key
    try:
        src = open_source(value) if how == "file" else LineSource(label, io.BytesIO(value.encode("utf-8")))
        try:
            scan = scan_source(src, catalog)
        finally:
            src.close()
        scan = with_crash_signs(scan, catalog)  # once, for the report and for the alternatives below
        report = diagnose_scan(scan, catalog, src.name, signed=True)
    except InputError as exc:
        return str(exc), frozenset()
    satisfied = set()
    hay = Haystack(scan, match_index_for(catalog)) if matchers else None
    for rule_id in matchers:
        rule = catalog.rules[rule_id]
        for i, alternative in enumerate(rule.match):
            rm = evaluate(replace(rule, match=(alternative,)), scan, hay)
            if not rm.rejected and all(ev.state == "hit" for ev in rm.match):
                satisfied.add((rule_id, i))
    return report, frozenset(satisfied)


def untested_alternatives(catalog: Catalog, cache: ReportCache, only: set[str] | None = None) -> list[str]:
    """The `match` alternatives that none of their rule's must-match logs satisfies on its own (every clause a hit):
    a pattern never seen to work, such as one anchored at `^` on a message that the matcher reads after its
    exception type. One line per alternative."""
    out = []
    for rule in sorted(catalog.rules.values(), key=lambda r: r.id):
        if only and rule.id not in only:
            continue
        tests = [t for t in rule_tests(catalog, {rule.id}) if t.kind == "match"]
        for i, alternative in enumerate(rule.match):
            if not any((rule.id, i) in cache.satisfied(t) for t in tests):
                kinds = " + ".join(c.kind for c in alternative)
                out.append(f"{rule.path}: match[{i}] ({kinds}): no must-match log satisfies it (add a log of that form "
                           "to tests.match, or fix or drop the alternative)")
    return out


def run_test(test: RuleTest, cache: ReportCache) -> TestResult:
    report = cache.get(test)
    if isinstance(report, str):
        return TestResult(test, False, f"cannot read test log: {report}")
    # scored as `eval` scores a case: the findings, then the risks of a log with no crash sign
    answers = list(report.findings) + list(getattr(report, "risks", ()))
    ids = [f.rule_id for f in answers]
    if test.kind == "match":
        if ids and ids[0] == test.rule_id:
            what = "ranked first" if report.findings else "the first risk of a log with no crash sign"
            return TestResult(test, True, f"{what} ({answers[0].confidence})")
        if test.rule_id in ids:
            pos = ids.index(test.rule_id) + 1
            return TestResult(test, False, f"{test.label}: ranked {pos}, behind {', '.join(ids[: pos - 1])}")
        return TestResult(test, False, f"{test.label}: not reported (" + (f"found: {', '.join(ids)}" if ids else "no findings") + ")")
    if test.rule_id in ids:
        pos = ids.index(test.rule_id) + 1
        return TestResult(test, False, f"{test.label}: reported at rank {pos} on a log it must not match")
    return TestResult(test, True, "not reported")


def run_tests(catalog: Catalog, only: set[str] | None = None, cache: ReportCache | None = None,
              jobs: int = 1) -> list[TestResult]:
    cache = cache or ReportCache(catalog)
    tests = rule_tests(catalog, only)
    cache.fill(tests, jobs)
    return [run_test(t, cache) for t in tests]


def lint(catalog: Catalog) -> list[str]:
    """Checks beyond the schema (which loading already enforces): tests present, references unique, no `log` pattern
    anchored on a plain word."""
    import yaml

    problems = []
    refs: dict[str, str] = {}
    for rule in sorted(catalog.rules.values(), key=lambda r: r.id):
        # the catalog parses with libyaml where present; a file must also parse without it (pure PyYAML)
        tree = None
        try:
            text = Path(rule.path).read_text(encoding="utf-8")
            tree = yaml.compose(text, Loader=yaml.SafeLoader)
            problems += [f"{rule.path}:{line}: {where}: {CUT_BY_COMMENT}" for line, where in comment_cuts(tree, text)]
            problems += [f"{rule.path}:{line}: {where}: {HYPHEN_FOLD}" for line, where in hyphen_folds(tree, text)]
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problems.append(f"{rule.path}:{mark.line + 1 if mark else 1}: YAML that only libyaml accepts "
                            f"({exc.problem}): quote the value")
        except (OSError, yaml.YAMLError):
            pass
        problems += [f"{rule.path}{f':{line}' if line else ''}: {field}: {plain_word_problem(words)}"
                     for line, field, words in plain_word_anchors(rule, tree)]
        if not rule.tests.get("match"):
            problems.append(f"{rule.path}: tests.match: the rule has no log it must match")
        if not rule.tests.get("no_match"):
            problems.append(f"{rule.path}: tests.no_match: the rule has no lookalike it must not match")
        for how, value, label in rule.tests.get("match", ()) + rule.tests.get("no_match", ()):
            if how == "file" and not Path(value).is_file():
                problems.append(f"{rule.path}: tests: {label}: no such file")
        first = rule.references[0].lower() if rule.references else None
        if first:
            if first in refs:
                problems.append(f"{rule.path}: references[0]: {rule.references[0]} already represents rule {refs[first]}")
            refs[first] = rule.id
        if not rule.match and not rule.when and not rule.families:
            problems.append(f"{rule.path}: match: a rule with no match clauses needs when conditions or families")
        model = ((rule.raw_when.get("env") or {}) if isinstance(rule.raw_when.get("env"), dict) else {}).get("model")
        if isinstance(model, str) and not rule.families and not any(
                regex.search(model, qwen) for qwen in ("Qwen/Qwen3-8B", "Qwen3.5-27B", "/models/qwen3-30b-a3b")):
            # (a rule about another model that names no families is met by a Qwen3 log whose model is known)
            problems.append(f"{rule.path}: families: when.env.model names a model that is not Qwen3: "
                            "add `families: [other]`")
        problems.extend(traffic_matches(rule))
    problems += release_problems(catalog)[0]
    return problems


def release_problems(catalog: Catalog) -> tuple[list[str], list[str]]:
    """(errors, notes) from the release index: fix flags, values and variables outside the releases the fix is
    for, frames no release of the window defines, fix releases that were never published."""
    from ..knowledge.releases import available
    from ..knowledge.releases.checks import rule_problems

    errors: list[str] = []
    notes: list[str] = []
    if not available():
        return errors, notes
    for rule in sorted(catalog.rules.values(), key=lambda r: r.id):
        errs, found = rule_problems(rule)
        errors += [f"{rule.path}: {p.text}" for p in errs]
        notes += [f"{rule.path}: {p.text}" for p in found]
    return errors, notes


# a healthy server's ordinary lines, with the numbers traffic carries (throughputs, token counts, ports, ids):
# a `log` pattern that matches one of them would report its cause on every busy log
TRAFFIC = STATISTICS_LINES + (
    "[2025-05-01 10:00:00 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 4096, token usage: 0.01, "
    "#running-req: 5090, #queue-req: 0, input throughput (token/s): 3080.63",
    '(APIServer pid=1) INFO:     10.0.2.80:20800 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "(APIServer pid=1) INFO 03-02 10:15:22 [async_llm.py:270] Added request chatcmpl-a100b200h100t4v100.",
)


# what a match on traffic must not be: a bare model-number-like token (`2080`, `b200`, `A100`), which throughput
# figures, ports and request ids contain; phrases (`Running: 100 reqs`) are load signals a rule may look for
_MODEL_NUMBER = re.compile(r"(?i)[a-z]{0,3}\d{2,4}[a-z]{0,2}")


def traffic_matches(rule) -> list[str]:
    """`log` patterns of a rule that match ordinary traffic (a bare GPU model number such as `2080`)."""
    from ..knowledge.patterns import compile_pattern

    out = []
    for where, clause in [("match", c) for alt in rule.match for c in alt] + [("supports", c) for c in rule.supports]:
        if clause.kind != "log":
            continue
        for source in clause.sources:
            pattern = compile_pattern("log", source)
            for line in TRAFFIC:
                hit = _search_briefly(pattern, line)
                if hit and _MODEL_NUMBER.fullmatch(hit.group(0)):
                    out.append(f"{rule.path}: {where}.log: {source!r} matches ordinary traffic ({hit.group(0)!r} in "
                               f"“{line[:60]}…”): anchor it (a word boundary, the GPU's full name)")
                    break
    return out


# a plain word, alone or with the stop or colon a prompt's sentence puts after it (`deepspeed.`, `quantization:`)
_PLAIN_WORD = re.compile(r"\s*[a-z]{3,14}[.,:;!?]?\s*")
_LOG_FIELD = re.compile(r"(?:match(?:\[\d+\])?|supports)\.log(?:\[\d+\])*")


def plain_words(anchors, pattern=None) -> list[str]:
    """The anchors the prefilter looks for (5+ characters, not in ordinary traffic) that are plain lowercase words
    (`transformers`, a caseless `deepseek`), or such a word with the stop or colon a sentence puts after it
    (`slime.`, `stream:`): text a request's prompt may hold. A capitalised word (`Mooncake`, `Ascend`) counts when
    the compiled `pattern`, if given, matches a sentence of prose that holds it: as a whole branch it does, as the
    tail of a class name (`(?:Nixl|LMCache)Connector`) or a line of its own (`^Killed$`) it does not."""
    from ..read.scanner import MIN_PREFILTER_ANCHOR, is_noise

    out = []
    for a, nocase in anchors or ():
        if len(a) < MIN_PREFILTER_ANCHOR or is_noise((a, nocase)) or not _PLAIN_WORD.fullmatch(a if nocase else a.lower()):
            continue
        if nocase or a.strip().islower() or (pattern is not None and _CAPITALISED.fullmatch(a)
                                             and _in_prose(pattern, a.strip())):
            out.append(a)
    return out


_CAPITALISED = re.compile(r"\s*[A-Z][a-z]+[.,:;!?]?\s*")


def _in_prose(pattern, word: str) -> bool:
    """Whether `pattern` matches a prompt's sentence that holds `word`: the scanner's own request line (NOISE), its
    prompt asking about the word."""
    from ..read.scanner import NOISE, PROMPT_TOPIC

    return _search_briefly(pattern, NOISE[0].replace(PROMPT_TOPIC, f"the {word} method", 1)) is not None


def _search_briefly(pattern, text: str):
    """`pattern.search(text)` under a second's timeout (a user's rule may backtrack without end): None when it ran out."""
    try:
        return pattern.search(text, timeout=1.0)
    except TimeoutError:
        return None


def plain_word_problem(words: list[str]) -> str:
    return (f"anchor(s) {', '.join(repr(w) for w in words[:3])} are plain words a request's prompt may hold: with "
            "request logging on, every line of a large log that holds one reaches the reader (' install ' once made "
            "the 1 GiB benchmark 5x slower; 'version', 24 s instead of 4 s); anchor the pattern on a distinctive literal "
            "(an error string, a module path, a function or option name: one branch per alternative if need be), and put "
            "a word that is only context in a look-around (`(?<=transformers\\s+)5\\.3\\.0`)")


def plain_word_anchors(rule, tree=None) -> list[tuple[int | None, str, list[str]]]:
    """(line, field, words) for each `log` pattern of the rule whose prefilter anchors include plain words. Only
    clauses that feed the prefilter count: one with a pattern that has no anchor at all gives it none (lint_warnings
    says so). The line and field come from the rule's YAML (`tree`, composed) when given."""
    from ..knowledge.patterns import compile_pattern, literal_anchors

    where: dict[str, tuple[int, str]] = {}
    for node, field in _scalars(tree) if tree is not None else ():
        if _LOG_FIELD.fullmatch(field) and isinstance(node.value, str):
            where.setdefault(node.value, (node.start_mark.line + 1, field))
    out = []
    clauses = [(f"match[{i}]", c) for i, alt in enumerate(rule.match) for c in alt] + [("supports", c) for c in rule.supports]
    for prefix, clause in clauses:
        if clause.kind != "log" or clause.anchors is None:
            continue
        for source in clause.sources:
            words = plain_words(literal_anchors(source), compile_pattern("log", source))
            if words:
                line, field = where.get(source, (None, clause.name(prefix)))
                out.append((line, field, words))
    return out


CUT_BY_COMMENT = ('a plain value ends where " #" starts a YAML comment, and the rest of the line is lost: quote the value '
                  '(a comment meant as one takes two spaces before "#")')


def _scalars(node, where: str = ""):
    """(scalar node, field path) for every scalar under a composed YAML node."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield from _scalars(value, f"{where}.{key.value}" if where else str(key.value))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _scalars(item, f"{where}[{i}]")
    elif isinstance(node, yaml.ScalarNode):
        yield node, where


def comment_cuts(node, text: str) -> list[tuple[int, str]]:
    """(line, field) of every unquoted value followed by ` #` on its last line: YAML ends a plain scalar there
    and drops the rest as a comment ("...Marlin-compatible (PR #36329)" reads "...Marlin-compatible (PR").
    Prose puts one space before a `#`; a comment meant as one takes two (yamllint's default convention, and
    the skeletons' `status: unconfirmed  # ...`), so only a single space or tab is flagged."""
    found: list[tuple[int, str]] = []
    for scalar, where in _scalars(node):
        if scalar.style is None and scalar.value:
            end = scalar.end_mark
            line_end = text.find("\n", end.index)
            rest = text[end.index: len(text) if line_end == -1 else line_end]
            if rest[:1] in (" ", "\t") and rest[1:2] == "#":
                found.append((end.line + 1, where))
    return found


HYPHEN_FOLD = ('a word broken at a hyphen across two lines of a folded (`>`) block: YAML joins the lines with a space '
               '("Qwen3.5-" over "397B" reads "Qwen3.5- 397B"): keep the hyphenated word on one line')
_WORD_HYPHEN_END = re.compile(r"[A-Za-z0-9.]-$")


def hyphen_folds(node, text: str) -> list[tuple[int, str]]:
    """(line, field) of every line of a folded block scalar that ends inside a hyphenated word and goes on in the
    next line of the same paragraph (a line ending in ` -`, a dash, is prose and passes)."""
    lines = text.split("\n")
    found: list[tuple[int, str]] = []
    for scalar, where in _scalars(node):
        if scalar.style != ">":
            continue
        last = scalar.end_mark.line if scalar.end_mark.column else scalar.end_mark.line - 1
        for i in range(scalar.start_mark.line + 1, min(last, len(lines) - 1)):
            if _WORD_HYPHEN_END.search(lines[i].rstrip()) and lines[i + 1].strip()[:1].isalnum():
                found.append((i + 1, where))
    return found


def _engine_steps() -> frozenset[str]:
    from ..model import STEP_NAMES
    from ..read.phases import _FRAME_PHASES

    # (the named steps too: every traceback cut while the engine's modules load passes the import step)
    return frozenset(f for _, steps in _FRAME_PHASES for f in steps) | STEP_NAMES


ENGINE_STEPS = _engine_steps()


def lint_warnings(catalog: Catalog) -> list[str]:
    """Advice that does not fail lint: `log` patterns the prefilter cannot anchor, or whose anchor is in
    ordinary request traffic (those only run on lines other anchors select, so they can miss on big logs)."""
    from ..read.scanner import MIN_PREFILTER_ANCHOR, is_noise

    from .. import vocab

    out = []
    for rule in sorted(catalog.rules.values(), key=lambda r: r.id):
        named = [lib for lib in vocab.LIBRARIES if lib in rule.id.split("-") and lib not in rule.libraries]
        if named:
            out.append(f"{rule.path}: libraries: the id names {', '.join(named)} but `libraries` does not: add it if "
                       "the cause lives there (an NVIDIA-only library is ruled out on other platforms)")
        for clause in [c for alt in rule.match for c in alt] + list(rule.supports):
            if clause.kind != "log":
                continue
            if clause.anchors is None:
                out.append(f"{rule.path}: {clause.kind}: a pattern has no literal of {MIN_PREFILTER_ANCHOR}+ characters "
                           f"({', '.join(clause.sources)[:120]}): on a large log it only sees lines other anchors select")
                continue
            weak = [a for a, nocase in clause.anchors if len(a) < MIN_PREFILTER_ANCHOR or is_noise((a, nocase))]
            if weak:
                out.append(f"{rule.path}: {clause.kind}: anchor(s) {', '.join(repr(a) for a in weak[:3])} are too short or "
                           "occur in ordinary request traffic: the prefilter ignores them")
            # (a plain word as an anchor is an error: lint, plain_word_anchors)
        steps = [f for c in rule.supports if c.kind == "frames" for f in c.sources if f in ENGINE_STEPS]
        if steps:
            out.append(f"{rule.path}: supports.frames: {', '.join(steps)} (an engine step where many causes fail): as "
                       "support it makes this rule a candidate for every cut traceback through it")
    return out + release_problems(catalog)[1]


def rules_table(catalog: Catalog) -> list[dict]:
    return [
        {
            "id": r.id, "engines": list(r.engines), "families": list(r.families), "status": r.status,
            "references": list(r.references), "title": r.title,
        }
        for r in sorted(catalog.rules.values(), key=lambda r: (r.engines != ("vllm", "sglang"), r.engines, r.id))
    ]


def rules_markdown(catalog: Catalog) -> str:
    out = ["| rule | engines | families | status | references | title |", "| --- | --- | --- | --- | --- | --- |"]
    for row in rules_table(catalog):
        out.append(
            f"| `{row['id']}` | {', '.join(row['engines'])} | {', '.join(row['families']) or 'any'} | {row['status']} "
            f"| {', '.join(row['references'])} | {row['title'].replace('|', '/')} |"
        )
    return "\n".join(out) + "\n"


SKELETON = """\
title: ""            # one line: what broke
status: unconfirmed  # confirmed | likely | unconfirmed
references: []       # vllm#N / sglang#N / owner/repo#N, the representative issue first
families: []         # qwen3, qwen3-moe, qwen3-vl, qwen3-omni, qwen3-next, qwen3.5, qwen3.5-moe, qwen3-coder
libraries: []        # the kernel library the cause lives in: flashinfer, deepgemm, cutlass, marlin, nccl, triton, ...
match:               # required evidence; clauses are ANDed, items ORed
  frames: []         # function names (regex, full match)
  message: []        # regex on the crash message
supports:            # extra evidence that raises the score
  log: []
when:                # conditions on the environment
  engine_version: ">=0.0"
cause: >
  In your own words: what goes wrong and why.
symptoms: []
fixes:
  - title: ""
    command: ""
    cost: ""
fixed_in: {}
tests:
  match: []          # logs this rule must rank first, relative to this file
  no_match: []       # lookalikes it must not report
"""


def new_rule(root: Path, engine: str, rule_id: str) -> Path:
    path = root / engine / f"{rule_id}.yaml"
    if path.exists():
        raise InputError(f"{path}: already exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SKELETON, encoding="utf-8")
    return path


README_START, README_END = "<!-- rules-table:start -->", "<!-- rules-table:end -->"


def readme_with_table(readme: str, table: str) -> str:
    """The README text with the covered-crashes table between its markers replaced."""
    head, _, rest = readme.partition(README_START)
    _, _, tail = rest.partition(README_END)
    return f"{head}{README_START}\n{table}{README_END}{tail}"
