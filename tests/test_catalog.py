"""Rule validation: every problem names file, line and field; messages are tested word for word."""

import pytest

from qwen3doctor.knowledge.catalog import load_catalog
from qwen3doctor.errors import RuleError

GOOD = """\
title: A test rule
status: likely
references: [vllm#1]
match:
  message: ['size_n = \\d+ is not divisible']
cause: Something specific.
fixes:
  - title: Do the thing
    command: vllm serve {model} {serve_args}
    cost: none
tests:
  match: [{text: "RuntimeError: size_n = 5472 is not divisible by tile_n_size = 64"}]
  no_match: [{text: "RuntimeError: CUDA error: an illegal memory access was encountered"}]
"""


def load_one(tmp_path, text, name="x.yaml", engine="vllm"):
    d = tmp_path / "rules" / engine
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)
    return load_catalog([tmp_path / "rules"])


def problems(tmp_path, text, **kw):
    with pytest.raises(RuleError) as exc:
        load_one(tmp_path, text, **kw)
    return [p.split("rules/vllm/", 1)[-1] for p in exc.value.problems]


def test_a_good_rule_loads_and_compiles(tmp_path):
    cat = load_one(tmp_path, GOOD)
    rule = cat.rules["x"]
    assert rule.engines == ("vllm",) and rule.match[0][0].kind == "message"
    assert cat.by_reference["vllm#1"] == ["x"]


def test_unknown_field_with_did_you_mean(tmp_path):
    text = GOOD.replace("match:\n  message:", "match:\n  frames: [foo]\n  mesage:")
    assert problems(tmp_path, text) == ['x.yaml:6: match.mesage: unknown field "mesage" (did you mean "message"?)']


def test_top_level_typo_and_missing_field_are_both_reported(tmp_path):
    text = GOOD.replace("title: A test rule\n", "titel: A test rule\n")
    assert problems(tmp_path, text) == [
        'x.yaml:1: titel: unknown field "titel" (did you mean "title"?)',
        "x.yaml:1: title: missing required field",
    ]


def test_invalid_regex_names_line_and_item(tmp_path):
    text = GOOD.replace("match:\n  message: ['size_n = \\d+ is not divisible']", "match:\n  frames: [ok_name, 'bad(']")
    (p,) = problems(tmp_path, text)
    assert p.startswith("x.yaml:5: match.frames[1]: invalid regex 'bad(':")


def test_bad_status_family_reference_and_version(tmp_path):
    text = GOOD.replace("status: likely", "status: maybe").replace("references: [vllm#1]", "references: [vllm-1]")
    text = text.replace("cause:", "families: [qwen35]\nwhen:\n  engine_version: '>=abc'\ncause:")
    got = problems(tmp_path, text)
    assert got == [
        "x.yaml:2: status: must be one of confirmed, likely, unconfirmed, not 'maybe'",
        "x.yaml:3: references[0]: 'vllm-1' is not vllm#N, sglang#N or owner/repo#N",
        'x.yaml:6: families[0]: unknown family \'qwen35\' (did you mean "qwen3.5"?)',
        "x.yaml:8: when.engine_version: not a PEP 440 version range: '>=abc'",
    ]


def test_invalid_yaml_names_the_line(tmp_path):
    (p,) = problems(tmp_path, GOOD.replace("cause: Something specific.", 'cause: "unclosed\n'))
    assert p.startswith("x.yaml:") and "invalid YAML" in p


def test_yaml_aliases_are_refused(tmp_path):
    bomb = "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n"
    assert problems(tmp_path, bomb) == ["x.yaml:1: anchors and aliases are not allowed in rule files"]


def test_oversized_rule_file_is_refused(tmp_path):
    (p,) = problems(tmp_path, GOOD + "notes: |\n" + ("  filler text\n" * 30000))
    assert "over the 262144 byte limit" in p


def test_all_problems_of_all_files_are_collected(tmp_path):
    d = tmp_path / "rules" / "vllm"
    d.mkdir(parents=True)
    (d / "a.yaml").write_text(GOOD.replace("status: likely", "status: nope"))
    (d / "b.yaml").write_text(GOOD.replace("title: A test rule", "title: ''"))
    with pytest.raises(RuleError) as exc:
        load_catalog([tmp_path / "rules"])
    assert len(exc.value.problems) == 2


def test_a_user_rule_with_a_bundled_id_replaces_it(tmp_path):
    (tmp_path / "one" / "vllm").mkdir(parents=True)
    (tmp_path / "two" / "vllm").mkdir(parents=True)
    (tmp_path / "one" / "vllm" / "x.yaml").write_text(GOOD)
    (tmp_path / "two" / "vllm" / "x.yaml").write_text(GOOD.replace("A test rule", "Replaced"))
    cat = load_catalog([tmp_path / "one", tmp_path / "two"])
    assert cat.rules["x"].title == "Replaced"


def test_disable_and_aliases(tmp_path):
    cat = load_one(tmp_path, GOOD.replace("status: likely", "status: likely\naliases: [old-x]"))
    assert cat.lookup("old-x").id == "x"
    assert "x" not in load_catalog([tmp_path / "rules"], disable=["x"]).rules


def test_generic_messages_are_marked(tmp_path):
    text = GOOD.replace("['size_n = \\d+ is not divisible']", "['illegal memory access']")
    assert load_one(tmp_path, text).rules["x"].match[0][0].generic
    assert not load_one(tmp_path, GOOD, name="y.yaml").rules["y"].match[0][0].generic


def test_an_edited_rule_is_never_served_from_the_cache(tmp_path, monkeypatch):
    import os
    import time

    from qwen3doctor.knowledge import rulecache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("QWEN3DOCTOR_NO_CACHE", raising=False)
    monkeypatch.setattr(rulecache, "RACY_NS", 0)  # trust even a file written just now to its timestamps
    assert load_one(tmp_path, GOOD).rules["x"].title == "A test rule"
    path = tmp_path / "rules" / "vllm" / "x.yaml"
    old = time.time() - 600
    os.utime(path, (old, old))
    assert load_catalog([tmp_path / "rules"]).rules["x"].title == "A test rule"
    assert list((tmp_path / "cache" / "qwen3doctor").glob("key-*"))
    # the same size and the same mtime: only the content (and so the ctime) differ
    path.write_text(GOOD.replace("A test rule", "A best rule"))
    os.utime(path, (old, old))
    assert load_catalog([tmp_path / "rules"]).rules["x"].title == "A best rule"



def test_one_compiled_catalog_serves_every_working_folder(tmp_path, monkeypatch):
    """The compiled rules are cached by the rules, not by the folder a command runs in (a CI job or a test that runs
    from a new folder each time compiled every rule again, seconds each); a rule file under the working folder is
    still named relative to it, in the rule and in a problem, and by its absolute path from elsewhere."""
    import os

    from qwen3doctor.knowledge import rulecache

    cache = tmp_path / "cache" / "qwen3doctor"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("QWEN3DOCTOR_NO_CACHE", raising=False)
    monkeypatch.setattr(rulecache, "RACY_NS", 0)
    (tmp_path / "rules" / "vllm").mkdir(parents=True)
    (tmp_path / "rules" / "vllm" / "x.yaml").write_text(GOOD)
    (tmp_path / "rules" / "vllm" / "bad.yaml").write_text(GOOD.replace("status: likely", "status: maybe"))
    rules = (tmp_path / "rules").resolve()
    shown = {}
    for here in (tmp_path, tmp_path / "rules", tmp_path / "elsewhere"):
        here.mkdir(exist_ok=True)
        monkeypatch.chdir(here)
        catalog = load_catalog([rules], strict=False)
        shown[here.name] = (catalog.rules["x"].path, [w.split(":", 1)[0] for w in catalog.warnings])
    assert len(list(cache.glob("catalog-*.pickle"))) == 1
    assert shown[tmp_path.name] == (os.path.join("rules", "vllm", "x.yaml"), [os.path.join("rules", "vllm", "bad.yaml")])
    assert shown["rules"] == (os.path.join("vllm", "x.yaml"), [os.path.join("vllm", "bad.yaml")])
    assert shown["elsewhere"] == (str(rules / "vllm" / "x.yaml"), [str(rules / "vllm" / "bad.yaml")])

def test_lint_flags_a_plain_value_cut_by_a_yaml_comment(tmp_path):
    """`title: ... (PR #36329)` unquoted loads as "... (PR": lint names file, line and field, word for word; a
    comment on its own line or two spaces after a value, a quoted value and a `#` without a space before it are
    fine."""
    from qwen3doctor.tools.ruletools import lint

    text = GOOD.replace("  - title: Do the thing\n", "  # a comment on its own line is fine\n"
                        "  - title: Use a build that keeps it replicated (PR #36329)\n")
    text = text.replace("    cost: none\n", "    cost: 'an upgrade (PR #36329)'\n  - title: Pin it\n"
                        "    command: pip install vllm==0.17.1#egg  # an intended comment\n    cost:\n      a rebuild, then\n      more (PR #1)\n")
    cat = load_one(tmp_path, text)
    assert cat.rules["x"].fixes[0].title == "Use a build that keeps it replicated (PR"  # what YAML makes of it
    assert [p.split("rules/vllm/", 1)[-1] for p in lint(cat)] == [
        'x.yaml:9: fixes[0].title: a plain value ends where " #" starts a YAML comment, and the rest of the line is '
        'lost: quote the value (a comment meant as one takes two spaces before "#")',
        'x.yaml:16: fixes[1].cost: a plain value ends where " #" starts a YAML comment, and the rest of the line is '
        'lost: quote the value (a comment meant as one takes two spaces before "#")',
    ]


def test_lint_flags_a_word_broken_at_a_hyphen_in_a_folded_block(tmp_path):
    """`cause: >` with "Qwen3.5-" ending one line and "397B" starting the next reads "Qwen3.5- 397B" (a rule id
    split the same way no longer names the rule): lint names file, line and field. A dash ending a line (" -"), a
    literal (`|`) block, a hyphen before a blank line (a paragraph break) and a whole word on one line are fine."""
    from qwen3doctor.tools.ruletools import lint

    text = GOOD.replace("cause: Something specific.\n", "cause: >\n  Seen on Qwen3.5-\n  397B at TP 8 - and on the\n"
                        "  smaller ones -\n  too.\n\n  A pre-\n\n  paragraph.\nnotes: |\n  a literal-\n  block\n")
    cat = load_one(tmp_path, text)
    assert cat.rules["x"].cause.startswith("Seen on Qwen3.5- 397B")  # what YAML makes of it
    assert [p.split("rules/vllm/", 1)[-1] for p in lint(cat)] == [
        'x.yaml:7: cause: a word broken at a hyphen across two lines of a folded (`>`) block: YAML joins the lines '
        'with a space ("Qwen3.5-" over "397B" reads "Qwen3.5- 397B"): keep the hyphenated word on one line',
    ]


def test_a_fix_drop_takes_flags_out_of_the_users_arguments(tmp_path):
    from qwen3doctor.judge.pipeline import diagnose_text

    text = GOOD.replace("    cost: none\n", "    drop: [--kv-transfer-config, --enforce-eager]\n    cost: none\n", 1)
    cat = load_one(tmp_path, text)
    log = ("$ vllm serve Qwen/Qwen3-8B --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\"}' --max-model-len 8192\n"
           "RuntimeError: size_n = 5472 is not divisible by tile_n_size = 64\n")
    [fix] = diagnose_text(log, cat).findings[0].fixes
    assert fix.command == "vllm serve Qwen/Qwen3-8B --max-model-len 8192"


def test_a_bad_drop_names_its_line(tmp_path):
    text = GOOD.replace("    cost: none\n", "    drop: kv-transfer-config\n    cost: none\n", 1)
    assert problems(tmp_path, text) == ["x.yaml:10: fixes[0].drop: must be a non-empty list of flags (`--kv-transfer-config`)"]
    text = GOOD.replace("command: vllm serve {model} {serve_args}", "command: pip install -U vllm").replace(
        "    cost: none\n", "    drop: [--enforce-eager]\n    cost: none\n", 1)
    assert problems(tmp_path, text) == ["x.yaml:10: fixes[0].drop: takes flags out of {serve_args}: the command must use it"]


def test_libraries_name_a_known_kernel_library_and_rule_the_cause_out_on_a_platform_without_it(tmp_path):
    text = GOOD.replace("match:", "libraries: [marlin, flash-infer]\nmatch:", 1)
    assert problems(tmp_path / "bad", text) == [
        'x.yaml:4: libraries[1]: unknown library \'flash-infer\' (did you mean "flashinfer"?)']
    from qwen3doctor.judge.pipeline import diagnose_text

    cat = load_one(tmp_path / "good", GOOD.replace("match:", "libraries: [marlin]\nmatch:", 1), name="y.yaml")
    assert cat.rules["y"].libraries == ("marlin",)
    crash = "RuntimeError: size_n = 5472 is not divisible by tile_n_size = 64\n"
    assert [f.rule_id for f in diagnose_text(crash, cat).findings] == ["y"]
    on_npu = "INFO 05-05 10:00:01 [__init__.py:217] Platform plugin ascend is activated\n" + crash
    assert diagnose_text(on_npu, cat).findings == ()
    # a rule without the field stays: its id (naming the library) says nothing any more
    cat = load_one(tmp_path / "plain", GOOD, name="marlin-z.yaml")
    assert [f.rule_id for f in diagnose_text(on_npu, cat).findings] == ["marlin-z"]


def test_a_kind_given_as_a_list_of_lists_is_several_clauses_that_must_all_hit(tmp_path):
    # xgrammar's after-termination warning is printed by healthy n-gram servers too (vllm#22098): with a failed
    # request beside it, it is the desync; alone, nothing
    both = GOOD.replace("match:\n  message: ['size_n = \\d+ is not divisible']", (
        "match:\n  log:\n    - ['The matcher has terminated after accepting the stop token']\n"
        "    - ['\" 500 Internal Server Error', 'failed with an internal error during generation']"))
    cat = load_one(tmp_path / "good", both)
    (alternative,) = cat.rules["x"].match
    assert [(cl.kind, cl.part) for cl in alternative] == [("log", 0), ("log", 1)]
    from qwen3doctor.judge.pipeline import diagnose_text

    warning = ("/project/cpp/grammar_matcher.cc:612: Warning: The matcher has terminated after accepting the stop "
               "token, but is trying to accept new token with id 1.\n")
    failed = 'INFO:     10.8.0.14:51770 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error\n'
    healthy = 'INFO:     10.8.0.14:51774 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
    report = diagnose_text(healthy + warning + failed, cat)
    assert [f.rule_id for f in report.findings] == ["x"]
    assert {e.clause for e in report.findings[0].evidence if e.state == "hit"} >= {"match.log", "match+1.log"}
    assert diagnose_text(healthy + warning + healthy, cat).findings == ()
    assert diagnose_text(healthy + failed, cat).findings == ()
    # a list mixing patterns and lists is refused with its line
    mixed = both.replace("    - ['The matcher", "    - 'x'\n    - ['The matcher")
    assert problems(tmp_path / "bad", mixed) == [
        "x.yaml:7: match.log[1]: mixes patterns and lists: give patterns (one clause, any may hit) or only lists of "
        "patterns (one clause each, all must hit)"]
