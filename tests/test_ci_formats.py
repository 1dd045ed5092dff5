"""Every output format of a multi-log scan, against a golden file built from copies of example logs on the
fixed rule set under tests/data/rules (tests/ci_fixtures.py builds the folder and runs the command line), plus
what each format must hold whatever the rules say."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ci_fixtures import build_mixed, check_golden, run_fixed


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return build_mixed(tmp_path_factory.mktemp("ci"))


@pytest.fixture(scope="module")
def outputs(mixed):
    """Each format's stdout for the same folder (two workers, as in CI)."""
    out = {}
    for fmt in ("plain", "json", "github", "markdown", "junit"):
        r = run_fixed("diagnose", "logs", "--format", fmt, "--jobs", "2", cwd=mixed)
        assert r.returncode == 1, (fmt, r.stderr)
        assert "Traceback" not in r.stderr
        out[fmt] = r
    return out


@pytest.mark.parametrize("fmt,golden", [
    ("plain", "ci-mixed.plain.txt"), ("json", "ci-mixed.jsonl"), ("github", "ci-mixed.github.txt"),
    ("markdown", "ci-mixed.md"), ("junit", "ci-mixed.junit.xml"),
])
def test_format_matches_its_golden_file(outputs, fmt, golden):
    check_golden(golden, outputs[fmt].stdout)


def test_single_log_markdown_golden(mixed):
    r = run_fixed("diagnose", "logs/nightly-c/server.log", "--format", "markdown", cwd=mixed)
    assert r.returncode == 1
    assert "```mermaid" not in r.stdout  # a chart of one slice says nothing
    check_golden("ci-single.md", r.stdout)


def test_stderr_names_the_skipped_binary_and_the_verdict(outputs):
    err = outputs["plain"].stderr
    assert "warning: skipped: logs/nightly-f/core.log: looks like binary data" in err
    assert "6 logs:" in err and "-> exit 1 (--fail-on any)" in err
    assert "README.md" not in err + outputs["plain"].stdout


def test_plain_summary_groups_by_root_cause_and_fingerprint(outputs):
    out = outputs["plain"].stdout
    summary = out[out.index("== Summary: "):]
    assert summary.startswith("== Summary: 6 logs: 3 with a known root cause (2 distinct); 1 with an unexplained crash")
    rows = [line.split() for line in summary.splitlines()[1:] if line[:6].strip().isdigit()]
    assert [(r[0], r[1]) for r in rows][:2] == [("2", "vllm#34948"), ("1", "vllm#39025")]
    assert rows[2][1].startswith("fp1-") and ("1", "no") == (rows[3][0], rows[3][1]) and rows[4][1] == "skipped"
    assert "fingerprints: fp1" in summary


def test_json_lines_one_object_per_readable_input_with_fingerprint(outputs):
    docs = [json.loads(line) for line in outputs["json"].stdout.splitlines()]
    assert [d["source"] for d in docs] == [
        "logs/nightly-a/server.log", "logs/nightly-b/server.log.gz", "logs/nightly-c/server.log",
        "logs/nightly-d/worker.log", "logs/nightly-e/server.log"]
    assert [d["verdict"] for d in docs] == ["finding", "finding", "finding", "unexplained-crash", "no-crash"]
    assert docs[3]["fingerprint"]["version"] == 1 and docs[3]["fingerprint"]["id"].startswith("fp1-")
    assert docs[3]["fingerprint"]["frames"] == ["worker_busy_loop", "execute_model", "_frobnicate_block_table"]
    assert docs[4]["fingerprint"] is None and all(d["ignored"] is None for d in docs)
    assert {"schema_version", "environment", "crash", "crashes", "findings", "next_steps", "warnings"} <= set(docs[0])


def test_github_one_error_per_root_cause_masks_secrets_and_hides_them(outputs):
    out = outputs["github"].stdout
    lines = out.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 3  # vllm#34948 (2 logs), vllm#39025, the unexplained fingerprint
    assert any("title=qwen3doctor%3A vllm#34948 in 2 logs%3A " in e for e in errors)
    assert any("title=qwen3doctor%3A fp1-" in e and "qwen3doctor suggest logs/nightly-d/worker.log" in e for e in errors)
    assert [line for line in lines if line.startswith("::warning ")][0].startswith("::warning title=qwen3doctor%3A skipped in 1 log")
    masks = [line for line in lines if line.startswith("::add-mask::")]
    assert "::add-mask::hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890" in masks
    assert "::add-mask::sk-proj-4fG7hJ9kL2mN5pQ8rS1tU3vW6xY0zA" in masks
    body = out.replace("\n".join(masks), "")
    for secret in ("hf_QwErTy", "sk-proj-4fG7", "alice.smith@example.com", "/home/alice"):
        assert secret not in body, secret
    # log text is inert: wrapped in stop-commands blocks
    assert out.count("::stop-commands::") == out.count("::endgroup::") + 1


def test_markdown_has_pie_chart_table_and_collapsed_logs(outputs):
    md = outputs["markdown"].stdout
    assert md.startswith("## qwen3doctor: 6 logs:")
    chart = md[md.index("```mermaid"): md.index("```", md.index("```mermaid") + 3)]
    assert 'pie showData title Root causes across 6 logs' in chart
    assert '"vllm#34948" : 2' in chart and '"vllm#39025" : 1' in chart and "(unexplained crash)\" : 1" in chart
    assert "| 2 | [vllm#34948](https://github.com/vllm-project/vllm/issues/34948) | root cause |" in md
    assert md.count("<details><summary>logs/") == 6
    assert "hf_QwErTy" not in md and "alice.smith@example.com" not in md and "/home/alice" not in md
    assert "fingerprint algorithm v1" in md


def test_junit_one_case_per_input(outputs):
    root = ET.fromstring(outputs["junit"].stdout)
    suite = root.find("testsuite")
    assert suite.attrib == {"name": "qwen3doctor", "tests": "6", "failures": "4", "errors": "0", "skipped": "1"}
    cases = {c.attrib["name"]: c for c in suite.findall("testcase")}
    assert cases["logs/nightly-a/server.log"].find("failure").attrib["type"] == "vllm#34948"
    assert cases["logs/nightly-d/worker.log"].find("failure").attrib["type"].startswith("fp1-")
    assert cases["logs/nightly-f/core.log"].find("skipped") is not None
    assert len(cases["logs/nightly-e/server.log"]) == 0  # passes
    props = {p.attrib["name"]: p.attrib["value"] for p in suite.find("properties")}
    assert props["fail-on"] == "any" and props["exit-code"] == "1" and props["fingerprint-version"] == "1"


def test_junit_failures_follow_fail_on(mixed):
    r = run_fixed("diagnose", "logs", "--format", "junit", "--fail-on", "known", cwd=mixed)
    assert r.returncode == 1
    suite = ET.fromstring(r.stdout).find("testsuite")
    assert suite.attrib["failures"] == "3"  # the unexplained crash passes, with its diagnosis in system-out
    case = [c for c in suite.findall("testcase") if c.attrib["name"] == "logs/nightly-d/worker.log"][0]
    assert case.find("failure") is None and "no rule explains" in case.find("system-out").text


def test_rich_summary_table_has_counts_and_bars(mixed):
    r = run_fixed("diagnose", "logs", "--format", "rich", cwd=mixed)
    tail = r.stdout[r.stdout.index("6 logs:"):]
    assert "██" in tail and "vllm#34948" in tail and "Verdict: exit 1" in tail


def test_output_file_and_format_from_its_suffix(mixed):
    r = run_fixed("diagnose", "logs", "--output", "report.md", cwd=mixed)
    assert r.returncode == 1 and r.stdout == ""
    assert (mixed / "report.md").read_text().startswith("## qwen3doctor: 6 logs:")
    r = run_fixed("diagnose", "logs", "--output", "report.xml", cwd=mixed)
    assert ET.parse(mixed / "report.xml").getroot().tag == "testsuites"
    r = run_fixed("diagnose", "logs", "--output", "no/such/dir/report.md", cwd=mixed)
    assert r.returncode == 2 and "cannot write" in r.stderr and "Traceback" not in r.stderr


def test_auto_is_github_inside_actions_and_appends_the_step_summary(mixed, tmp_path):
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    r = run_fixed("diagnose", "logs", cwd=mixed, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert r.returncode == 1 and "::error title=qwen3doctor" in r.stdout
    text = summary.read_text()
    assert text.startswith("earlier step\n## qwen3doctor: 6 logs:") and "```mermaid" in text


def test_github_stays_within_the_annotation_limits(tmp_path):
    from ci_fixtures import UNKNOWN

    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(14):  # fourteen different unexplained crashes
        (logs / f"worker-{i:02d}.log").write_text(UNKNOWN.read_text().replace("_frobnicate_block_table", f"_step_{i}_" + "x" * 300))
    r = run_fixed("diagnose", "logs", "--format", "github", cwd=tmp_path)
    assert r.returncode == 3
    errors = [line for line in r.stdout.splitlines() if line.startswith("::error ")]
    assert len(errors) == 10  # GitHub shows ten per level: nine groups, and one naming the other five
    assert "title=qwen3doctor%3A 5 more groups (see the step summary)" in errors[-1]
    for line in errors:
        title = line[len("::error title="): line.index("::", 2)]
        assert len(title) <= 250


def test_auto_inside_actions_redirected_to_a_file_is_plain(mixed, tmp_path):
    import subprocess
    import sys

    from ci_fixtures import FIXED_CLI, ROOT

    out = tmp_path / "report.txt"
    env = {k: v for k, v in __import__("os").environ.items() if k != "GITHUB_STEP_SUMMARY"}
    env.update(GITHUB_ACTIONS="true", NO_COLOR="1", PYTHONPATH=str(ROOT))
    with open(out, "w") as fh:
        r = subprocess.run([sys.executable, str(FIXED_CLI), "diagnose", "logs"], cwd=mixed, stdout=fh,
                           stderr=subprocess.PIPE, text=True, env=env, timeout=180)
    assert r.returncode == 1
    text = out.read_text()
    assert "::group::" not in text and "::error" not in text and text.startswith("== logs/nightly-a/server.log")


def test_github_annotation_of_unreadable_inputs_gives_each_reason(mixed):
    r = run_fixed("diagnose", "logs", "logs/gone.log", "--format", "github", cwd=mixed)
    assert r.returncode == 2
    error = next(line for line in r.stdout.splitlines() if line.startswith("::error title=qwen3doctor%3A unreadable"))
    assert "%0Alogs/gone.log: no such file" in error
    warning = next(line for line in r.stdout.splitlines() if line.startswith("::warning title=qwen3doctor%3A skipped"))
    assert "binary" in warning


def test_the_renderer_tests_see_only_the_fixed_rule_set(tmp_path):
    """The golden files above come from the four rules under tests/data/rules, not from rules/: those load, lint
    clean and pass their own tests on the copied logs, and no bundled rule is in the catalog."""
    r = run_fixed("rules", "list", "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(row["id"] for row in json.loads(r.stdout)) == [
        "flashinfer-cudnn-workspace-resize-under-cudagraph", "gdn-cudagraph-illegal-memory-access",
        "gdn-null-block-id-cudagraph-padding", "qwen3-next-gdn-illegal-memory-access"]
    lint = run_fixed("rules", "lint", cwd=tmp_path)
    assert lint.returncode == 0 and "4 rule(s) OK" in lint.stderr, lint.stdout + lint.stderr
    tests = run_fixed("rules", "test", cwd=tmp_path)
    assert tests.returncode == 0 and tests.stdout.strip().endswith("passed, 0 failed"), tests.stdout
    assert int(tests.stdout.split()[-4]) >= 20  # every match / no_match log of the four rules was found and run
