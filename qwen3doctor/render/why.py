"""`diagnose --why RULE`: every clause of one rule, hit / miss / unknown, and what the ranking made of it."""

from __future__ import annotations

import json

from ..model import Finding, Rule, RuleMatch


def render_why(rule: Rule, rm: RuleMatch, finding: Finding | None, fmt: str) -> str:
    clauses = rm.match + rm.supports + rm.when
    if fmt == "json":
        return json.dumps({
            "rule_id": rule.id, "rejected": rm.rejected,
            "finding": None if finding is None else {"score": finding.score, "confidence": finding.confidence},
            "clauses": [{"clause": e.clause, "state": e.state, "text": e.text} for e in clauses],
        }, indent=2) + "\n"
    out = [f"{rule.id}: {rule.title}"]
    out += [f"  {e.state:<8} {e.clause:<24} {e.text}" for e in clauses]
    if rm.rejected:
        out.append("=> not reported: a required match clause missed")
    elif finding is None:
        out.append("=> not reported: no crash evidence for it, and the environment is not a known-bad combination")
    else:
        out.append(f"=> reported with score {finding.score:.2f}, {finding.confidence} confidence")
    return "\n".join(out) + "\n"
