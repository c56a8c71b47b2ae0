"""The tools benchmarked: tensorlint itself and its peers.

Peers are installed, pinned, each into its own virtualenv under
``<cache-dir>/venvs/`` (``--peer-source venv``, the default), so the
benchmark's own environment is never touched and conflicting pins cannot
clash: Fixit 2.2.1 wants ``click<8.2``, TorchFix 0.7.0 ``libcst<1.6``.
``--peer-source path`` uses whatever is on ``PATH`` instead (``--quick`` does).
A peer that cannot be installed or found is reported as unavailable, with why.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "PEERS",
    "PEERS_DIR",
    "PeerSpec",
    "Tool",
    "count_lines",
    "resolve_peer",
    "resolve_tensorlint",
    "source_fingerprint",
    "tensorlint_package",
]

#: ``bench/peers``: our Semgrep rule file and Fixit rule package.
PEERS_DIR = Path(__file__).resolve().parent / "peers"


@dataclass(frozen=True)
class PeerSpec:
    """A peer and the exact release benchmarked."""

    key: str
    distribution: str
    version: str
    executable: str
    #: other distributions in its venv whose versions are worth reporting
    also_report: tuple[str, ...] = ()
    note: str = ""

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"


PEERS: dict[str, PeerSpec] = {
    spec.key: spec
    for spec in (
        PeerSpec("ruff", "ruff", "0.17.5", "ruff"),
        PeerSpec(
            "semgrep",
            "semgrep",
            "1.180.0",
            "semgrep",
            note="newest installable here: 1.181.1 and later require certifi>=2026.10.19",
        ),
        PeerSpec("fixit", "fixit", "2.2.1", "fixit", also_report=("libcst",)),
        PeerSpec("torchfix", "torchfix", "0.7.0", "torchfix", also_report=("libcst",)),
    )
}


@dataclass
class Tool:
    """A runnable tool, or why it is not available."""

    key: str
    #: argv prefix that runs it
    command: list[str] = field(default_factory=list)
    version: str | None = None
    #: where it comes from, e.g. "venv .bench_cache/venvs/ruff-0.17.5"
    source: str = ""
    unavailable: str | None = None
    #: versions of notable dependencies (e.g. libcst)
    extras: dict[str, str] = field(default_factory=dict)
    #: tensorlint only: ``check`` options this build has
    features: frozenset[str] = frozenset()
    #: environment variables its runs need (a snapshot's PYTHONPATH)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def available(self) -> bool:
        return self.unavailable is None

    def describe(self) -> str:
        if self.unavailable is not None:
            return f"{self.key}: unavailable: {self.unavailable}"
        extras = "".join(f", {name} {version}" for name, version in sorted(self.extras.items()))
        return f"{self.key} {self.version or '?'} ({self.source}{extras})"


Log = Callable[[str], None]


def _last_error(output: str) -> str:
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["no output"])[-1][:300]


def _dist_versions(python: Path, names: tuple[str, ...]) -> dict[str, str]:
    script = (
        "import importlib.metadata as m, sys\n"
        "for name in sys.argv[1:]:\n"
        "    try: print(name, m.version(name))\n"
        "    except m.PackageNotFoundError: pass\n"
    )
    result = subprocess.run(
        [str(python), "-c", script, *names], capture_output=True, text=True, check=False
    )
    versions: dict[str, str] = {}
    for line in result.stdout.splitlines():
        name, _, version = line.partition(" ")
        versions[name] = version
    return versions


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def install_in_venv(spec: PeerSpec, venvs: Path, log: Log, timeout: float = 900) -> Tool:
    """Create ``venvs/<key>-<version>`` with the pinned peer, once; reuse it after."""
    venv = venvs / f"{spec.key}-{spec.version}"
    stamp = venv / ".bench-installed"
    executable = venv / "bin" / spec.executable
    tool = Tool(spec.key, source=f"venv {venv}")
    stamped = stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == spec.requirement
    if not (stamped and executable.is_file()):
        log(f"installing {spec.requirement} into {venv}")
        shutil.rmtree(venv, ignore_errors=True)
        venvs.mkdir(parents=True, exist_ok=True)
        try:
            made = subprocess.run(
                [sys.executable, "-m", "venv", str(venv)],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            if made.returncode != 0:
                tool.unavailable = f"python -m venv failed: {_last_error(made.stderr)}"
                return tool
            installed = subprocess.run(
                [
                    str(_venv_python(venv)),
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--quiet",
                    spec.requirement,
                ],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            tool.unavailable = f"installing {spec.requirement} took over {timeout:.0f} s"
            return tool
        if installed.returncode != 0:
            reason = _last_error(installed.stderr or installed.stdout)
            tool.unavailable = f"pip install {spec.requirement} failed: {reason}"
            return tool
        if not executable.is_file():
            tool.unavailable = f"{spec.requirement} installed no `{spec.executable}` script"
            return tool
        stamp.write_text(spec.requirement + "\n", encoding="utf-8")
    versions = _dist_versions(_venv_python(venv), (spec.distribution, *spec.also_report))
    tool.command = [str(executable)]
    tool.version = versions.pop(spec.distribution, None)
    tool.extras = versions
    return tool


_VERSION = re.compile(r"\d+(?:\.\d+)+\S*")


def from_path(spec: PeerSpec) -> Tool:
    """The peer as found on ``PATH``."""
    found = shutil.which(spec.executable)
    if found is None:
        return Tool(spec.key, unavailable=f"`{spec.executable}` not found on PATH")
    tool = Tool(spec.key, command=[found], source=f"PATH {found}")
    try:
        result = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=120, check=False
        )
    except subprocess.TimeoutExpired:
        tool.unavailable = f"`{found} --version` did not answer in 120 s"
        return tool
    match = _VERSION.search(result.stdout + result.stderr)
    if result.returncode != 0 or match is None:
        tool.unavailable = f"`{found} --version` failed: {_last_error(result.stderr)}"
        return tool
    tool.version = match.group(0)
    return tool


def resolve_peer(spec: PeerSpec, source: str, venvs: Path, log: Log) -> Tool:
    """``source`` is "venv" (install the pinned release) or "path"."""
    if source == "path":
        return from_path(spec)
    return install_in_venv(spec, venvs, log)


# --------------------------------------------------------------------------- tensorlint

_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def _git_describe(package_dir: Path) -> str | None:
    """The commit of the checkout ``package_dir`` is in, and whether it is edited."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(package_dir), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if commit.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "-C", str(package_dir), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    dirty = " with uncommitted changes" if status.stdout.strip() else ""
    return f"git {commit.stdout.strip()}{dirty}"


def tensorlint_package() -> Path | None:
    """The directory of the ``tensorlint`` package this interpreter imports."""
    try:
        import tensorlint
    except ImportError:
        return None
    return Path(tensorlint.__file__).resolve().parent


def source_fingerprint(package_dir: Path) -> str:
    """A digest of the package's ``*.py`` files (paths and contents)."""
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(package_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()


def snapshot_package(package_dir: Path, destination: Path) -> Path:
    """Copy the package to ``destination/<name>``; return ``destination`` (for PYTHONPATH)."""
    shutil.rmtree(destination, ignore_errors=True)
    shutil.copytree(
        package_dir,
        destination / package_dir.name,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    return destination


def resolve_tensorlint(snapshot: Path | None = None) -> Tool:
    """tensorlint as a user runs it, or a frozen copy of it.

    Without ``snapshot``: the console script of this interpreter's install.
    With it: the package this interpreter imports, copied to ``snapshot`` and
    run as ``python -m tensorlint`` with the copy first on ``PYTHONPATH``, so
    that edits to the checkout during a long benchmark cannot mix versions.
    """
    package_dir = tensorlint_package()
    env: dict[str, str] = {}
    if snapshot is not None:
        if package_dir is None:
            return Tool("tensorlint", unavailable="`import tensorlint` fails in this interpreter")
        snapshot_package(package_dir, snapshot)
        command = [sys.executable, "-m", "tensorlint"]
        existing = os.environ.get("PYTHONPATH")
        env["PYTHONPATH"] = str(snapshot) + (os.pathsep + existing if existing else "")
        source = f"snapshot of {package_dir} in {snapshot}, run as python -m tensorlint"
    else:
        script = Path(sysconfig.get_path("scripts")) / "tensorlint"
        command = [str(script)] if script.is_file() else [sys.executable, "-m", "tensorlint"]
        source = " ".join(command)
    tool = Tool("tensorlint", command=command, source=source, env=env)
    run_env = {**os.environ, **env}
    try:
        version = subprocess.run(
            [*command, "--version"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=run_env,
        )
        helptext = subprocess.run(
            [*command, "check", "--help"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=run_env,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        tool.unavailable = f"cannot run {' '.join(command)}: {exc}"
        return tool
    if version.returncode != 0 or helptext.returncode != 0:
        tool.unavailable = f"`tensorlint check --help` failed: {_last_error(helptext.stderr)}"
        return tool
    match = _VERSION.search(version.stdout)
    tool.version = match.group(0) if match else version.stdout.strip()
    tool.features = frozenset(_OPTION.findall(helptext.stdout))
    if package_dir is not None:
        described = _git_describe(package_dir)
        if described:
            tool.extras["checkout"] = described
        tool.extras["source digest"] = source_fingerprint(
            snapshot / package_dir.name if snapshot is not None else package_dir
        )
    return tool


# --------------------------------------------------------------------------- output


def count_lines(pattern: str) -> Callable[[str], int]:
    """A findings counter: the lines of the output matching ``pattern``."""
    compiled = re.compile(pattern, re.MULTILINE)
    return lambda output: len(compiled.findall(output))
