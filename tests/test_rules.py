"""Every bundled rule proves itself: `pytest -k <rule-id>` runs one rule's tests (same harness as `rules test`)."""

import pytest

from qwen3doctor.judge.batch import default_jobs
from qwen3doctor.knowledge.catalog import load_catalog
from qwen3doctor.tools.ruletools import ReportCache, lint, rule_tests, run_test, untested_alternatives
from conftest import bundled_catalog, bundled_reports
from test_catalog import GOOD

CATALOG = bundled_catalog()
CACHE = bundled_reports()  # (shared with `example_reports`: each example log is read once in a session)
TESTS = rule_tests(CATALOG)


@pytest.fixture(scope="module")
def reports(request):
    """The logs of the rule tests this session selected, read on every core before the first of them runs, as
    `rules test` reads them (`pytest -k <rule-id>` reads only that rule's)."""
    chosen = [item.callspec.params["case"] for item in request.session.items
              if getattr(item, "originalname", None) == "test_rule" and hasattr(item, "callspec")]
    CACHE.fill(chosen, jobs=default_jobs())
    return CACHE


@pytest.mark.parametrize("case", TESTS, ids=[t.test_id for t in TESTS])
def test_rule(case, reports):
    result = run_test(case, reports)
    assert result.ok, result.detail


def test_parallel_rule_tests_agree_with_serial_ones():
    """`rules test` reads the test logs in worker processes: each log's ranking and the alternatives it satisfies
    are those the serial harness finds (a worker that lost a rule or a log would show here)."""
    ids = sorted(CATALOG.rules)[::40]
    tests = [t for t in TESTS if t.rule_id in ids]
    parallel, alone = ReportCache(CATALOG), ReportCache(CATALOG)
    parallel.fill(tests, jobs=2)
    assert len(parallel._cache) >= 4  # enough logs that the pool ran, not the serial fallback
    for t in tests:
        serial, other = alone.get(t), parallel.get(t)
        assert [f.rule_id for f in other.findings] == [f.rule_id for f in serial.findings], t.test_id
        assert parallel.satisfied(t) == alone.satisfied(t), t.test_id


def test_every_rule_lints_clean():
    assert lint(CATALOG) == []


def test_every_rule_has_a_match_and_a_no_match_test():
    for rule in CATALOG.rules.values():
        assert rule.tests["match"] and rule.tests["no_match"], rule.id


def test_every_match_alternative_is_seen_to_work():
    """Each `match` alternative is satisfied on its own (every clause a hit) by one of its rule's must-match logs:
    a pattern that can never hit (anchored wrongly, a wording the engine does not print) shows up here."""
    CACHE.fill(TESTS, jobs=default_jobs())  # (those the rule tests above have read are not read again)
    assert untested_alternatives(CATALOG, CACHE) == []


def test_no_rule_ranks_on_a_generic_message_alone():
    """A rule whose only required evidence is a generic message must say more somewhere: frames, log lines,
    family, quantization or flags."""
    for rule in CATALOG.rules.values():
        for alternative in rule.match:
            if all(cl.kind == "message" and cl.generic for cl in alternative):
                assert rule.supports or rule.families or rule.when, rule.id


def test_lint_flags_a_log_pattern_that_matches_ordinary_traffic(tmp_path):
    from qwen3doctor.knowledge.catalog import load_catalog

    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "turing-bf16.yaml").write_text('''title: BF16 on a Turing card
status: likely
references: [vllm#99999901]
match:
  - message: ['Bfloat16 is only supported']
supports:
  log: ['2080', '(?i)\\\\bRTX ?2080\\\\b', 'Running: \\\\d+ reqs']
cause: x
fixes:
  - title: use fp16
    command: vllm serve m --dtype half
    cost: none
tests:
  match: []
''', encoding="utf-8")
    catalog = load_catalog([tmp_path], cache=False, strict=False)
    problems = [p for p in lint(catalog) if "ordinary traffic" in p]
    assert len(problems) == 1 and "'2080'" in problems[0] and "supports.log" in problems[0]


def test_lint_wants_families_on_a_rule_about_another_model(tmp_path):
    # without `families: [other]`, a rule keyed on a Gemma model name was listed as a risk of a Qwen3 launch
    from qwen3doctor.knowledge.catalog import load_catalog

    (tmp_path / "vllm").mkdir()
    body = """title: Gemma breaks
status: likely
references: [vllm#99999902]
{families}match:
  - message: ['gemma went wrong']
when:
  env: {{model: '(?i)gemma-?4'}}
cause: x
fixes:
  - title: upgrade
    command: ""
    cost: none
tests:
  match: []
"""
    (tmp_path / "vllm" / "gemma-breaks.yaml").write_text(body.format(families=""), encoding="utf-8")
    problems = [p for p in lint(load_catalog([tmp_path], cache=False, strict=False)) if "families: when" in p]
    assert len(problems) == 1 and "gemma-breaks.yaml" in problems[0]
    (tmp_path / "vllm" / "gemma-breaks.yaml").write_text(body.format(families="families: [other]\n"), encoding="utf-8")
    assert not [p for p in lint(load_catalog([tmp_path], cache=False, strict=False)) if "families: when" in p]


# the test catalog's good rule, with a second must-match log read from a file
STORED_RULE = GOOD.replace('  match: [{text: "RuntimeError: size_n = 5472 is not divisible by tile_n_size = 64"}]',
                           '  match: [{text: "RuntimeError: size_n = 5472 is not divisible by tile_n_size = 64"}, ../paste.log]')


def test_rules_test_reads_unchanged_reports_back_and_diagnoses_again_after_any_edit(tmp_path, monkeypatch):
    """`rules test` keeps its reports on disk: a rerun over the same rules, code and logs reads them back (no log is
    diagnosed); an edited rule, an edited test log or an unreadable store means diagnosing again."""
    from qwen3doctor.tools import ruletools

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("QWEN3DOCTOR_NO_CACHE", raising=False)
    (tmp_path / "rules" / "vllm").mkdir(parents=True)
    rule = tmp_path / "rules" / "vllm" / "x.yaml"
    rule.write_text(STORED_RULE, encoding="utf-8")
    paste = tmp_path / "rules" / "paste.log"
    paste.write_text("RuntimeError: size_n = 2736 is not divisible by tile_n_size = 64\n", encoding="utf-8")
    diagnosed = []
    real = ruletools._diagnose_test_log
    monkeypatch.setattr(ruletools, "_diagnose_test_log", lambda *a: diagnosed.append(a[1]) or real(*a))

    def run():
        diagnosed.clear()
        catalog = load_catalog([tmp_path / "rules"], cache=False)
        cache = ReportCache(catalog, stored=True)
        results = ruletools.run_tests(catalog, cache=cache, jobs=1)
        return [r.ok for r in results], len(diagnosed)

    assert run() == ([True, True, True], 3)
    stores = list((tmp_path / "cache" / "qwen3doctor").glob("ruletests-*.pickle.gz"))
    assert len(stores) == 1
    assert run() == ([True, True, True], 0)
    paste.write_text("RuntimeError: CUDA error: an illegal memory access was encountered\n", encoding="utf-8")
    assert run() == ([True, False, True], 1)  # only the edited log, and its new report fails
    rule.write_text(STORED_RULE.replace("A test rule", "A best rule"), encoding="utf-8")
    assert run() == ([True, False, True], 3)  # a new fingerprint: every log again
    for store in (tmp_path / "cache" / "qwen3doctor").glob("ruletests-*.pickle.gz"):
        store.write_bytes(b"not a store")
    assert run() == ([True, False, True], 3)
    monkeypatch.setenv("QWEN3DOCTOR_NO_CACHE", "1")
    assert run()[1] == 3 and run()[1] == 3
