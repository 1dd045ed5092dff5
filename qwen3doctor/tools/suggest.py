"""`qwen3doctor suggest LOG`: a draft rule for a crash no rule explains, for someone to finish.

The draft's evidence comes from the crash's fingerprint (fingerprint.py): its `match` names the deepest
distinctive engine frames, the exception type and the masked final message turned into a pattern; its
first test is the log itself (a redacted copy, so it can be committed). What only a person can know is
left empty, and `qwen3doctor rules lint` reports exactly those fields: title, references, cause, the
first fix, and a lookalike log for tests.no_match.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..knowledge.generic import GENERIC_FRAMES
from ..errors import InputError
from ..read.crash import ELLIPSIS
from ..judge.fingerprint import Fingerprint, of_crash, template_regex
from ..read.inputs import Input
from ..model import Report
from ..redact import Redactor

MAX_FRAMES = 3
GENERIC_LOG_NAMES = {"log", "logs", "output", "stdout", "stderr", "server", "console", "job", "run"}
HUMAN_FIELDS = ("title", "references", "cause", "fixes[0].title", "tests.no_match")


@dataclass(frozen=True)
class Draft:
    """A rule drafted from a crash's fingerprint, as YAML."""

    rule_id: str
    engine: str  # vllm | sglang | common
    text: str  # the YAML
    fingerprint: Fingerprint


def rule_id_for(report: Report, fp: Fingerprint) -> str:
    """draft-<exception>-<deepest distinctive frame>, lowercase; unique enough to edit, meant to be renamed."""
    frames = _distinctive(fp.frames)
    kind = fp.exception_type if fp.exception_type != "unknown" else "crash"
    parts = ["draft", kind] + ([frames[-1]] if frames else [])
    slug = "-".join(re.sub(r"[^a-z0-9]+", "-", _snake(p).lower()).strip("-") for p in parts if p)
    return re.sub(r"-+", "-", slug)[:80].strip("-")


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name)


def _distinctive(frames: tuple[str, ...]) -> list[str]:
    return [f for f in frames if f not in GENERIC_FRAMES and not f.startswith("<")]


def engine_of(report: Report) -> str:
    engine = report.environment.get("engine")
    return engine if engine in ("vllm", "sglang") else "common"


def _q(text: str) -> str:
    """A YAML single-quoted scalar."""
    return "'" + text.replace("'", "''") + "'"


def draft(report: Report, test_path: str, *, rule_id: str | None = None, engine: str | None = None) -> Draft:
    """The draft rule for the primary crash of `report`; `test_path` is the log as the rule file will
    name it (relative to the rule file)."""
    crash = report.crash
    if crash is None:
        raise InputError(f"{report.source}: no crash found, nothing to draft a rule for")
    fp = of_crash(crash)
    frames = _distinctive(fp.frames)[-MAX_FRAMES:]
    exception = crash.exception_type
    # (a message the paste cut with "...": the pattern stops where the shown text does)
    shown = ELLIPSIS.sub("", fp.template) if fp.template else ""
    message = template_regex(shown) if shown else None
    if not frames and not exception and not message:
        raise InputError(f"{report.source}: the crash has no frames, exception type or message to match; "
                         "paste more of the log (the whole traceback) and try again")
    rule_id = rule_id or rule_id_for(report, fp)
    engine = engine or engine_of(report)
    family = report.environment.get("family")
    version = report.environment.get("engine_version")
    lines = [
        f"# Draft written by `qwen3doctor suggest` from {report.source}",
        f"# (fingerprint {fp.id}: {fp.exception_type}"
        + (f" in {' <- '.join(reversed(fp.frames))})." if fp.frames else ", no engine frames)."),
        "# Fill in every field marked TODO, then: qwen3doctor rules lint <this file> && qwen3doctor rules test <this file>",
        'title: ""            # TODO one line: what broke',
        "status: unconfirmed  # confirmed | likely | unconfirmed",
        "references: []       # TODO the issues of this root cause: vllm#N / sglang#N / owner/repo#N",
    ]
    if family and family != "other":
        lines.append(f"families: [{family}]   # from the log; widen it, or remove it for any model")
    lines.append("match:")
    if frames:
        lines.append(f"  frames: [{', '.join(_q(re.escape(f)) for f in reversed(frames))}]   # deepest engine frames")
    if exception:
        lines.append(f"  exception: [{_q(re.escape(fp.exception_type))}]")
    if message:
        lines.append(f"  message: [{_q(message)}]   # the masked final message")
    if version:
        lines.append(f'# when: {{engine_version: ">={version}"}}   # the log shows {engine if engine != "common" else "engine"} {version}; set the affected range')
    lines += [
        'cause: ""            # TODO in your own words: what goes wrong and why',
        "symptoms:",
        f"  - {_q(_symptom(crash, fp))}",
        "fixes:",
        '  - title: ""        # TODO the first thing to try',
        '    command: ""',
        '    cost: ""',
        "tests:",
        "  match:",
        f"    - {_q(test_path)}",
        "  no_match: []       # TODO a lookalike log: the same message from another kernel, family or version",
    ]
    return Draft(rule_id, engine, "\n".join(lines) + "\n", fp)


def _symptom(crash, fp: Fingerprint) -> str:
    from ..judge.summary import unexplained_title

    if crash.exception_type or fp.template:
        return ((crash.exception_type + ": ") if crash.exception_type else "") + fp.template
    return unexplained_title(fp, crash).removeprefix("unexplained ")


def default_logs_dir(root: Path, engine: str) -> Path:
    """examples/logs/<engine>/ beside the rules folder when the repository has one, else <root>/<engine>/logs/."""
    examples = root.resolve().parent / "examples" / "logs"
    return examples / engine if examples.is_dir() else root / engine / "logs"


def copy_log(item: Input, dest: Path, *, force: bool = False) -> int:
    """A redacted copy of the log at dest (lines cleaned as the reader cleans them); returns the line count."""
    redactor = Redactor()
    src = item.open(force=force)
    n = 0
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "w", encoding="utf-8", newline="\n") as out:
            for line in src:
                out.write(redactor.line(line) + "\n")
                n += 1
    finally:
        src.close()
    return n


def relative(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()


def log_name(rule_id: str, item: Input) -> str:
    stem = Path(item.member or item.path).name
    for suffix in (".gz", ".log", ".txt"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    if stem.lower() in GENERIC_LOG_NAMES:  # corpus/<case>/log.txt, job/output.log: the folder names it
        parent = Path(item.member or item.path).parent.name
        stem = f"{parent}-{stem}" if parent not in ("", ".") else stem
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-") or "log"
    return f"{rule_id}--{stem}.log"


@dataclass(frozen=True)
class Written:
    """Where a draft rule and its log were written, and what is left for a person to fill in."""

    draft: Draft
    rule_path: Path | None  # None with print_only
    log_path: Path | None
    problems: tuple[str, ...]  # what `rules lint` reports on the draft: the fields left for a person
    note: str = ""


def suggest(item: Input, report: Report, *, root: Path, rule_id: str | None = None, engine: str | None = None,
            logs_dir: Path | None = None, print_only: bool = False, force: bool = False) -> Written:
    """Write the draft rule (and a redacted copy of the log as its first test), or only build it."""
    from ..knowledge.catalog import compile_rule

    if report.crash is None:
        raise InputError(f"{item.name}: no crash found, nothing to draft a rule for")
    engine = engine or engine_of(report)
    probe = draft(report, "log", rule_id=rule_id, engine=engine)
    rule_path = root / engine / f"{probe.rule_id}.yaml"
    if print_only:
        test = str(Path(item.path).resolve()) if item.member is None and item.path != "-" else item.name
        return Written(draft(report, test, rule_id=probe.rule_id, engine=engine), None, None, ())
    if rule_path.exists():
        raise InputError(f"{rule_path}: already exists (choose another id with --id)")
    log_path = (logs_dir or default_logs_dir(root, engine)) / log_name(probe.rule_id, item)
    if log_path.exists():
        raise InputError(f"{log_path}: already exists (choose another id with --id, or --logs DIR)")
    rule_path.parent.mkdir(parents=True, exist_ok=True)
    copy_log(item, log_path, force=force)
    result = draft(report, relative(log_path, rule_path.parent), rule_id=probe.rule_id, engine=engine)
    rule_path.write_text(result.text, encoding="utf-8")
    _rule, problems = compile_rule(rule_path, str(rule_path), engine)
    if not problems:
        problems = [f"{rule_path}: tests.no_match: the rule has no lookalike it must not match"]
    return Written(result, rule_path, log_path, tuple(problems))
