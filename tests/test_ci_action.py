"""The GitHub Action (action.yml): its steps' scripts, run as the runner runs a `shell: bash` step (the script in a
file, `bash --noprofile --norc -eo pipefail FILE`, inputs as environment variables, GITHUB_OUTPUT /
GITHUB_STEP_SUMMARY files), on a folder of mixed logs."""

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
RUNNER_BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]  # what `shell: bash` means on a runner


def action():
    return yaml.safe_load(ACTION.read_text())


def run_step(cwd, tmp_path, step_id="diagnose", extra_env=None, **inputs):
    """Run one step with the action's defaults overridden by `inputs` (names as in action.yml); the install
    step's `python` output is this interpreter."""
    spec = action()
    step = next(s for s in spec["runs"]["steps"] if s.get("id") == step_id)
    values = {name: str(meta.get("default", "")) for name, meta in spec["inputs"].items()}
    values["python"] = sys.executable
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "QWEN3DOCTOR_"))}
    values["steps.install.outputs.python"] = sys.executable
    values["github.action_path"] = str(ROOT)
    for key, template in step["env"].items():
        env[key] = re.sub(r"\$\{\{\s*(?:inputs\.)?([\w.-]+)\s*\}\}", lambda m: values[m.group(1)], template)
    output, summary = tmp_path / "github-output", tmp_path / "step-summary.md"
    output.write_text("")
    summary.write_text("")
    env.update(GITHUB_ACTIONS="true", GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary),
               PYTHONPATH=str(ROOT), NO_COLOR="1", RUNNER_TEMP=str(tmp_path))
    env.update(extra_env or {})
    script = tmp_path / f"{step_id}.sh"
    script.write_text(step["run"])
    r = subprocess.run([*RUNNER_BASH, str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
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


def test_a_finding_under_the_runners_errexit_still_writes_outputs_and_reports(mixed, tmp_path):
    """`bash -e` would stop at the diagnose line on exit 1 / 3 before anything reached GITHUB_OUTPUT."""
    keep = tmp_path / "logs"
    shutil.copytree(mixed / "logs" / "nightly-d", keep)  # the unexplained crash only: exit 3
    r, outputs, summary = run_step(tmp_path, tmp_path, paths="logs", markdown="r.md", junit="j.xml")
    assert r.returncode == 3 and outputs == {"exit-code": "3", "markdown": "r.md"}, r.stderr
    assert "**A crash that no rule explains**" in (tmp_path / "r.md").read_text()
    assert ET.parse(tmp_path / "j.xml").getroot().find("testsuite").attrib["failures"] == "1"
    assert "A crash that no rule explains" in summary


def test_install_step_uses_its_own_venv_never_the_runners_python(tmp_path):
    """The install step under the runner's flags, with a stand-in for pip: it makes a venv in RUNNER_TEMP, installs
    there, and hands that interpreter to the diagnose step."""
    step = next(s for s in action()["runs"]["steps"] if s.get("id") == "install")
    assert "inputs.python" in step["env"]["QD_PYTHON"]
    diagnose = next(s for s in action()["runs"]["steps"] if s.get("id") == "diagnose")
    assert diagnose["env"]["QD_PYTHON"] == "${{ steps.install.outputs.python }}"
    # a fake "python3": `-m venv DIR` makes DIR/bin/python, which logs what it is asked to do
    log = tmp_path / "calls.log"
    fake = tmp_path / "python3"
    fake.write_text(f"""#!/bin/bash
echo "system-python $*" >> {log}
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"
  sed -i 's/system-python/venv-python/' "$3/bin/python"; fi
""")
    fake.chmod(0o755)
    r, outputs, _ = run_step(tmp_path, tmp_path, step_id="install", python=str(fake), paths="x")
    assert r.returncode == 0, r.stderr
    venv_python = str(tmp_path / "qwen3doctor-venv" / "bin" / "python")
    assert outputs == {"python": venv_python}
    calls = log.read_text().splitlines()
    assert calls[0] == f"system-python -m venv {tmp_path / 'qwen3doctor-venv'}" and len(calls) == 3
    assert calls[1] == f"venv-python -m pip install --quiet --disable-pip-version-check {ROOT}"
    assert calls[2] == "venv-python -m qwen3doctor.cli --version"


def test_install_step_says_what_is_missing_when_venv_cannot_be_made(tmp_path):
    fake = tmp_path / "python3"
    fake.write_text("#!/bin/sh\necho 'The virtual environment was not created successfully because ensurepip is not available.' >&2\nexit 1\n")
    fake.chmod(0o755)
    r, outputs, _ = run_step(tmp_path, tmp_path, step_id="install", python=str(fake), paths="x")
    assert r.returncode == 2 and outputs == {}
    assert "cannot make a virtual environment (on Debian / Ubuntu: apt-get install python3-venv" in r.stdout
