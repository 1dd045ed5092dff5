"""Every bundled rule proves itself: `pytest -k <rule-id>` runs one rule's tests (same harness as `rules test`)."""

import pytest

from qwen3doctor.knowledge.catalog import load_catalog, rule_dirs
from qwen3doctor.tools.ruletools import ReportCache, lint, rule_tests, run_test

CATALOG = load_catalog(rule_dirs())
CACHE = ReportCache(CATALOG)
TESTS = rule_tests(CATALOG)


@pytest.mark.parametrize("case", TESTS, ids=[t.test_id for t in TESTS])
def test_rule(case):
    result = run_test(case, CACHE)
    assert result.ok, result.detail


def test_every_rule_lints_clean():
    assert lint(CATALOG) == []


def test_every_rule_has_a_match_and_a_no_match_test():
    for rule in CATALOG.rules.values():
        assert rule.tests["match"] and rule.tests["no_match"], rule.id


def test_no_rule_ranks_on_a_generic_message_alone():
    """A rule whose only required evidence is a generic message must say more somewhere: frames, log lines,
    family, quantization or flags."""
    for rule in CATALOG.rules.values():
        for alternative in rule.match:
            if all(cl.kind == "message" and cl.generic for cl in alternative):
                assert rule.supports or rule.families or rule.when, rule.id
