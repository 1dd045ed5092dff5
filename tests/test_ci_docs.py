"""The CI documentation works as written: the README's snippets parse, its settings example loads, and the
example workflows use only inputs the action has."""

from __future__ import annotations

import re

import yaml

from conftest import ROOT
from qwen3doctor.read.config import load

README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = README[README.index("\n## CI\n"): README.index("\n## Rules\n")]


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", CI, re.S)


def test_readme_has_a_ci_section_with_github_and_gitlab_snippets():
    assert "GitLab CI" in CI and "GitHub Actions" in CI and "--fail-on" in CI and "mermaid" in CI
    snippets = [yaml.safe_load(b) for b in blocks("yaml")]
    assert any("diagnose" in s and "junit" in s["diagnose"]["artifacts"]["reports"] for s in snippets if isinstance(s, dict))
    steps = [s[0] for s in snippets if isinstance(s, list)]
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    assert steps and set(steps[0]["with"]) <= inputs


def test_readme_settings_example_loads(tmp_path):
    (tmp_path / "pyproject.toml").write_text(blocks("toml")[0])
    config = load(tmp_path / "pyproject.toml", environ={})
    assert config.fail_on == "known" and config.redact_hosts is True
    assert [(i.ref, i.reason) for i in config.ignore] == [("vllm#34948", ""), ("fp1-3a9c0e7d12", "flaky runner, tracked in #123")]


def test_example_workflows_use_the_actions_inputs():
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    used = 0
    for path in (ROOT / "examples" / "ci").glob("*.yml"):
        doc = yaml.safe_load(path.read_text())
        for job in (doc.get("jobs") or {}).values() if isinstance(doc.get("jobs"), dict) else ():
            for step in job.get("steps", []):
                if "qwen3doctor@" in str(step.get("uses", "")):
                    assert set(step.get("with", {})) <= inputs, path
                    used += 1
    assert used >= 2


def test_install_commands_work_as_written():
    """qwen3doctor is not on the package index: every install command names the repository (an archive URL, or
    git+https with what git needs said), never the bare package name."""
    texts = {p: p.read_text() for p in [ROOT / "README.md", ROOT / "action.yml", *(ROOT / "examples" / "ci").glob("*.yml")]}
    for path, text in texts.items():
        assert not re.search(r"pip install (?:-\S+ )*['\"]?qwen3doctor(?:[=<>\s'\"]|$)", text, re.M), path
        assert "qwen3doctor==" not in text, path
        for line in text.splitlines():
            if "git+https://" in line:
                near = text[max(0, text.index(line) - 400): text.index(line) + len(line) + 200]
                assert "git" in near.replace("git+https", "") and "needs git" in near or "install -y" in near, (path, line)
    gitlab = yaml.safe_load((ROOT / "examples" / "ci" / "gitlab-ci.yml").read_text())["diagnose"]
    assert gitlab["image"].endswith("-slim") and "archive/refs/" in gitlab["script"][0]
