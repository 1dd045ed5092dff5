"""Redaction: planted secrets of every kind are removed (and reported for masking), ordinary log text is
left alone, and a redacted log diagnoses exactly like the original - on every bundled example log."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from conftest import EXAMPLES, in_workers, worker_catalog
from qwen3doctor.judge.pipeline import diagnose_text
from qwen3doctor.judge.fingerprint import of_report
from qwen3doctor.redact import Redactor, redact_object, redact_text, scan_secrets

HF = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567890"
OPENAI = "sk-proj-4fG7hJ9kL2mN5pQ8rS1tU3vW6xY0zAbC"
ANTHROPIC = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
GITHUB = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123XYZ"
AZURE = "Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy"
URL_PASSWORD = "s3cr3t-Pa55"
API_FLAG = "local-9f8e7d6c5b4a3f2e1d0c"
DB_PASSWORD = "hunter2"

PLANTED = {
    "hf-token": (f"(APIServer pid=1) INFO export HF_TOKEN={HF}", HF),
    "openai": (f"(APIServer pid=1) INFO non-default args: {{'api_key': ['{OPENAI}']}}", OPENAI),
    "anthropic": (f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC),
    "github": (f"git clone https://x-access-token:{GITHUB}@github.com/org/repo", GITHUB),
    "aws-id": (f"aws_access_key_id = {AWS_ID}", AWS_ID),
    "aws-secret": (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET),
    "google": (f"GOOGLE_API_KEY: {GOOGLE}", GOOGLE),
    "slack": (f"notify via {SLACK}", SLACK),
    "bearer": (f"curl -H 'Authorization: Bearer {BEARER}' http://10.0.0.5:8000/v1/models", BEARER),
    "azure": (f"DefaultEndpointsProtocol=https;AccountName=logs;AccountKey={AZURE};EndpointSuffix=core.windows.net", AZURE),
    "url-password": (f"pip install --index-url https://ci:{URL_PASSWORD}@pypi.internal.example/simple vllm", URL_PASSWORD),
    "api-key-flag": (f"vllm serve Qwen/Qwen3-8B --api-key {API_FLAG} --port 8000", API_FLAG),
    "password-assignment": (f"DB_PASSWORD={DB_PASSWORD}", DB_PASSWORD),
}


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_planted_secret_is_removed_and_reported(kind):
    line, secret = PLANTED[kind]
    r = Redactor()
    out = r.line(line)
    assert secret not in out, out
    assert secret in r.secrets
    assert r.line(out) == out  # idempotent


def test_the_tags_keep_the_shape_of_the_line():
    assert redact_text(PLANTED["api-key-flag"][0]) == "vllm serve Qwen/Qwen3-8B --api-key <api-key> --port 8000"
    assert redact_text(PLANTED["url-password"][0]) == "pip install --index-url https://ci:<password>@pypi.internal.example/simple vllm"
    assert redact_text("Authorization: Bearer " + BEARER) == "Authorization: Bearer <token>"


def test_emails_and_home_paths():
    line = ('(Worker_TP0 pid=7) ERROR   File "/home/alice.smith/venv/lib/python3.12/site-packages/vllm/x.py", line 3, '
            'in f; contact alice.smith@corp.example.com; C:\\Users\\Bob\\models; /Users/carol/models/Qwen3-8B')
    out = redact_text(line)
    assert "alice" not in out and "Bob" not in out and "carol" not in out
    assert '"/home/<user>/venv/lib/python3.12/site-packages/vllm/x.py", line 3, in f' in out
    assert "contact <email>;" in out and "C:\\Users\\<user>\\models" in out and "/Users/<user>/models/Qwen3-8B" in out
    # not addresses: git remotes, version pins
    assert redact_text("git@github.com:org/repo.git torch@2.9.1") == "git@github.com:org/repo.git torch@2.9.1"


def test_prompts_from_request_logs():
    vllm = ("(APIServer pid=1) INFO 03-02 10:15:22 [logger.py:41] Received request chatcmpl-0f3a9c: prompt: "
            "'<|im_start|>user\\nMy SSN is 078-05-1120, it\\'s private<|im_end|>', params: SamplingParams(n=1, "
            "temperature=0.7), prompt_token_ids: [151644, 872, 198], lora_request: None.")
    out = redact_text(vllm)
    assert "078-05-1120" not in out and "151644" not in out
    assert "prompt: '<prompt>', params: SamplingParams(n=1, temperature=0.7), prompt_token_ids: [<prompt>]" in out
    sglang = "[2025-05-01 10:00:00] Receive: obj=GenerateReqInput(text='tell me the launch codes', sampling_params={'max_new_tokens': 8})"
    assert "launch codes" not in redact_text(sglang) and "sampling_params={'max_new_tokens': 8}" in redact_text(sglang)
    out_line = "(APIServer pid=1) INFO [logger.py:60] Generated response chatcmpl-1: output: 'the secret plan is ...', output_token_ids: [1, 2]"
    assert "secret plan" not in redact_text(out_line)
    # a prompt cut by the line cap has no closing quote
    assert "half a pro" not in redact_text("INFO Received request cmpl-9: prompt: 'half a prompt that never ends")
    assert "078-05-1120" in redact_text(vllm, prompts=False)


def test_hosts_only_when_asked():
    line = ("(APIServer pid=1) INFO:     10.12.0.7:52214 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK; "
            "MASTER_ADDR=gpu-node-17.cluster.internal; root@node-07:/workspace; http://inference.corp.internal:8000/v1 "
            "vLLM API server version 0.10.1.1 on 127.0.0.1 kernel 6.6.87.2-microsoft")
    assert redact_text(line) == line
    out = redact_text(line, hosts=True)
    assert "10.12.0.7" not in out and "gpu-node-17" not in out and "node-07" not in out and "inference.corp" not in out
    assert "<ip>:52214" in out and "MASTER_ADDR=<host>" in out and "root@<host>:/workspace" in out
    assert "http://<host>:8000/v1" in out
    assert "version 0.10.1.1" in out and "127.0.0.1" in out and "6.6.87.2-microsoft" in out  # versions and loopback stay
    assert redact_text("see https://docs.vllm.ai/en/latest and https://github.com/x/y", hosts=True).count("<host>") == 0


def test_a_gpu_librarys_four_part_version_in_a_package_listing_is_no_address():
    listing = ("nvidia-cudnn-cu12           9.7.1.26\n"
               "nvidia-nccl-cu12            2.21.5.1   pypi_0    pypi\n"
               "node-17                     10.12.0.7\n"
               "MASTER_ADDR=9.7.1.26 torchrun ...\n")
    out = redact_text(listing, hosts=True)
    assert "9.7.1.26\n" in out and "2.21.5.1" in out  # the versions the diagnosis reads stay
    assert "10.12.0.7" not in out and "MASTER_ADDR=<ip>" in out  # an address in any other row still goes


def test_ordinary_engine_lines_are_left_alone():
    lines = [
        "[2025-05-01 10:00:00 TP0] Decode batch, #running-req: 21, #full token: 348160, full token usage: 0.13, cuda graph: True",
        "(EngineCore_DP0 pid=312) INFO [core.py:93] Initializing a V1 LLM engine (v0.16.0rc2.dev294+g6a7b85d94) with config: "
        "model='Qwen/Qwen3.5-397B-A17B-FP8', tokenizer='Qwen/Qwen3.5-397B-A17B-FP8', max_num_batched_tokens=8192",
        "ValueError: num_special_tokens=3, eos_token_id=151645, pad_token=<|endoftext|>, max_tokens=1024",
        "KeyError: 'model.layers.3.mlp.experts.w2_weight'",
        "vllm serve Qwen/Qwen3-8B --tokenizer-mode auto --max-num-batched-tokens 8192 --secret-sauce none",
    ]
    for line in lines:
        assert redact_text(line) == line, line


def test_redacting_a_report_keeps_its_types():
    from qwen3doctor.knowledge.catalog import load_catalog
    from qwen3doctor.knowledge.discover import rule_dirs
    from qwen3doctor.model import Verdict

    report = diagnose_text(PLANTED["hf-token"][0] + "\nRuntimeError: token " + HF + " rejected\n", load_catalog(rule_dirs()))
    r = Redactor()
    red = redact_object(report, r)
    assert red.verdict is Verdict.UNEXPLAINED and HF not in json.dumps(red.crash.message) and HF in r.secrets


def test_scan_secrets_reads_a_whole_stream_in_blocks(monkeypatch):
    import qwen3doctor.redact as redact

    monkeypatch.setattr(redact, "CHUNK", 64)  # secrets across block boundaries
    body = "".join(f"INFO line {i} ordinary text\n" for i in range(50))
    data = (body + PLANTED["hf-token"][0] + "\n" + body + PLANTED["bearer"][0] + "\n" + body + "tail " + GITHUB).encode()
    assert scan_secrets(io.BytesIO(data)) == {HF, BEARER, GITHUB}


EXAMPLE_LOGS = sorted(EXAMPLES.glob("*/*.log"))


def _signature(report):
    fp = of_report(report)
    return (report.verdict, [f.rule_id for f in report.findings], [f.score for f in report.findings],
            [f.confidence for f in report.findings], report.crash and report.crash.crash_class,
            report.crash and report.crash.exception_type, fp and fp.id)


def _redacted_signature(job: tuple[str, bool]):
    """The signature of an example log's diagnosis once redacted (in `in_workers`), or None when the redactor left
    the log as it was (the same text, the same diagnosis: only the logs it changed are compared)."""
    path, hosts = job
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    redacted = Redactor(hosts=hosts).text(text)
    return None if redacted == text else _signature(diagnose_text(redacted, worker_catalog(), Path(path).name))


@pytest.mark.parametrize("hosts", [False, True], ids=["default", "hosts"])
def test_a_redacted_log_diagnoses_like_the_original_on_every_example_log(catalog, example_reports, hosts):
    assert len(EXAMPLE_LOGS) > 100
    got = in_workers(_redacted_signature, [(str(p), hosts) for p in EXAMPLE_LOGS], catalog)
    changed = [(path, sig) for path, sig in zip(EXAMPLE_LOGS, got) if sig is not None]
    assert len(changed) >= 20  # the examples hold tokens, keys, addresses and hostnames for the redactor to change
    differ = [path.name for path, sig in changed if _signature(example_reports[path]) != sig]
    assert not differ, differ
