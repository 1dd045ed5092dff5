"""Write a realistic vLLM server log of a given size, seeded, ending in a real crash.

    python bench/gen_log.py OUT.log --size 1G [--seed 7]

The body is request traffic as vLLM prints it with request logging on: `Received request` lines with the
prompt text (some prompts talk about errors, exceptions and crashes, a few paste code with an exception
name), `Added request` lines, HTTP access lines, and the engine's periodic throughput lines. The start-up
lines and the crash at the end come from examples/logs/vllm/qwen3.5-gdn-prefill-ima-tp8.log.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "logs" / "vllm" / "qwen3.5-gdn-prefill-ima-tp8.log"

WORDS = (
    "the a to of and in is it you that for on with this as be at by not are from or have an they which one "
    "model server request token batch latency answer question summary write explain code function python "
    "list table data file user customer order invoice report translate english chinese french email reply "
    "meeting schedule plan travel hotel recipe dinner weather story poem essay review product price market "
    "error errors bug crash exception failed failure warning retry timeout memory kernel driver install "
    "version update config setting option value number string array loop class method test debug fix"
).split()
PROMPT_TEMPLATES = (
    "Can you {w} the {w} {w} for me?",
    "Why does my {w} {w} keep failing with an error when I {w} the {w}?",
    "Write a short {w} about {w} and {w}.",
    "Summarise this {w}: {s}",
    "My script prints an error: {w} {w} not found. How do I fix it?",
    "Translate to French: {s}",
    "Explain the difference between {w} and {w} in simple terms.",
    "I got an exception in my {w} {w}, here is the log: {s}",
)
CODE_SNIPPETS = (
    "try:\\n    x = d[key]\\nexcept KeyError:\\n    x = None",
    "raise ValueError('bad value')",
    "if err != nil { return fmt.Errorf(\\\"open: %w\\\", err) }",
)
SAMPLING = (
    "SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature={t}, "
    "top_p=0.8, top_k=20, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], "
    "include_stop_str_in_output=False, ignore_eos=False, max_tokens={m}, min_tokens=0, logprobs=None, "
    "prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, "
    "truncate_prompt_tokens=None, guided_decoding=None, extra_args=None)"
)


def split_example() -> tuple[str, str]:
    text = EXAMPLE.read_text(encoding="utf-8")
    cut = text.index("(Worker_TP4 pid=1187) ERROR")
    return text[:cut], text[cut:]


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def prompt(rng: random.Random) -> str:
    tpl = rng.choice(PROMPT_TEMPLATES)
    out = re.sub(r"\{w\}", lambda _: rng.choice(WORDS), tpl)
    out = out.replace("{s}", " ".join(sentence(rng, rng.randint(6, 30)) for _ in range(rng.randint(1, 6))))
    if rng.random() < 0.002:
        out += "\\n```\\n" + rng.choice(CODE_SNIPPETS) + "\\n```"
    return out


def traffic(rng: random.Random, clock: list[int]) -> str:
    clock[0] += rng.randint(0, 3)
    s = clock[0]
    ts = f"03-02 {10 + s // 3600 % 12:02d}:{s // 60 % 60:02d}:{s % 60:02d}"
    rid = "chatcmpl-%032x" % rng.getrandbits(128)
    lines = [
        f"(APIServer pid=1) INFO {ts} [logger.py:41] Received request {rid}: prompt: '<|im_start|>system\\nYou are a "
        f"helpful assistant.<|im_end|>\\n<|im_start|>user\\n{prompt(rng)}<|im_end|>\\n<|im_start|>assistant\\n', "
        f"params: {SAMPLING.format(t=rng.choice((0.6, 0.7, 1.0)), m=rng.choice((512, 1024, 4096)))}, "
        f"prompt_token_ids: None, prompt_embeds shape: None, lora_request: None.",
        f"(APIServer pid=1) INFO {ts} [async_llm.py:270] Added request {rid}.",
        f'(APIServer pid=1) INFO:     10.12.{rng.randint(0, 9)}.{rng.randint(2, 250)}:{rng.randint(30000, 65000)} - '
        f'"POST /v1/chat/completions HTTP/1.1" 200 OK',
    ]
    if rng.random() < 0.05:
        lines.append(
            f"(APIServer pid=1) INFO {ts} [loggers.py:123] Engine 000: Avg prompt throughput: {rng.uniform(500, 50000):.1f} "
            f"tokens/s, Avg generation throughput: {rng.uniform(100, 5000):.1f} tokens/s, Running: {rng.randint(1, 256)} reqs, "
            f"Waiting: {rng.randint(0, 40)} reqs, GPU KV cache usage: {rng.uniform(0, 95):.1f}%, "
            f"Prefix cache hit rate: {rng.uniform(0, 90):.1f}%"
        )
    return "\n".join(lines) + "\n"


def parse_size(text: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)i?B?", text.strip(), re.I)
    if not m:
        raise SystemExit(f"bad size {text!r}")
    return int(float(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()])


def write_log(out: Path, size: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    head, crash = split_example()
    clock = [0]
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(head)
        written = len(head.encode())
        budget = size - len(crash.encode())
        block: list[str] = []
        block_bytes = 0
        while written < budget:
            chunk = traffic(rng, clock)
            block.append(chunk)
            block_bytes += len(chunk)
            if block_bytes > 1 << 20 or written + block_bytes >= budget:
                fh.write("".join(block))
                written += block_bytes
                block, block_bytes = [], 0
        fh.write(crash)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--size", default="1G")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    write_log(args.out, parse_size(args.size), args.seed)
    print(f"{args.out}: {args.out.stat().st_size} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
