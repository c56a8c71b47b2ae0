"""Every rule is documented, and its documentation's examples behave as documented."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from tensorlint.cli import main
from tensorlint.docs import rule_doc
from tensorlint.engine.lint import lint_source
from tensorlint.fix.apply import fix_source
from tensorlint.registry import ALL_RULES, BY_CODE, select
from tensorlint.rule import Rule, Settings

SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead",
            "## Fix safety")  # fmt: skip
README = Path(__file__).resolve().parent.parent / "README.md"
IDS = [rule.CODE for rule in ALL_RULES]


def _block(doc: str, section: str) -> str:
    part = doc.split(section, 1)[1]
    match = re.search(r"```python\n(.*?)```", part, re.S)
    assert match is not None, f"no code block under {section}"
    return match.group(1)


@pytest.mark.parametrize("rule", ALL_RULES, ids=IDS)
def test_every_rule_has_the_documentation_sections(rule: type[Rule]) -> None:
    doc = inspect.cleandoc(rule.__doc__ or "")
    positions = [doc.find(section) for section in SECTIONS]
    assert all(p >= 0 for p in positions), positions
    assert positions == sorted(positions)


@pytest.mark.parametrize("rule", ALL_RULES, ids=IDS)
def test_the_example_fires_and_its_fix_is_the_use_instead_block(rule: type[Rule]) -> None:
    doc = inspect.cleandoc(rule.__doc__ or "")
    example, instead = _block(doc, "## Example"), _block(doc, "## Use instead")
    settings = Settings(enabled=select(extend_select=[rule.CODE]))
    assert rule.CODE in [d.code for d in lint_source(example, settings)]
    assert lint_source(instead, settings) == []
    assert fix_source(example, settings, unsafe=True).source == instead


@pytest.mark.parametrize("rule", ALL_RULES, ids=IDS)
def test_rule_command_prints_the_documentation(
    rule: type[Rule], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rule", rule.CODE.lower()]) == 0
    out = capsys.readouterr().out
    assert out == rule_doc(rule)
    assert rule.NAME in out and "## Fix safety" in out


@pytest.mark.parametrize("rule", ALL_RULES, ids=IDS)
def test_readme_rules_table_lists_the_rule(rule: type[Rule]) -> None:
    default = "on" if rule.DEFAULT else "strict"
    row = f"| {rule.CODE} | `{rule.NAME}` | {default} | {rule.FIX} |"
    assert row in README.read_text(encoding="utf-8")


def test_rule_command_rejects_unknown_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "TL999"]) == 2
    assert "unknown rule 'TL999'" in capsys.readouterr().err


def test_rules_command_lists_every_code_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    assert [line.split()[0] for line in lines] == list(BY_CODE)


def test_no_module_below_the_command_line_imports_it() -> None:
    """Rule documentation lives beside the registry (``tensorlint.docs``): the
    editor server, the reporters and the plugins never import ``tensorlint.cli``
    (which starts the server), so the front ends do not circle."""
    import ast

    package = Path(__file__).resolve().parent.parent / "tensorlint"
    importers = []
    for module in sorted(package.rglob("*.py")):
        if module.relative_to(package).as_posix() in ("cli.py", "__main__.py"):
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if "tensorlint.cli" in names:
                importers.append(f"{module.relative_to(package)}:{node.lineno}")
    assert importers == []

