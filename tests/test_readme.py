"""The README keeps its promises: the two set-up commands, and a covered-crashes table that is not stale."""

from conftest import ROOT

from qwen3doctor.tools.ruletools import README_END, README_START, readme_with_table, rules_markdown

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_table_is_generated_from_the_rules(catalog):
    expected = readme_with_table(README, rules_markdown(catalog))
    assert README == expected, "README table is stale: run `qwen3doctor rules list --write-readme README.md`"
    assert README.count(README_START) == 1 and README.count(README_END) == 1


def test_readme_two_commands_name_a_bundled_log():
    assert 'pip install . && qwen3doctor diagnose examples/logs/vllm/qwen3.5-gdn-prefill-ima-tp8.log' in README
    assert 'pip install -e ".[test]" && pytest' in README
    assert (ROOT / "examples/logs/vllm/qwen3.5-gdn-prefill-ima-tp8.log").is_file()


def test_ci_runs_the_readme_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -q ." in ci and 'pip install -q -e ".[test]"' in ci and "pytest" in ci
