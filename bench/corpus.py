"""The benchmark corpus: pinned releases of PyTorch libraries, or a local tree.

The pinned corpus is four wheels from PyPI, fetched with ``pip download``
(never installed), checked against their SHA-256 and unpacked, ``*.py`` members
only, under ``<cache-dir>/corpus/<name>-<version>/``. Nothing of it is
committed: the cache directory gets a ``.gitignore`` of ``*`` when it is
created, like Ruff's cache.

Every tool is handed the same explicit list of files (:attr:`Corpus.files`),
so neither a ``.gitignore`` (the corpus lives inside one that ignores
everything) nor a tool's own default excludes can make tools check different
files. (Semgrep, which is slow with long file lists, gets the corpus root with
``--project-root`` instead; its report says how many files it scanned.)
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "PINNED",
    "Corpus",
    "CorpusError",
    "Package",
    "ensure_cache_dir",
    "load_corpus",
    "prepare_pinned",
]


Log = Callable[[str], None]


class CorpusError(Exception):
    """The corpus could not be downloaded, verified or read."""


@dataclass(frozen=True)
class Package:
    """One pinned release: a wheel from PyPI, identified by its exact file."""

    name: str
    version: str
    filename: str
    sha256: str
    #: extra ``pip download`` options (a platform wheel needs its platform named)
    pip_options: tuple[str, ...] = ()
    #: a source distribution (tests, examples and notebooks included) instead of a wheel
    sdist: bool = False

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def label(self) -> str:
        return f"{self.name}-{self.version}"


#: The pinned corpus: ~1,280 ``.py`` files, ~18 MB of library code.
PINNED: tuple[Package, ...] = (
    Package(
        "monai",
        "1.6.1",
        "monai-1.6.1-py3-none-any.whl",
        "dbd3b1dd309e752e0477ed73fde03b92f80ac74bfb8a8c4260f018b5d6ab2b0b",
    ),
    Package(
        "timm",
        "1.0.31",
        "timm-1.0.31-py3-none-any.whl",
        "5bd50f7d0fe6d09bf9285ac2523234a1b7e6bf075c0be3e7aed09139fcb617c7",
    ),
    Package(
        "torchmetrics",
        "1.9.0",
        "torchmetrics-1.9.0-py3-none-any.whl",
        "bfdcbff3dd1d96b3374bb2496eb39f23c4b28b8a845b6a18c313688e0d2d9ca1",
    ),
    # torchvision ships only platform wheels (compiled ops next to the Python
    # sources); the Linux x86-64 one is downloaded whatever the host, only to
    # be unpacked.
    Package(
        "torchvision",
        "0.29.2",
        "torchvision-0.29.2-py3-none-manylinux_2_28_x86_64.whl",
        "0875f7a23bd298813240f716c56df44ce72ddb45146589442a38edd0e1f59637",
        ("--platform", "manylinux_2_28_x86_64", "--python-version", "3.11"),
    ),
)

_GITIGNORE = "# Automatically created by `python -m bench`.\n*\n"
_COMPLETE = ".bench-complete"

#: Directories never collected from a local ``--corpus`` tree.
SKIPPED_DIRS = frozenset(
    {
        "__pycache__",
        "node_modules",
        "site-packages",
        "venv",
        "build",
        "dist",
        "__pypackages__",
    }
)

# A candidate file mentions torch and converts: `.numpy` (a call or the
# attribute) or `from_numpy`.
_CANDIDATE_CONVERSION = re.compile(rb"\.numpy\b|from_numpy")
_CONVERSION_CALL = re.compile(rb"\.numpy\(|from_numpy\(")


def ensure_cache_dir(cache_dir: Path) -> Path:
    """Create ``cache_dir`` (with its ``.gitignore``) if needed; return it resolved."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    gitignore = cache_dir / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text(_GITIGNORE, encoding="utf-8")
    return cache_dir.resolve()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(package: Package, downloads: Path, log: Log) -> Path:
    wheel = downloads / package.filename
    if wheel.is_file() and _sha256(wheel) == package.sha256:
        return wheel
    log(f"downloading {package.requirement} ({package.filename})")
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--disable-pip-version-check",
        "--no-deps",
        "--no-binary" if package.sdist else "--only-binary",
        ":all:",
        "--dest",
        str(downloads),
        *package.pip_options,
        package.requirement,
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0 or not wheel.is_file():
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise CorpusError(f"pip download {package.requirement} failed: {' / '.join(tail)}")
    actual = _sha256(wheel)
    if actual != package.sha256:
        wheel.unlink()
        raise CorpusError(
            f"{package.filename}: SHA-256 {actual} does not match the pinned {package.sha256}"
        )
    return wheel


def _unpack_sdist(archive_path: Path, partial: Path, suffixes: tuple[str, ...]) -> None:
    """Extract the members ending in ``suffixes``, without the top folder."""
    with tarfile.open(archive_path, "r:gz") as archive:
        for member in archive.getmembers():
            parts = Path(member.name).parts[1:]
            if (
                not member.isfile()
                or not parts
                or not member.name.endswith(suffixes)
                or member.name.startswith("/")
                or ".." in parts
            ):
                continue
            handle = archive.extractfile(member)
            if handle is None:
                continue
            destination = partial.joinpath(*parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(handle.read())


def _unpack(wheel: Path, target: Path, suffixes: tuple[str, ...] = (".py",)) -> None:
    """Extract the ``*.py`` members of ``wheel`` (or an sdist) into ``target`` (atomically)."""
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    if wheel.name.endswith(".tar.gz"):
        _unpack_sdist(wheel, partial, suffixes)
        (partial / _COMPLETE).write_text(wheel.name + "\n", encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        return
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            name = member.filename
            parts = Path(name).parts
            if (
                member.is_dir()
                or not name.endswith(".py")
                or name.startswith("/")
                or ".." in parts
                or any(part.endswith((".dist-info", ".data")) for part in parts)
            ):
                continue
            destination = partial.joinpath(*parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(archive.read(member))
    (partial / _COMPLETE).write_text(wheel.name + "\n", encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


def prepare_pinned(
    cache_dir: Path,
    packages: Sequence[Package] = PINNED,
    log: Log | None = None,
    name: str = "corpus",
    suffixes: tuple[str, ...] = (".py",),
) -> Path:
    """Download and unpack the pinned corpus under ``cache_dir``; return its root."""
    say: Log = log or (lambda _message: None)
    root = cache_dir / name
    downloads = cache_dir / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    wanted = {package.label for package in packages}
    for package in packages:
        target = root / package.label
        if (target / _COMPLETE).is_file():
            continue
        wheel = _download(package, downloads, say)
        say(f"unpacking {package.filename}")
        _unpack(wheel, target, suffixes)
    for stale in root.iterdir():  # e.g. an older pin: keep the corpus exactly the pins
        if stale.is_dir() and stale.name not in wanted:
            shutil.rmtree(stale)
    return root


# --------------------------------------------------------------------------- files


@dataclass(frozen=True)
class SourceFile:
    """One ``.py`` file of the corpus."""

    path: Path  #: absolute
    rel: str  #: posix path relative to the corpus root
    size: int
    lines: int
    #: mentions ``torch`` and ``.numpy``/``from_numpy``: a file tensorlint must analyse
    candidate: bool
    #: ``.numpy(`` and ``from_numpy(`` calls in the text
    conversions: int


@dataclass(frozen=True)
class Corpus:
    """The files every run is handed, with how they were obtained."""

    root: Path
    #: "pinned" (downloaded releases) or "local" (``--corpus``/``--quick``)
    kind: str
    #: for a pinned corpus, ``(name, version)`` of each release, in order
    packages: tuple[tuple[str, str], ...]
    files: tuple[SourceFile, ...]

    @property
    def paths(self) -> list[Path]:
        return [source.path for source in self.files]

    @property
    def candidates(self) -> list[SourceFile]:
        return [source for source in self.files if source.candidate]

    def package_of(self, source: SourceFile) -> str:
        return source.rel.split("/", 1)[0] if self.kind == "pinned" else self.root.name

    def summary(self) -> dict[str, object]:
        per_package: dict[str, int] = {}
        for source in self.files:
            name = self.package_of(source)
            per_package[name] = per_package.get(name, 0) + 1
        return {
            "kind": self.kind,
            "root": str(self.root),
            "packages": [
                {"name": name, "version": version, "files": per_package.get(f"{name}-{version}", 0)}
                for name, version in self.packages
            ],
            "files": len(self.files),
            "candidate_files": len(self.candidates),
            "conversion_calls": sum(source.conversions for source in self.files),
            "bytes": sum(source.size for source in self.files),
            "lines": sum(source.lines for source in self.files),
        }

    # ----------------------------------------------------------------- subsets

    def fraction(self, fraction: float, seed: int = 0) -> list[SourceFile]:
        """A deterministic random ``fraction`` of the files; smaller ones nest in larger."""
        order = list(self.files)
        random.Random(seed).shuffle(order)
        count = max(1, round(len(order) * fraction))
        return sorted(order[:count], key=lambda source: source.rel)

    def with_candidates(self, fraction: float, seed: int = 0) -> list[SourceFile]:
        """Every non-candidate file plus a deterministic ``fraction`` of the candidates."""
        candidates = self.candidates
        random.Random(seed).shuffle(candidates)
        kept = {source.rel for source in candidates[: round(len(candidates) * fraction)]}
        return [source for source in self.files if not source.candidate or source.rel in kept]

    def clean_file(self) -> SourceFile | None:
        """A median-sized file without conversions (preferring one that uses torch)."""
        pool = [source for source in self.files if not source.candidate and source.lines >= 10]
        with_torch = [source for source in pool if _mentions_torch(source.path)]
        return _median_sized(with_torch or pool)

    def conversions_file(self) -> SourceFile | None:
        """A median-sized file with a few (2-6) conversions, else any candidate."""
        few = [source for source in self.candidates if 2 <= source.conversions <= 6]
        return _median_sized(few or self.candidates)


def _mentions_torch(path: Path) -> bool:
    return b"torch" in path.read_bytes()


def _median_sized(pool: Sequence[SourceFile]) -> SourceFile | None:
    if not pool:
        return None
    sizes = sorted(source.size for source in pool)
    median = sizes[len(sizes) // 2]
    return min(pool, key=lambda source: (abs(source.size - median), source.rel))


def _collect(root: Path) -> list[Path]:
    found: list[Path] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            name for name in dirnames if not name.startswith(".") and name not in SKIPPED_DIRS
        )
        found.extend(Path(directory, name) for name in filenames if name.endswith(".py"))
    return sorted(found)


def _describe(path: Path, root: Path) -> SourceFile:
    data = path.read_bytes()  # also brings the corpus into the page cache
    return SourceFile(
        path=path,
        rel=path.relative_to(root).as_posix(),
        size=len(data),
        lines=data.count(b"\n"),
        candidate=b"torch" in data and _CANDIDATE_CONVERSION.search(data) is not None,
        conversions=len(_CONVERSION_CALL.findall(data)),
    )


def load_corpus(
    root: Path,
    kind: str,
    packages: Sequence[Package] = (),
) -> Corpus:
    """Read every ``.py`` file under ``root`` (hidden and build directories skipped)."""
    root = root.resolve()
    if not root.is_dir():
        raise CorpusError(f"{root}: not a directory")
    files = tuple(_describe(path, root) for path in _collect(root))
    if not files:
        raise CorpusError(f"{root}: no .py files")
    return Corpus(
        root=root,
        kind=kind,
        packages=tuple((package.name, package.version) for package in packages),
        files=files,
    )
