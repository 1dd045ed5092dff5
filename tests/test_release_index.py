"""The release index: the generator on a tiny package made here (offline), and the shipped data's known facts."""
from __future__ import annotations

import ast
import gzip
import importlib.util
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from qwen3doctor.knowledge import releases as rel

ROOT = Path(__file__).resolve().parent.parent

ARG_UTILS_OLD = '''
from dataclasses import dataclass
from typing import Literal

GDNBackend = Literal["flashinfer", "triton"]

@dataclass
class ModelConfig:
    task: Literal["auto", "generate", "embed"] = "auto"
    max_model_len: int = 0

class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        model_kwargs = get_kwargs(ModelConfig)
        parser.add_argument("--task", **model_kwargs["task"])
        parser.add_argument("--max-model-len", **model_kwargs["max_model_len"])
        parser.add_argument("--kv-cache-dtype", choices=["auto", "fp8"])
        return parser

def check_enough_kv_cache_memory(needed, available):
    if needed > available:
        raise ValueError(f"To serve at least one request with the models's max seq len ({needed}), more memory is needed")
'''

ARG_UTILS_NEW = '''
from dataclasses import dataclass
from typing import Literal

GDNBackend = Literal["flashinfer", "triton"]

@dataclass
class ModelConfig:
    max_model_len: int = 0

@dataclass
class AttentionConfig:
    gdn_prefill_backend: GDNBackend | None = None

class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        model_kwargs = get_kwargs(ModelConfig)
        attention_kwargs = get_kwargs(AttentionConfig)
        parser.add_argument("--max-model-len", **model_kwargs["max_model_len"])
        parser.add_argument("--gdn-prefill-backend", **attention_kwargs["gdn_prefill_backend"])
        parser.add_argument("--kv-cache-dtype", choices=["auto", "fp8", "fp8_e5m2"])
        return parser
'''

ENVS = {
    "0.1.0": 'import os\nenvironment_variables = {"VLLM_SKIP_DEEP_GEMM_WARMUP": lambda: os.getenv("VLLM_SKIP_DEEP_GEMM_WARMUP")}\n',
    "0.2.0": 'import os\nenvironment_variables = {"VLLM_DEEP_GEMM_WARMUP": lambda: os.getenv("VLLM_DEEP_GEMM_WARMUP", "relax")}\n'
             'X = os.environ["VLLM_HOST_IP"]\n',
}

REGISTRY = {
    "0.1.0": '_TEXT_GENERATION_MODELS = {"Qwen3ForCausalLM": ("qwen3", "Qwen3ForCausalLM")}\n',
    "0.2.0": '_TEXT_GENERATION_MODELS = {"Qwen3ForCausalLM": ("qwen3", "Qwen3ForCausalLM"),\n'
             '                            "Qwen3NextForCausalLM": ("qwen3_next", "Qwen3NextForCausalLM")}\n',
}


def _generator():
    spec = importlib.util.spec_from_file_location("release_index", ROOT / "scripts" / "release_index.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# the parser registries: a decorator per parser file (older releases), a lazy table of names (newer ones)
PARSERS = {
    "0.1.0": {"vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py":
              '@ToolParserManager.register_module("hermes")\nclass Hermes2ProToolParser: pass\n'},
    "0.2.0": {"vllm/tool_parsers/__init__.py":
              '_TOOL_PARSERS_TO_REGISTER = {"hermes": ("hermes_tool_parser", "Hermes2ProToolParser"),\n'
              '                             "qwen3_coder": ("qwen3coder_tool_parser", "Qwen3CoderToolParser")}\n',
              "vllm/reasoning/qwen3_reasoning_parser.py":
              '@ReasoningParserManager.register_module(["qwen3"])\nclass Qwen3ReasoningParser: pass\n'},
}


# the public surface a caller outside the engine meets: a method's keyword dropped, a Struct's fields, an attribute
LLM_API = {
    "0.1.0": "class LLM:\n    def __init__(self, model, **kwargs):\n        self.llm_engine = None\n"
             "    def generate(self, prompts, sampling_params=None, prompt_token_ids=None):\n        pass\n"
             "class SamplingParams(msgspec.Struct):\n    n: int = 1\n    _private: int = 0\n",
    "0.2.0": "class LLM:\n    def __init__(self, model, **kwargs):\n        self.llm_engine = None\n"
             "    def generate(self, prompts, sampling_params=None, *, use_tqdm=True):\n        pass\n"
             "class SamplingParams(msgspec.Struct):\n    n: int = 1\n    structured_outputs: dict | None = None\n",
}


def _members(version: str) -> dict[str, str]:
    return {
        **PARSERS[version],
        "vllm/entrypoints/llm.py": LLM_API[version],
        "vllm/__init__.py": "",
        "vllm/engine/arg_utils.py": ARG_UTILS_OLD if version == "0.1.0" else ARG_UTILS_NEW,
        "vllm/envs.py": ENVS[version],
        "vllm/model_executor/models/registry.py": REGISTRY[version],
        "vllm/tests/test_x.py": "def test_only(): raise ValueError('a test file is never indexed at all')\n",
    }


def _wheel(path: Path, version: str) -> Path:
    out = path / f"vllm-{version}-cp38-abi3-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(out, "w") as z:
        for name, text in _members(version).items():
            z.writestr(name, text)
        z.writestr("vllm/_C.abi3.so", b"\x7fELF binary that the slim copy drops")
    return out


def _sdist(path: Path, version: str) -> Path:
    out = path / f"vllm-{version}.tar.gz"
    with tarfile.open(out, "w:gz") as t:
        for name, text in _members(version).items():
            data = text.encode()
            info = tarfile.TarInfo(f"vllm-{version}/{name}")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return out


def test_generator_on_a_tiny_package(tmp_path, capsys):
    gen = _generator()
    cache = tmp_path / "cache"
    (cache / "vllm").mkdir(parents=True)
    # one release from a wheel, one from an sdist: both become slim zips of their .py members
    gen.slim_archive(_wheel(tmp_path, "0.1.0"), gen.slim_path(cache, "vllm", "0.1.0"))
    gen.slim_archive(_sdist(tmp_path, "0.2.0"), gen.slim_path(cache, "vllm", "0.2.0"))
    with zipfile.ZipFile(gen.slim_path(cache, "vllm", "0.2.0")) as z:
        assert "vllm/engine/arg_utils.py" in z.namelist()
    with zipfile.ZipFile(gen.slim_path(cache, "vllm", "0.1.0")) as z:
        assert not [n for n in z.namelist() if not n.endswith(".py")]
    out = tmp_path / "index"
    assert gen.main(["--cache", str(cache), "--out", str(out), "--engines", "vllm",
                     "--versions", "vllm==0.1.0,vllm==0.2.0"]) == 0
    rel.table.cache_clear()
    flags = rel.table("vllm", "flags", out)
    assert flags.releases == ("0.1.0", "0.2.0")
    assert flags.spans("--task") == [("0.1.0", "0.1.0")]
    assert flags.spans("--gdn-prefill-backend") == [("0.2.0", "0.2.0")]
    assert flags.spans("--kv-cache-dtype") == [("0.1.0", "0.2.0")]
    choices = rel.table("vllm", "choices", out)
    assert choices.spans("--gdn-prefill-backend=triton") == [("0.2.0", "0.2.0")]
    # the names the parser registries give, whichever way a release registers them
    assert choices.spans("--tool-call-parser=hermes") == [("0.1.0", "0.2.0")]
    assert choices.spans("--tool-call-parser=qwen3_coder") == [("0.2.0", "0.2.0")]
    assert choices.spans("--reasoning-parser=qwen3") == [("0.2.0", "0.2.0")]
    assert choices.spans("--task=embed") == [("0.1.0", "0.1.0")]
    assert choices.spans("--kv-cache-dtype=fp8_e5m2") == [("0.2.0", "0.2.0")]
    env = rel.table("vllm", "env", out)
    assert env.spans("VLLM_SKIP_DEEP_GEMM_WARMUP") == [("0.1.0", "0.1.0")]
    assert env.spans("VLLM_DEEP_GEMM_WARMUP") == [("0.2.0", "0.2.0")]
    assert env.spans("VLLM_HOST_IP") == [("0.2.0", "0.2.0")]
    arch = rel.table("vllm", "arch", out)
    assert arch.spans("Qwen3NextForCausalLM") == [("0.2.0", "0.2.0")]
    raises = rel.table("vllm", "raise", out)
    [site] = [k for k in raises.facts if "check_enough_kv_cache_memory" in k]
    assert site.split("\t") == ["ValueError", "vllm/engine/arg_utils.py", "check_enough_kv_cache_memory",
                                "To serve at least one request with the models's max seq len (*), more memory is needed"]
    assert not [k for k in raises.facts if "never indexed" in k]
    funcs = rel.table("vllm", "func", out)
    assert funcs.spans("vllm.engine.arg_utils:check_enough_kv_cache_memory") == [("0.1.0", "0.1.0")]
    # (kept by module, each module's part parsed only when a callee is in it)
    api = json.loads(rel.table("vllm", "api", out).facts["vllm.entrypoints.llm"])
    assert api["LLM.generate(prompt_token_ids"] == [0, 0] and api["LLM.generate(use_tqdm"] == [1, 1]
    assert api["LLM(**"] == [0, 1]  # (any keyword: `**kwargs`)
    assert api["LLM.llm_engine"] == [0, 1] and api["SamplingParams(structured_outputs"] == [1, 1]
    assert not [k for k in api if "_private" in k]
    # one table rewritten alone, over the releases the index already lists: the others are left as they are
    kept = {p.name: p.read_bytes() for p in out.iterdir() if p.name != "vllm-choices.json.gz"}
    (out / "vllm-choices.json.gz").unlink()
    assert gen.main(["--cache", str(cache), "--out", str(out), "--engines", "vllm", "--kinds", "choices",
                     "--same-releases", "--offline"]) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != "vllm-choices.json.gz"} == kept
    rel.table.cache_clear()
    assert rel.table("vllm", "choices", out).spans("--tool-call-parser=qwen3_coder") == [("0.2.0", "0.2.0")]
    rel.table.cache_clear()


def test_intervals_are_flat_first_last_pairs():
    gen = _generator()
    assert gen.intervals([0, 1, 2, 5, 7, 8]) == [0, 2, 5, 5, 7, 8]


# ---------------------------------------------------------------- the shipped index

shipped = pytest.mark.skipif(not rel.available(), reason="the release index is not generated in this checkout")


@shipped
@pytest.mark.parametrize("engine, kind, fact, first, last", [
    ("vllm", "flags", "--gdn-prefill-backend", "0.18.0", None),
    ("vllm", "flags", "--task", "0.8.5", "0.12.0"),
    ("vllm", "env", "VLLM_DEEP_GEMM_WARMUP", "0.11.1", None),
    ("vllm", "flags", "--attention-backend", "0.13.0", None),
    ("sglang", "flags", "--cuda-graph-max-bs", "0.4.6", "0.5.19"),
])
def test_known_facts(engine, kind, fact, first, last):
    t = rel.table(engine, kind)
    spans = t.spans(fact)
    assert spans, f"{fact} is in no {engine} release"
    assert spans[0][0] == first
    assert spans[-1][1] == (last or t.releases[-1])


@shipped
@shipped
def test_the_api_table_dates_a_removed_keyword_and_keeps_a_kwargs_callee_open():
    from qwen3doctor.knowledge.releases.generic import api_window

    rel_ = rel.releases("vllm")
    exists, takes = api_window("vllm", "LLM.generate", "prompt_token_ids")
    assert rel_[max(takes)] == "0.10.1.1" and min(takes) == 0 and max(exists) == len(rel_) - 1
    exists, takes = api_window("vllm", "LLM.__init__", "worker_extension_cls")
    assert takes == exists  # (`LLM(model, **kwargs)`: any keyword)
    assert api_window("vllm", "NoSuchClass.f", "x") is None


def test_release_candidates_and_dev_builds_map_to_the_release_they_precede():
    r = rel.releases("vllm")
    assert r[rel.position("vllm", "0.18.0rc1")] == "0.18.0"
    assert r[rel.position("vllm", "0.16.0rc2.dev294+g6a7b85d94")] == "0.16.0"
    assert r[rel.position("vllm", "0.10.1.1")] == "0.10.1.1"
    assert rel.position("vllm", "0.4.0") is None  # older than the index
    assert rel.position("vllm", "99.0.0") is None  # newer than the index
    assert rel.position("vllm", None) is None


@shipped
def test_every_table_is_small_and_sorted_oldest_first():
    from packaging.version import Version

    for engine in rel.ENGINES:
        vs = [Version(v) for v in rel.releases(engine)]
        assert vs == sorted(vs) and len(vs) > 30
    for path in rel.HERE.glob("*.json.gz"):
        assert path.stat().st_size < 2_000_000, path.name
        json.loads(gzip.decompress(path.read_bytes()))


def test_an_index_finding_renders_plainly_without_an_empty_reference_list():
    # a finding from the release index cites no issue: the plain view leaves the refs field out instead of "refs: "
    import subprocess
    import sys

    log = Path(__file__).resolve().parents[1] / "examples/logs/vllm/release-index--task-flag-removed-0.13.0.log"
    r = subprocess.run([sys.executable, "-m", "qwen3doctor.cli", "diagnose", str(log), "--format", "plain"],
                       capture_output=True, text=True)
    line = next(x for x in r.stdout.splitlines() if x.strip().startswith("release-index/"))
    assert "confidence" in line and "refs:" not in line


def test_a_flag_whose_values_no_release_lists_gets_no_verdict_on_a_value():
    from qwen3doctor.knowledge.releases.generic import choice_lines

    # --kv-cache-dtype has argparse choices in every indexed release; --quantization is a registry the index does not
    # read, so "no release accepts awq" would be false
    assert choice_lines("vllm", "0.10.0", "--kv-cache-dtype", "fp9")[0].startswith("no vLLM release from")
    assert choice_lines("vllm", "0.10.0", "--quantization", "awq") == []


@shipped
def test_the_parser_registries_give_the_releases_of_each_parser_name():
    from qwen3doctor.knowledge.releases.generic import choice_lines

    # the names are registered, not argparse choices: the index reads the registries of every release
    assert choice_lines("vllm", "0.9.2", "--tool-call-parser", "qwen3_coder")[0] == \
        "`--tool-call-parser qwen3_coder` is accepted by vLLM 0.10.0-" + rel.releases("vllm")[-1]
    assert rel.table("vllm", "choices").spans("--reasoning-parser=qwen3")[0][0] == "0.9.0"
    assert rel.table("sglang", "choices").spans("--tool-call-parser=qwen25")[0][0] == "0.4.6"


@shipped
def test_a_refused_parser_name_is_dated_by_the_names_the_refusal_lists(catalog):
    from qwen3doctor.judge.pipeline import diagnose_text

    # vLLM 0.9.2's start-up check, no version in the paste: the list it prints is 0.9.2's, qwen3_coder came in 0.10.0
    listed = ("deepseek_v3, granite, granite-20b-fc, hermes, internlm, jamba, llama3_json, llama4_json, llama4_pythonic, "
              "minimax, mistral, phi4_mini_json, pythonic, xlam")
    report = diagnose_text("(APIServer pid=901) Traceback (most recent call last):\n"
                           f"KeyError: 'invalid tool call parser: qwen3_coder (chose from {{ {listed} }})'\n", catalog)
    top = report.findings[0]
    assert top.rule_id == "tool-call-parser-name-not-registered"
    assert top.fixes[0].command == 'pip install -U "vllm>=0.10.0"'  # this log's own answer before the general ones
    assert "the values the refusal lists are those of vLLM 0.9.2" in top.notes
    assert report.environment.get("family") is None  # (granite in the list is a parser's name, not the model's)
    # a name no release registers: the closest registered names, no upgrade
    report = diagnose_text("INFO 08-01 10:00:00 [api_server.py:1395] vLLM API server version 0.10.1.1\n"
                           f"KeyError: 'invalid tool call parser: hermess (chose from {{ {listed}, qwen3_coder }})'\n",
                           catalog)
    top = report.findings[0]
    assert any("closest to `hermess`" in n and "hermes" in n for n in top.notes)
    assert not any("vllm>=" in fx.command for fx in top.fixes[:1])


@shipped
def test_check_judges_a_parser_name_unless_a_plugin_may_register_it():
    from qwen3doctor.knowledge.releases.generic import command_alerts

    found, _ = command_alerts("vllm", "0.9.2", "vllm serve Qwen/Qwen3-Coder-30B-A3B-Instruct --tool-call-parser qwen3_coder")
    assert [name for name, _, _ in found] == ["--tool-call-parser qwen3_coder"]
    assert command_alerts("vllm", "0.10.0", "vllm serve m --tool-call-parser qwen3_coder") == ([], None)
    assert command_alerts("vllm", "0.9.2", "vllm serve m --tool-parser-plugin /p/mine.py --tool-call-parser mine") == ([], None)


def _defaults_script():
    spec = importlib.util.spec_from_file_location("sglang_defaults", ROOT / "scripts" / "sglang_defaults.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_defaults_generator_renders_what_the_dataclass_repr_would_print():
    # literals as themselves, field(default=...) as its default, default_factory=list as [], run-time values left out
    source = '''
from dataclasses import dataclass, field
import os

@dataclass
class ServerArgs:
    model_path: str
    tokenizer_path: Optional[str] = None
    tp_size: int = 1
    schedule_policy: str = "fcfs"
    disaggregation_transfer_backend: str = field(default="mooncake")
    json_model_override_args: List[str] = field(default_factory=list)
    host: str = os.environ.get("HOST", "127.0.0.1")
    chunked_prefill_size: Optional[int] = None

    def __post_init__(self):
        self.tp_size = 2
'''
    script = _defaults_script()
    fields = script.server_args_fields(source)
    assert fields == ["model_path='Qwen/Qwen3-8B'", "tokenizer_path='Qwen/Qwen3-8B'", "tp_size=1",
                      "schedule_policy='fcfs'", "disaggregation_transfer_backend='mooncake'",
                      "json_model_override_args=[]", "chunked_prefill_size=None"]
    namespace: dict = {}
    exec(script.render(fields, "0.0.1"), namespace)
    line = namespace["SGLANG_DEFAULT_SERVER_ARGS"]
    assert line.endswith("json_model_override_args=[], chunked_prefill_size=None)")
    assert "server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tokenizer_path=" in line


def test_the_bundled_defaults_line_is_the_one_sglang_logs():
    # the shipped line parses as a ServerArgs(...) call, field names unique, and carries the defaults rules trip on
    from qwen3doctor.knowledge.defaults import SGLANG_DEFAULT_SERVER_ARGS

    call = ast.parse(SGLANG_DEFAULT_SERVER_ARGS.split("server_args=", 1)[1], mode="eval").body
    names = [kw.arg for kw in call.keywords]
    assert call.func.id == "ServerArgs" and len(names) == len(set(names)) > 200
    values = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    assert values["disaggregation_transfer_backend"] == "mooncake" and values["tp_size"] == 1
