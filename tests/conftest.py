from __future__ import annotations

import functools
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from qwen3doctor.knowledge.catalog import load_catalog

from qwen3doctor.knowledge.discover import rule_dirs
from qwen3doctor.tools.ruletools import ReportCache, RuleTest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "logs"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def _not_inside_github_actions(monkeypatch):
    """`--format auto` picks github inside GitHub Actions: tests see the output a user's terminal or pipe gets."""
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "QWEN3DOCTOR_IGNORE"):
        monkeypatch.delenv(name, raising=False)


@functools.cache
def bundled_catalog():
    """The bundled rules, loaded once for the session (the `catalog` fixture, and the rule tests' parametrization)."""
    return load_catalog(rule_dirs())


@functools.cache
def bundled_reports() -> ReportCache:
    """Each test log's report, read once for the session: the rule tests and `example_reports` share them (every
    example log is some rule's test log)."""
    return ReportCache(bundled_catalog())


@pytest.fixture(scope="session")
def catalog():
    return bundled_catalog()


EXAMPLE_LOGS = sorted(EXAMPLES.rglob("*.log"))


@pytest.fixture(scope="session")
def example_reports(catalog) -> dict:
    """Every example log's report, diagnosed once for the session (several tests compare against it), as the rule
    tests read it: the two share one reading."""
    from qwen3doctor.judge.batch import default_jobs

    assert catalog is bundled_catalog()
    cache = bundled_reports()
    tests = {path: RuleTest("", "match", 0, "file", str(path), str(path)) for path in EXAMPLE_LOGS}
    cache.fill(list(tests.values()), jobs=default_jobs())
    reports = {path: cache.get(test) for path, test in tests.items()}
    assert not [path for path, report in reports.items() if isinstance(report, str)]  # (a str: why it was unreadable)
    return reports


_WORKER: dict = {}


def _start_worker(catalog, backend) -> None:
    from qwen3doctor.judge.pipeline import prefilter_for

    _WORKER.update(catalog=catalog, prefilter=prefilter_for(catalog, backend) if backend else None)


def worker_catalog():
    """The catalog inside a function that `in_workers` runs."""
    return _WORKER["catalog"]


def in_workers(fn, items: list, catalog, backend: str | None = None) -> list:
    """[fn(item) for item in items], spread over every core: a whole pass over the example logs is minutes on one.
    `fn` is a module-level function; inside it `worker_catalog()` is the catalog (and diagnose_path's prefilter
    the `backend` one)."""
    from qwen3doctor.judge.batch import default_jobs

    jobs = default_jobs()  # (as `rules test` and `diagnose` pick it: the CPUs this process may use)
    if jobs == 1 or len(items) < 16:
        _start_worker(catalog, backend)
        return [fn(item) for item in items]
    fork = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(jobs, mp_context=fork, initializer=_start_worker, initargs=(catalog, backend)) as pool:
        return list(pool.map(fn, items, chunksize=8))


def diagnose_path(path: str):
    """A log's report as `diagnose_text(text, catalog, path)` gives it (in `in_workers`)."""
    from qwen3doctor.judge.pipeline import diagnose_text

    text = Path(path).read_text(encoding="utf-8", errors="replace")
    return diagnose_text(text, _WORKER["catalog"], path, prefilter=_WORKER["prefilter"])


def diagnose_paths(paths: list[Path], catalog, backend: str | None = None) -> list:
    """Each log's report as `diagnose_text(text, catalog, str(path))` gives it (with `backend`, that prefilter)."""
    return in_workers(diagnose_path, [str(p) for p in paths], catalog, backend)


def records(prefix: str, *lines: str) -> str:
    """A log whose every line carries the same record prefix."""
    return "".join(prefix + line + "\n" for line in lines)


def cut_traceback(prefix: str, site: str, frames) -> str:
    """A traceback header and its frames, each line behind `prefix`, cut after the last frame's code line (no
    exception line); `frames`: (file under `site`, line, function, code line)."""
    return prefix + "Traceback (most recent call last):\n" + "".join(
        f'{prefix}  File "{site}/{f}", line {n}, in {fn}\n{prefix}    {code}\n' for f, n, fn, code in frames)
