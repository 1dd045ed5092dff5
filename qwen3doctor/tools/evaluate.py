"""`qwen3doctor eval DIR`: accuracy on a folder of labelled cases (`<case>/log.txt` + `<case>/case.yaml`).

Only log.txt is diagnosed; case.yaml is the label. A case is right at rank k when one of the first k
findings cites an issue of the case's root cause: its canonical_issue, or that of any case sharing its
root_cause_key. A case is "covered" when some rule of the catalog cites one of those issues: the figures are
given for covered and uncovered cases apart, and each miss says why it missed (no crash found, an unexplained
crash, or another rule first). A false claim is a `*-neg-*` case whose top finding is high-confidence and either names a
Qwen3 family while the case's model is not Qwen3, or exists at all when the case is not a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..knowledge.catalog import Catalog
from ..judge.pipeline import diagnose_source, diagnose_text
from ..errors import InputError
from ..read.reader import open_source
from ..vocab import canonical_reference

# short repository names used in labels -> owner/repo
canonical_ref = canonical_reference


@dataclass
class CaseResult:
    """How the diagnosis of one labelled case compares with its label."""

    case: str
    key: str
    positive: bool
    rank: int | None  # 1-based rank of the first right finding
    top: str | None
    top_confidence: str | None
    top_refs: list[str]
    false_claim: bool
    expected: list[str]
    error: str | None = None
    covered: bool = False  # some rule of the catalog cites an expected issue
    miss: str | None = None  # why a positive case is not right at rank 1 (MISS_KINDS)


# why a positive case missed rank 1
NO_CRASH, UNEXPLAINED, OTHER_FIRST, UNREADABLE = "no crash found", "unexplained crash", "another rule first", "unreadable"


def miss_kind(rank: int | None, verdict: str, has_findings: bool) -> str | None:
    """Why a positive case is not right at rank 1, from the report's verdict and findings."""
    if rank == 1:
        return None
    if has_findings:
        return OTHER_FIRST
    return UNEXPLAINED if verdict == "unexplained-crash" else NO_CRASH


@dataclass
class EvalResult:
    """The results of every case of an evaluation, with the accuracy figures."""

    results: list[CaseResult] = field(default_factory=list)

    @property
    def positives(self) -> list[CaseResult]:
        return [r for r in self.results if r.positive]

    def at(self, k: int, cases: list[CaseResult] | None = None) -> int:
        cases = self.positives if cases is None else cases
        return sum(1 for r in cases if r.rank is not None and r.rank <= k)

    @property
    def false_claims(self) -> list[CaseResult]:
        return [r for r in self.results if r.false_claim]

    def figures(self) -> dict:
        n = len(self.positives)
        return {
            "cases": len(self.results),
            "positive_cases": n,
            "negative_cases": len(self.results) - n,
            "top1": self.at(1),
            "top3": self.at(3),
            "top1_rate": round(self.at(1) / n, 4) if n else None,
            "top3_rate": round(self.at(3) / n, 4) if n else None,
            "false_claims": len(self.false_claims),
            "covered": self._part([r for r in self.positives if r.covered]),
            "uncovered": self._part([r for r in self.positives if not r.covered]),
            "misses": {kind: sum(1 for r in self.positives if r.miss == kind)
                       for kind in (NO_CRASH, UNEXPLAINED, OTHER_FIRST, UNREADABLE)},
        }

    def _part(self, cases: list[CaseResult]) -> dict:
        return {"cases": len(cases), "top1": self.at(1, cases), "top3": self.at(3, cases)}


def load_cases(root: Path) -> list[tuple[Path, dict]]:
    cases = []
    for case_file in sorted(root.glob("*/case.yaml")):
        try:
            label = yaml.safe_load(case_file.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{case_file}: cannot read the label ({exc.__class__.__name__})") from None
        if not isinstance(label, dict):
            raise InputError(f"{case_file}: the label must be a mapping")
        cases.append((case_file.parent, label))
    if not cases:
        raise InputError(f"{root}: no labelled cases (*/case.yaml) found")
    return cases


def is_negative(case_dir: Path, label: dict) -> bool:
    return "-neg-" in case_dir.name or str(label.get("root_cause_key", "")).startswith("not-a-crash")


def run_eval(root: Path, catalog: Catalog, transform=None) -> EvalResult:
    """Every case diagnosed; with `transform` (text -> text, see tools/perturb), its log as that paste would read."""
    cases = load_cases(root)
    issues_by_key: dict[str, set[str]] = {}
    for _, label in cases:
        key = str(label.get("root_cause_key") or "")
        if label.get("canonical_issue"):
            issues_by_key.setdefault(key, set()).add(canonical_ref(str(label["canonical_issue"])))
    cited = {canonical_ref(ref) for rule in catalog.rules.values() for ref in rule.references}
    out = EvalResult()
    for case_dir, label in cases:
        key = str(label.get("root_cause_key") or "")
        expected = sorted(issues_by_key.get(key, set()))
        negative = is_negative(case_dir, label)
        not_a_crash = key.startswith("not-a-crash")
        covered = bool(cited & set(expected))
        log = case_dir / "log.txt"
        try:
            if transform is None:
                src = open_source(str(log), force=True)
                try:
                    report = diagnose_source(src, catalog)
                finally:
                    src.close()
            else:
                try:
                    text = log.read_text(encoding="utf-8", errors="replace")
                except OSError as exc:
                    raise InputError(f"{log}: cannot read ({exc.__class__.__name__})") from None
                report = diagnose_text(transform(text), catalog, source=str(log))
        except InputError as exc:
            out.results.append(CaseResult(case_dir.name, key, not negative, None, None, None, [], False, expected, str(exc),
                                          covered, None if negative else UNREADABLE))
            continue
        answers = ranked_answers(report)
        rank = None
        for i, f in enumerate(answers, 1):
            if {canonical_ref(r) for r in f.references} & set(expected):
                rank = i
                break
        top = answers[0] if answers else None
        false_claim = False
        if negative and top is not None and top.confidence == "high":
            case_family = str(label.get("family") or "")
            if not_a_crash or (top.families and not case_family.startswith("qwen3")):
                false_claim = True
        out.results.append(
            CaseResult(
                case_dir.name, key, not negative, rank, top.rule_id if top else None, top.confidence if top else None,
                list(top.references) if top else [], false_claim, expected, None, covered,
                None if negative else miss_kind(rank, report.verdict.value, bool(answers)),
            )
        )
    return out


def ranked_answers(report) -> tuple:
    """What a case is scored on: the findings, then the risks of a log with no crash sign."""
    return tuple(report.findings) + tuple(getattr(report, "risks", ()))


def render_text(result: EvalResult) -> str:
    fig = result.figures()
    lines = []
    misses = [r for r in result.positives if r.rank != 1]
    if misses:
        lines.append("Positive cases not ranked first:")
        for r in misses:
            where = f"rank {r.rank}" if r.rank else "not found"
            lines.append(f"  {r.case:<36} {where:<10} {r.miss or '-':<18} {'covered' if r.covered else 'uncovered':<9} "
                         f"top: {r.top or '-'} ({r.top_confidence or '-'})  expected {', '.join(r.expected)}")
        lines.append("")
    if result.false_claims:
        lines.append("False claims on negative cases:")
        for r in result.false_claims:
            lines.append(f"  {r.case:<36} top: {r.top} ({r.top_confidence})")
        lines.append("")
    n = fig["positive_cases"]
    pct = lambda k: f"{100 * k / n:.1f}%" if n else "n/a"  # noqa: E731
    lines.append(f"cases: {fig['cases']} ({n} positive, {fig['negative_cases']} negative)")
    lines.append(f"top-1: {fig['top1']}/{n} ({pct(fig['top1'])})")
    lines.append(f"top-3: {fig['top3']}/{n} ({pct(fig['top3'])})")
    lines.append(f"false claims: {fig['false_claims']}")
    for part, what in (("covered", "a bundled rule cites the cause"), ("uncovered", "no bundled rule cites it")):
        p = fig[part]
        share = lambda k: f"{100 * k / p['cases']:.1f}%" if p["cases"] else "n/a"  # noqa: E731
        lines.append(f"{part} ({what}): {p['cases']} cases, top-1 {p['top1']} ({share(p['top1'])}), "
                     f"top-3 {p['top3']} ({share(p['top3'])})")
    m = fig["misses"]
    lines.append("misses at rank 1: " + ", ".join(f"{n} {kind}" for kind, n in m.items() if n or kind != UNREADABLE))
    return "\n".join(lines) + "\n"


def run_perturbed(root: Path, catalog: Catalog, names: list[str] | None = None) -> list[tuple[str, str, EvalResult, list[str]]]:
    """(name, what the user did, result, positive cases right in the top 3 as collected but not after) for the log
    as collected and each transformation of tools/perturb."""
    from .perturb import TRANSFORMS

    unknown = [n for n in names or () if n not in TRANSFORMS]
    if unknown:
        raise InputError(f"unknown transformation {unknown[0]!r} (known: {', '.join(TRANSFORMS)})")
    base = run_eval(root, catalog)
    right = {r.case for r in base.results if r.positive and r.rank is not None and r.rank <= 3}
    out = [("as-collected", "the log as collected", base, [])]
    for name in names or TRANSFORMS:
        what, fn = TRANSFORMS[name]
        result = run_eval(root, catalog, fn)
        lost = sorted(right - {r.case for r in result.results if r.positive and r.rank is not None and r.rank <= 3})
        out.append((name, what, result, lost))
    return out


def render_perturbed(rows) -> str:
    lines = [f"{'paste':<16} {'top-1':>9} {'top-3':>9} {'false':>5}  lost vs as collected (top-3)"]
    for name, what, result, lost in rows:
        f = result.figures()
        shown = ", ".join(lost[:6]) + (f" (+{len(lost) - 6})" if len(lost) > 6 else "")
        lines.append(f"{name:<16} {f['top1']:>4}/{f['positive_cases']:<4} {f['top3']:>4}/{f['positive_cases']:<4} "
                     f"{f['false_claims']:>5}  {len(lost)}{': ' + shown if lost else ''}")
    lines.append("")
    lines += [f"  {name}: {what}" for name, what, _, _ in rows[1:]]
    return "\n".join(lines) + "\n"
