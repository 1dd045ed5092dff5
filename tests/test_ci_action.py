"""The GitHub Action (action.yml): its diagnose step's script, run as the runner would run it (bash, inputs as
environment variables, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files), on a folder of mixed logs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import yaml

from ci_fixtures import build_mixed
from conftest import ROOT

ACTION = ROOT / "action.yml"


def action():
    return yaml.safe_load(ACTION.read_text())


def run_step(cwd, tmp_path, **inputs):
    """Run the `diagnose` step with the action's defaults overridden by `inputs` (names as in action.yml)."""
    spec = action()
    step = next(s for s in spec["runs"]["steps"] if s.get("id") == "diagnose")
    values = {name: str(meta.get("default", "")) for name, meta in spec["inputs"].items()}
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})
    values["python"] = sys.executable
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "QWEN3DOCTOR_"))}
    for key, template in step["env"].items():
        env[key] = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: values[m.group(1)], template)
    output, summary = tmp_path / "github-output", tmp_path / "step-summary.md"
    output.write_text("")
    summary.write_text("")
    env.update(GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary),
               PYTHONPATH=str(ROOT), NO_COLOR="1")
    r = subprocess.run(["bash", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return r, outputs, summary.read_text()


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return build_mixed(tmp_path_factory.mktemp("action"))


def test_action_is_a_composite_action_with_the_documented_inputs():
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert {"paths", "fail-on", "ignore", "jobs", "redact-hosts", "markdown", "junit", "version", "python"} <= set(spec["inputs"])
    assert spec["inputs"]["paths"]["required"] is True
    for step in spec["runs"]["steps"]:
        assert "${{" not in step["run"], "inputs reach the script through env, never pasted into it"


def test_mixed_folder_fails_with_one_annotation_per_root_cause(mixed, tmp_path):
    r, outputs, summary = run_step(mixed, tmp_path, paths="logs\n", markdown="report.md", junit="junit.xml")
    assert r.returncode == 1, r.stderr
    assert outputs["exit-code"] == "1" and outputs["markdown"] == "report.md"
    errors = [line for line in r.stdout.splitlines() if line.startswith("::error ")]
    titles = sorted(re.search(r"title=qwen3doctor%3A (\S+) in (\d+) logs?", e).groups() for e in errors)
    assert [t for t in titles if not t[0].startswith("fp1-")] == [("vllm#34948", "2"), ("vllm#39025", "1")]
    assert len(titles) == 3 and any(t[0].startswith("fp1-") for t in titles)  # the unexplained crash
    assert "::warning title=qwen3doctor%3A skipped in 1 log" in r.stdout  # the binary file
    assert "warning: skipped: logs/nightly-f/core.log: looks like binary data" in r.stderr
    assert "::add-mask::hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890" in r.stdout
    assert summary.startswith("## qwen3doctor: 6 logs: 3 with a known root cause (2 distinct)")
    assert "```mermaid" in summary and "hf_QwErTy" not in summary and summary.count("## qwen3doctor:") == 1
    assert (mixed / "report.md").read_text().startswith("## qwen3doctor: 6 logs:")
    suite = ET.parse(mixed / "junit.xml").getroot().find("testsuite")
    assert suite.attrib["tests"] == "6" and suite.attrib["failures"] == "4"


def test_fail_on_known_lets_an_unexplained_crash_pass_with_a_warning(mixed, tmp_path):
    keep = tmp_path / "logs"
    shutil.copytree(mixed / "logs", keep)
    for known in ("nightly-a", "nightly-b", "nightly-c"):
        shutil.rmtree(keep / known)
    r, outputs, summary = run_step(tmp_path, tmp_path, paths="logs", **{"fail-on": "known"})
    assert r.returncode == 0 and outputs["exit-code"] == "0", r.stderr
    assert "::error " not in r.stdout
    assert re.search(r"^::warning title=qwen3doctor%3A fp1-\w+ in 1 log", r.stdout, re.M)
    assert "unexplained crash(es) do not fail the build (--fail-on known)" in r.stderr


def test_ignore_input_silences_an_accepted_root_cause(mixed, tmp_path):
    r, outputs, _ = run_step(mixed, tmp_path, paths="logs/nightly-a/server.log\nlogs/nightly-b/server.log.gz",
                             ignore="vllm#34948")
    assert r.returncode == 0 and outputs["exit-code"] == "0", r.stderr
    assert "::notice title=qwen3doctor%3A vllm#34948 in 2 logs" in r.stdout and "::error" not in r.stdout


def test_a_missing_named_path_exits_2(mixed, tmp_path):
    r, outputs, _ = run_step(mixed, tmp_path, paths="logs/nightly-a/server.log\nno-such-dir/")
    assert r.returncode == 2 and outputs["exit-code"] == "2"
    assert "no-such-dir/: no such file" in r.stderr
    assert "::error title=qwen3doctor%3A unreadable in 1 log" in r.stdout


def test_empty_paths_input_is_a_usage_error(mixed, tmp_path):
    r, outputs, _ = run_step(mixed, tmp_path, paths="  \n")
    assert r.returncode == 2 and outputs["exit-code"] == "2" and "names no log" in r.stdout
