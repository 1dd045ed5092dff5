"""Redaction of what must not be shared: secrets, personal data and prompts, line by line.

    from qwen3doctor.redact import Redactor, redact_text
    r = Redactor(hosts=False)
    clean = r.line(text)          # one line; r.secrets collects the secret values it removed
    clean = redact_text(text)     # a whole text, convenience

Every replacement is a short bracketed tag (`<hf-token>`, `<email>`, `<user>`, ...) that keeps the shape of
the line: the per-line prefixes, traceback frames, exception lines, serve commands and version strings a
diagnosis reads stay intact, so a redacted log diagnoses the same as the original (tested on every bundled
example log). The tags contain no quote or backslash, so JSON stays valid when a rendered report is
redacted too. Redacting twice changes nothing.

What is removed:
  - Hugging Face tokens (hf_...), OpenAI / Anthropic style keys (sk-...), GitHub tokens (ghp_, github_pat_),
    Slack tokens, Google API keys (AIza...), AWS access key ids (AKIA...) and secret keys, Azure account keys,
    `--api-key X`, `api_key=X`, `token=X`, `secret=X`, `password=X` style assignments, `Bearer X`;
  - passwords in URLs (`https://user:pass@host` keeps the user, drops the password);
  - e-mail addresses;
  - user names in home paths (/home/alice, /Users/alice, C:\\Users\\alice);
  - prompts and generated text echoed by request logging (vLLM `Received request ...: prompt: '...'`,
    `prompt_token_ids: [...]`, `Generated response ...: output: '...'`, SGLang `Receive: obj=...(text='...')`);
  - optionally (hosts=True) IP addresses other than loopback / unspecified, and host names in URLs,
    `host=` / `hostname=` / `MASTER_ADDR=` assignments and `user@host` pairs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from enum import Enum

TAG = "<{}>"

# --- secrets: the value itself is sensitive; found values are reported (for ::add-mask::) ----------------
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("hf-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("api-key", re.compile(r"\bsk-(?:ant-|proj-|or-v1-)?[A-Za-z0-9_\-]{20,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
)
# `name = value` / `name: value` / `"name": "value"` / `--name value` / `NAME=value` where the name says the
# value is secret. The value must look like one (see _looks_secret): `token usage: 0.13` is traffic.
_SECRET_NAME = (r"(?:[a-z0-9]+[_\-])*(?:api[_\-]?key|access[_\-]?key|secret(?:[_\-]?access)?[_\-]?key|secret|token"
                r"|passw(?:or)?d|pwd|account[_\-]?key|client[_\-]?secret|auth[_\-]?token)(?:[_\-][a-z0-9]+)*")
_ASSIGNED = re.compile(
    r"(?i)(?P<name>(?<![\w\-])(?:--" + _SECRET_NAME + r"|" + _SECRET_NAME + r"))"
    r"(?P<sep>[\"']?\s*[=:]\s*[\"']?|(?<=[a-z0-9])\s+(?=\S))"
    r"(?P<value>[^\s\"',;)\]}<>]{3,})"
)
# names that look secret but hold ordinary words in engine logs
_NOT_SECRET_NAMES = re.compile(
    r"(?i)(?:^|[_\-])(?:max|num|min|total|per|special|bos|eos|pad|unk|sep|cls|mask|stop|prompt|input|output|"
    r"draft|chunk|batch|first|last|new|generated|cached|full|image|video|audio|tool|thinking|reasoning|start|end)(?:[_\-]|$)"
    r"|tokens?[_\-]?(?:id|ids|len|length|count|usage|budget|limit|type|s)\b"
    r"|^(?:--)?(?:tokenizer|token_to_kv)"
)
_BEARER = re.compile(r"(?i)\b(Bearer|Basic|Token)\s+([A-Za-z0-9_\-.=+/]{12,})")
_URL_PASSWORD = re.compile(r"(?P<scheme>\b[a-z][a-z0-9+.\-]*://)(?P<user>[^\s:/@\"'<>]+):(?P<password>[^\s@/\"'<>]+)@")
_AZURE_KEY = re.compile(r"(?i)(AccountKey|SharedAccessSignature|sig)=([A-Za-z0-9%+/=]{16,})")

# --- personal data ----------------------------------------------------------------------------------------
_EMAIL = re.compile(r"(?<![\w.+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b")
_HOME = re.compile(r"(?P<pre>/home/|/Users/|[A-Za-z]:\\{1,2}Users\\{1,2})(?P<user>[^\s/\\\"'<>:]+)")
_NOT_USERS = {"<user>", "runner", "ubuntu", "user", "shared", "Shared", "Public", "Default", "linuxbrew"}

# --- prompts from request logging -------------------------------------------------------------------------
# A quoted Python string literal ('...' or "..." with escapes), as printed by repr().
_QUOTED = r"""(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_PROMPT_FIELDS = re.compile(
    r"(?P<key>\b(?:prompt|output|text|input_text|output_text|messages|content)(?::\s|=))(?P<value>" + _QUOTED + r")"
)
_TOKEN_IDS = re.compile(r"(?P<key>\b(?:prompt_token_ids|input_ids|output_ids|token_ids)(?::\s|=))(?P<value>\[[^\]]*\]?)")
_UNTERMINATED = re.compile(r"(?P<key>\b(?:prompt|output|text)(?::\s|=))(?P<value>['\"].*)$")
_REQUEST_LINE = re.compile(
    r"Received request |Generated response |Receive: obj=|Finish: obj=|Added request |GenerateReqInput\(|"
    r"ChatCompletionRequest\(|CompletionRequest\(|Request\(request_id="
)

# --- hosts (optional) -------------------------------------------------------------------------------------
# A dotted quad that is not a version: first octet 1-255, not after `version ` / `==` / `v`, not followed by
# `-` / `+` / `.` (kernel and package versions such as 6.6.87.2-microsoft or 0.9.0.1 stay).
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(r"(?<![\w.=+\-])(?<!version )(?!0\.)" + _OCTET + r"(?:\." + _OCTET + r"){3}(?![\w.+\-]*\w)(?![+\-])")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){3,7}[0-9a-fA-F]{1,4}(?![\w:])")
_KEEP_IPS = {"127.0.0.1", "0.0.0.0", "255.255.255.255"}
# ... nor a package's version in a `pip list` / `conda list` row, where the CUDA libraries carry four parts
# (`nvidia-cudnn-cu12           9.7.1.26`): the name of a package of the GPU stack right before it, spaces between
_PACKAGE_ROW = re.compile(r"(?i)(?:^|\s)(?:nvidia|cuda|cudnn|cublas|nccl|torch|triton|flashinfer|sglang|vllm|transformers|"
                          r"deep[-_]?gemm|deep[-_]?ep|tensorrt)[\w.\-]*[ \t]+$")
_URL_HOST = re.compile(r"(?P<pre>\b[a-z][a-z0-9+.\-]*://(?:[^\s/@\"'<>]+@)?)(?P<host>[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*)")
_HOST_ASSIGN = re.compile(r"(?i)(?P<pre>\b(?:host|hostname|host_name|node|nodename|master_addr|MASTER_ADDR|dist_init_addr)[\"']?\s*[=:]\s*[\"']?)(?P<host>[A-Za-z0-9][A-Za-z0-9\-.]*)")
_USER_AT_HOST = re.compile(r"(?P<pre>\b[a-z_][a-z0-9_\-]*@)(?P<host>[A-Za-z][A-Za-z0-9\-]*(?:\.[A-Za-z0-9\-]+)*)(?=[:\s]|$)")
_PUBLIC_HOSTS = {"localhost", "none", "null", "true", "false", "0.0.0.0", "127.0.0.1"}
# public sites a log links to (documentation, registries): not the user's infrastructure
_PUBLIC_DOMAINS = (
    "github.com", "githubusercontent.com", "github.io", "huggingface.co", "hf.co", "hf-mirror.com", "pypi.org",
    "pythonhosted.org", "python.org", "pytorch.org", "nvidia.com", "pydantic.dev", "vllm.ai", "sglang.ai",
    "readthedocs.io", "docker.io", "docker.com", "ghcr.io", "nvcr.io", "modelscope.cn", "anaconda.org", "conda.io",
    "flashinfer.ai", "qwen.ai", "qwenlm.github.io", "aliyuncs.com", "amd.com", "microsoft.com",
)


def _public(host: str) -> bool:
    h = host.lower()
    return h in _PUBLIC_HOSTS or any(h == d or h.endswith("." + d) for d in _PUBLIC_DOMAINS)


@dataclass
class Redactor:
    """Redacts lines; remembers the secret values it removed (`secrets`) and counts what it changed (`counts`).

    hosts: also replace IP addresses and host names (off by default: they help a diagnosis and are often
    not sensitive). prompts: replace prompts and outputs echoed by request logging (on by default)."""

    hosts: bool = False
    prompts: bool = True
    secrets: set[str] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)

    def _count(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def _secret(self, kind: str, value: str) -> str:
        if not value.startswith("<"):
            self.secrets.add(value)
            self._count(kind)
        return TAG.format(kind)

    def line(self, text: str) -> str:
        """One line (or any short text) with everything sensitive replaced by tags."""
        if not text:
            return text
        if self.prompts and _REQUEST_LINE.search(text):
            text = self._prompts(text)
        for kind, pattern in _SECRET_PATTERNS:
            text = pattern.sub(lambda m, k=kind: self._secret(k, m.group(0)), text)
        text = _URL_PASSWORD.sub(self._url_password, text)
        text = _BEARER.sub(lambda m: f"{m.group(1)} {self._secret('token', m.group(2))}", text)
        text = _AZURE_KEY.sub(lambda m: f"{m.group(1)}={self._secret('cloud-key', m.group(2))}", text)
        text = _ASSIGNED.sub(self._assigned, text)
        if "@" in text:
            text = _EMAIL.sub(self._email, text)
        if "/home/" in text or "/Users/" in text or "Users\\" in text:
            text = _HOME.sub(self._home, text)
        if self.hosts:
            text = self._hosts(text)
        return text

    def text(self, text: str) -> str:
        """A multi-line text, line by line (line ends kept)."""
        return "".join(self.line(part[:-1]) + "\n" if part.endswith("\n") else self.line(part)
                       for part in text.splitlines(keepends=True))

    def lines(self, lines: Iterable[str]) -> Iterable[str]:
        for line in lines:
            yield self.line(line)

    # --- replacements -------------------------------------------------------------------------------------
    def _url_password(self, m: re.Match[str]) -> str:
        password = m.group("password")
        if password.startswith("<") or password.isdigit():  # host:port@ is not a password
            return m.group(0)
        return f"{m.group('scheme')}{m.group('user')}:{self._secret('password', password)}@"

    def _assigned(self, m: re.Match[str]) -> str:
        name, value = m.group("name"), m.group("value")
        kind = "password" if re.search(r"(?i)passw|pwd", name) else "api-key" if re.search(r"(?i)key", name) else "token"
        if m.group("sep").isspace() and not name.startswith("--"):
            return m.group(0)  # `token abc` in prose; only a command-line flag takes its value after a space
        if value.startswith("<") or _NOT_SECRET_NAMES.search(name) or not _looks_secret(kind, value):
            return m.group(0)
        return f"{name}{m.group('sep')}{self._secret(kind, value)}"

    def _email(self, m: re.Match[str]) -> str:
        addr = m.group(0)
        domain = addr.rsplit("@", 1)[1].lower()
        if domain.endswith((".py", ".so", ".cu", ".cpp", ".h")) or (addr.split("@")[0] == "git" and _public(domain)):
            return addr  # torch@2.9.1 style pins and git@github.com are not addresses
        self._count("email")
        return TAG.format("email")

    def _home(self, m: re.Match[str]) -> str:
        user = m.group("user")
        if user in _NOT_USERS:
            return m.group(0)
        self._count("home-path")
        return m.group("pre") + TAG.format("user")

    def _prompts(self, text: str) -> str:
        def sub(m: re.Match[str]) -> str:
            self._count("prompt")
            return m.group("key") + "'<prompt>'"

        new = _PROMPT_FIELDS.sub(sub, text)
        new = _TOKEN_IDS.sub(lambda m: (self._count("prompt"), m.group("key") + "[<prompt>]")[1], new)
        if new == text:  # a prompt cut by the line cap has no closing quote
            new = _UNTERMINATED.sub(sub, new)
        return new

    def _hosts(self, text: str) -> str:
        def ip(m: re.Match[str]) -> str:
            if m.group(0) in _KEEP_IPS:
                return m.group(0)
            start = m.string.rfind("\n", max(0, m.start() - 200), m.start()) + 1
            if _PACKAGE_ROW.search(m.string, max(start, m.start() - 200), m.start()):
                return m.group(0)
            self._count("ip")
            return TAG.format("ip")

        def host(m: re.Match[str]) -> str:
            h = m.group("host")
            if h.startswith("<") or _public(h):
                return m.group(0)
            if _IPV4.fullmatch(h):
                return m.group(0) if h in _KEEP_IPS else m.group("pre") + TAG.format("ip")
            self._count("host")
            return m.group("pre") + TAG.format("host")

        text = _URL_HOST.sub(host, text)
        text = _HOST_ASSIGN.sub(host, text)
        text = _USER_AT_HOST.sub(host, text)
        text = _IPV4.sub(ip, text)
        return _IPV6.sub(lambda m: (self._count("ip"), TAG.format("ip"))[1], text)


_PLACEHOLDERS = {"none", "null", "true", "false", "empty", "unset", "required", "optional", "redacted", "xxx", "***",
                 "your_token", "your-token", "dummy", "empty", "not-needed", "token", "default", "auto"}


def _looks_secret(kind: str, value: str) -> bool:
    """A value given to a secret-sounding name is redacted unless it is plainly not a secret: a placeholder, a
    variable reference, a number, a path. A password may be short; a key or token is long and mixes letters
    and digits."""
    low = value.lower()
    if low in _PLACEHOLDERS or value.startswith(("$", "{", "%", "/", "~", "(", ".")):
        return False
    if re.fullmatch(r"[\d.eE+\-]+", value):
        return False
    if kind == "password":
        return True
    return len(value) >= 12 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def redact_text(text: str, *, hosts: bool = False, prompts: bool = True) -> str:
    return Redactor(hosts=hosts, prompts=prompts).text(text)


def redact_object(obj, redactor: Redactor):
    """Every string inside a frozen dataclass / dict / list / tuple, redacted. Returns a new object."""
    return _walk(obj, redactor.line)


def _walk(obj, fn: Callable[[str], str]):
    if isinstance(obj, Enum):
        return obj
    if isinstance(obj, str):
        return fn(obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        changes = {f.name: _walk(getattr(obj, f.name), fn) for f in fields(obj)}
        return replace(obj, **changes)
    if isinstance(obj, dict):
        return {k: _walk(v, fn) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return tuple(_walk(v, fn) for v in obj)
    if isinstance(obj, list):
        return [_walk(v, fn) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return type(obj)(_walk(v, fn) for v in obj)
    return obj


# Bytes that may start a secret: lines holding none of them are not decoded at all (scan_secrets).
_SECRET_HINT = re.compile(
    rb"hf_|sk-|gh[pousr]_|github_pat_|xox[abposr]-|AIza|AKIA|ASIA|Bearer |Basic |Token |://[^/\s@]+:[^/\s@]+@"
    rb"|AccountKey=|sig=|(?i:key|token|secret|passw|pwd)[\"']?\s*[=:]|--(?i:[a-z\-]*(?:key|token|secret|password))[\s=]"
)
CHUNK = 4 << 20


def scan_secrets(stream, *, hosts: bool = False) -> set[str]:
    """The secret values in a whole input, read in large blocks; only lines with a hint are decoded."""
    redactor = Redactor(hosts=hosts, prompts=False)
    rest = b""
    while True:
        data = stream.read(CHUNK)
        block = rest + data
        end = len(block) if not data else block.rfind(b"\n") + 1
        if end == 0 and len(block) < CHUNK * 2:
            rest = block
            if data:
                continue
            end = len(block)
        done_to = 0
        for m in _SECRET_HINT.finditer(block, 0, end):
            if m.start() < done_to:
                continue
            start = block.rfind(b"\n", 0, m.start()) + 1
            stop = block.find(b"\n", m.end(), end)
            stop = end if stop == -1 else stop
            redactor.line(block[start:stop].decode("utf-8", errors="replace")[: 1 << 16])
            done_to = stop
        rest = block[end:]
        if not data:
            break
    return redactor.secrets
