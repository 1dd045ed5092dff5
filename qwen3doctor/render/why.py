"""`diagnose --why RULE`: every clause of one rule, hit / miss / unknown, and what the ranking made of it."""

from __future__ import annotations

import json

from ..model import Finding, Rule, RuleMatch


def render_why(rule: Rule, rm: RuleMatch, finding: Finding | None, shown: Finding | None, fmt: str) -> str:
    """`shown`: the diagnosis's own finding for the rule, when it has one (the release index may make it where the
    clauses make none, or the ranking may have cut the rule below its candidates)."""
    clauses = rm.match + rm.supports + rm.when
    other = shown is not None and (finding is None or rm.rejected)
    if fmt == "json":
        return json.dumps({
            "rule_id": rule.id, "rejected": rm.rejected,
            "finding": None if finding is None else {"score": finding.score, "confidence": finding.confidence},
            "in_diagnosis": shown is not None,
            "made_by": ("release index" if other else "clauses") if shown is not None else None,
            "clauses": [{"clause": e.clause, "state": e.state, "text": e.text} for e in clauses],
        }, indent=2) + "\n"
    out = [f"{rule.id}: {rule.title}"]
    out += [f"  {e.state:<8} {e.clause:<24} {e.text}" for e in clauses]
    if other:
        out += [f"  {e.state:<8} {e.clause:<24} {e.text}" for e in shown.evidence]
        out.append(f"=> reported with score {shown.score:.2f}, {shown.confidence} confidence, by the release index, "
                   "not by the rule's clauses (" + "; ".join(shown.notes[:1]) + ")" if shown.notes else
                   f"=> reported with score {shown.score:.2f}, {shown.confidence} confidence, by the release index")
    elif rm.rejected:
        out.append("=> not reported: a required match clause missed")
    elif finding is None:
        out.append("=> not reported: no crash evidence for it, and the environment is not a known-bad combination")
    else:
        out.append(f"=> reported with score {finding.score:.2f}, {finding.confidence} confidence")
    return "\n".join(out) + "\n"
