"""Rule documentation, for every front end: ``tensorlint rule`` and ``rules``,
the editor server's hover, SARIF's rule descriptors.

It sits beside the registry, below the front ends (``cli`` and ``server``
both import it; neither imports the other). What a rule's fix is
(``Rule.FIX``) is said here in words once: the header of ``tensorlint rule``,
the ``fix`` column of ``tensorlint rules`` and of the README's rule table, and
SARIF's ``help`` all print :func:`fix_label`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tensorlint.registry import ALL_RULES
from tensorlint.rule import CONFIDENCE_MEANING, FIX_SAFETY, Rule

__all__ = [
    "RULE_FORMATS",
    "default_label",
    "fix_label",
    "fix_sentence",
    "rule_description",
    "rule_doc",
    "rule_documentation",
    "rule_header",
    "rule_json",
    "rule_summary",
    "rules_json",
    "rules_table",
]

#: the choices of ``rule --output-format`` and ``rules --output-format``
RULE_FORMATS: tuple[str, ...] = ("text", "json")


def rule_documentation(rule: type[Rule]) -> str:
    """The rule's user documentation (its docstring), dedented."""
    import inspect  # (imports ``ast`` and ``dis``: only where docs are shown)

    return inspect.cleandoc(rule.__doc__ or "")


def default_label(rule: type[Rule]) -> str:
    """``on`` or ``strict``: the ``default`` column of the rule tables."""
    return "on" if rule.DEFAULT else "strict"


def fix_label(rule: type[Rule]) -> str:
    """The ``fix`` column of the rule tables: a key of ``FIX_SAFETY``, or ``-``."""
    return rule.FIX or "-"


def fix_sentence(rule: type[Rule]) -> str:
    """The fix in a sentence, for the header of the rule's documentation."""
    if rule.FIX is None:
        return "none"
    return f"{rule.FIX} ({FIX_SAFETY[rule.FIX].meaning})"


def rule_header(rule: type[Rule]) -> str:
    default = "on" if rule.DEFAULT else "off (enable with `strict = true`)"
    confidence = CONFIDENCE_MEANING[rule.CONFIDENCE]
    return f"Default: {default}. Fix: {fix_sentence(rule)}. Confidence: {confidence}."


def rule_doc(rule: type[Rule]) -> str:
    """What ``tensorlint rule CODE`` prints (and the server's hover shows)."""
    return f"# {rule.NAME} ({rule.CODE})\n\n{rule_header(rule)}\n\n{rule_documentation(rule)}\n"


def rules_table() -> str:
    """What ``tensorlint rules`` prints."""
    rows = [("code", "name", "default", "fix")]
    for rule in ALL_RULES:
        rows.append((rule.CODE, rule.NAME, default_label(rule), fix_label(rule)))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() + "\n"
        for row in rows
    )


def section(doc: str, title: str) -> str:
    """The text of the ``## title`` section of a rule's documentation."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return match.group(1).strip() if match else ""


def _unwrap(text: str) -> str:
    return " ".join(text.split())


def rule_summary(rule: type[Rule]) -> str:
    """One sentence: the first sentence of the rule's *What it does* section."""
    what = _unwrap(section(rule_documentation(rule), "What it does"))
    if not what:
        return rule.NAME.replace("-", " ")
    match = re.match(r"(.+?\.)(?:\s+[A-Z]|$)", what)
    return match.group(1) if match else what


def rule_description(rule: type[Rule]) -> str:
    """*What it does* and *Why is this bad?*, each unwrapped to one paragraph."""
    doc = rule_documentation(rule)
    parts = [_unwrap(section(doc, title)) for title in ("What it does", "Why is this bad?")]
    return "\n\n".join(p for p in parts if p) or rule_summary(rule)


# -- JSON: ``rule --output-format json``, ``rule --all``, ``rules`` -----------
#
# A rule is an object; ``rule --all`` and ``rules`` print an array of them, in
# code order::
#
#     {"code": "TL101", "name": "numpy-on-accelerator-tensor",
#      "summary": "Checks for ...", "default": true, "level": "error",
#      "fix": "safe or unsafe", "explanation": "## What it does\n..."}
#
# ``default``: on without ``strict``; ``level``: what the CI formats report it
# as; ``fix``: ``Rule.FIX`` (a key of ``rule.FIX_SAFETY``) or null;
# ``explanation``: the documentation in Markdown, as ``tensorlint rule CODE``
# prints it.


def rule_entry(rule: type[Rule]) -> dict[str, Any]:
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
