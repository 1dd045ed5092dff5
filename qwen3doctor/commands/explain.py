"""`qwen3doctor explain`: a rule's card from a reference, an issue URL, a rule id or alias."""

from __future__ import annotations

import json
from typing import List, Optional

import typer

from .common import RULES_OPT, app, load_setup


@app.command(help="Show what is known about a crash: a reference (vllm#34948), a GitHub issue URL, or a rule id.")
def explain(
    key: str = typer.Argument(..., help="vllm#34948, https://github.com/vllm-project/vllm/issues/34948, or a rule id."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    rules: Optional[List[str]] = RULES_OPT,
) -> None:
    from ..knowledge.lookup import find_rules
    from ..render.card import card, card_text

    catalog = load_setup(rules, None)[0]
    found = find_rules(catalog, key)
    if fmt == "json":
        cards = [card(r) for r in found]
        print(json.dumps(cards[0] if len(cards) == 1 else cards, indent=2, ensure_ascii=False))
    else:
        print("\n".join(card_text(r) for r in found), end="")
