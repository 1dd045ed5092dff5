"""Diagnose many inputs, in parallel, and sum them up.

    summary = run(inputs, catalog, Options(jobs=4, fail_on="known", ignores=matcher, redact=True))

Each input is diagnosed on its own, by a pool of `jobs` worker processes (default: the CPU count; one input,
standard input or jobs=1 run in this process). Results come back in input order, whatever order the workers
finish in. A progress bar is drawn on stderr when stderr is a terminal and there is more than one input.

With `redact`, every string of every report is redacted (redact.py) before anything renders it, and each
input is read once more for secrets (`secrets` of the summary: github mode `::add-mask::`s them).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from ..knowledge.catalog import Catalog
from .pipeline import Overrides, diagnose_scan, prefilter_for, scan_source
from ..errors import InputError
from .fingerprint import of_report
from ..read.inputs import Input
from ..model import Report
from .summary import IgnoreMatcher, Outcome, Summary, failed_input, outcome_of, summarize


@dataclass
class Options:
    """How a batch is run and decided: the overrides, the pool size and the exit policy."""

    overrides: Overrides = field(default_factory=Overrides)
    jobs: int | None = None  # None: the CPU count
    force: bool = False  # read files that look binary
    fail_on: str = "any"
    ignores: IgnoreMatcher | None = None
    redact: bool = False
    redact_hosts: bool = False
    secrets: bool = False  # collect secret values for masking (implied by redact)
    progress: bool | None = None  # None: when stderr is a terminal


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def run(inputs: list[Input], catalog: Catalog, options: Options, *, warnings: list[str] | None = None,
        on_result: Callable[[Outcome], None] | None = None) -> Summary:
    """Diagnose every input and decide. `on_result` sees each outcome as it arrives (in input order)."""
    results = diagnose_all(inputs, catalog, options)
    outcomes, secrets = [], set()
    redactor = None
    if options.redact:
        from ..redact import Redactor, redact_object

        redactor = Redactor(hosts=options.redact_hosts)
    for item, (report, error, found) in zip(inputs, results):
        secrets |= found
        if report is None:
            outcome = failed_input(item, redactor.line(error) if redactor else error)
        else:
            fp = of_report(report)
            if redactor is not None:
                report = redact_object(report, redactor)
                fp = redact_object(fp, redactor) if fp is not None else None
            outcome = outcome_of(item, report, fp, options.ignores)
        outcomes.append(outcome)
        if on_result is not None:
            on_result(outcome)
    if redactor is not None:
        secrets |= redactor.secrets
    return summarize(outcomes, options.fail_on, warnings=warnings, secrets=secrets, ignores=options.ignores)


Result = tuple[Report | None, str | None, frozenset]


def diagnose_all(inputs: list[Input], catalog: Catalog, options: Options) -> list[Result]:
    jobs = options.jobs or default_jobs()
    want_secrets = options.secrets or options.redact
    show = options.progress if options.progress is not None else _stderr_is_terminal()
    show = show and len(inputs) > 1
    if jobs <= 1 or len(inputs) <= 1 or any(i.path == "-" for i in inputs):
        _init(catalog, options.overrides, options.force, want_secrets, options.redact_hosts, parallel=False)
        progress = _Progress(len(inputs)) if show else None
        try:
            out = []
            for item in inputs:
                out.append(_one(item))
                progress and progress.advance(item.name)
            return out
        finally:
            progress and progress.stop()
    from concurrent.futures import ProcessPoolExecutor, as_completed

    results: list[Result | None] = [None] * len(inputs)
    with ProcessPoolExecutor(max_workers=min(jobs, len(inputs)), initializer=_init,
                             initargs=(catalog, options.overrides, options.force, want_secrets,
                                       options.redact_hosts, True)) as pool:
        # every worker process starts during these submits, before the progress bar starts its thread
        futures = {pool.submit(_one, item): i for i, item in enumerate(inputs)}
        progress = _Progress(len(inputs)) if show else None
        try:
            for future in as_completed(futures):
                i = futures[future]
                try:
                    results[i] = future.result()
                except Exception as exc:  # noqa: BLE001 - a worker that died is one input not diagnosed, not a crash
                    results[i] = (None, f"{inputs[i].name}: could not be diagnosed ({exc.__class__.__name__}: {exc})", frozenset())
                progress and progress.advance(inputs[i].name)
        finally:
            progress and progress.stop()
    return [r for r in results if r is not None]


# -- the worker side ---------------------------------------------------------------------------------------

_STATE: dict = {}


def _init(catalog: Catalog, overrides: Overrides, force: bool, secrets: bool, hosts: bool, parallel: bool) -> None:
    if parallel:  # the pool already runs one input per CPU: no second process per large file
        os.environ["QWEN3DOCTOR_JOBS"] = "1"
    _STATE.update(catalog=catalog, overrides=overrides, force=force, secrets=secrets, hosts=hosts,
                  prefilter=prefilter_for(catalog))


def _one(item: Input) -> Result:
    catalog = _STATE["catalog"]
    try:
        src = item.open(force=_STATE["force"])
    except InputError as exc:
        return None, str(exc), frozenset()
    try:
        scan = scan_source(src, catalog, _STATE["overrides"], _STATE["prefilter"])
    except OSError as exc:
        return None, f"{item.name}: cannot read ({exc})", frozenset()
    finally:
        src.close()
    report = diagnose_scan(scan, catalog, item.name)
    found: frozenset = frozenset()
    if _STATE["secrets"] and item.path != "-":
        from ..redact import scan_secrets

        try:
            src = item.open(force=True)
            try:
                found = frozenset(scan_secrets(src.stream, hosts=_STATE["hosts"]))
            finally:
                src.close()
        except (InputError, OSError):
            pass
    return report, None, found


# -- progress ----------------------------------------------------------------------------------------------

def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty() and not os.environ.get("CI")
    except (AttributeError, ValueError):
        return False


class _Progress:
    def __init__(self, total: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("diagnosing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("[dim]{task.description}"), console=Console(stderr=True), transient=True,
        )
        self._task = self._progress.add_task("", total=total)
        self._progress.start()

    def advance(self, name: str) -> None:
        self._progress.update(self._task, advance=1, description=name[-40:])

    def stop(self) -> None:
        self._progress.stop()
