"""Issue 12: each fact read one way, wherever in the log it appears."""

from __future__ import annotations

from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.read.environment import EnvCollector

from conftest import EXAMPLES

ACCESS = '(APIServer pid=1) INFO:     10.12.0.7:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'


def access_lines(n: int) -> str:
    return "".join(ACCESS.format(port=40000 + i % 20000) for i in range(n))


def test_a_serve_command_after_line_2000_keeps_its_continuation_lines(catalog):
    text = access_lines(2500) + (
        "vllm serve Qwen/Qwen3-8B \\\n"
        "    --tensor-parallel-size 8 \\\n"
        "    --max-model-len 4096\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/x.py", line 1, in frob\n'
        "RuntimeError: frob failed\n"
    )
    env = diagnose_text(text, catalog).environment
    assert env.get("serve_command") == "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 8 --max-model-len 4096"
    assert env.get("tp") == 8 and env.get("max_model_len") == 4096


def test_a_shifted_example_reads_the_same_environment_and_fixes(catalog):
    log = (EXAMPLES / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log").read_text(encoding="utf-8")
    head, shifted = diagnose_text(log, catalog), diagnose_text(access_lines(2500) + log, catalog)
    assert shifted.environment.get("serve_command") == head.environment.get("serve_command")
    assert "--reasoning-parser" in shifted.environment.flags
    assert shifted.environment.flags == head.environment.flags
    assert [f.command for f in shifted.findings[0].fixes] == [f.command for f in head.findings[0].fixes]


def test_a_gap_in_the_line_numbers_ends_a_continued_command():
    c = EnvCollector()
    c.feed("vllm serve Qwen/Qwen3-8B \\", None, 10)
    c.feed('File "/x.py", line 1, in frob', None, 900)
    assert c.facts()["serve_command"].value == "vllm serve Qwen/Qwen3-8B"


def test_the_two_process_scan_keeps_the_head_of_a_log_with_long_lines(catalog, tmp_path, monkeypatch):
    """The part the parent scans may hold fewer than the head's 2,000 lines: the head is still kept whole."""
    import os

    import pytest

    from qwen3doctor.judge.pipeline import prefilter_for, scan_source
    from qwen3doctor.read import scanner
    from qwen3doctor.read.reader import open_source

    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    long_line = "(APIServer pid=1) INFO 03-02 10:15:22 [logger.py:41] prompt: '" + "lorem ipsum " * 300 + "'\n"
    crash = (EXAMPLES / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log").read_text(encoding="utf-8")
    p = tmp_path / "long.log"
    p.write_text(long_line * 1500 + crash + access_lines(3000), encoding="utf-8")
    monkeypatch.setattr(scanner, "PARALLEL_MIN", 1)
    pf = prefilter_for(catalog)
    runs = {}
    for jobs in ("1", None):
        if jobs:
            monkeypatch.setenv("QWEN3DOCTOR_JOBS", jobs)
        else:
            monkeypatch.delenv("QWEN3DOCTOR_JOBS", raising=False)
        src = open_source(str(p))
        if not jobs:
            assert scanner._split_point(src) is not None  # really split
        runs[jobs] = (list(scanner.selected_lines(src, pf)), src.lines_read)
        src.close()
    assert runs[None] == runs["1"]
    src = open_source(str(p))
    env = scan_source(src, catalog).environment
    src.close()
    assert env.get("tp") == 8 and "--reasoning-parser" in env.flags


def test_lines_read_counts_every_line_read_and_blank_lines_first_are_not_an_empty_input(catalog):
    from qwen3doctor.model import Verdict

    report = diagnose_text("\n" * 2001 + access_lines(5000), catalog)
    assert report.verdict is Verdict.CLEAN
    assert report.lines_read == 7001
    assert diagnose_text("\n \n\t\n" * 1000, catalog).verdict is Verdict.NOTHING


def test_an_upgrade_fix_names_the_engine_its_fixed_version_belongs_to(catalog):
    from qwen3doctor.judge.pipeline import Overrides

    # the full log (the rule's own message is there, so the engine the user claims only lowers it)
    log = (EXAMPLES / "vllm" / "eagle3-interface-unsupported-model--qwen3-30b-a3b-0.10.2-full.log").read_text(encoding="utf-8")
    report = diagnose_text(log, catalog, overrides=Overrides(options={"engine": "sglang"}))
    finding = next(f for f in report.findings if f.rule_id.startswith("eagle3-interface-unsupported-model"))
    rule = catalog.rules[finding.rule_id]
    assert rule.engines == ("vllm",) and rule.fixed_in["version"]
    commands = [f.command for f in finding.fixes]
    assert f'pip install -U "vllm>={rule.fixed_in["version"]}"' in commands
    assert not any('"sglang>=' in c for c in commands)


def test_a_process_named_generic_does_not_make_a_hit_generic(catalog):
    import re

    log = (EXAMPLES / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log").read_text(encoding="utf-8")
    renamed = re.sub(r"\((?:EngineCore_DP0|Worker_TP\d) pid=\d+\) ", "(generic) ", log)
    assert renamed != log
    before, after = diagnose_text(log, catalog).findings[0], diagnose_text(renamed, catalog).findings[0]
    assert before.confidence == "high"
    assert (after.rule_id, after.confidence, after.score) == (before.rule_id, before.confidence, before.score)
    assert [(ev.clause, ev.generic) for ev in after.evidence] == [(ev.clause, ev.generic) for ev in before.evidence]


def test_next_steps_read_what_a_condition_wants_from_its_field_not_its_sentence():
    from qwen3doctor.judge.nextsteps import differential
    from qwen3doctor.model import Environment, Evidence, Fact, Finding

    def finding(rule_id, score, wants):
        ev = (Evidence("match.frames", "hit", "frames"),
              Evidence("when.engine_version", "unknown", "no vllm version in the log (rule: <0.1)", wants=wants))
        return Finding(rule_id=rule_id, title=rule_id, status="likely", score=score, confidence="low", engines=("vllm",),
                       families=(), references=("vllm#1",), evidence=ev, fixes=(), fixed_in=None)

    step, _ = differential([finding("a", 0.4, ">=0.17"), finding("b", 0.35, "<0.13")],
                           Environment(facts={"engine": Fact("vllm", "log")}))
    assert "a needs vLLM >=0.17; b needs vLLM <0.13" in step


def _cli(*args, cwd, stdin=None, timeout=120):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "qwen3doctor.cli", *args], input=stdin, capture_output=True, text=True,
                          env=dict(os.environ, NO_COLOR="1"), cwd=cwd, timeout=timeout)


GDN = EXAMPLES / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log"
TOP = "gdn-cudagraph-illegal-memory-access"


def test_why_follows_fail_on_ignore_and_output(tmp_path):
    out = tmp_path / "why.txt"
    r = _cli("diagnose", str(GDN), "--why", TOP, "--fail-on", "never", "-o", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and out.read_text(encoding="utf-8").startswith(f"{TOP}:")
    r = _cli("diagnose", str(GDN), "--why", TOP, "--ignore", "vllm#34948", cwd=tmp_path)
    assert r.returncode == 0 and "ignored (vllm#34948" in r.stderr


def test_every_command_reads_the_project_settings(tmp_path):
    (tmp_path / ".qwen3doctor.toml").write_text(f'disable = ["{TOP}"]\n', encoding="utf-8")
    r = _cli("diagnose", str(GDN), "--format", "json", cwd=tmp_path)
    assert TOP not in {f["rule_id"] for f in __import__("json").loads(r.stdout)["findings"]}
    r = _cli("report", str(GDN), cwd=tmp_path)
    assert f"`{TOP}`" not in r.stdout and TOP not in r.stderr
    r = _cli("explain", TOP, cwd=tmp_path)
    assert r.returncode == 2 and "no rule is known" in r.stderr



TEAM_LOG = """\
INFO 06-02 09:14:03 [api_server.py:1351] vLLM API server version 0.11.0
(EngineCore_DP0 pid=4121) ERROR 06-02 09:20:11 [core.py:710] EngineCore encountered a fatal error.
(EngineCore_DP0 pid=4121) ERROR 06-02 09:20:11 [core.py:710] Traceback (most recent call last):
(EngineCore_DP0 pid=4121) ERROR 06-02 09:20:11 [core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core
(EngineCore_DP0 pid=4121) ERROR 06-02 09:20:11 [core.py:710]     engine_core.run_busy_loop()
(EngineCore_DP0 pid=4121) ERROR 06-02 09:20:11 [core.py:710]   File "/opt/acme/acme_kv/connector.py", line 88, in fetch_remote_blocks
(EngineCore_DP0 pid=4121) ERROR 06-02 09:20:11 [core.py:710]     raise RuntimeError(f"acme kv connector: remote block {block_id} is gone")
(EngineCore_DP0 pid=4121) ERROR 06-02 09:20:11 [core.py:710] RuntimeError: acme kv connector: remote block 17 is gone
"""

TEAM_RULE = """\
title: The in-house KV connector asks the cache tier for a block it has already evicted
status: likely
references: [acme/inference#212]
match:
  - frames: [fetch_remote_blocks]
    message: ['acme kv connector: remote block \\d+ is gone']
cause: >
  The cache tier evicts a prefix block while a request still holds it, and the connector raises instead of
  recomputing the block.
fixes:
  - title: Pin prefix blocks for the lifetime of the request in the cache tier's settings
    command: ""
    cost: more memory on the cache tier
tests:
  match:
    - text: |
{match}
  no_match:
    - text: |
{no_match}
"""


def _indent(text: str) -> str:
    return "".join("        " + line + "\n" for line in text.splitlines())


def test_rules_lint_and_test_read_the_project_settings(tmp_path):
    """A rule folder named only in .qwen3doctor.toml is linted and its rules' tests run; a rule the settings
    disable is neither linted nor tested (each rule below would fail the step that skipped it). The bundled rules
    are the small fixed set here (tests/fixed_rules_cli.py): every bundled rule's tests would take minutes."""
    from ci_fixtures import run_fixed
    from fixed_rules_cli import FIXED_RULES

    bundled = len(list(FIXED_RULES.rglob("*.yaml")))
    (tmp_path / ".git").mkdir()  # the project's root: the settings search stops here
    (tmp_path / ".qwen3doctor.toml").write_text('rules = ["team-rules"]\ndisable = ["acme-retired-crash"]\n', encoding="utf-8")
    team = tmp_path / "team-rules" / "vllm"
    team.mkdir(parents=True)
    # its lookalike is the same crash, so `rules test` fails it, and only if it ran the rule's tests
    (team / "acme-kv-block-gone.yaml").write_text(
        TEAM_RULE.format(match=_indent(TEAM_LOG), no_match=_indent(TEAM_LOG.replace("block 17", "block 18"))), encoding="utf-8")
    # disabled: no lookalike (a lint problem) and a match test it fails
    retired = TEAM_RULE.replace("acme/inference#212", "acme/inference#97").format(match=_indent("INFO nothing here"), no_match="")
    (team / "acme-retired-crash.yaml").write_text(retired.replace("  no_match:\n    - text: |\n\n", ""), encoding="utf-8")

    lint = run_fixed("rules", "lint", cwd=tmp_path)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert f"{bundled + 1} rule(s) OK" in lint.stderr  # the bundled rules and the team rule
    test = run_fixed("rules", "test", cwd=tmp_path)
    assert test.returncode == 1, test.stdout + test.stderr
    failed = [line for line in test.stdout.splitlines() if line.startswith("FAIL ")]
    assert len(failed) == 1 and "acme-kv-block-gone" in failed[0], test.stdout
    assert "acme-retired-crash" not in test.stdout + test.stderr
    assert int(test.stdout.split()[-4]) > 20, test.stdout  # and the bundled rules' tests ran beside the team rule's

    # the same files without the settings: the team folder is not read at all
    (tmp_path / ".qwen3doctor.toml").unlink()
    assert f"{bundled} rule(s) OK" in run_fixed("rules", "lint", cwd=tmp_path).stderr

def test_flag_order_does_not_change_check(tmp_path):
    import json

    verdicts = []
    for command in (["vllm", "serve", "--enforce-eager", "Qwen/Qwen3-8B", "--tensor-parallel-size", "3"],
                    ["vllm", "serve", "Qwen/Qwen3-8B", "--enforce-eager", "--tensor-parallel-size", "3"],
                    ["vllm", "serve", "--tensor-parallel-size", "3", "Qwen/Qwen3-8B", "--enforce-eager"]):
        r = _cli("check", "--no-local", "--format", "json", "--", *command, cwd=tmp_path)
        doc = json.loads(r.stdout)
        verdicts.append((r.returncode, doc["verdict"], sorted(a["key"] for a in doc["alerts"]),
                         doc["environment"]["model"]["value"], doc["environment"]["tp"]["value"]))
    assert verdicts[0] == verdicts[1] == verdicts[2]
    assert verdicts[0][1] == "warning" and verdicts[0][3] == "Qwen/Qwen3-8B"


def test_one_serve_command_reader():
    from qwen3doctor.read.command import read_command, without_flags

    cmd = read_command("uv run vllm serve --enforce-eager Qwen/Qwen3-8B -tp 2 --max_model_len=4096 --enable-chunked-prefill True")
    assert cmd.model == "Qwen/Qwen3-8B" and cmd.engine == "vllm"
    assert cmd.values() == {"--enforce-eager": "", "--tensor-parallel-size": "2", "--max-model-len": "4096",
                            "--enable-chunked-prefill": "True"}
    assert cmd.arguments() == ["--enforce-eager", "-tp", "2", "--max_model_len=4096", "--enable-chunked-prefill", "True"]
    sg = read_command("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --disable-radix-cache")
    assert sg.engine == "sglang" and sg.model == "Qwen/Qwen3-8B" and "-m" not in sg.values()
    assert sg.arguments() == ["--tp", "2", "--disable-radix-cache"]
    assert without_flags("--enforce-eager --tensor-parallel-size 8 --max-model-len 4096", {"--tensor-parallel-size"}) == (
        "--enforce-eager --max-model-len 4096")
    # a shell comment is no argument (a fix built from this command must not carry `'#' default, causes NaN`);
    # a `#` inside a word or a quoted value is part of it
    commented = read_command("python -m sglang.launch_server --model Qwen/Qwen3-Coder-Next --device cpu --tp 4 "
                             "--chunked-prefill-size 8192 # default, causes NaN")
    assert commented.arguments()[-2:] == ["--chunked-prefill-size", "8192"]
    assert read_command('vllm serve Qwen/Qwen3-8B --served-model-name q#1 --chat-template "#x"').values()[
        "--served-model-name"] == "q#1"


def test_report_reads_only_the_crash_lines_and_cuts_a_long_exception_line(catalog, tmp_path):
    from qwen3doctor.tools.bugreport import MAX_SHOWN, numbered_lines, render, spans_of

    crash = (EXAMPLES / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log").read_text(encoding="utf-8")
    huge = "ValueError: " + "x" * 3_000_000
    p = tmp_path / "big.log"
    p.write_text(access_lines(20_000) + crash + "Traceback (most recent call last):\n"
                 '  File "/usr/lib/python3/dist-packages/vllm/x.py", line 1, in frob\n' + huge + "\n", encoding="utf-8")
    report = diagnose_text(p.read_text(encoding="utf-8"), catalog, source=str(p))
    lines = numbered_lines(str(p), spans_of(report))
    assert len(lines) < 10_000  # not the 20,000 request lines
    assert all(len(text) <= MAX_SHOWN + 40 for _, text in lines)
    text, _ = render(report, lines)
    assert "x" * 5000 not in text and "[cut: the line holds" in text


def test_a_library_listing_after_line_2000_is_read_and_a_prompt_naming_the_library_is_not_selected(catalog):
    """Deep in a log (a restart after traffic) the environment anchors still find a package listing's rows; a request
    whose prompt names the same libraries is not one of them (with request logging on it would reach the reader)."""
    from qwen3doctor.read import scanner

    listing = ("transformers==4.57.1\n"
               "flashinfer-python                 0.4.1\n"
               "torch==2.8.0\n")
    env = diagnose_text(access_lines(2500) + listing + "RuntimeError: frob failed\n", catalog).environment
    assert env.get("transformers") == "4.57.1" and env.get("flashinfer") == "0.4.1"
    prefilter = scanner.make_prefilter([])
    prompt = ("(APIServer pid=1) INFO 03-02 10:15:22 [logger.py:41] Received request chatcmpl-9: prompt: 'Should I upgrade "
              "transformers before flashinfer, or the other way round?', params: SamplingParams(n=1)")
    assert not prefilter.find(prompt.encode())
    assert prefilter.find(b"[pip3] transformers==4.57.1") and prefilter.find(b"flashinfer-python 0.4.1")
