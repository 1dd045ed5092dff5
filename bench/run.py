"""The benchmark: speed and memory of `qwen3doctor diagnose`, as ratios measured in one run.

    python bench/run.py [--size 1G] [--work /tmp/qwen3doctor-bench] [--repeat 3]

Measures, each as the best of --repeat runs (wall clock; peak memory from the kernel's rusage):
  throughput    diagnose LOG vs `LC_ALL=C grep -c -E 'Traceback|Error|error:|CUDA|NCCL|Killed' LOG > file`
  memory        peak resident memory of that diagnosis
  start-up      diagnose a 10 KB log vs `python -c "import typer, rich.console, yaml, regex, packaging.version"`
  rule scaling  the same two diagnoses with 1,000 rules (bundled + generated variants) vs the bundled rules
  input scaling diagnose LOG (size S) vs a log of S/10
Nothing here is a pass/fail test; the figures go into bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from gen_log import parse_size, write_log  # noqa: E402

GREP = ["grep", "-c", "-E", "Traceback|Error|error:|CUDA|NCCL|Killed"]
BASELINE = [sys.executable, "-c", "import typer, rich.console, yaml, regex, packaging.version"]


def timed(cmd: list[str], out: Path, env: dict | None = None, repeat: int = 3) -> tuple[float, int]:
    """Best wall time over `repeat` runs, and the peak RSS (KiB) of the child in that run."""
    best, rss = float("inf"), 0
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t = time.perf_counter()
        with open(out, "wb") as fh:
            subprocess.run(cmd, stdout=fh, stderr=subprocess.DEVNULL, env=env, check=False)
        dt = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if dt < best:
            best, rss = dt, max(after, before)
    return best, rss


def interleaved(commands: dict[str, tuple[list[str], dict | None]], out: Path, repeat: int) -> dict[str, float]:
    """Best wall time of each command, the commands run in turn `repeat` times."""
    best = {name: float("inf") for name in commands}
    for _ in range(repeat):
        for name, (cmd, env) in commands.items():
            best[name] = min(best[name], timed(cmd, out, env, 1)[0])
    return best


def peak_rss(cmd: list[str], out: Path, env: dict | None = None) -> int:
    """Peak RSS in KiB of one run, read with /usr/bin/time -v when present (exact per process)."""
    if shutil.which("time") or Path("/usr/bin/time").exists():
        with open(out, "wb") as fh:
            r = subprocess.run(["/usr/bin/time", "-v", *cmd], stdout=fh, stderr=subprocess.PIPE, env=env, text=False)
        m = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
        if m:
            return int(m.group(1))
    return 0


def generated_rules(target: Path, count: int) -> int:
    """Write `count` realistic rules: variants of the bundled ones with new ids and their own anchors."""
    import yaml

    bundled = sorted((ROOT / "rules").rglob("*.yaml"))
    made = 0
    i = 0
    while made < count:
        src = bundled[i % len(bundled)]
        i += 1
        doc = yaml.safe_load(src.read_text(encoding="utf-8"))
        n = i // len(bundled) + 1
        suffix = f"_v{n}"

        def vary(obj):
            if isinstance(obj, dict):
                return {k: vary(v) for k, v in obj.items()}
            if isinstance(obj, list):
                return [vary(v) for v in obj]
            if isinstance(obj, str):
                # a distinct literal per variant: real rule sets differ in function names and messages
                return re.sub(r"([A-Za-z_]{6,})", lambda m: m.group(1) + suffix, obj, count=1)
            return obj

        for key in ("match", "supports"):
            if key in doc:
                doc[key] = vary(doc[key])
        doc["references"] = [f"example/generated#{i}"]
        doc["tests"] = {"match": [], "no_match": []}
        engine = src.parent.name
        out = target / engine / f"{src.stem}-gen{i}.yaml"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        made += 1
    return made


def main() -> None:
    ap = argparse.ArgumentParser(description="qwen3doctor benchmark")
    ap.add_argument("--size", default="1G")
    ap.add_argument("--work", type=Path, default=Path("/tmp/qwen3doctor-bench"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--index-only", action="store_true", help="only the release index's load cost")
    args = ap.parse_args()
    if args.index_only:
        for name, figures, ratio, target in release_index_rows(max(5, args.repeat)):
            print(f"| {name} | {figures} | {ratio:.2f} | {target} |")
        return
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    size = parse_size(args.size)
    big, small, tiny = work / f"big-{args.size}.log", work / f"tenth-{args.size}.log", work / "10k.log"
    for path, n in ((big, size), (small, size // 10)):
        if not path.exists() or path.stat().st_size < n:
            print(f"generating {path} ({n} bytes) ...", file=sys.stderr)
            write_log(path, n, seed=7)
    if not tiny.exists():
        text = (ROOT / "examples/logs/vllm/qwen3.5-gdn-prefill-ima-tp8.log").read_bytes()
        tiny.write_bytes(text[-10_000:])
    # the console script pip wrote beside this interpreter: the baseline runs this interpreter directly, and a
    # version manager's shim found first on PATH (pyenv's adds about 0.1 s) would be timed as ours
    beside = Path(sys.executable).parent / "qwen3doctor"
    exe = str(beside) if beside.exists() else shutil.which("qwen3doctor")
    if not exe:
        raise SystemExit("qwen3doctor is not installed (pip install .)")
    env = dict(os.environ, LC_ALL="C")
    out = work / "out"
    # an install has its bytecode compiled (pip does it); an editable one under PYTHONDONTWRITEBYTECODE would
    # compile every module on every start and time that instead
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(qwen3doctor_package()))], check=False)
    pack = work / "rules-1000"
    shutil.rmtree(pack, ignore_errors=True)
    bundled = len(list((ROOT / "rules").rglob("*.yaml")))
    generated_rules(pack, 1000 - bundled)
    time.sleep(3.5)  # past the window in which fresh rule files are not trusted to their timestamps
    # warm the caches (catalog, hyperscan database) and the page cache
    for log in (tiny, small, big):
        for extra in ([], ["--rules", str(pack)]):
            subprocess.run([exe, "diagnose", str(log), "--format", "json", *extra], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    # each ratio's two sides are timed in turn, run after run, so a machine that speeds up or slows down
    # during the benchmark moves both
    big_runs = interleaved({
        "grep": (GREP + [str(big)], env),
        "big": ([exe, "diagnose", str(big), "--format", "json"], None),
        "big-1000": ([exe, "diagnose", str(big), "--format", "json", "--rules", str(pack)], None),
        "small": ([exe, "diagnose", str(small), "--format", "json"], None),
    }, out, args.repeat)
    tiny_runs = interleaved({
        "baseline": (BASELINE, None),
        "tiny": ([exe, "diagnose", str(tiny)], None),
        "tiny-1000": ([exe, "diagnose", str(tiny), "--rules", str(pack)], None),
    }, out, max(9, args.repeat))
    g_big, d_big, r_big, d_small = (big_runs[k] for k in ("grep", "big", "big-1000", "small"))
    b_tiny, d_tiny, r_tiny = (tiny_runs[k] for k in ("baseline", "tiny", "tiny-1000"))
    mem = peak_rss([exe, "diagnose", str(big), "--format", "json"], out)
    rows = [
        ("throughput", f"diagnose {args.size}: {d_big:.2f} s; grep -c -E: {g_big:.2f} s", d_big / g_big, "<= 1.0"),
        ("memory", f"peak RSS {mem / 1024:.0f} MB", mem / 1024 / 150, "<= 1.0 (150 MB)"),
        ("start-up", f"diagnose 10 KB: {d_tiny:.3f} s; python -c 'import typer, rich...': {b_tiny:.3f} s",
         d_tiny / b_tiny, "<= 1.5"),
        ("rules x10 (big)", f"1,000 rules: {r_big:.2f} s; {bundled} rules: {d_big:.2f} s", r_big / d_big, "<= 1.25"),
        ("rules x10 (10 KB)", f"1,000 rules: {r_tiny:.3f} s; {bundled} rules: {d_tiny:.3f} s", r_tiny / d_tiny, "<= 1.5"),
        ("input x10", f"{args.size}: {d_big:.2f} s; a tenth: {d_small:.2f} s", d_big / d_small, "about 10 (linear)"),
        # what the bytes cost, without the start-up every size pays (the 10 KB diagnosis): linear reads 10
        ("input x10 (minus start-up)", f"{args.size}: {d_big - d_tiny:.2f} s; a tenth: {d_small - d_tiny:.2f} s",
         (d_big - d_tiny) / max(d_small - d_tiny, 1e-3), "about 10 (linear)"),
    ]
    rows += release_index_rows(max(5, args.repeat))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"prefilter: {prefilter_name()}")
    print(f"| measure | figures | ratio | target |\n| --- | --- | --- | --- |")
    for name, figures, ratio, target in rows:
        print(f"| {name} | {figures} | {ratio:.2f} | {target} |")


INDEX_PROBE = """
import time
import qwen3doctor.judge.pipeline  # what every diagnosis imports anyway
t0 = time.perf_counter()
from qwen3doctor.knowledge import releases as r
for kind in {kinds!r}:
    assert r.table({engine!r}, kind) is not None
print(time.perf_counter() - t0)
"""

# what a diagnosis reads from the release index: the fix checks (flags, values, variables), a rejected
# architecture, the raise site of an unexplained crash
INDEX_USES = (("fixes", ("flags", "choices", "env")), ("architecture", ("arch",)), ("raise site", ("raise",)))


def release_index_rows(repeat: int) -> list[tuple[str, str, float, str]]:
    """The release index's load cost in a fresh interpreter, after the modules every diagnosis imports: the
    loader's import and the tables a diagnosis reads, the worst engine, best of `repeat` runs. A diagnosis
    that needs the index pays this once; one that does not pays nothing."""
    rows = []
    for use, kinds in INDEX_USES:
        worst = 0.0
        for engine in ("vllm", "sglang"):
            runs = []
            for _ in range(repeat):
                out = subprocess.run([sys.executable, "-c", INDEX_PROBE.format(kinds=kinds, engine=engine)],
                                     capture_output=True, text=True, check=True).stdout
                runs.append(float(out.strip()))
            worst = max(worst, min(runs))
        rows.append((f"release index ({use})", f"load {'+'.join(kinds)}: {worst * 1000:.0f} ms", worst / 0.05, "<= 1.0 (50 ms)"))
    return rows


def qwen3doctor_package() -> str:
    import qwen3doctor

    return os.path.dirname(qwen3doctor.__file__)


def prefilter_name() -> str:
    try:
        from qwen3doctor.read.scanner import hyperscan_available

        return "hyperscan" if hyperscan_available() else "bytes.find"
    except ImportError:
        return "?"


if __name__ == "__main__":
    main()
