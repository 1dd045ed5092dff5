"""Rule checks against the release index (used by `rules lint`): fix commands, named frames, fix releases."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import LABEL, Table, command_engine, flag_fact, missing_at, releases, table, window
from ...model import STEP_NAMES


@dataclass(frozen=True)
class Problem:
    kind: str  # fix | frame | fixed_in
    text: str  # `fixes[1].command: --gdn-prefill-backend is in vLLM 0.18.0-0.34.0, not in all of 0.16.0-0.34.0 ...`


def _span(engine: str, lo: int, hi: int) -> str:
    rel = releases(engine)
    return rel[lo] if lo == hi else f"{rel[lo]}-{rel[hi]}"


def _intersect(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    if a is None or b is None:
        return None
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo <= hi else None


def _open_ended(spec: str) -> bool:
    """Whether a range reaches past every release (no upper bound): releases newer than the index are in it."""
    if not spec:
        return True
    from packaging.specifiers import SpecifierSet

    return "999.0" in SpecifierSet(spec, prereleases=True)


def fix_problems(rule) -> list[Problem]:
    out = []
    single = rule.engines[0] if len(rule.engines) == 1 else None
    spec = str(rule.raw_when.get("engine_version") or "")
    for i, fix in enumerate(rule.fixes):
        engine = command_engine(fix.command, single)
        if engine not in LABEL or not fix.command or table(engine, "flags") is None:
            continue
        # a rule's version range is written for its own engine; a common rule's fix names its engine itself
        win = window(engine, spec if engine == single else "")
        if getattr(fix, "engine_version", ""):
            win = _intersect(win, window(engine, fix.engine_version))
        if win is None:  # the window lies wholly outside the indexed releases: nothing to judge
            continue
        beyond = _open_ended(spec if engine == single else "") and _open_ended(getattr(fix, "engine_version", ""))
        for m in missing_at(engine, fix.command, *win):
            if beyond and m.present.startswith("no release"):
                continue  # unknown to every indexed release, in a window that reaches past them: maybe a new one
            what = {"flags": "flag", "choices": "value", "env": "variable"}[m.kind]
            out.append(Problem("fix", f"fixes[{i}].command: {what} {m.name} is in {LABEL[engine]} {m.present}, not in every "
                                      f"release of the fix's window {_span(engine, *win)}: give the fix an `engine_version` "
                                      f"range (and a second fix with the other spelling)"))
        flags = table(engine, "flags")
        for flag in getattr(fix, "drop", ()):
            if flags.spans(flag_fact(engine, flag) or flag) == []:
                out.append(Problem("fix", f"fixes[{i}].drop: {flag} is not a flag of any {LABEL[engine]} release (check the spelling)"))
    return out


@lru_cache(maxsize=None)
def _functions(engine: str) -> dict[str, list[int]] | None:
    """Function name -> flat intervals over releases, merged across the modules that define it."""
    t = table(engine, "func")
    if t is None:
        return None
    per: dict[str, set[int]] = {}
    for fact, iv in t.facts.items():
        name = fact.rsplit(":", 1)[1]
        got = per.setdefault(name, set())
        for j in range(0, len(iv), 2):
            got.update(range(iv[j], iv[j + 1] + 1))
    out = {}
    for name, idx in per.items():
        flat: list[int] = []
        for k in sorted(idx):
            if flat and flat[-1] == k - 1:
                flat[-1] = k
            else:
                flat += [k, k]
        out[name] = flat
    return out


def frame_matches(engine: str, clause, i: int) -> Table | None:
    """A table (over function names) of the names a frames pattern matches, or None without the index."""
    funcs = _functions(engine)
    if funcs is None:
        return None
    from ..patterns import compile_pattern

    source = clause.sources[i]
    if re.fullmatch(r"\w+", source):  # most frames are a plain name
        return Table(engine, "func", releases(engine), {source: funcs[source]} if source in funcs else {})
    pat = compile_pattern("frames", source)
    gate = clause.gates[i] if clause.gates else None
    hits = {}
    for name, iv in funcs.items():
        if gate is not None and not any(all((lit.lower() in name.lower()) if nocase else (lit in name) for lit in lits)
                                        for lits, nocase in gate):
            continue
        if pat.fullmatch(name):
            hits[name] = iv
    return Table(engine, "func", releases(engine), hits)


def frame_problems(rule) -> tuple[list[Problem], list[Problem]]:
    """(errors, notes): a frame some release of the engine defines but none of the rule's window does is an
    error; a frame no indexed release defines (a library's own function: torch, FlashInfer, Triton) is a note."""
    errors, notes = [], []
    spec = str(rule.raw_when.get("engine_version") or "")
    engines = [e for e in rule.engines if e in LABEL and table(e, "func") is not None]
    if not engines:
        return errors, notes
    seen = set()
    for clause in [c for alt in rule.match for c in alt] + list(rule.supports):
        if clause.kind != "frames":
            continue
        for i, source in enumerate(clause.sources):
            if source in seen or source in STEP_NAMES:  # (a step, not a function)
                continue
            seen.add(source)
            anywhere, inside = [], []
            judged = False
            for engine in engines:
                hits = frame_matches(engine, clause, i)
                if hits is None or not hits.facts:
                    continue
                anywhere.append(engine)
                win = window(engine, spec if len(rule.engines) == 1 else "")
                if win is None:
                    continue  # the window lies beyond the indexed releases
                judged = True
                if any(hits.holds_anywhere(name, *win) for name in hits.facts):
                    inside.append(engine)
            if not anywhere:
                notes.append(Problem("frame", f"frames: {source!r} names no function of any indexed "
                                              f"{'/'.join(LABEL[e] for e in engines)} release (a library's own frame?)"))
            elif judged and not inside:
                e = anywhere[0]
                hits = frame_matches(e, clause, i)
                where = "; ".join(f"{n} in {', '.join(a if a == b else f'{a}-{b}' for a, b in hits.spans(n))}"
                                  for n in sorted(hits.facts)[:3])
                errors.append(Problem("frame", f"frames: {source!r} is defined in no release of the rule's window "
                                               f"({spec or 'all'}): {where}"))
    return errors, notes


def fixed_in_problems(rule) -> list[Problem]:
    version = (rule.fixed_in or {}).get("version")
    if not version or len(rule.engines) != 1 or rule.engines[0] not in LABEL:
        return []
    engine = rule.engines[0]
    rel = releases(engine)
    if not rel:
        return []
    from packaging.version import InvalidVersion, Version

    try:
        v = Version(version)
    except InvalidVersion:
        return []
    if version in rel or v > Version(rel[-1]):
        return []  # a release, or newer than the index
    return [Problem("fixed_in", f"fixed_in.version: {version} is not a published {LABEL[engine]} release "
                                f"(releases from {rel[0]} to {rel[-1]} are indexed)")]


def rule_problems(rule) -> tuple[list[Problem], list[Problem]]:
    """(errors, notes) of one rule."""
    frames, notes = frame_problems(rule)
    return fix_problems(rule) + frames + fixed_in_problems(rule), notes
