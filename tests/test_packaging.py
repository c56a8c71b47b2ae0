"""What the wheel carries and says about itself (issue: packaging)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _setuptools_at_least(major: int) -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= major


@pytest.mark.skipif(
    not _setuptools_at_least(77),
    reason="building offline needs setuptools >= 77 (PEP 639 license expressions) installed",
)
def test_the_wheel_carries_license_types_and_urls(tmp_path: Path) -> None:
    source = tmp_path / "src"  # a copy: the build writes build/ next to its sources
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    for folder in ("tensorlint", "fixtures"):
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(source)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("tensorlint-*.whl")
    # the wheel the README's Install section builds and its CI recipes install
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"pip install dist/{wheel.name}\n" in readme and f"ci/{wheel.name}" in readme
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode("utf-8")
    assert "tensorlint/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in text
    assert "Project-URL: Homepage" in text
    assert "Classifier: Typing :: Typed" in text
    assert not [n for n in names if n.startswith(("tests/", "fixtures/", "bench/"))]
    # the harness's runtime cases, copied from fixtures/, and nothing else of it
    cases = [n for n in names if n.startswith("tensorlint/harness/cases/")]
    expected = sorted(
        "tensorlint/harness/cases/" + p.relative_to(ROOT / "fixtures").as_posix()
        for p in (ROOT / "fixtures").rglob("*.py")
        if not p.name.endswith(".fixed.py") and "HARNESS =" in p.read_text(encoding="utf-8")
    )
    assert expected and sorted(cases) == expected


@pytest.mark.parametrize(
    ("command", "missing", "extra"),
    [("harness", "torch", "harness"), ("server", "pygls", "server")],
)
def test_a_command_without_its_extra_names_it(command: str, missing: str, extra: str) -> None:
    code = (
        f"import sys; sys.modules[{missing!r}] = None\n"  # its import raises ImportError
        "from tensorlint.cli import main\n"
        f"sys.exit(main([{command!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    # a command that works today (tensorlint is not on PyPI): the extra's own
    # requirements, as pyproject.toml declares them
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - the oldest CI leg
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = " ".join(shlex.quote(r) for r in project["optional-dependencies"][extra])
    assert f"`pip install {wanted}`" in done.stderr
    assert "pip install 'tensorlint[" not in done.stderr


def test_an_installed_harness_runs_the_cases_the_wheel_carries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tensorlint.harness import cli

    assert cli._shipped_cases() == cli.SHIPPED_CASES  # a checkout: its fixtures/
    monkeypatch.setattr(cli, "PACKAGED_CASES", tmp_path)
    assert cli._shipped_cases() == tmp_path  # a wheel: its copy
