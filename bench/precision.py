"""``python -m bench precision``: precision and recall on hand-labelled sites.

The corpus is pinned source distributions from PyPI (tests, examples and
notebooks included), downloaded with pip into the cache directory and never
committed. What is committed is the labels, ``bench/labels/*.csv``: one row
per (site, hazard) with the verdict of a person who read the code:

    package,version,path,line,code,verdict,reason

``line`` is ``12`` in a ``.py`` file and ``3:12`` (code cell 3, line 12) in a
notebook. Besides the packages, ``bench/cross/`` holds cases we wrote in
the shape of real bugs that cross a function or file boundary (a helper
returning an alias that the caller writes, a snapshot followed by a call
that steps an optimizer, and the negatives a caller or callee decides),
scored as the package ``cross`` and labelled in ``cross-function.csv``.
``code`` names the hazard: TL101 (may be on an accelerator), TL102
(may require grad), TL103, TL2xx. ``verdict`` is REAL (the finding would be a
bug a maintainer fixes), WEAK (possible, in unusual use), or FP (cannot
happen). A finding of a strict "unknown provenance" rule is scored against
the label of the hazard it stands for (TL111 against TL101, ...).

The report gives, per rule and per kind of file (library, test, example,
notebook, ...), how many findings there are, how many of them are labelled
REAL/WEAK/FP, the precision ((REAL + WEAK) / labelled findings) and the
recall (REAL labels found / REAL labels), per label file (``set``: the
cross-function cases apart from the rest), then lists every disagreement:
findings labelled FP, REAL labels not found, findings with no label.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench import readme
from bench.corpus import Package, ensure_cache_dir, prepare_pinned

__all__ = ["PACKAGES", "main", "readme_table"]

_LABELS = Path(__file__).resolve().parent / "labels"

#: Pinned source distributions: research libraries with their tests,
#: examples and notebooks. None of them is in the held-out evaluation set.
PACKAGES: tuple[Package, ...] = (
    Package("gpytorch", "1.15.2", "gpytorch-1.15.2.tar.gz",
            "380625e93f851b85f772b25c5fb0a6c6d2e3eb2ef667f1e566ab4f95b8775361", sdist=True),
    Package("neuralforecast", "3.3.0", "neuralforecast-3.3.0.tar.gz",
            "73fbb9b8ba194c6f06e64d2f137855c98616af7f2488c7107abb05516a22ebe7", sdist=True),
    Package("pykeen", "1.11.1", "pykeen-1.11.1.tar.gz",
            "702cb807c354a0d2fce0f0593db46e1fe15fba2a37e92bbb18cd1b9d0a85fe13", sdist=True),
    Package("pytorch-forecasting", "1.8.0", "pytorch_forecasting-1.8.0.tar.gz",
            "f7de2af2fb7ce0c4ef73287666b8b79391485ff55883c974b6267b505adf0422", sdist=True),
    Package("skorch", "1.4.0", "skorch-1.4.0.tar.gz",
            "f7a5d3c13a3aecf0a0fe689ff25188be1145a95268f8fe81f01aaa9fbd7cead1", sdist=True),
    Package("pytorch-metric-learning", "2.9.0", "pytorch-metric-learning-2.9.0.tar.gz",
            "27a626caf5e2876a0fd666605a78cb67ef7597e25d7a68c18053dd503830701f", sdist=True),
    Package("e3nn", "0.6.0", "e3nn-0.6.0.tar.gz",
            "5c2b414e9527aad27d755ae9546596e3f7706f45a21dae71c7deedb6c048e4de", sdist=True),
    Package("timm", "1.0.31", "timm-1.0.31.tar.gz",
            "baa0b333339c46d3d6d4965d99b69f5053afed71210e8f433d7ea5ee6a18f0ec", sdist=True),
    Package("torchmetrics", "1.9.0", "torchmetrics-1.9.0.tar.gz",
            "a488609948600df52d3db4fcdab02e62aab2a85ef34da67037dc3e65b8512faa", sdist=True),
    Package("lightly", "1.6.0", "lightly-1.6.0.tar.gz",
            "05cfb780837989a92cc1255aa0dfef7413881cb99b9e1d2a21b1c2f48231a7e9", sdist=True),
    Package("deepxde", "1.15.0", "deepxde-1.15.0.tar.gz",
            "2c0e8ad01b612b9c03d53786ed49010cec39453699a5e0f802d7a021d98441d4", sdist=True),
    Package("torchdiffeq", "0.2.5", "torchdiffeq-0.2.5.tar.gz",
            "b50d3760d13fd138dcceac651f4b80396f44fefcebd037a033fecfeaa9cc12e7", sdist=True),
    # Their sites were sampled and labelled blind (before anyone looked at
    # tensorlint's output on them), scored once as the blind set, then
    # read, so development data since: ``bench/labels/sampled.csv``.
    Package("alibi-detect", "0.13.0", "alibi_detect-0.13.0.tar.gz",
            "07a468cac6ef0773c060d915544d0c9bd67f77400e75dfe435b1ea9a81679223", sdist=True),
    Package("cleanlab", "2.9.0", "cleanlab-2.9.0.tar.gz",
            "abe25fe0c772ced8c4b36a94e0de71726db00802224b7fb7bee06db6ff95eb4e", sdist=True),
    Package("d3rlpy", "2.8.1", "d3rlpy-2.8.1.tar.gz",
            "2f2acec9d5973eec064dbad937979a81b3ebda2188ac751fd66492f63810be1f", sdist=True),
    Package("grad-cam", "1.5.7", "grad_cam-1.5.7.tar.gz",
            "f6be06f826677a2e922c3879df9be3944b14a69643d80e7bec9adfb26f6b5e42", sdist=True),
    Package("hummingbird-ml", "0.4.12", "hummingbird-ml-0.4.12.tar.gz",
            "0e3486ec5867631e3e86d092780ca7d4164999e7ea85cf7b6985b3aff21f193b", sdist=True),
    Package("k-diffusion", "0.1.1.post1", "k-diffusion-0.1.1.post1.tar.gz",
            "04b66b0e95202a60c4c178a482e6d31528b81a1c97011d6023ed3ad559de7166", sdist=True),
    Package("learn2learn", "0.2.0", "learn2learn-0.2.0.tar.gz",
            "69f1d7cb0d0a6be7a2c6ad8e83e2ebbe70fb05e51d61e45e63078b40c75ea419", sdist=True),
    Package("lpips", "0.1.4", "lpips-0.1.4.tar.gz",
            "3846331df6c69688aec3d300a5eeef6c529435bc8460bd58201c3d62e56188fa", sdist=True),
    Package("nflows", "0.14", "nflows-0.14.tar.gz",
            "6299844a62f9999fcdf2d95cb2d01c091a50136bd17826e303aba646b2d11b55", sdist=True),
    Package("normflows", "1.7.3", "normflows-1.7.3.tar.gz",
            "0cc539869c9970d28041edb4d7a28006c1cec6241d9d0d553975b5b1155c2071", sdist=True),
    Package("ogb", "1.3.6", "ogb-1.3.6.tar.gz",
            "ce90418a0e3206483187aa7b7ecac1a2c5d85b3b99aceedb807138ee43115914", sdist=True),
    Package("opacus", "1.6.0", "opacus-1.6.0.tar.gz",
            "20d77252c1e8528cd5826fbaba345cd39ed5c3edb841707eafb6403fe276140a", sdist=True),
    Package("pykan", "0.2.8", "pykan-0.2.8.tar.gz",
            "b530b96a9f0584db0a3a80b0425b479613eadce966de96bce8b787b60a8abc73", sdist=True),
    Package("pytorch-adapt", "0.0.83", "pytorch-adapt-0.0.83.tar.gz",
            "6b9dbfa5cb1ac55c7223bb89ec19bbc18d3cc17bb74fad9af6d17d0af717f69e", sdist=True),
    Package("pytorch-msssim", "1.0.0", "pytorch_msssim-1.0.0.tar.gz",
            "53273f03ce5c435f706f49feb5110a8afe90b2519484b0fe0df9639670106d0b", sdist=True),
    Package("pytorch-tabular", "1.2.0", "pytorch_tabular-1.2.0.tar.gz",
            "1b96b576eb3de443840b313d0b298293eaf83dcfdbba53ed8974b76d1351b821", sdist=True),
    Package("pytorch-toolbelt", "0.8.0", "pytorch_toolbelt-0.8.0.tar.gz",
            "a7a5126fbaeea68d7f7423cef540051554159f6f57b3af07dba8ee5b166cc9b0", sdist=True),
    Package("segmentation-models-pytorch", "0.6.0", "segmentation_models_pytorch-0.6.0.tar.gz",
            "5f90a7a43fac608f85a9dce66f65297d887605da9c2caafb44aa875c30180424", sdist=True),
    Package("torchsde", "0.2.6", "torchsde-0.2.6.tar.gz",
            "81d074d3504f9d190f1694fb526395afbe4608ee43a88adb1262a639e5b4778b", sdist=True),
)  # fmt: skip

#: The blind set: sampled and labelled before anyone looked at tensorlint's
#: output on them; measured, never tuned on: ``bench/labels/blind.csv``.
BLIND_PACKAGES: tuple[Package, ...] = (
    Package("effdet", "0.4.1", "effdet-0.4.1.tar.gz",
            "ac5589fd304a5650c201986b2ef5f8e10c111093a71b1c49fa6b8817710812b5", sdist=True),
    Package("fastai", "2.8.12", "fastai-2.8.12.tar.gz",
            "b995efbb1ade78c99cc228e65db7493a668eb10cfa4945e21d2e348d738aba04", sdist=True),
    Package("geomloss", "0.3.1", "geomloss-0.3.1.tar.gz",
            "8d8bee2a57c9393642866c329e0dd069f6270b06a721683b0f164cadc4902505", sdist=True),
    Package("neuralprophet", "0.9.0", "neuralprophet-0.9.0.tar.gz",
            "06feb3d188e74f18b7febcbe2f349562cf69013ac8d85ab7674f2be4e3e0727e", sdist=True),
    Package("nnAudio", "0.3.4", "nnaudio-0.3.4.tar.gz",
            "bda234f99c11dd7806e13593d607fdd258b86d87dc6735e810e0d8ce57fd3711", sdist=True),
    Package("open-clip-torch", "3.3.0", "open_clip_torch-3.3.0.tar.gz",
            "904b1a9f909df8281bb3de60ab95491cd2994a509177ea4f9d6292a84fe24d6d", sdist=True),
    Package("peft", "0.21.2", "peft-0.21.2.tar.gz",
            "b803ccfb3f3f316004d850284306687833a2235ea278fb56abc856203456142e", sdist=True),
    Package("poutyne", "1.19.0", "poutyne-1.19.0.tar.gz",
            "6046a236a5b181ec89979606fb94abe3d420a55109c8b9b678868efbc43e1b37", sdist=True),
    Package("pyiqa", "0.1.16", "pyiqa-0.1.16.tar.gz",
            "80fb913302585a774875c224b4f95068ac17bebd88f735876e6f0c3bb0988d34", sdist=True),
    Package("pytorch-ood", "0.4.0", "pytorch_ood-0.4.0.tar.gz",
            "1f7cb44eb7d2ed6a9fd59352e34af25a5ce96e3605167882c33026d36c002a00", sdist=True),
    Package("pytorch-pfn-extras", "0.9.0", "pytorch_pfn_extras-0.9.0.tar.gz",
            "82acc16094ebbb661e1bc6d80dd5604080f93d514f82cfe229a9420be36930ce", sdist=True),
    Package("rl-games", "1.6.5", "rl_games-1.6.5.tar.gz",
            "e1e6cf55f2446592c50e93a89c04da65631ecd574b133fc2afa2c0d57f92968d", sdist=True),
    Package("tensorboardX", "2.6.5", "tensorboardx-2.6.5.tar.gz",
            "ca176db3997ee8c07d2eb77381225956a3fd1c10c91beafab1f17069adc47017", sdist=True),
    Package("torch-audiomentations", "0.12.0", "torch_audiomentations-0.12.0.tar.gz",
            "b02d4c5eb86376986a53eb405cca5e34f370ea9284411237508e720c529f7888", sdist=True),
    Package("torchani", "2.9.0", "torchani-2.9.0.tar.gz",
            "fc1ff7df470bf7ffed7e8d7f428db8051dd54622a178577960999a0618f5a297", sdist=True),
    Package("torchcde", "0.2.5", "torchcde-0.2.5.tar.gz",
            "6e6081192e00476314eb0d97ce54e6c6a67134d868b97b06db7b8017e60f0de6", sdist=True),
    Package("tsai", "1.0.1", "tsai-1.0.1.tar.gz",
            "7ef31c7de6bf5ff551a5e3f0fbae8ee92a2cc550b1381e82485be7cd724bc012", sdist=True),
)  # fmt: skip

#: Every pinned package: the blind ones are scored apart as the ``blind``
#: set (the others are ``development``).
PACKAGES += BLIND_PACKAGES
BLIND: frozenset[str] = frozenset(p.name for p in BLIND_PACKAGES)

#: Cases we wrote (not downloaded): name -> folder, scored like a package.
LOCAL: dict[str, Path] = {"cross": Path(__file__).resolve().parent / "cross"}

VERDICTS = ("REAL", "WEAK", "FP")
#: strict "unknown provenance" codes, scored against the hazard they stand for
HAZARD_OF = {"TL111": "TL101", "TL112": "TL102", "TL113": "TL103"}

#: the conversion sites a person labels (the population of the sample)
_SITE = re.compile(r"\.numpy\s*\(|\bfrom_numpy\s*\(|\bas_tensor\s*\(|\btorch\.asarray\s*\(")
_TORCH_IMPORT = re.compile(r"^[ \t]*(?:import[ \t]+[^\n#]*\btorch\b|from[ \t]+torch\b)", re.M)
_KIND_DIRS = (
    ("test", ("test", "tests", "testing")),
    ("example", ("example", "examples", "tutorial", "tutorials", "demo", "demos", "scripts")),
    ("docs", ("doc", "docs")),
    ("bench", ("benchmark", "benchmarks", "bench")),
)


def kind_of(path: str) -> str:
    """library, test, example, notebook, docs or bench, from the path alone."""
    if path.endswith(".ipynb"):
        return "notebook"
    parts = path.lower().split("/")
    name = parts[-1]
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return "test"
    for kind, names in _KIND_DIRS:
        if any(part in names for part in parts[:-1]):
            return kind
    return "library"


@dataclass(frozen=True)
class Key:
    package: str
    path: str
    line: str
    code: str


@dataclass(frozen=True)
class Label:
    key: Key
    version: str
    verdict: str
    reason: str
    #: the label file's name (``cross-function``, ``pykeen``, ...)
    group: str = ""
    #: False for a site listed only because tensorlint reported it (column
    #: ``sampled`` = ``no``): its verdict scores findings, never recall
    sampled: bool = True


# ----------------------------------------------------------------------- corpus


def prepare(cache_dir: Path) -> Path:
    cache_dir = ensure_cache_dir(cache_dir)
    return prepare_pinned(
        cache_dir, PACKAGES, log=_log, name="precision", suffixes=(".py", ".ipynb")
    )


def _package_dir(root: Path, package: Package) -> Path:
    return root / package.label


def _suites(root: Path) -> list[tuple[str, str, Path]]:
    """(name, version, folder) of every package and local suite."""
    suites = [(p.name, p.version, _package_dir(root, p)) for p in PACKAGES]
    return suites + [(name, "local", folder) for name, folder in LOCAL.items()]


def _sources(directory: Path) -> Iterator[tuple[str, str]]:
    """(relative path, text) of every ``.py`` file and notebook code cell text."""
    for path in sorted(directory.rglob("*")):
        if path.suffix not in (".py", ".ipynb") or not path.is_file():
            continue
        rel = path.relative_to(directory).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        yield rel, text


def file_lines(rel: str, text: str) -> Iterator[tuple[str, str]]:
    """(line key, line) of a file: ``12`` for Python, ``3:12`` in notebook cell 3."""
    if not rel.endswith(".ipynb"):
        for number, line in enumerate(text.splitlines(), 1):
            yield str(number), line
        return
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return
    number = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        for line_no, line in enumerate(source.splitlines(), 1):
            yield f"{number}:{line_no}", line


def sites(root: Path) -> list[dict[str, str]]:
    """Every conversion site of the corpus (files that import torch)."""
    found: list[dict[str, str]] = []
    for name, version, directory in _suites(root):
        for rel, text in _sources(directory):
            if not _TORCH_IMPORT.search(text) and "import torch" not in text:
                continue
            for key, line in file_lines(rel, text):
                if _SITE.search(line):
                    found.append(
                        {
                            "package": name,
                            "version": version,
                            "path": rel,
                            "line": key,
                            "kind": kind_of(rel),
                            "code": line.strip()[:160],
                        }
                    )
    return found


# ----------------------------------------------------------------------- findings


def findings(
    root: Path, strict: bool, least: str = "low", only: Sequence[str] = ()
) -> dict[Key, str]:
    """Run ``tensorlint check`` on each package: finding key -> message
    (``least``: its ``--min-confidence``).

    A finding spans lines (a chain broken over several); its key's line is
    the first, or the line of the labelled site inside its span when there is
    one (labels name the line where the conversion call is written).
    """
    found: dict[Key, str] = {}
    labelled = {(k.package, k.path, k.line) for k in load_labels()}
    for name, _version, directory in _suites(root):
        if only and name not in only:
            continue
        # named files: the corpus lives under a ``.gitignore`` of ``*``
        files = [str(directory / rel) for rel, _text in _sources(directory)]
        command = [sys.executable, "-m", "tensorlint", "check", *files, "--no-cache",
                   "--exit-zero", "--output-format", "json"]  # fmt: skip
        if strict:
            command.append("--strict")
        if least != "low":
            command += ["--min-confidence", least]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        try:
            report = json.loads(result.stdout)
        except ValueError:
            tail = result.stderr.strip()[-500:]
            raise SystemExit(f"tensorlint failed on {directory}: {tail}") from None
        for item in report["findings"]:
            rel = Path(item["file"]).resolve().relative_to(directory.resolve()).as_posix()
            prefix = f"{item['cell']}:" if item.get("cell") else ""
            lines = [f"{prefix}{n}" for n in range(item["line"], item["end_line"] + 1)]
            line = next((n for n in lines if (name, rel, n) in labelled), lines[0])
            found[Key(name, rel, line, item["code"])] = item["message"]
    return found


# ----------------------------------------------------------------------- labels


def load_labels(directory: Path = _LABELS) -> dict[Key, Label]:
    labels: dict[Key, Label] = {}
    for path in sorted(directory.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for number, row in enumerate(csv.DictReader(handle), 2):
                verdict = (row.get("verdict") or "").strip().upper()
                if verdict not in VERDICTS:
                    raise SystemExit(f"{path}:{number}: verdict {verdict!r} not in {VERDICTS}")
                key = Key(row["package"], row["path"], row["line"].strip(), row["code"].strip())
                if key in labels:
                    raise SystemExit(f"{path}:{number}: {key} labelled twice")
                reason = row.get("reason", "").strip()
                sampled = (row.get("sampled") or "yes").strip().lower() != "no"
                labels[key] = Label(key, row["version"], verdict, reason, path.stem, sampled)
    return labels


# ----------------------------------------------------------------------- scoring


@dataclass
class Tally:
    findings: int = 0
    real: int = 0
    weak: int = 0
    fp: int = 0
    unlabelled: int = 0
    real_labels: int = 0
    real_found: int = 0

    @property
    def labelled(self) -> int:
        return self.real + self.weak + self.fp

    def precision(self) -> str:
        return f"{(self.real + self.weak) / self.labelled:.0%}" if self.labelled else "-"

    def recall(self) -> str:
        return f"{self.real_found / self.real_labels:.0%}" if self.real_labels else "-"


def hazard(code: str) -> str:
    return HAZARD_OF.get(code, code)


def set_of(package: str) -> str:
    """``blind`` for a package labelled before its findings were seen, else
    ``development``."""
    return "blind" if package in BLIND else "development"


def score(
    found: dict[Key, str], labels: dict[Key, Label]
) -> tuple[dict[str, Tally], dict[str, Tally], dict[str, Tally], list[str]]:
    """Tallies by rule, by kind of file and by label set; the disagreements."""
    by_rule: dict[str, Tally] = {}
    by_kind: dict[str, Tally] = {}
    by_set: dict[str, Tally] = {}
    disagreements: list[str] = []
    found_hazards = {Key(k.package, k.path, k.line, hazard(k.code)) for k in found}
    for key, message in sorted(found.items(), key=lambda kv: _order(kv[0])):
        label = labels.get(Key(key.package, key.path, key.line, hazard(key.code)))
        for tally in (_get(by_rule, key.code), _get(by_kind, kind_of(key.path)),
                      _get(by_set, set_of(key.package)), _get(by_rule, "all"), _get(by_kind, "all"),
                      _get(by_set, "all")):  # fmt: skip
            tally.findings += 1
            if label is None:
                tally.unlabelled += 1
            elif label.verdict == "REAL":
                tally.real += 1
            elif label.verdict == "WEAK":
                tally.weak += 1
            else:
                tally.fp += 1
        where = f"{key.package} {key.path}:{key.line} {key.code}"
        if label is None:
            disagreements.append(f"UNLABELLED  {where}: {message}")
        elif label.verdict == "FP":
            disagreements.append(
                f"FALSE POS.  {where}: {message}\n             label: {label.reason}"
            )
    for key, label in sorted(labels.items(), key=lambda kv: _order(kv[0])):
        if label.verdict != "REAL" or not label.sampled:
            continue
        hit = key in found_hazards
        codes = [code for code in by_rule if code != "all" and hazard(code) == key.code]
        for tally in [_get(by_rule, c) for c in codes or [key.code]] + [
            _get(by_kind, kind_of(key.path)), _get(by_set, set_of(key.package)),
            _get(by_rule, "all"), _get(by_kind, "all"), _get(by_set, "all"),
        ]:  # fmt: skip
            tally.real_labels += 1
            tally.real_found += hit
        if not hit:
            where = f"{key.package} {key.path}:{key.line} {key.code}"
            disagreements.append(f"MISSED      {where}: {label.reason}")
    return by_rule, by_kind, by_set, disagreements


def _get(table: dict[str, Tally], name: str) -> Tally:
    return table.setdefault(name, Tally())


def _order(key: Key) -> tuple[str, str, tuple[int, ...], str]:
    return key.package, key.path, tuple(int(p) for p in key.line.split(":")), key.code


def render(
    title: str,
    by_rule: dict[str, Tally],
    by_kind: dict[str, Tally],
    by_set: dict[str, Tally],
    labels: dict[Key, Label],
) -> str:
    out = [f"## {title}", ""]
    verdicts = Counter(label.verdict for label in labels.values())
    site_count = len({(k.package, k.path, k.line) for k in labels})
    out.append(
        f"{len(labels)} labels on {site_count} sites "
        f"({verdicts['REAL']} REAL, {verdicts['WEAK']} WEAK, {verdicts['FP']} FP)"
    )
    for heading, table in (("rule", by_rule), ("kind", by_kind), ("set", by_set)):
        columns = "findings | REAL | WEAK | FP | unlabelled | precision | recall"
        out += ["", f"| {heading} | {columns} |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name in sorted(table, key=lambda n: (n == "all", n)):
            t = table[name]
            out.append(
                f"| {name} | {t.findings} | {t.real} | {t.weak} | {t.fp} | {t.unlabelled} "
                f"| {t.precision()} | {t.recall()} |"
            )
    return "\n".join(out)


def readme_table(totals: Sequence[tuple[str, str, Tally]], labels: dict[Key, Label]) -> str:
    """The README's table: the labels, then one row per profile and set of
    projects (``blind``, ``development``, ``all``); ``python -m bench
    precision --readme README.md`` writes it."""
    verdicts = Counter(label.verdict for label in labels.values())
    site_count = len({(k.package, k.path, k.line) for k in labels})
    projects = {"blind": len(BLIND), "development": len(PACKAGES) + len(LOCAL) - len(BLIND)}
    out = [
        f"{len(labels)} labels on {site_count} sites "
        f"({verdicts['REAL']} REAL, {verdicts['WEAK']} WEAK, {verdicts['FP']} FP):",
        "",
        "| profile | projects | findings | REAL | WEAK | FP | unlabelled "
        "| precision (REAL+WEAK) | recall of REAL |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for profile, group, t in totals:
        recall = f"{t.real_found}/{t.real_labels}" + (f" ({t.recall()})" if t.real_labels else "")
        where = f"{group} ({projects[group]})" if group in projects else group
        out.append(
            f"| {profile} | {where} | {t.findings} | {t.real} | {t.weak} | {t.fp} "
            f"| {t.unlabelled} | {t.precision()} | {recall} |"
        )
    return "\n".join(out)


# ----------------------------------------------------------------------- command line


def _log(message: str) -> None:
    print(f"[bench precision] {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench precision",
        description="Precision and recall of tensorlint on hand-labelled conversion sites of "
        "pinned PyPI source distributions (downloaded into --cache-dir, never committed).",
    )
    parser.add_argument("--cache-dir", type=Path, default=Path(".bench_cache"), metavar="DIR")
    parser.add_argument("--strict", action="store_true", help="score the strict profile too")
    parser.add_argument(
        "--list-sites",
        type=Path,
        metavar="CSV",
        help="write every conversion site of the corpus (the population to label) and stop",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        metavar="N",
        help="with --list-sites: a deterministic random sample of N sites of each package "
        "plus every site the current default rules report (column `sampled`: yes for the "
        "random draw, no for a site listed only because it is reported)",
    )
    parser.add_argument(
        "--package",
        action="append",
        default=[],
        metavar="NAME",
        help="with --list-sites: only this package (repeatable)",
    )
    parser.add_argument("--quiet", action="store_true", help="no list of disagreements")
    parser.add_argument(
        "--readme",
        type=Path,
        metavar="FILE",
        help="also write the summary table into FILE (the README), between its markers",
    )
    args = parser.parse_args(argv)
    root = prepare(args.cache_dir)
    if args.list_sites is not None:
        return _list_sites(root, args.list_sites, args.sample, args.package)
    labels = load_labels()
    profiles = [
        ("default profile, high confidence", False, "high"),
        ("default profile", False, "low"),
    ]
    profiles += [("strict profile", True, "low")] if args.strict else []
    totals: list[tuple[str, str, Tally]] = []
    for title, strict, least in profiles:
        by_rule, by_kind, by_set, disagreements = score(findings(root, strict, least), labels)
        for group in ("blind", "development", "all"):
            totals.append((title.replace(" profile", ""), group, _get(by_set, group)))
        print(render(title, by_rule, by_kind, by_set, labels))
        print()
        if not args.quiet and disagreements:
            print(f"### Disagreements ({title})\n")
            print("\n".join(disagreements))
            print()
    if args.readme is not None:
        command = "python -m bench precision" + (" --strict" if args.strict else "")
        table = readme_table(totals, labels)
        readme.write(args.readme, "precision", f"{readme.stamp(command)}\n\n{table}")
        _log(f"the precision table of {args.readme} is rewritten")
    return 0


def _list_sites(root: Path, target: Path, sample: int, packages: Sequence[str] = ()) -> int:
    every = [r for r in sites(root) if not packages or r["package"] in packages]
    rows = every
    if sample:
        reported = {(k.package, k.path, k.line) for k in findings(root, False, only=packages)}
        rows = []
        for package in sorted({r["package"] for r in every}):
            pool = [r for r in every if r["package"] == package]
            drawn = random.Random(f"{package}:0").sample(pool, min(sample, len(pool)))
            for row in pool:
                chosen = row in drawn
                if chosen or (row["package"], row["path"], row["line"]) in reported:
                    rows.append({**row, "sampled": "yes" if chosen else "no"})
    with target.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["package"])
        writer.writeheader()
        writer.writerows(rows)
    kinds = Counter(row["kind"] for row in rows)
    _log(f"{len(rows)} sites (of {len(every)}) written to {target}: {dict(kinds)}")
    return 0
