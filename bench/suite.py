"""The runs of one benchmark invocation, and running them.

Every run hands its tool an explicit list of files (the whole corpus, a
subset, or one file; only Semgrep gets the corpus root instead of the whole
list, see ``_peer_variants``) and is repeated ``--repeat`` times; its median
is reported. A run whose first repetition is slower than ``--slow-after`` is not
repeated (said in its notes), and one that passes ``--timeout`` is killed and
reported as a timeout.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from bench.corpus import Corpus, SourceFile
from bench.measure import Measurement, measure
from bench.tools import PEERS_DIR, Tool, count_lines

__all__ = ["RunResult", "RunSpec", "Suite", "execute"]

Log = Callable[[str], None]
#: what a run's output says: a problem that fails the run, notes, extra info
Inspection = tuple[Optional[str], list[str], dict[str, object]]
Inspector = Callable[[str, str], Inspection]

#: ``path:line:col: CODE`` lines (tensorlint, Ruff's concise output, TorchFix).
_LOCATED = r"^.+:\d+:\d+: [A-Z]+[0-9]+\b"
#: Fixit's ``path@line:col RuleName: message`` lines.
_FIXIT = r"^.+@\d+:\d+ \w+: "
#: Semgrep on a directory: only that tree decides what is scanned (no
#: .gitignore above it: the corpus sits in a cache directory that ignores "*").
SEMGREP_DIRECTORY_OPTIONS = ("--project-root", "{root}")


@dataclass
class RunSpec:
    """One command to measure, and how to read what it printed."""

    id: str
    tool: str
    #: "corpus", "single", "files" (scaling) or "candidates" (scaling)
    group: str
    title: str
    #: the tool's argv without the files
    prefix: list[str]
    #: the files checked (what the run is about)
    files: list[Path]
    cwd: Path
    #: how the command is shown: the prefix with short names, then the files
    shown: str
    candidate_files: int = 0
    ok_returncodes: frozenset[int] = frozenset({0})
    env_extra: dict[str, str] = field(default_factory=dict)
    #: run before each repetition, untimed (a fresh copy, an emptied cache)
    prepare: Callable[[], None] | None = None
    #: findings from stdout, or None when the tool does not say
    count: Callable[[str], int] | None = None
    #: (stdout, stderr) -> (a problem that makes the run fail, notes, info)
    inspect: Inspector | None = None
    #: after the last repetition: extra info (e.g. how many files --fix changed)
    after: Callable[[], dict[str, object]] | None = None
    meta: dict[str, object] = field(default_factory=dict)
    #: what is passed instead of ``files`` (a directory holding exactly them)
    targets: list[Path] | None = None

    @property
    def argv(self) -> list[str]:
        targets = self.targets if self.targets is not None else self.files
        return [*self.prefix, *(str(path) for path in targets)]


@dataclass
class RunResult:
    spec: RunSpec
    #: ok | failed | timeout | unavailable
    status: str = "ok"
    reason: str = ""
    measurements: list[Measurement] = field(default_factory=list)
    findings: int | None = None
    notes: list[str] = field(default_factory=list)
    info: dict[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.measurements)

    @property
    def median_wall(self) -> float | None:
        return statistics.median(m.wall_s for m in self.measurements) if self.ok else None

    @property
    def min_wall(self) -> float | None:
        return min(m.wall_s for m in self.measurements) if self.ok else None

    @property
    def median_cpu(self) -> float | None:
        return statistics.median(m.cpu_s for m in self.measurements) if self.ok else None

    @property
    def peak_rss_mib(self) -> float | None:
        if not self.ok:
            return None
        return max(m.maxrss_kib for m in self.measurements) / 1024

    @property
    def tree_rss_mib(self) -> float | None:
        """Peak of the whole process tree's summed resident sets (None: not sampled)."""
        if not self.ok or not any(m.tree_rss_kib for m in self.measurements):
            return None
        return max(m.tree_rss_kib for m in self.measurements) / 1024

    def as_dict(self) -> dict[str, object]:
        spec = self.spec
        return {
            "id": spec.id,
            "tool": spec.tool,
            "group": spec.group,
            "title": spec.title,
            "command": spec.shown,
            "cwd": str(spec.cwd),
            "files": len(spec.files),
            "candidate_files": spec.candidate_files,
            "status": self.status,
            "reason": self.reason,
            "repetitions": [m.as_dict() for m in self.measurements],
            "reps": len(self.measurements),
            "median_wall_s": self.median_wall,
            "min_wall_s": self.min_wall,
            "median_cpu_s": self.median_cpu,
            "peak_rss_mib": self.peak_rss_mib,
            "tree_rss_mib": self.tree_rss_mib,
            "findings": self.findings,
            "notes": self.notes,
            "info": self.info,
            **spec.meta,
        }


# --------------------------------------------------------------------------- building


@dataclass
class Suite:
    """Builds the run specs of one invocation."""

    corpus: Corpus
    workdir: Path
    tensorlint: Tool
    peers: dict[str, Tool]
    log: Log

    def __post_init__(self) -> None:
        self.tl_cwd = self.workdir / "tensorlint"
        self.tl_cwd.mkdir(parents=True, exist_ok=True)
        self.peer_cwd = self.workdir / "peers"
        self.peer_cwd.mkdir(parents=True, exist_ok=True)
        self.fix_copy = self.workdir / "fix-copy"

    # ----------------------------------------------------------------- helpers

    def _shown(
        self,
        tool: Tool,
        options: Sequence[str],
        files: Sequence[SourceFile],
        target: str | None = None,
    ) -> str:
        # a peer by its executable's name; tensorlint (maybe `python -m`) by its own
        name = tool.key
        if tool.key != "tensorlint" and tool.command:
            name = Path(tool.command[0]).name
        if target is None:
            target = files[0].rel if len(files) == 1 else f"<{len(files)} files>"
        # our rule files by their path in the repository
        repo = str(PEERS_DIR.parent.parent) + "/"
        return " ".join([name, *(option.replace(repo, "") for option in options), target])

    def _candidates(self, files: Sequence[SourceFile]) -> int:
        return sum(1 for source in files if source.candidate)

    @property
    def cache_supported(self) -> bool:
        return "--no-cache" in self.tensorlint.features

    def _tl_options(self, *extra: str, cache: bool = False) -> list[str]:
        options = ["check", "--exit-zero"]
        if not cache and self.cache_supported:
            options.append("--no-cache")
        options.extend(extra)
        return options

    def _tensorlint(
        self,
        run_id: str,
        group: str,
        title: str,
        files: Sequence[SourceFile],
        options: Sequence[str],
        *,
        prepare: Callable[[], None] | None = None,
        after: Callable[[], dict[str, object]] | None = None,
        meta: dict[str, object] | None = None,
    ) -> RunSpec:
        return RunSpec(
            id=run_id,
            tool="tensorlint",
            group=group,
            title=title,
            prefix=[*self.tensorlint.command, *options],
            files=[source.path for source in files],
            cwd=self.tl_cwd,
            shown=self._shown(self.tensorlint, options, files),
            candidate_files=self._candidates(files),
            ok_returncodes=frozenset({0, 2}),
            env_extra=dict(self.tensorlint.env),
            count=count_lines(_LOCATED),
            inspect=_inspect_tensorlint,
            prepare=prepare,
            after=after,
            meta=meta or {},
        )

    # ----------------------------------------------------------------- runs

    def tensorlint_corpus_runs(self) -> list[RunSpec]:
        files = list(self.corpus.files)
        runs = [
            self._tensorlint(
                "tensorlint.cold",
                "corpus",
                "tensorlint, cold" + (" (--no-cache)" if self.cache_supported else ""),
                files,
                self._tl_options(),
            )
        ]
        if "--jobs" in self.tensorlint.features:
            runs.append(
                self._tensorlint(
                    "tensorlint.cold.jobs1",
                    "corpus",
                    "tensorlint, cold, one process (--jobs 1)",
                    files,
                    self._tl_options("--jobs", "1"),
                )
            )
        if self.cache_supported:
            cache_dir = self.tl_cwd / ".tensorlint_cache"
            runs.append(
                self._tensorlint(
                    "tensorlint.cache_fill",
                    "corpus",
                    "tensorlint, empty cache (run that fills it)",
                    files,
                    self._tl_options(cache=True),
                    prepare=lambda: shutil.rmtree(cache_dir, ignore_errors=True),
                )
            )
            runs.append(
                self._tensorlint(
                    "tensorlint.warm",
                    "corpus",
                    "tensorlint, warm (second run, cache filled)",
                    files,
                    self._tl_options(cache=True),
                )
            )
        runs.append(self._fix_run(files))
        return runs

    def _fix_run(self, files: Sequence[SourceFile]) -> RunSpec:
        root = self.corpus.root
        copy_root = self.fix_copy
        copies = [
            SourceFile(
                path=copy_root / source.rel,
                rel=source.rel,
                size=source.size,
                lines=source.lines,
                candidate=source.candidate,
                conversions=source.conversions,
            )
            for source in files
        ]

        def fresh_copy() -> None:
            shutil.rmtree(copy_root, ignore_errors=True)
            for source in files:
                target = copy_root / source.rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / source.rel, target)

        def changed() -> dict[str, object]:
            count = sum(
                1
                for source in files
                if (copy_root / source.rel).read_bytes() != (root / source.rel).read_bytes()
            )
            return {"files_changed_by_fix": count, "findings_are": "left after fixing"}

        return self._tensorlint(
            "tensorlint.fix",
            "corpus",
            "tensorlint --fix, on a fresh copy of the corpus",
            copies,
            self._tl_options("--fix"),
            prepare=fresh_copy,
            after=changed,
        )

    def _peer_runs(
        self,
        files: Sequence[SourceFile],
        group: str,
        suffix: str,
        *,
        whole: bool = False,
    ) -> list[RunSpec]:
        runs: list[RunSpec] = []
        paths = [source.path for source in files]
        candidates = self._candidates(files)
        root = self.corpus.root
        for key, tool in self.peers.items():
            for variant in _peer_variants(key):
                if variant.whole_corpus_only and not whole:
                    continue
                options: tuple[str, ...] = variant.options
                shown = self._shown(tool, options, files)
                targets: list[Path] | None = None
                if whole and variant.directory is not None:
                    shown = self._shown(
                        tool,
                        options + tuple(part.format(root="<root>") for part in variant.directory),
                        files,
                        "<root>",
                    )
                    options += tuple(part.format(root=root) for part in variant.directory)
                    targets = [root]
                runs.append(
                    RunSpec(
                        id=f"{key}{variant.suffix}{suffix}",
                        tool=key,
                        group=group,
                        title=variant.title,
                        prefix=[*tool.command, *options],
                        files=paths,
                        targets=targets,
                        # Fixit loads `.fixit_rules` relative to where it runs.
                        cwd=PEERS_DIR if key == "fixit" else self.peer_cwd,
                        shown=shown,
                        candidate_files=candidates,
                        ok_returncodes=variant.ok_returncodes,
                        env_extra=dict(variant.env_extra),
                        count=variant.count,
                        inspect=variant.inspect,
                    )
                )
        return runs

    def peer_corpus_runs(self) -> list[RunSpec]:
        return self._peer_runs(self.corpus.files, "corpus", "", whole=True)

    def startup_runs(self) -> list[RunSpec]:
        """What a one-file run pays before it reads a file: the interpreter
        alone (``python -c pass`` in tensorlint's environment, ``site`` and
        its ``.pth`` files included) and tensorlint's start-up (``--version``
        imports what ``check`` imports before it reads a file)."""
        python = sys.executable  # (the console script's interpreter too)
        runs = []
        for run_id, title, argv, shown in (
            ("python.startup", "the interpreter alone", [python, "-c", "pass"], "python -c pass"),
            (
                "tensorlint.startup",
                "tensorlint's start-up",
                [*self.tensorlint.command, "--version"],
                self._shown(self.tensorlint, ["--version"], [], target="").strip(),
            ),
        ):
            runs.append(
                RunSpec(
                    id=run_id,
                    tool="tensorlint",  # run in its environment, by its interpreter
                    group="single",
                    title=title,
                    prefix=argv,
                    files=[],
                    cwd=self.tl_cwd,
                    shown=shown,
                    env_extra=dict(self.tensorlint.env),
                )
            )
        return runs

    def single_file_runs(self) -> list[RunSpec]:
        runs: list[RunSpec] = self.startup_runs()
        picks = (
            ("clean", self.corpus.clean_file()),
            ("conversions", self.corpus.conversions_file()),
        )
        for name, source in picks:
            if source is None:
                self.log(f"no file for the single-file '{name}' case in this corpus")
                continue
            what = (
                "one file without conversions"
                if name == "clean"
                else f"one file with {source.conversions} conversion calls"
            )
            meta = {"single_file": source.rel, "single_case": name}
            spec = self._tensorlint(
                f"tensorlint.single.{name}",
                "single",
                f"tensorlint, {what}",
                [source],
                self._tl_options(),
                meta=meta,
            )
            runs.append(spec)
            for peer in self._peer_runs([source], "single", f".single.{name}"):
                peer.title = f"{peer.title}, {what}"
                peer.meta = dict(meta)
                runs.append(peer)
        return runs

    def scaling_runs(self) -> list[RunSpec]:
        runs: list[RunSpec] = []
        # 100% again, measured next to the other shares: the first cold run is
        # minutes earlier, under whatever else the machine was doing then.
        for fraction in (0.25, 0.5, 1.0):
            files = self.corpus.fraction(fraction)
            runs.append(
                self._tensorlint(
                    f"tensorlint.files.{round(fraction * 100)}",
                    "files",
                    f"tensorlint, cold, {fraction:.0%} of the files",
                    files,
                    self._tl_options(),
                    meta={"fraction": fraction},
                )
            )
        for fraction in (0.0, 0.5):
            files = self.corpus.with_candidates(fraction)
            runs.append(
                self._tensorlint(
                    f"tensorlint.candidates.{round(fraction * 100)}",
                    "candidates",
                    f"tensorlint, cold, non-candidate files + {fraction:.0%} of the candidates",
                    files,
                    self._tl_options(),
                    meta={"candidate_fraction": fraction},
                )
            )
        return runs

    def warmup_runs(self) -> list[RunSpec]:
        """One unmeasured run per tool on one file: bytecode compiled, caches warm."""
        source = self.corpus.conversions_file() or self.corpus.files[0]
        runs = [self._tensorlint("warmup.tensorlint", "warmup", "", [source], self._tl_options())]
        runs.extend(self._peer_runs([source], "warmup", ".warmup"))
        return runs


@dataclass(frozen=True)
class Variant:
    """One way a peer is run."""

    suffix: str
    title: str
    options: tuple[str, ...]
    count: Callable[[str], int] | None = None
    inspect: Inspector | None = None
    ok_returncodes: frozenset[int] = frozenset({0})
    env_extra: tuple[tuple[str, str], ...] = ()
    #: on the whole corpus, pass its root directory (plus these options, where
    #: "{root}" is the root) instead of the file list
    directory: tuple[str, ...] | None = None
    #: run only on the whole corpus (not on single files)
    whole_corpus_only: bool = False


def _peer_variants(key: str) -> list[Variant]:
    if key == "ruff":
        common = ("check", "--isolated", "--no-cache", "--exit-zero", "--output-format", "concise")
        located = count_lines(_LOCATED)
        return [
            Variant(".E9", "Ruff, syntax errors only (E9)", (*common, "--select", "E9"), located),
            Variant(".ALL", "Ruff, every rule (ALL)", (*common, "--select", "ALL"), located),
        ]
    if key == "semgrep":
        flags = (
            "--metrics=off",
            "--disable-version-check",
            "--no-git-ignore",
            "--max-target-bytes=0",
            "--json",
            "--quiet",
        )
        options = ("scan", "--config", str(PEERS_DIR / "semgrep.yml"), *flags)
        one_rule = ("scan", "--config", str(PEERS_DIR / "semgrep_one_rule.yml"), *flags)
        env = (("SEMGREP_ENABLE_VERSION_CHECK", "0"), ("SEMGREP_SEND_METRICS", "off"))
        return [
            # Semgrep 1.180.0 is ~40x slower on 1,276 files named on the command
            # line than on their directory (as reported in semgrep/semgrep#11404),
            # so on the whole corpus it gets the root, as a user would run it;
            # `.filelist` shows what the list costs.
            Variant(
                "",
                "Semgrep, our two pattern rules",
                options,
                inspect=_inspect_semgrep,
                env_extra=env,
                directory=SEMGREP_DIRECTORY_OPTIONS,
            ),
            Variant(
                ".one_rule",
                "Semgrep, the same two patterns as one rule (pattern-either)",
                one_rule,
                inspect=_inspect_semgrep,
                env_extra=env,
                directory=SEMGREP_DIRECTORY_OPTIONS,
                whole_corpus_only=True,
            ),
            Variant(
                ".filelist",
                "Semgrep, our two pattern rules, files named on the command line",
                options,
                inspect=_inspect_semgrep,
                env_extra=env,
                whole_corpus_only=True,
            ),
        ]
    if key == "fixit":
        return [
            Variant(
                "",
                "Fixit 2, our two LibCST rules",
                ("--rules", ".fixit_rules", "lint"),
                count_lines(_FIXIT),
                _inspect_fixit,
                frozenset({0, 1}),
            )
        ]
    if key == "torchfix":
        return [
            Variant(
                "",
                "TorchFix, its default rules",
                (),
                count_lines(_LOCATED),
                _inspect_torchfix,
                frozenset({0, 1}),
            )
        ]
    raise ValueError(f"unknown peer {key!r}")


# --------------------------------------------------------------------------- inspecting output


def _tail(text: str, lines: int = 3) -> str:
    kept = [line for line in text.strip().splitlines() if line.strip()][-lines:]
    return " / ".join(kept)[:400]


def _inspect_tensorlint(stdout: str, stderr: str) -> Inspection:
    notes = []
    if "error" in stderr.lower():
        notes.append(f"stderr: {_tail(stderr, 2)}")
    return None, notes, {}


def _inspect_semgrep(stdout: str, stderr: str) -> Inspection:
    try:
        data = json.loads(stdout)
    except ValueError:
        return f"no JSON on stdout: {_tail(stderr)}", [], {}
    results = data.get("results", [])
    scanned = len(data.get("paths", {}).get("scanned", []))
    errors = data.get("errors", [])
    info: dict[str, object] = {"findings": len(results), "scanned": scanned}
    notes = [f"{len(errors)} errors reported by semgrep"] if errors else []
    return None, notes, info


def _inspect_fixit(stdout: str, stderr: str) -> Inspection:
    if "Failed to load rules" in stderr or "CollectionError" in stderr:
        return f"our rules did not load: {_tail(stderr)}", [], {}
    return None, [], {}


def _inspect_torchfix(stdout: str, stderr: str) -> Inspection:
    info: dict[str, object] = {}
    for line in (stdout + "\n" + stderr).splitlines():
        if line.startswith("Finished checking"):
            words = line.split()
            if len(words) >= 3 and words[2].isdigit():
                info["checked"] = int(words[2])
    return None, [], info


# --------------------------------------------------------------------------- running


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


class _Execution:
    """One spec's repetitions, run one at a time so that specs can take turns."""

    def __init__(
        self, spec: RunSpec, *, timeout: float, slow_after: float, env: dict[str, str], logs: Path
    ) -> None:
        self.spec = spec
        self.result = RunResult(spec)
        self.timeout = timeout
        self.slow_after = slow_after
        self.env = {**env, **spec.env_extra}
        self.logs = logs
        self.done = False
        self.stdout_text = self.stderr_text = ""

    def step(self, rep: int, repeat: int) -> None:
        spec, result = self.spec, self.result
        self.logs.mkdir(parents=True, exist_ok=True)
        if spec.prepare is not None:
            spec.prepare()
        out = self.logs / f"{spec.id}.{rep}.out"
        err = self.logs / f"{spec.id}.{rep}.err"
        measured = measure(
            spec.argv, cwd=spec.cwd, stdout=out, stderr=err, timeout=self.timeout, env=self.env
        )
        self.stdout_text, self.stderr_text = _read(out), _read(err)
        if measured.timed_out:
            result.status = "timeout"
            result.reason = f"killed after {self.timeout:.0f} s"
            result.info["timed_out_after_s"] = measured.wall_s
            result.measurements = []
            self.done = True
            return
        if measured.returncode not in spec.ok_returncodes:
            result.status = "failed"
            output = self.stderr_text or self.stdout_text
            result.reason = f"exit {measured.returncode}: {_tail(output)}"
            self.done = True
            return
        result.measurements.append(measured)
        if rep == 0 and repeat > 1 and measured.wall_s > self.slow_after:
            result.notes.append(
                f"1 repetition only: the first took {measured.wall_s:.0f} s "
                f"(> {self.slow_after:.0f} s)"
            )
            self.done = True

    def finish(self) -> RunResult:
        spec, result = self.spec, self.result
        if result.status != "ok":
            return result
        if spec.inspect is not None:
            problem, notes, info = spec.inspect(self.stdout_text, self.stderr_text)
            result.notes.extend(notes)
            result.info.update(info)
            scanned = info.get("scanned")
            if isinstance(scanned, int) and scanned != len(spec.files):
                result.notes.append(f"scanned {scanned} of the {len(spec.files)} files")
            if problem is not None:
                result.status = "failed"
                result.reason = problem
                return result
        if spec.count is not None:
            result.findings = spec.count(self.stdout_text)
        elif isinstance(result.info.get("findings"), int):
            result.findings = result.info["findings"]  # type: ignore[assignment]
        if (
            result.measurements
            and result.measurements[-1].returncode == 2
            and spec.tool == "tensorlint"
        ):
            result.notes.append("exit 2: some files could not be read or parsed")
        if spec.after is not None:
            result.info.update(spec.after())
        return result


def execute(
    spec: RunSpec,
    *,
    repeat: int,
    timeout: float,
    slow_after: float,
    env: dict[str, str],
    logs: Path,
) -> RunResult:
    """Measure ``spec`` up to ``repeat`` times."""
    return execute_interleaved(
        [spec], repeat=repeat, timeout=timeout, slow_after=slow_after, env=env, logs=logs
    )[0]


def execute_interleaved(
    specs: Sequence[RunSpec],
    *,
    repeat: int,
    timeout: float,
    slow_after: float,
    env: dict[str, str],
    logs: Path,
) -> list[RunResult]:
    """Measure each of ``specs`` up to ``repeat`` times, taking turns (A B A B,
    not A A B B): a change in the machine's load during the run falls on
    every tool alike instead of on whichever ran then."""
    runs = [
        _Execution(spec, timeout=timeout, slow_after=slow_after, env=env, logs=logs)
        for spec in specs
    ]
    for rep in range(repeat):
        for run in runs:
            if not run.done:
                run.step(rep, repeat)
    return [run.finish() for run in runs]
