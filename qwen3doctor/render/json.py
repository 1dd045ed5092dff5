"""`--format json`: one object per input; several inputs give JSON Lines. Field names are a contract."""

from __future__ import annotations

import json

from ..read.crash import ELLIPSIS
from ..model import Crash, Finding, Report

SCHEMA_VERSION = 1


def crash_dict(crash: Crash) -> dict:
    return {
        "class": crash.crash_class,
        "exception_type": crash.exception_type,
        "message": crash.message,
        "process": crash.process,
        "role": crash.role,
        "line": crash.line_no,
        "during": crash.during or None,
        # the message is cut off (a bare type at the paste's end) or cut short with "..."
        "message_cut": crash.message_cut or crash.cut_short and bool(ELLIPSIS.search(crash.message)),
        "frames": [{"file": f.file, "line": f.line, "function": f.function} for f in crash.frames],
        # an AssertionError without a message: the `assert` statement its last frame shows, or null
        "assertion": crash.assertion or None,
    }


def finding_dict(f: Finding) -> dict:
    return {
        "rule_id": f.rule_id,
        "title": f.title,
        "status": f.status,
        "score": f.score,
        "confidence": f.confidence,
        "engines": list(f.engines),
        "families": list(f.families),
        "references": list(f.references),
        "evidence": [{"clause": e.clause, "state": e.state, "text": e.text} for e in f.evidence],
        "fixes": [{"title": x.title, "command": x.command, "cost": x.cost} for x in f.fixes],
        "fixed_in": f.fixed_in,
        "notes": list(f.notes),
    }


def report_dict(report: Report) -> dict:
    env = report.environment
    return {
        "schema_version": SCHEMA_VERSION,
        "source": report.source,
        "verdict": report.verdict.value,
        "environment": {k: {"value": v.value, "source": v.source} for k, v in sorted(env.facts.items())},
        "flags": sorted(env.flags),
        "crash": crash_dict(report.crash) if report.crash else None,
        "crashes": [crash_dict(c) for c in report.crashes],
        "findings": [finding_dict(f) for f in report.findings],
        "risks": [finding_dict(f) for f in report.risks],
        "next_steps": list(report.next_steps),
        "warnings": list(report.warnings),
    }


def render(report: Report) -> str:
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False)


def render_many(reports: list[Report]) -> str:
    if len(reports) == 1:
        return render(reports[0])
    return "\n".join(json.dumps(report_dict(r), ensure_ascii=False) for r in reports)
