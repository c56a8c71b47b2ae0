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


# -- fix safety: one source (``Rule.FIX``) for the docs, the tables and the fixes --------

#: cases where the ``.numpy()`` fixes are unsafe (the fixtures hold the safe ones):
#: a module that also imports another framework, a self-documenting f-string
UNSAFE_NUMPY_FIXES = (
    "import tensorflow as tf\nimport torch\n\n\n"
    "def embed(model, x: torch.Tensor):\n    return model(x.cuda()).numpy()\n",
    'import torch\n\n\ndef show(model, x):\n    print(f"{model(x.cuda()).numpy()=}")\n',
    "import jax\nimport torch\n\n\ndef to_array(t: torch.Tensor):\n    return t.numpy()\n",
)


def _applicabilities() -> dict[str, set[str]]:
    """Every rule's fixes on the fixtures and on ``UNSAFE_NUMPY_FIXES``, in strict mode."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fixture_cases import all_cases

    found: dict[str, set[str]] = {}
    runs = [(case.source, case.settings()) for case in all_cases()]
    strict = Settings(enabled=select(strict=True), library=False)  # (a script: no evidence)
    runs += [(text, strict) for text in UNSAFE_NUMPY_FIXES]
    for text, settings in runs:
        for d in lint_source(text, settings):
            if d.fix is not None:
                found.setdefault(d.code, set()).add(d.fix.applicability.value)
    return found


def test_every_fix_has_the_safety_its_rule_declares_and_no_label_is_too_broad() -> None:
    from tensorlint.rule import FIX_SAFETY

    found = _applicabilities()
    for rule in ALL_RULES:
        assert rule.FIX in FIX_SAFETY, rule.CODE
        declared = {a.value for a in FIX_SAFETY[rule.FIX].applicabilities}
        assert found.get(rule.CODE) == declared, rule.CODE


@pytest.mark.parametrize("rule", ALL_RULES, ids=IDS)
def test_the_fix_safety_section_agrees_with_the_declared_safety(rule: type[Rule]) -> None:
    from tensorlint.docs import fix_label, section

    words = set(re.findall(r"\b(safe|unsafe)\b", section(rule_doc(rule), "Fix safety").lower()))
    assert words == set(fix_label(rule).split(" or ")), words
    assert f"Fix: {rule.FIX} (" in rule_doc(rule).split("\n\n")[1]


def test_tl102s_documented_fix_is_the_one_it_makes() -> None:
    doc = rule_doc(BY_CODE["TL102"])
    fix_safety = " ".join(doc.split("## Fix safety", 1)[1].split())
    assert "`model(x).numpy()` becomes `model(x).cpu().detach().numpy()`" in fix_safety
    source = "import torch\n\n\ndef embed(model, x):\n    return model(x).numpy()\n"
    settings = Settings(enabled=select())
    assert "model(x).cpu().detach().numpy()" in fix_source(source, settings).source
    assert BY_CODE["TL102"].FIX == "safe or unsafe"
