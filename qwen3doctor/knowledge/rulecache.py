"""The compiled rules, cached on disk by the rules' content and the code that compiles them."""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import time
from pathlib import Path

from .. import bundled as package_files
from ..cache import CACHE_ENV, CACHE_KEEP, cache_dir, prune
from .discover import _rule_file_names


def _cache_key(dirs: list[Path]) -> str:
    """Keyed by the rules' content and where they live (not the working folder: the compiled rules hold
    absolute paths), so an edit is never served stale.

    Reading and hashing a thousand rule files on every start is the slow part, so the content key is also
    remembered under the files' stat signature (size, mtime, ctime, inode): any write changes the ctime,
    and then the files are read and hashed again. As with git's index, files written in the last seconds
    are not trusted to their timestamps, so no memo is kept while they are that fresh."""
    from .. import __version__

    head = [f"{__version__}\0"]
    for module in package_files.modules():  # the code that compiles rules, subpackages included
        st = module.stat()
        head.append(f"{module.relative_to(package_files.ROOT).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\0")
    files: list[tuple[str, str]] = []
    for d in dirs:
        head.append(f"dir\0{d.resolve() if d.exists() else d}\0")
        if d.exists():
            files.extend(_rule_file_names(d))
    signature = hashlib.sha256("".join(head).encode())
    newest = 0
    for name, engine_dir in files:
        try:
            st = os.stat(name)
        except OSError:
            signature.update(f"{name}\0unreadable\0".encode())
            continue
        newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
        signature.update(f"{name}\0{engine_dir}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\0".encode())
    memo = cache_dir() / f"key-{signature.hexdigest()[:32]}"
    try:
        key = memo.read_text(encoding="ascii")
        if len(key) == 32 and all(ch in "0123456789abcdef" for ch in key):
            return key
    except (OSError, UnicodeDecodeError):
        pass
    h = hashlib.sha256("".join(head).encode())
    for name, engine_dir in files:
        h.update(f"{name}\0{engine_dir}\0".encode())
        try:
            with open(name, "rb") as fh:
                h.update(fh.read())
        except OSError:
            h.update(b"\0unreadable")
    key = h.hexdigest()[:32]
    if time.time_ns() - newest > RACY_NS:
        try:
            memo.parent.mkdir(parents=True, exist_ok=True)
            tmp = memo.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(key, encoding="ascii")
            os.replace(tmp, memo)
            prune(memo.parent, "key-*", keep=4 * CACHE_KEEP)
        except OSError:
            pass
    return key


RACY_NS = 3_000_000_000  # a rule written this recently (3 s) may change again within its timestamp's grain


def cached_compile(dirs: list[Path], use_cache: bool, compile_all):
    if not use_cache or os.environ.get(CACHE_ENV):
        return compile_all(dirs)
    key = _cache_key(dirs)
    target = cache_dir() / f"catalog-{key}.pickle"
    try:
        with open(target, "rb") as fh:
            return _unpickle(fh.read())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        pass
    result = compile_all(dirs)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        with open(tmp, "wb") as fh:
            pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, target)
        prune(target.parent, "catalog-*.pickle")
    except OSError:
        pass  # a read-only home is no reason to fail
    return result


def _unpickle(data: bytes):
    """Unpickle without the cyclic collector, which would walk the half-built rule objects again and again
    (a third of the time with a thousand rules), then freeze them: they live as long as the process and
    form no cycles, so later collections need not walk them either."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        result = pickle.loads(data)
        gc.freeze()
        return result
    finally:
        if enabled:
            gc.enable()
