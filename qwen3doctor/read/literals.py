"""The plain strings a regular expression cannot match without, read from its source: what lets a pattern be skipped
on text that lacks them (a rule's clauses, the prefilter's anchors, the reader's own costlier patterns)."""

from __future__ import annotations

import re

MIN_ANCHOR = 3  # characters a literal needs to count as one


def backticks_optional(source: str) -> str:
    """The pattern with each literal backtick optional. Engines quote names in backticks (`inf`, `spawn`,
    `model_type`); a log copied from a rendered issue page, where Markdown turned them into code spans, has lost
    them, and the pattern must match both."""
    if "`" not in source:
        return source
    out, escaped, in_class = [], False, False
    for ch in source:
        if escaped:
            out.append(ch)
            escaped = False
            continue
        if ch == "\\":
            escaped = True
        elif ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        out.append(ch)
        if ch == "`" and not in_class:
            out.append("?")
    # (a backtick a rule already made optional stays `?, not `??)
    return "".join(out).replace("`??", "`?")


_ESCAPED_LITERAL = set(".^$*+?{}[]|()\\/-'\" :,=<>#@!%&~`;")


def _longest_first(literal: str) -> tuple[int, str]:
    """The order a branch's required literals are tried in: the longest first, ties by text, so every process picks
    the same anchor (a set's order changes with the hash seed, and the catalog cache keeps a compile's choice)."""
    return -len(literal), literal


def gate_of(source: str) -> tuple[tuple[tuple[str, ...], bool], ...] | None:
    """For each top-level branch of `source`: the literals (MIN_ANCHOR+ characters) that must all occur for
    that branch to match, and whether they compare case-insensitively. None when some branch has none.

    A branch with no literal outside its group of alternatives (`\\b(?:cudaErrorX|CUDA_ERROR_X)\\b`) counts as one
    branch per alternative, and flags that do not change what a literal matches (`(?s)`, `(?m)`, a scoped
    `(?i:...)` group, which is simply not required) are no reason to give up: such patterns are prefiltered
    too instead of running on every line."""
    source = backticks_optional(source)
    whole_caseless, s = _leading_flags(source, False)
    out = []
    for top in _split_top(s):
        caseless, top = _leading_flags(top, whole_caseless)
        if _GLOBAL_FLAG.search(top):
            return None  # a flag part way: no proof of case
        # (a branch with a literal of its own keeps it as its one anchor; only one without is written out)
        for branch in [top] if _runs(top) else _expanded(top):
            runs = _runs(branch)
            if not runs:
                return None
            out.append((tuple(sorted({r.lower() if caseless else r for r in runs}, key=_longest_first)), caseless))
    return tuple(out)


def _runs(branch: str) -> list[str]:
    return [r for r in _required_literals(branch) if len(r) >= MIN_ANCHOR]


_FLAGS = re.compile(r"\(\?([ims]+)\)")
_GLOBAL_FLAG = re.compile(r"\(\?[aiLmsux-]+\)")
MAX_EXPANSION = 32


def _leading_flags(s: str, caseless: bool) -> tuple[bool, str]:
    """Peel flags at the start of a pattern or branch: (?i) makes it caseless; (?s) and (?m) only change `.`, `^`, `$`."""
    m = _FLAGS.match(s)
    if not m:
        return caseless, s
    return caseless or "i" in m.group(1), s[m.end():]


def _expanded(branch: str) -> list[str]:
    """The branch with its first required group of alternatives (`(?:a|b)` or `(a|b)`, not optional, repeated
    or a look-around) written out as one branch per alternative, recursively; the branch itself when there is
    none or the alternatives would pass MAX_EXPANSION."""
    skip = 0
    for i, ch in _structural(branch):
        if i < skip or ch != "(":
            continue
        end = skip = _group_end(branch, i)
        body_at = i + 3 if branch.startswith("(?:", i) else i + 1
        quantified = end < len(branch) and branch[end] in "*+?{"
        if branch.startswith("(?", i) and body_at == i + 1 or quantified or end > len(branch):
            continue
        alternatives = _split_top(branch[body_at:end - 1])
        if len(alternatives) < 2:
            continue
        out: list[str] = []
        for alt in alternatives:
            out.extend(_expanded(branch[:i] + alt + branch[end:]))
            if len(out) > MAX_EXPANSION:
                return [branch]
        return out
    return [branch]


def _group_end(s: str, i: int) -> int:
    """The index just past the group that opens at s[i] (past the end of s when it never closes)."""
    depth = 0
    for j, ch in _structural(s, i):
        if ch in "()":
            depth += 1 if ch == "(" else -1
            if not depth:
                return j + 1
    return len(s) + 1


def _structural(s: str, start: int = 0):
    """(index, character) of each character of a pattern's source from `start` that is neither escaped nor inside
    a character class: where groups open and close, where a top-level `|` splits it."""
    i, in_class = start, False
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        else:
            yield i, ch
        i += 1


def gate_open(gate, text: str, lower: str) -> bool:
    """False only when the text cannot match: no branch has all its literals present."""
    if gate is None:
        return True
    return any(all(lit in (lower if caseless else text) for lit in lits) for lits, caseless in gate)


def _split_top(s: str) -> list[str]:
    """The top-level branches of a pattern's source."""
    parts, depth, start = [], 0, 0
    for i, ch in _structural(s):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    parts.append(s[start:])
    return parts


def _required_literals(s: str) -> list[str]:
    """Walk one branch: runs of literal characters, broken by anything optional or variable."""
    runs: list[str] = []
    cur: list[str] = []
    i = 0

    def end_run() -> None:
        if cur:
            runs.append("".join(cur))
            cur.clear()

    while i < len(s):
        ch = s[i]
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if ch == "\\":
            esc = s[i + 1] if i + 1 < len(s) else ""
            i += 2
            if esc in _ESCAPED_LITERAL:
                lit = esc
            else:
                end_run()
                if i < len(s) and s[i] in "*+?{":
                    i = _skip_quantifier(s, i)
                continue
            nxt = s[i] if i < len(s) else ""
            if nxt and (nxt in "?*" or nxt == "{"):
                end_run()
                i = _skip_quantifier(s, i)
                continue
            cur.append(lit)
            if nxt == "+":
                end_run()
                i += 1
            continue
        if ch == "[":
            end_run()
            j = i + 1
            if j < len(s) and s[j] == "^":
                j += 1
            if j < len(s) and s[j] == "]":
                j += 1
            while j < len(s) and s[j] != "]":
                j += 2 if s[j] == "\\" else 1
            i = j + 1
            if i < len(s) and s[i] in "*+?{":
                i = _skip_quantifier(s, i)
            continue
        if ch == "(":
            end_run()
            i = min(_group_end(s, i), len(s))  # (a parenthesis inside a character class, `[^)]`, closes nothing)
            if i < len(s) and s[i] in "*+?{":
                i = _skip_quantifier(s, i)
            continue
        if ch in ".^$":
            end_run()
            i += 1
            if i < len(s) and s[i] in "*+?{":
                i = _skip_quantifier(s, i)
            continue
        if ch in "*+?{)|":
            end_run()
            i = _skip_quantifier(s, i) if ch in "*+?{" else i + 1
            continue
        # a plain character
        if nxt and (nxt in "?*" or (nxt == "{" and re.match(r"\{0", s[i + 1:]))):
            end_run()
            i = _skip_quantifier(s, i + 1)
            continue
        cur.append(ch)
        i += 1
        if nxt == "{":
            least = re.match(r"\{(\d+)", s[i:])  # `!{24,}`: at least 24 in a row, of which a run holds 16
            cur.append(ch * (min(int(least.group(1)), 16) - 1 if least else 0))
        if nxt == "+" or nxt == "{":
            end_run()
            i = _skip_quantifier(s, i)
    end_run()
    return runs


def _skip_quantifier(s: str, i: int) -> int:
    if i < len(s) and s[i] == "{":
        j = s.find("}", i)
        i = j + 1 if j != -1 else i + 1
    elif i < len(s) and s[i] in "*+?":
        i += 1
    if i < len(s) and s[i] in "?+":
        i += 1
    return i


class Gated:
    """A compiled pattern that runs only on text holding the literals one of its branches needs (gate_of): most lines
    lack them, and a few substring tests cost less than the regex. The same answers as the pattern's own `search`."""

    __slots__ = ("pattern", "gate", "caseless")

    def __init__(self, pattern: re.Pattern):
        self.pattern = pattern
        self.gate = gate_of(("(?i)" if pattern.flags & re.I else "") + pattern.pattern)
        self.caseless = self.gate is not None and any(caseless for _, caseless in self.gate)

    def search(self, text: str):
        if self.gate is not None and not gate_open(self.gate, text, text.lower() if self.caseless else text):
            return None
        return self.pattern.search(text)
