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
