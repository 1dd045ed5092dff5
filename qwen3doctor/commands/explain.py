"""`qwen3doctor explain`: a rule's card from a reference, an issue URL, a rule id or alias."""

from __future__ import annotations

import json
import re
from typing import List, Optional

import typer

from .common import RULES_OPT, app, load_setup


@app.command(help="Show what is known about a crash: a reference (vllm#34948), a GitHub issue URL, or a rule id; "
             "or about a serve flag (--gdn-prefill-backend) or an engine variable (VLLM_ATTENTION_BACKEND): the "
             "releases that accept it, its choices and its likely successor.",
             context_settings={"ignore_unknown_options": True})
def explain(
    key: str = typer.Argument(..., help="vllm#34948, https://github.com/vllm-project/vllm/issues/34948, a rule id, "
                                        "a serve flag or a VLLM_* / SGLANG_* variable."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    rules: Optional[List[str]] = RULES_OPT,
) -> None:
    from ..knowledge.lookup import find_rules
    from ..render.card import card, card_text

    if key.startswith(("--", "release:", "release-index/")) or re.fullmatch(r"(?:VLLM|SGLANG|SGL)_[A-Z0-9_]+", key):
        from ..knowledge.releases.generic import describe

        lines = describe(key)
        if lines is not None:
            if fmt == "json":
                print(json.dumps({"key": key, "releases": lines}, indent=2))
            else:
                print("\n".join(lines))
            return

    catalog = load_setup(rules, None)[0]
    found = find_rules(catalog, key)
    if fmt == "json":
        cards = [card(r) for r in found]
        print(json.dumps(cards[0] if len(cards) == 1 else cards, indent=2, ensure_ascii=False))
    else:
        print("\n".join(card_text(r) for r in found), end="")
