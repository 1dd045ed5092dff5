"""`qwen3doctor rules list | show | lint | test | new`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import EXIT_FINDING, EXIT_USAGE, InputError
from .common import RULES_OPT, err, load_setup, rules_app


@rules_app.command("list", help="Every rule: id, engines, families, status, references.")
def rules_list(
    fmt: str = typer.Option("text", "--format", "-f", help="text, json or markdown."),
    rules: Optional[List[str]] = RULES_OPT,
    write_readme: Optional[Path] = typer.Option(None, "--write-readme", help="Rewrite the covered-crashes table in this README."),
) -> None:
    from ..tools.ruletools import readme_with_table, rules_markdown, rules_table

    catalog = load_setup(rules, None)[0]
    if write_readme is not None:
        text = write_readme.read_text(encoding="utf-8")
        write_readme.write_text(readme_with_table(text, rules_markdown(catalog)), encoding="utf-8")
        err(f"{write_readme}: table of {len(catalog.rules)} rules written")
        return
    if fmt == "json":
        print(json.dumps(rules_table(catalog), indent=2))
    elif fmt == "markdown":
        print(rules_markdown(catalog), end="")
    else:
        for row in rules_table(catalog):
            print(f"{row['id']:<58} {'/'.join(row['engines']):<12} {row['status']:<12} {', '.join(row['references'][:3])}")
        print(f"{len(catalog.rules)} rules", file=sys.stderr)


@rules_app.command("show", help="A rule's card (same as explain).")
def rules_show(rule_id: str, rules: Optional[List[str]] = RULES_OPT) -> None:
    from ..knowledge.lookup import find_rules
    from ..render.card import card_text

    print(card_text(find_rules(load_setup(rules, None)[0], rule_id)[0]), end="")


def paths_catalog(paths: list[str] | None):
    """The rules the project's settings name (bundled, QWEN3DOCTOR_RULES, the settings file's `rules` folders,
    less its `disable` list), checked strictly; or, with paths, the named rules strictly and the rest leniently
    (a broken rule elsewhere becomes a warning), so one author's work in progress does not block another's.
    A rule named by path is checked even when the settings disable its id."""
    from ..knowledge.catalog import load_catalog
    from ..knowledge.discover import rule_files

    if not paths:
        return load_setup(None, None)[0], None
    catalog = load_setup(None, None, skip_bad=True)[0]
    paths = [_rule_path(catalog, p) for p in paths]
    named = load_catalog([Path(p) for p in paths], strict=True)
    catalog.warnings.clear()
    catalog.rules.update(named.rules)
    for ref, ids in named.by_reference.items():
        catalog.by_reference.setdefault(ref, [])
        catalog.by_reference[ref] = sorted(set(catalog.by_reference[ref]) | set(ids))
    catalog.by_alias.update(named.by_alias)
    only = {f.stem for p in paths for f, _ in rule_files(Path(p))}
    return catalog, only


def _rule_path(catalog, name: str) -> str:
    """A rule named by its id or an alias (`rules test gdn-cudagraph-illegal-memory-access`, as `explain` takes it)
    stands for its file; anything else is a path."""
    if Path(name).exists():
        return name
    rule_id = name if name in catalog.rules else catalog.by_alias.get(name)
    return catalog.rules[rule_id].path if rule_id in catalog.rules else name


@rules_app.command("lint", help="Validate rules: schema, regexes, ids, references, tests present. Every problem names file, line and field.")
def rules_lint(
    paths: Optional[List[str]] = typer.Argument(None, help="Rule files, folders or rule ids (default: every rule the project "
                                                "loads: bundled, QWEN3DOCTOR_RULES and the settings file's rules, less its "
                                                "disable list)."),
    verbose: bool = typer.Option(False, "--warnings", help="Also show advice that does not fail lint (prefilter anchors)."),
) -> None:
    from ..tools.ruletools import lint, lint_warnings

    catalog, only = paths_catalog(paths)
    if only is not None:
        catalog.rules = {k: v for k, v in catalog.rules.items() if k in only}
    problems = lint(catalog)
    for p in problems:
        print(p)
    if verbose:
        for w in lint_warnings(catalog):
            print(f"warning: {w}")
    if problems:
        err(f"{len(problems)} problem(s) in {len(catalog.rules)} rule(s)")
        raise typer.Exit(EXIT_USAGE)
    err(f"{len(catalog.rules)} rule(s) OK")


@rules_app.command("test", help="Run each rule's own tests: logs it must rank first, lookalikes it must not report.")
def rules_test(paths: Optional[List[str]] = typer.Argument(None, help="Rule files, folders or rule ids (default: every rule "
                                                             "the project loads, as for lint)."),
               jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Test logs diagnosed in parallel (default: "
                                                  "the CPU count).")) -> None:
    from ..judge.batch import default_jobs
    from ..tools.ruletools import ReportCache, run_tests, untested_alternatives

    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be a positive integer, not {jobs}")
    catalog, only = paths_catalog(paths)
    cache = ReportCache(catalog, stored=True)  # (a rerun over unchanged rules and code reads the reports back)
    results = run_tests(catalog, only, cache, jobs=jobs or default_jobs())
    failed = [r for r in results if not r.ok]
    for r in failed:
        print(f"FAIL {r.test.test_id}: {r.detail}")
    untested = untested_alternatives(catalog, cache, only)
    for line in untested:
        print(f"UNTESTED {line}")
    summary = f"{len(results) - len(failed)} passed, {len(failed)} failed"
    print(summary + (f"; {len(untested)} match alternative(s) untested" if untested else ""))
    if failed or untested:
        raise typer.Exit(EXIT_FINDING)


@rules_app.command("new", help="Write a skeleton rule with every field: rules new ENGINE ID.")
def rules_new(
    engine: str = typer.Argument(..., help="vllm, sglang or common."),
    rule_id: str = typer.Argument(..., help="The new rule's id (file stem)."),
    root: Path = typer.Option(Path("rules"), "--root", help="The rules folder."),
) -> None:
    from ..tools.ruletools import new_rule

    if engine not in ("vllm", "sglang", "common"):
        raise InputError(f"engine must be vllm, sglang or common, not {engine!r}")
    path = new_rule(root, engine, rule_id)
    print(path)
