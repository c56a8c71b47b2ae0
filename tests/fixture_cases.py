"""The fixture format, shared by the tests and the regeneration script.

``fixtures/<CODE>/<name>.py`` is a case for rule CODE. Names say what a case
must do: ``fire_*`` cases produce at least one finding, ``ok_*`` cases
produce none and no edit. Next to each case:

- ``<name>.expected.txt``: the findings, one ``line:col CODE message`` a line;
- ``<name>.fixed.py``: the text after ``check --fix --unsafe-fixes`` (absent
  when the fix changes nothing).

A case may start with ``# tensorlint: key=value`` lines: ``select=TL101,TL102``
(default: the folder's code), ``numpy-idiom=...``, ``assume-torch=true``,
``library=false`` (the file is a test, example, script or notebook),
``target-version=1.5`` (the oldest torch the code must run on).

Regenerate every expected file with ``python tests/regen_fixtures.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tensorlint.config import parse_version
from tensorlint.engine.lint import lint_source
from tensorlint.fix.apply import fix_source
from tensorlint.registry import select
from tensorlint.rule import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_OPTION = re.compile(r"^#\s*tensorlint:\s*([\w-]+)\s*=\s*(.+?)\s*$")


@dataclass(frozen=True)
class Case:
    path: Path
    code: str

    @property
    def id(self) -> str:
        return f"{self.code}/{self.path.stem}"

    @property
    def expected_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".expected.txt")

    @property
    def fixed_path(self) -> Path:
        return self.path.with_name(self.path.stem + ".fixed.py")

    @property
    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def settings(self) -> Settings:
        options: dict[str, str] = {}
        for line in self.source.splitlines():
            match = _OPTION.match(line)
            if match is None:
                break
            options[match.group(1)] = match.group(2)
        codes = options.get("select", self.code).split(",")
        target = options.get("target-version")
        return Settings(
            enabled=select(select=codes, strict=True),
            numpy_idiom=options.get("numpy-idiom", "cpu-detach"),
            assume_torch=options.get("assume-torch", "false") == "true",
            library=options.get("library", "true") == "true",
            target_version=parse_version(self.path, target) if target is not None else None,
        )

    def findings_text(self) -> str:
        lines = [
            f"{d.start.line}:{d.start.column + 1} {d.code} {d.message}"
            for d in lint_source(self.source, self.settings())
        ]
        return "".join(line + "\n" for line in lines)

    def fixed_text(self) -> str:
        return fix_source(self.source, self.settings(), unsafe=True).source


def all_cases() -> list[Case]:
    cases = []
    for folder in sorted(FIXTURES.glob("TL*")):
        for path in sorted(folder.glob("*.py")):
            if not path.name.endswith(".fixed.py"):
                cases.append(Case(path, folder.name))
    return cases
