"""The bundled table of Qwen3-family shapes (data/model_shapes.yaml) and the lookup of a model in it."""

from __future__ import annotations

from functools import lru_cache

import yaml

from ..bundled import data_file

SHAPES_FILE = data_file("model_shapes.yaml")


@lru_cache(maxsize=1)
def shapes_table() -> dict:
    with open(SHAPES_FILE, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def shapes_of(model: str | None) -> tuple[str, dict] | None:
    """The bundled shapes for a model id or path (`Qwen/Qwen3-30B-A3B-Instruct-2507-FP8` -> Qwen3-30B-A3B)."""
    if not model:
        return None
    base = str(model).rstrip("/").rsplit("/", 1)[-1].lower().replace("_", "-")
    best = None
    for name, entry in shapes_table()["models"].items():
        for prefix in entry["names"]:
            if base == prefix or base.startswith(prefix + "-"):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), name, entry)
    return (best[1], best[2]) if best else None
