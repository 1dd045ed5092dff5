"""The command line as a user meets it: exit codes, JSON contract, explain, bad input."""

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES

EXAMPLE = EXAMPLES / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log"


def run(*args, stdin=None, env=None):
    full_env = dict(os.environ, NO_COLOR="1", **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "qwen3doctor.cli", *args], input=stdin, capture_output=True, text=True, env=full_env,
        timeout=120,
    )


def test_version():
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("qwen3doctor ")


def test_diagnose_example_finds_the_gdn_crash_exit_1():
    r = run("diagnose", str(EXAMPLE))
    assert r.returncode == 1, r.stderr
    assert "gdn-cudagraph-illegal-memory-access" in r.stdout and "vllm#34948" in r.stdout
    assert "--enforce-eager" in r.stdout
    assert "top: gdn-cudagraph-illegal-memory-access" in r.stderr


def test_json_contract():
    r = run("diagnose", str(EXAMPLE), "--format", "json")
    doc = json.loads(r.stdout)
    assert doc["schema_version"] == 1 and doc["source"] == str(EXAMPLE)
    assert set(doc) >= {"environment", "crash", "crashes", "findings", "next_steps", "warnings"}
    assert doc["environment"]["engine"] == {"value": "vllm", "source": "log"}
    crash = doc["crash"]
    assert set(crash) >= {"class", "exception_type", "message", "process", "frames"}
    assert crash["frames"][-1]["function"] == "fi_chunk_gated_delta_rule"
    top = doc["findings"][0]
    assert set(top) >= {"rule_id", "title", "status", "score", "confidence", "families", "references", "evidence", "fixes", "fixed_in"}
    assert top["rule_id"] == "gdn-cudagraph-illegal-memory-access" and 0 < top["score"] <= 1
    assert all(set(e) == {"clause", "state", "text"} for e in top["evidence"])
    assert all(set(f) == {"title", "command", "cost"} for f in top["fixes"])


def test_several_inputs_give_json_lines_and_the_combined_exit_code(tmp_path):
    clean = tmp_path / "clean.log"
    clean.write_text("(APIServer pid=1) INFO 05-05 12:00:00 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000\n")
    r = run("diagnose", str(EXAMPLE), str(clean), "--format", "json")
    docs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [d["verdict"] for d in docs] == ["finding", "no-crash"] and r.returncode == 1
    r = run("diagnose", str(clean), str(tmp_path / "missing.log"))
    assert r.returncode == 2 and "missing.log: no such file" in r.stderr


def test_exit_codes_clean_unexplained_and_empty(tmp_path):
    clean = tmp_path / "clean.log"
    clean.write_text("INFO 05-05 12:00:00 [api_server.py:1] Application startup complete.\n")
    assert run("diagnose", str(clean)).returncode == 0
    odd = tmp_path / "odd.log"
    odd.write_text('Traceback (most recent call last):\n  File "/x/mything.py", line 3, in frobnicate\n    zap()\nZeroDivisionError: division by zero\n')
    r = run("diagnose", str(odd))
    assert r.returncode == 3 and "no rule explains" in r.stdout and "frobnicate" in r.stdout
    r = run("diagnose", "-", stdin="   \n\n")
    assert r.returncode == 0 and "Nothing to diagnose" in r.stdout


def test_pipe_and_gzip(tmp_path):
    r = run("diagnose", stdin=EXAMPLE.read_text())
    assert r.returncode == 1 and "vllm#34948" in r.stdout
    gz = tmp_path / "server.log.gz"
    gz.write_bytes(gzip.compress(EXAMPLE.read_bytes()))
    assert run("diagnose", str(gz)).returncode == 1


def test_bad_input_is_one_line_never_a_traceback(tmp_path):
    binary = tmp_path / "weights.bin"
    binary.write_bytes(os.urandom(4096) + b"\x00" * 64)
    for args in (["diagnose", str(binary)], ["diagnose", str(tmp_path)], ["diagnose", str(tmp_path / "nope.log")],
                 ["diagnose", "--format", "xml", str(EXAMPLE)], ["explain", "vllm#1"],
                 ["diagnose", "--engine-version", "banana", str(EXAMPLE)]):
        r = run(*args)
        assert r.returncode == 2, args
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    bad_utf8 = tmp_path / "bad.log"
    bad_utf8.write_bytes(EXAMPLE.read_bytes().replace(b"Worker_TP1", b"Worker\xff\xfeTP1"))
    assert run("diagnose", str(bad_utf8)).returncode == 1


def test_broken_user_rule_names_file_line_and_field(tmp_path):
    d = tmp_path / "pack" / "vllm"
    d.mkdir(parents=True)
    (d / "mine.yaml").write_text("title: Mine\nstatus: likely\nreferences: [vllm#5]\nmatch:\n  frams: [x]\ncause: c\nfixes: [{title: t}]\ntests: {}\n")
    r = run("diagnose", str(EXAMPLE), "--rules", str(tmp_path / "pack"))
    assert r.returncode == 2
    assert 'mine.yaml:5: match.frams: unknown field "frams" (did you mean "frames"?)' in r.stderr
    assert "Traceback" not in r.stderr


def test_explain_by_reference_url_and_id():
    a = run("explain", "vllm#34948")
    b = run("explain", "https://github.com/vllm-project/vllm/issues/34948")
    c = run("explain", "gdn-cudagraph-illegal-memory-access")
    assert a.returncode == b.returncode == c.returncode == 0
    assert a.stdout == b.stdout == c.stdout
    order = [a.stdout.index(h) for h in ("Status:", "Engines:", "Families:", "Cause:", "Fixes:", "Fixed in:", "References:")]
    assert order == sorted(order)
    j = json.loads(run("explain", "vllm#34948", "--format", "json").stdout)
    assert j["id"] == "gdn-cudagraph-illegal-memory-access" and "vllm#34948" in j["references"]
    # a cause inside a kernel library says which (a platform without it rules the cause out)
    lib = run("explain", "flashinfer-radix-topk-sampler-hang")
    assert "Libraries:  flashinfer\n" in lib.stdout and "Libraries:" not in a.stdout
    assert json.loads(run("explain", "flashinfer-radix-topk-sampler-hang", "--format", "json").stdout)["libraries"] == ["flashinfer"]


def test_explain_short_and_full_repository_names_find_the_same_rule():
    # rules cite other trackers as owner/name#N; users paste the short name or the URL
    short = run("explain", "verl#1368")
    full = run("explain", "verl-project/verl#1368")
    url = run("explain", "https://github.com/verl-project/verl/issues/1368")
    assert short.returncode == full.returncode == url.returncode == 0
    assert short.stdout == full.stdout == url.stdout and "verl-engine-broadcast-rank-mismatch" in short.stdout


def test_explain_unknown_key_suggests_close_ones():
    r = run("explain", "gdn-cudagraph-ilegal-memory-access")
    assert r.returncode == 2 and "Did you mean: gdn-cudagraph-illegal-memory-access" in r.stderr


def test_why_shows_every_clause():
    r = run("diagnose", str(EXAMPLE), "--why", "gdn-null-block-id-cudagraph-padding")
    lines = r.stdout.splitlines()
    assert lines[0].startswith("gdn-null-block-id-cudagraph-padding:")
    assert any(".message" in l and l.split()[0] in ("hit", "miss", "unknown") for l in lines)
    assert any(l.split()[1:2] == ["when.family"] for l in lines if l.strip()) and lines[-1].startswith("=> ")


def test_overrides_change_the_environment():
    r = run("diagnose", str(EXAMPLE), "--format", "json", "--engine-version", "0.99.0", "--gpu", "NVIDIA GeForce RTX 5090")
    env = json.loads(r.stdout)["environment"]
    assert env["engine_version"] == {"value": "0.99.0", "source": "option"}
    assert env["compute_capability"]["value"] == "12.0"


def test_rules_commands():
    assert run("rules", "lint").returncode == 0
    listing = run("rules", "list", "--format", "json")
    rows = json.loads(listing.stdout)
    assert any(r["id"] == "gdn-cudagraph-illegal-memory-access" for r in rows)


def test_rules_new_writes_a_skeleton_that_lint_flags(tmp_path):
    r = run("rules", "new", "vllm", "my-crash", "--root", str(tmp_path))
    assert r.returncode == 0 and (tmp_path / "vllm" / "my-crash.yaml").exists()
    r = run("rules", "lint", str(tmp_path / "vllm" / "my-crash.yaml"))
    assert r.returncode == 2 and "references" in r.stderr


def test_terminal_with_no_args_prints_usage_and_exits_2():
    pytest.importorskip("pty")
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # child: stdin is a terminal
        os.execv(sys.executable, [sys.executable, "-m", "qwen3doctor.cli", "diagnose"])
    out = b""
    try:
        while True:
            chunk = os.read(fd, 1024)
            if not chunk:
                break
            out += chunk
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2 and b"usage" in out


@pytest.mark.parametrize("args, says", [
    ([], "missing command: check, diagnose"),
    (["--bogus"], "no such option: --bogus"),
    (["bogus"], "no such command 'bogus'"),
    (["explain"], "missing argument"),
    (["diagnose", "--jobs", "abc", str(EXAMPLE)], "'abc' is not a valid int"),
    (["rules"], "missing command: lint, list, new, show, test"),
    (["rules", "list", "--frmat", "json"], "no such option: --frmat"),
    (["rules", "list", "--format"], "option '--format' requires an argument (see `qwen3doctor rules list --help`)"),
])
def test_usage_errors_are_one_line_and_exit_2(args, says):
    r = run(*args, stdin="")
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("qwen3doctor: ") and says in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr and r.stdout == ""
    assert "--help`)" in r.stderr or "missing command" in r.stderr


def test_usage_errors_never_import_click():
    """typer 0.2x vendors click and does not install it: the error path must not need it."""
    code = ("import sys, builtins; real = builtins.__import__\n"
            "def guard(name, *a, **k):\n"
            "    if name == 'click' or name.startswith('click.'):\n"
            "        raise ModuleNotFoundError(\"No module named 'click'\")\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = guard\n"
            "sys.argv = ['qwen3doctor', '--bogus']\n"
            "from qwen3doctor.cli import main\n"
            "main()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr == "qwen3doctor: no such option: --bogus (see `qwen3doctor --help`)\n", r.stderr


def test_shell_completion_script_install_and_answers(tmp_path):
    script = Path(sys.executable).with_name("qwen3doctor")
    if not script.exists():
        pytest.skip("no qwen3doctor console script beside this Python (install the project)")
    env = dict(os.environ, HOME=str(tmp_path), SHELL="/bin/bash")

    def from_bash(*args):
        # typer finds the shell among the calling processes, so the command runs under bash as a user's would
        # (a test runner left without a shell above it, e.g. one started in the background, has none)
        return subprocess.run(["bash", "-c", '"$0" "$@"; exit $?', str(script), *args],
                              capture_output=True, text=True, env=env, timeout=60)
    r = from_bash("--show-completion")
    assert r.returncode == 0 and "complete -o default -F _qwen3doctor_completion qwen3doctor" in r.stdout, r.stderr
    r = from_bash("--install-completion")
    assert r.returncode == 0 and (tmp_path / ".bash_completions" / "qwen3doctor.sh").exists(), r.stdout + r.stderr
    assert "source" in (tmp_path / ".bashrc").read_text()
    r = subprocess.run([str(script)], capture_output=True, text=True, timeout=60, env=dict(
        env, _QWEN3DOCTOR_COMPLETE="complete_bash", COMP_WORDS="qwen3doctor diagnose --fo", COMP_CWORD="2"))
    assert r.returncode == 0 and set(r.stdout.split()) == {"--format", "--force"}, r.stdout


def test_why_agrees_with_the_diagnosis_it_explains(tmp_path):
    # a finding the release index makes (an engine older than the model) is shown as such, not as "not reported"
    log = tmp_path / "old.log"
    log.write_text("vllm serve Qwen/Qwen3-VL-8B-Instruct\nvLLM API server version 0.10.1\nAttributeError: x\n")
    r = run("diagnose", str(log), "--why", "vllm-too-old-for-architecture")
    assert "by the release index" in r.stdout and "not reported" not in r.stdout
    # a pasted fragment the diagnosis reads as a crash sign is read the same way by --why
    frag = tmp_path / "frag.log"
    frag.write_text("Error retrieving safetensors: Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
                    "'/root/.cache/vllm/assets/model_streamer/3f2a9c1b'., retrying 1 of 2\n")
    r = run("diagnose", str(frag), "--why", "runai-streamer-staging-dir-missing-in-engine-process")
    assert "=> reported" in r.stdout


def test_rules_lint_and_test_take_a_rule_id_as_explain_does(tmp_path):
    """`rules test gdn-cudagraph-illegal-memory-access` tests that rule's file (its logs only, not every rule's);
    an id that no rule has is still an unknown path, one line and the rules exit code."""
    from ci_fixtures import run_fixed

    one = run_fixed("rules", "test", "gdn-cudagraph-illegal-memory-access", cwd=tmp_path)
    every = run_fixed("rules", "test", cwd=tmp_path)
    assert one.returncode == 0 and every.returncode == 0, one.stdout + one.stderr
    assert 0 < int(one.stdout.split()[0]) < int(every.stdout.split()[0]), (one.stdout, every.stdout)
    lint = run_fixed("rules", "lint", "gdn-cudagraph-illegal-memory-access", cwd=tmp_path)
    assert lint.returncode == 0 and lint.stderr.strip() == "qwen3doctor: 1 rule(s) OK", lint.stderr
    bad = run_fixed("rules", "test", "no-such-rule-id", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("no-such-rule-id: no such rules folder or file"), bad.stderr
