"""``tensorlint rule --all`` and ``--output-format json`` of ``rule`` and ``rules``.

The JSON form of a rule (an object; ``rule --all`` and ``rules`` print an
array of them, in code order)::

    {"code": "TL101", "name": "numpy-on-accelerator-tensor",
     "summary": "Checks for ...", "default": true, "level": "error",
     "fix": "safe", "explanation": "## What it does\\n..."}

``default``: on without ``strict``; ``level``: what the CI formats report it
as; ``fix``: ``"safe"``, ``"unsafe"``, ``"safe or unsafe"`` (``rule.FIX_SAFETY``)
or null; ``explanation``: the rule's
documentation in Markdown, as ``tensorlint rule CODE`` prints it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tensorlint.rule import Rule

#: the choices of ``rule --output-format`` and ``rules --output-format``
RULE_FORMATS: tuple[str, ...] = ("text", "json")


def rule_entry(rule: type[Rule]) -> dict[str, Any]:
    from tensorlint.docs import rule_documentation, rule_summary
    from tensorlint.reporters._common import level

    return {
        "code": rule.CODE,
        "name": rule.NAME,
        "summary": rule_summary(rule),
        "default": rule.DEFAULT,
        "level": level(rule.CODE),
        "fix": rule.FIX,
        "explanation": rule_documentation(rule),
    }


def rules_json(rules: Sequence[type[Rule]]) -> str:
    return json.dumps([rule_entry(rule) for rule in rules], indent=2, ensure_ascii=False) + "\n"


def rule_json(rule: type[Rule]) -> str:
    return json.dumps(rule_entry(rule), indent=2, ensure_ascii=False) + "\n"
