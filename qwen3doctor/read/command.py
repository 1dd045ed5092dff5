"""One reader of a serve command: its launcher, its model, its flags and what each flag takes.

Every part of the tool that looks at a serve command (the environment read from a log, the fixes that
repeat the user's flags, `check`, the bug report) reads it here, so a switch such as `--enforce-eager`
written before the model (`vllm serve --enforce-eager Qwen/Qwen3-8B`) never swallows the model as its
value in one place and not in another.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

# Short and old spellings of flags, to their canonical long form.
FLAG_ALIASES = {
    "-tp": "--tensor-parallel-size", "-pp": "--pipeline-parallel-size", "-dp": "--data-parallel-size",
    "-q": "--quantization", "--tp": "--tp-size", "--dp": "--dp-size", "--pp": "--pp-size", "--ep": "--ep-size",
    "--model-path": "--model-path", "-O": "--compilation-config",
}
# Switches: flags that take no value. Besides these, every `--enable-*`, `--disable-*` and `--no-*` flag of
# either engine is a switch (argparse store_true / BooleanOptionalAction).
SWITCHES = frozenset({
    "--enforce-eager", "--trust-remote-code", "--skip-tokenizer-init", "--async-scheduling", "--headless",
    "--language-model-only", "--use-v2-block-manager", "--kv-sharing-fast-prefill", "--allow-credentials",
    "--calculate-kv-scales", "--fully-sharded-loras", "--ray-workers-use-nsight", "--return-tokens-as-token-ids",
    "--use-tqdm-on-load", "--omni", "--encoder-only", "--skip-server-warmup", "--log-requests", "--show-time-cost",
    "--delete-ckpt-after-loading", "--allow-auto-truncate", "--keep-mm-feature-on-device",
    "--disaggregation-decode-enable-radix-cache",
})
SWITCH_PREFIXES = ("--enable-", "--disable-", "--no-")
BOOL_WORDS = frozenset({"true", "false"})  # `--enable-chunked-prefill True`, as old vLLM releases took it
# The words that start a server, before its first flag or model.
LAUNCHERS = frozenset({"vllm", "serve", "-m", "sglang.launch_server", "vllm.entrypoints.openai.api_server",
                       "vllm.entrypoints.cli.main", "sglang", "sgl-omni", "sglang.cli", "sglang_router.launch_server", "sglang.bench_latency",
                       "sglang.bench_one_batch", "sglang.bench_one_batch_server", "sglang.bench_offline_throughput"})
_PYTHON = re.compile(r"python[\d.]*")
# a model is a path or an id (`Qwen/Qwen3-8B`, `/models/qwen3`, `qwen3-8b`): a bare word of letters is prose, and so is
# a word that ends a clause (`starts,`, `crashes:`, `错误：`) or one with CJK prose in it and no folder (a Hub id is
# ASCII): "vllm serve 启动的时候提示错误：" (Qwen3#1349), "vllm serve starts, the first request kills it"
_PROSE_WORD = re.compile(r"[a-z]+|[^\x00-\x7f]+|.*[,;:!?，；：。！？]|[^/\\]*[^\x00-\x7f][^/\\]*")
_NUMBER = re.compile(r"-\d+(?:\.\d+)?")


def canonical_flag(flag: str) -> str:
    flag = flag.split("=", 1)[0]
    flag = FLAG_ALIASES.get(flag, flag)
    return flag.replace("_", "-") if flag.startswith("--") else flag


def is_switch(flag: str) -> bool:
    flag = canonical_flag(flag)
    return flag in SWITCHES or flag.startswith(SWITCH_PREFIXES)


def is_flag(token: str) -> bool:
    return token.startswith("-") and len(token) > 1 and not _NUMBER.fullmatch(token)


# a Windows path (`C:\models\Qwen3-8B`, `\\server\share`): its backslashes separate folders, they escape nothing
_WINDOWS_PATH = re.compile(r"(?<![\w\\])(?:[A-Za-z]:\\|\\\\\w)")


def tokens_of(command: str) -> list[str]:
    command = _without_comment(command)
    if "\\" in command and _WINDOWS_PATH.search(command):
        command = re.sub(r"\\(?=[\w.$-])", r"\\\\", command)
    try:
        return shlex.split(command, comments=False)
    except ValueError:
        return command.split()


def _without_comment(command: str) -> str:
    """The command without a shell comment (`--chunked-prefill-size 8192  # the default`): a `#` that starts a word
    outside quotes ends it, as in the shell (shlex's own comment handling also ends a word at a `#` inside it)."""
    if "#" not in command:
        return command
    quote, i = None, 0
    while i < len(command):
        ch = command[i]
        if ch == "\\" and quote != "'":
            i += 2  # an escaped character, quote or `#` alike
            continue
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or command[i - 1].isspace()):
            return command[:i].rstrip()
        i += 1
    return command


@dataclass(frozen=True)
class Flag:
    name: str  # canonical (`-tp` -> --tensor-parallel-size, `--max_model_len` -> --max-model-len)
    value: str | None  # None: a switch, or a flag whose value is missing
    start: int  # its token's index
    end: int  # one past its last token (its value's, when the value is the next token)


@dataclass(frozen=True)
class ServeCommand:
    tokens: tuple[str, ...]
    engine: str  # vllm | sglang
    launcher_end: int  # the tokens before this index start the server (`vllm serve`, `python -m sglang.launch_server`)
    model: str | None = None
    model_index: int | None = None  # the model's token when given as a positional (`vllm serve MODEL`)
    flags: tuple[Flag, ...] = field(default=())
    prose: bool = False  # words of a sentence follow the launcher ("vllm serve fails with ..."): no launch was pasted

    def values(self) -> dict[str, str]:
        """Canonical flag -> its value ('' for a switch); a flag given twice keeps its last value."""
        return {f.name: f.value if f.value is not None else "" for f in self.flags}

    def arguments(self) -> list[str]:
        """The tokens after the launcher without the model (positional, --model or --model-path)."""
        drop = {self.model_index} if self.model_index is not None else set()
        for f in self.flags:
            if f.name in ("--model", "--model-path"):
                drop.update(range(f.start, f.end))
        return [t for i, t in enumerate(self.tokens) if i >= self.launcher_end and i not in drop]


def read_command(command: str | list[str], *, launcher: bool = True) -> ServeCommand:
    """The command's parts; with launcher=False, tokens that are only arguments (no launcher, no model)."""
    tokens = tuple(tokens_of(command) if isinstance(command, str) else command)
    lowered = " ".join(tokens[:4]).lower()
    engine = "sglang" if "sglang" in lowered or "sgl-omni" in lowered else "vllm"
    launcher_end = _launcher_end(tokens) if launcher else 0
    # (vLLM's CLI module run directly takes the model first: `python -m vllm.entrypoints.cli.main <model> ...`)
    positional_model = "serve" in tokens[:launcher_end] or "vllm.entrypoints.cli.main" in tokens[:launcher_end]
    i = launcher_end
    flags: list[Flag] = []
    model, model_index, prose = None, None, False
    while i < len(tokens):
        tok = tokens[i]
        if is_flag(tok):
            name = canonical_flag(tok)
            start = i
            if "=" in tok:
                value = tok.split("=", 1)[1]
            elif i + 1 < len(tokens) and not is_switch(name) and not is_flag(tokens[i + 1]):
                value = tokens[i + 1]
                i += 1
            elif i + 1 < len(tokens) and is_switch(name) and tokens[i + 1].lower() in BOOL_WORDS:
                value = tokens[i + 1]
                i += 1
            else:
                value = None
            flags.append(Flag(name, value, start, i + 1))
            if name in ("--model", "--model-path") and value:
                model = value
        elif positional_model and model_index is None and model is None:
            if _PROSE_WORD.fullmatch(tok):
                prose = True
                break  # prose after the words `vllm serve` ("vllm serve fails with ...", "vllm serve 启动 ..."): no launch
            model, model_index = tok, i
        i += 1
    return ServeCommand(tokens, engine, launcher_end, model, model_index, tuple(flags), prose)


def _launcher_end(tokens: tuple[str, ...]) -> int:
    """One past the last launcher word before the first flag (`uv run vllm serve`, `python3 -m sglang.launch_server`);
    after `serve`, a bare word is the model, not part of the launcher."""
    j = end = 0
    while j < len(tokens):
        tok = tokens[j]
        if tok == "-m" and j + 1 < len(tokens):
            j = end = j + 2
            continue
        if is_flag(tok):
            break
        base = tok.rsplit("/", 1)[-1]
        if base in LAUNCHERS or _PYTHON.fullmatch(base):
            end = j + 1
        elif "serve" in tokens[:j]:
            break
        j += 1
    return end


def split_own_options(tokens: list[str], own: dict[str, int]) -> tuple[list[str], dict]:
    """qwen3doctor's own options written among a planned command's tokens (after `--`; no engine has them):
    taken out. `own` says whether each takes a value (1) or not (0); `--env` may repeat."""
    rest, ours = [], {}
    i = 0
    while i < len(tokens):
        name, eq, value = tokens[i].partition("=")
        if name in own:
            if own[name] and not eq:
                value = tokens[i + 1] if i + 1 < len(tokens) else ""
                i += 1
            if name == "--env":
                ours.setdefault(name, []).append(value)
            else:
                ours[name] = value
        else:
            rest.append(tokens[i])
        i += 1
    return rest, ours


def without_flags(arguments: str, names: set[str]) -> str:
    """Serve arguments without some flags and the values they take."""
    cmd = read_command(arguments, launcher=False)
    names = {canonical_flag(n) for n in names}
    drop = {i for f in cmd.flags if f.name in names for i in range(f.start, f.end)}
    return shlex.join([t for i, t in enumerate(cmd.tokens) if i not in drop])
