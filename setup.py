"""Build hook (everything else is in pyproject.toml).

The harness's runtime cases live in ``fixtures/`` (the one source of truth,
next to the lint fixtures they share files with); the wheel gets a copy of
them under ``tensorlint/harness/cases/`` so that an installed ``tensorlint
harness`` has cases to run without a checkout.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithHarnessCases(build_py):
    def run(self) -> None:
        super().run()
        fixtures = Path(__file__).resolve().parent / "fixtures"
        if not fixtures.is_dir():
            return  # an sdist without the fixtures: no cases to ship
        target = Path(self.build_lib) / "tensorlint" / "harness" / "cases"
        for case in sorted(fixtures.rglob("*.py")):
            if case.name.endswith(".fixed.py"):
                continue
            if "HARNESS =" not in case.read_text(encoding="utf-8"):
                continue
            destination = target / case.relative_to(fixtures)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(case.read_bytes())


setup(cmdclass={"build_py": BuildWithHarnessCases})
