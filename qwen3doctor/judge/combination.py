"""The known-bad-combination policy, in one place: when a rule's `when` conditions alone name a crash.

Ranking uses it for a rule the log gives no crash evidence for (`basis: combination`); `check` and the risks of
a crash-free launch use it for every rule (a warning or a possible). One function decides for both, so a
launch `check` warns about is a combination candidate when the same launch is in a log, and the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .. import vocab
from ..model import Evidence, Rule
from ..versions import bounded_above

KNOWN, POSSIBLE = "known", "possible"
HIT, MISS, UNKNOWN = "hit", "miss", "unknown"
# where the launch runs: a gate holds or is contradicted, and says nothing about which crash of that engine,
# model family or platform this is (nor does tensor parallelism, `env: {parallel: TP}`: most large launches use it;
# nor the speculative method, `env: {speculative: '(?i)eagle'}`: the drafting flag is that fact, the method only
# tells which drafting, and a rule of one method is contradicted by another)
GATES = ("when.engine", "when.family", "when.platform", "when.env.parallel", "when.env.speculative")
# facts that set a launch apart from others of the same engine, family and platform
FACTS = ("when.quantization", "when.flags", "when.gpu", "when.compute_capability")


@dataclass(frozen=True)
class Combination:
    """A rule's `when` conditions judged as a known-bad combination of facts."""

    level: str  # known | possible
    holds: tuple[Evidence, ...]  # every stated condition that holds, in the rule's order
    facts: tuple[Evidence, ...]  # the discriminating facts among them
    unknown: tuple[Evidence, ...]  # the stated conditions the facts at hand do not decide
    enough: bool  # the stated family holds and the facts that hold already make the count: only the unknown
    #               conditions stand between this and `known`, and each of them can only contradict it


def discriminating(rule: Rule, clause: str) -> bool:
    """A fact that sets a launch apart: quantization, a flag, the GPU or its compute capability, an environment
    variable, or a version window with an upper bound. A workaround flag not set (`not_flags`), a version before
    the fix (`fixed_in`) and an open-ended version range (`>=0.17`) hold for nearly every launch of their
    release and later: they can contradict a combination, never make one."""
    if clause in GATES:
        return False
    if clause.startswith("when.env."):
        # (a pattern that only excludes, `^(?!.*--gdn-prefill-backend[ =]triton)`, is a workaround not set: it holds
        # for nearly every launch, as `not_flags` does)
        env = rule.raw_when.get("env")
        pattern = str(env.get(clause[len("when.env."):], "")) if isinstance(env, dict) else ""
        return not pattern.startswith("^(?!")
    if clause in FACTS:
        return True
    return clause == "when.engine_version" and bounded_above(str(rule.raw_when.get("engine_version", "")))


def may_combine(rule: Rule) -> bool:
    """Whether the rule's conditions state a discriminating fact at all: without one, `known_bad` never finds a
    combination, whatever the log says. (Of the rule alone: kept per rule, asked of most rules on every log.)"""
    known = _MAY_COMBINE.get(id(rule))
    if known is None or known[0] is not rule:
        known = _MAY_COMBINE[id(rule)] = (rule, _may_combine(rule))
    return known[1]


_MAY_COMBINE: dict[int, tuple[Rule, bool]] = {}


def _may_combine(rule: Rule) -> bool:
    for key, value in rule.raw_when.items():
        names = [f"when.env.{k}" for k in value] if key == "env" and isinstance(value, dict) else [f"when.{key}"]
        if any(discriminating(rule, name) for name in names):
            return True
    return False


def known_bad(rule: Rule, states: list[Evidence] | tuple[Evidence, ...]) -> Combination | None:
    """The policy. `states` are the rule's `when` conditions, each hit / miss / unknown (match.when_states).

    - Any condition contradicted (a miss: another engine, family or platform, a workaround flag already set, a
      version outside the window or at / past the fix) -> None.
    - Engine, model family and platform are gates, not evidence: they must hold (or, for `possible`, be
      unknown) and never count towards the combination. A family-agnostic rule (an FP8 checkpoint on a pre-Ada
      GPU) is judged on its facts like any other.
    - The count: a rule that states a model family needs one discriminating fact beyond it; a rule that
      states none (or only `other`, every model that is not Qwen3) needs two (see `discriminating`).
    - `known`: every stated condition holds (none unknown) and the count is met.
    - `possible`: some stated condition is unknown, at least one discriminating fact holds, and the facts that
      hold plus the unknown ones could meet the count. A family that holds while every discriminating fact is
      unknown is no combination yet (gates are not evidence), nor is an engine alone.
    - `enough` (on either level): the stated gates hold and the discriminating facts that hold already meet
      the count; what is unknown can only contradict it (a workaround flag, an open version range, a further
      fact).

    Callers: `check` warns on `known` and lists `possible` with the fact that decides it (preflight.rule_alert);
    ranking lists a rule without crash evidence as a low-confidence combination candidate on `enough`
    (rank.score), so every `check` warning is a candidate when the same launch is in a log, and every candidate
    is at least a `check` possible. (Ranking on `known` alone loses top-1 cases of the corpus whose pasted log
    holds no engine version: vllm-35924, vllm-36249.)
    """
    if any(s.state == MISS for s in states):
        return None
    by = {s.clause: s for s in states}
    family = by.get("when.family")
    # (a rule of `other` models names no family in this sense: every model that is not Qwen3 is one)
    need = 1 if family is not None and tuple(rule.families) != (vocab.OTHER,) else 2
    facts = tuple(s for s in states if s.state == HIT and discriminating(rule, s.clause))
    open_facts = [s for s in states if s.state == UNKNOWN and discriminating(rule, s.clause)]
    holds = tuple(s for s in states if s.state == HIT)
    unknown = tuple(s for s in states if s.state == UNKNOWN)
    gates_hold = all(by[g].state == HIT for g in GATES if g in by)
    if not unknown and len(facts) >= need:
        return Combination(KNOWN, holds, facts, (), True)
    if unknown and facts and len(facts) + len(open_facts) >= need:
        # (a version window that holds no published release, a bug of main or nightly builds between two releases, is
        # not what an unknown version can only contradict: the version a log does not show is almost surely outside it)
        unreleased = "when.engine_version" in by and by["when.engine_version"].state == UNKNOWN and unreleased_window(rule)
        return Combination(POSSIBLE, holds, facts, unknown, gates_hold and len(facts) >= need and not unreleased)
    return None


def unreleased_window(rule: Rule) -> bool:
    """The rule's `engine_version` range holds no published release of its engines, by the release index (a
    regression on the main branch, fixed before the next release); False when the index does not know the engine."""
    spec = rule.raw_when.get("engine_version")
    return bool(spec) and _unreleased(tuple(rule.engines), str(spec))


@lru_cache(maxsize=None)
def _unreleased(engines: tuple[str, ...], spec: str) -> bool:
    from ..knowledge import releases

    known = [e for e in engines if releases.releases(e)]
    return bool(known) and all(releases.window(e, spec) is None for e in known)
