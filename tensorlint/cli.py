"""Command line: ``tensorlint check | rule | rules | clean``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from tensorlint import __version__
from tensorlint.config import (
    NUMPY_IDIOMS,
    Config,
    ConfigError,
    check_compatible,
    find_config_file,
    load_config,
    parse_version,
    shown_pattern,
)
from tensorlint.diagnostics import CONFIDENCES, FileResult
from tensorlint.engine.cache import CACHE_DIR, Cache
from tensorlint.engine.progress import Progress, wanted
from tensorlint.engine.runner import (
    RunOptions,
    _notebook_result,
    check_text,
    run,
    settings_for,
)
from tensorlint.file_settings import apply_overrides
from tensorlint.registry import ALL_RULES, BY_CODE, SelectionError, codes_matching, select
from tensorlint.reporters import FORMATS, SOURCE_FORMATS, ReportOptions
from tensorlint.reporters import text as text_reporter
from tensorlint.reporters.text import printable
from tensorlint.rule import Settings

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


def _codes(value: str) -> list[str]:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def _patterns(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


def _workers(value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes >= 1, got {value!r}")
    return count


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tensorlint",
        description="Precise lint rules and fixes for PyTorch <-> NumPy conversion bugs.",
        allow_abbrev=False,  # ``--sel`` is not ``--select``: options are spelled out
    )
    parser.add_argument("--version", action="version", version=f"tensorlint {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser(
        "check", help="check files (and fix them with --fix)", allow_abbrev=False
    )
    check.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument(
        "--fix-only",
        action="store_true",
        help="apply fixes, report only what was fixed, exit 0 unless a file failed "
        "(with --diff: exit 1 while fixes are pending)",
    )
    check.add_argument(
        "--show-fixes", action="store_true", help="with --fix, list the fixes applied per file"
    )
    check.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix or --diff, also apply unsafe fixes"
    )
    check.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff; write nothing"
    )
    # repeated, they add up: ``--select TL101 --select TL102`` is ``--select TL101,TL102``
    check.add_argument(
        "--select", type=_codes, action="extend", help="comma-separated codes or prefixes"
    )
    check.add_argument(
        "--ignore", type=_codes, action="extend", help="comma-separated codes or prefixes"
    )
    check.add_argument(
        "--extend-select", type=_codes, action="extend", help="codes or prefixes to add"
    )
    check.add_argument(
        "--strict", action="store_true", default=None, help="enable the strict rules"
    )
    check.add_argument("--numpy-idiom", choices=NUMPY_IDIOMS, help="spelling of .numpy() fixes")
    check.add_argument(
        "--min-confidence",
        choices=CONFIDENCES,
        help="report (and fix) only findings this sure or surer: high (the code shows the "
        "cause), medium (also the public-API guess), low (everything; the default)",
    )
    check.add_argument(
        "--target-version",
        metavar="X.Y",
        help="the oldest torch the code runs on: fixes it lacks are refused (force needs 1.13)",
    )
    check.add_argument(
        "--assume-torch",
        action="store_true",
        default=None,
        help="treat .numpy() receivers as torch tensors even where no import shows torch",
    )
    check.add_argument(
        "--config",
        action="append",
        metavar="FILE | KEY=VALUE",
        help="the pyproject.toml to use for every file (default: each file's nearest), or a "
        "setting in TOML overriding the files' (`--config 'numpy-idiom = \"force\"'`); repeatable",
    )
    check.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    check.add_argument(
        "--add-noqa",
        action="store_true",
        help="add `# noqa: CODE` to the line of every current finding (a baseline), and exit; "
        "`--add-noqa=REASON` writes REASON after the codes (`# noqa: TL101 REASON`)",
    )
    check.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="read the source from stdin and report it as PATH (with --fix: fixed code to stdout)",
    )
    check.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply `exclude` to files named on the command line too (for pre-commit)",
    )
    check.add_argument(
        "--extend-exclude",
        type=_patterns,
        action="extend",
        metavar="PATTERNS",
        help="comma-separated path patterns to exclude on top of `exclude`",
    )
    check.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    check.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"where the cache lives (default: $TENSORLINT_CACHE_DIR, else {CACHE_DIR}/ "
        "next to the configuration)",
    )
    check.add_argument(
        "--statistics", action="store_true", help="print the number of findings per rule"
    )
    check.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text output (auto: on a terminal, unless NO_COLOR is set)",
    )
    check.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings, nothing else"
    )
    check.add_argument(
        "--show-files", action="store_true", help="print the files that would be checked, and exit"
    )
    check.add_argument(
        "--show-settings",
        action="store_true",
        help="print the settings each named file gets, and exit",
    )
    check.add_argument(
        "--jobs", type=_workers, metavar="N", help="worker processes (default: one per CPU)"
    )
    check.add_argument(
        "--output-format", choices=sorted(FORMATS), default="text", help="how to print findings"
    )
    _convention_options(check)

    harness = commands.add_parser(
        "harness",
        help="run fixed code on real tensors and check the fixes (needs torch)",
        allow_abbrev=False,
    )
    harness.add_argument(
        "paths",
        nargs="*",
        type=Path,
        help="case files or folders to run; they are executed (default: the cases shipped "
        "with tensorlint, never ./fixtures of the current directory)",
    )
    harness.add_argument("--report", type=Path, help="write a JSON report here")
    harness.add_argument("--numpy-idiom", choices=NUMPY_IDIOMS, default="cpu-detach")

    migrate = commands.add_parser(
        "migrate",
        help="apply the fixes that keep your tests' results (runs your test command)",
        allow_abbrev=False,
    )
    migrate.add_argument("paths", nargs="*", type=Path, help="files or folders (default: .)")
    migrate.add_argument(
        "--verify",
        metavar="COMMAND",
        required=True,
        help='the command whose results the fixes must keep, e.g. "pytest -x tests/"',
    )
    migrate.add_argument("--strict", action="store_true", help="the strict profile's fixes too")
    migrate.add_argument(
        "--unsafe-fixes", action="store_true", help="the unsafe fixes too (each one is verified)"
    )
    migrate.add_argument(
        "--batch-size", type=int, default=8, metavar="N", help="fixes tried at once (default 8)"
    )

    commands.add_parser(
        "server",
        help="run the editor server (Language Server Protocol over stdio; needs pygls)",
        allow_abbrev=False,
    )
    rule = commands.add_parser("rule", help="explain a rule (or all)", allow_abbrev=False)
    rule.add_argument("code", nargs="?", help="a rule code, e.g. TL201")
    rules = commands.add_parser("rules", help="list every rule", allow_abbrev=False)
    _rule_options(rule, rules)
    clean = commands.add_parser(
        "clean", help="remove the result cache (as `ruff clean`)", allow_abbrev=False
    )
    clean.add_argument("paths", nargs="*", type=Path, help="the paths a check names (default: .)")
    clean.add_argument(
        "--cache-dir", type=Path, metavar="DIR", help="the cache folder, as given to check"
    )
    return parser


def _convention_options(check: argparse.ArgumentParser) -> None:
    """The options of Ruff's that Ruff users expect (issue 25)."""
    check.add_argument(
        "-o",
        "--output-file",
        type=Path,
        metavar="PATH",
        help="write the report to PATH (whole, atomically) instead of stdout",
    )
    check.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="with --fix, exit 1 when a file was fixed, even if no finding is left",
    )
    check.add_argument(
        "--ignore-noqa",
        action="store_true",
        default=None,
        help="report the findings `# noqa` comments would suppress",
    )
    check.add_argument(
        "--unfixable",
        type=_codes,
        action="extend",
        metavar="CODES",
        help="comma-separated codes or prefixes whose fixes are never applied",
    )
    check.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="skip what .gitignore files ignore (default: the `respect-gitignore` key, true)",
    )
    check.add_argument(
        "-w", "--watch", action="store_true", help="check again whenever a file changes"
    )


def _rule_options(*parsers: argparse.ArgumentParser) -> None:
    from tensorlint.docs import RULE_FORMATS

    rule = parsers[0]
    rule.add_argument("--all", action="store_true", help="explain every rule")
    for parser in parsers:
        parser.add_argument(
            "--output-format", choices=RULE_FORMATS, default="text", help="text or JSON"
        )


#: Ruff's ``--add-noqa[=REASON]``: the reason is given only after ``=``, so
#: that ``--add-noqa src/`` still names the path to check
_ADD_NOQA = "--add-noqa"


def _split_add_noqa_reason(argv: Sequence[str]) -> tuple[list[str], Optional[str]]:
    """``argv`` with ``--add-noqa=REASON`` as ``--add-noqa``, and the reason."""
    kept: list[str] = []
    reason: Optional[str] = None
    for index, arg in enumerate(argv):
        if arg == "--":  # what follows is paths
            kept.extend(argv[index:])
            break
        if arg.startswith(_ADD_NOQA + "="):
            kept.append(_ADD_NOQA)
            reason = arg[len(_ADD_NOQA) + 1 :]
        else:
            kept.append(arg)
    return kept, reason


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv, reason = _split_add_noqa_reason(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    if args.command == "rule":
        return explain_rules(args)
    if args.command == "rules":
        if args.output_format == "json":
            from tensorlint.docs import rules_json

            sys.stdout.write(rules_json(ALL_RULES))
            return EXIT_OK
        from tensorlint.docs import rules_table

        sys.stdout.write(rules_table())
        return EXIT_OK
    if args.command == "clean":
        return clean_cache(args)
    if args.command == "server":
        from tensorlint.server import run_server  # imports pygls: only here

        return run_server()
    if args.command == "harness":
        from tensorlint.harness.cli import run_harness  # imports torch: only here

        return run_harness(args.paths, args.report, args.numpy_idiom)
    if args.command == "migrate":
        return run_migrate(args)
    args.add_noqa_reason = reason
    return run_check(args)


def run_migrate(args: argparse.Namespace) -> int:
    """``migrate --verify``: 0 when every fix was kept, 1 when some were left
    out, 2 when the command's results are not stable or a file failed."""
    from tensorlint import migrate

    if args.batch_size < 1:
        print("error: --batch-size must be at least 1", file=sys.stderr)
        return EXIT_ERROR
    errors: list[str] = []
    units = migrate.collect(
        args.paths or [Path(".")], strict=args.strict, unsafe=args.unsafe_fixes, errors=errors
    )
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    try:
        result = migrate.verify(units, args.verify, batch_size=args.batch_size)
    except migrate.Unstable as error:
        print(f"error: the command's results differ between two runs: {error}", file=sys.stderr)
        return EXIT_ERROR
    except (OSError, ValueError) as error:  # a command that cannot run, a file
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    for line in migrate.report(result):
        print(line)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if result.left_out else EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    """``check``, once or (``--watch``) after every change."""
    problem = _conventions_problem(args)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    if not args.watch:
        return check(args)
    from tensorlint.watch import watch

    clear = args.output_file is None and use_color("auto", sys.stdout, {})  # (a terminal)
    # each check gets its own copy: ``check`` rewrites some of the values it reads
    return watch(args.paths or [Path(".")], lambda: check(argparse.Namespace(**vars(args))),
                 clear=clear)  # fmt: skip


def _conventions_problem(args: argparse.Namespace) -> Optional[str]:
    """What is wrong with the combination of the options of issue 25, if anything."""
    if args.exit_non_zero_on_fix and args.exit_zero:
        return "--exit-non-zero-on-fix cannot be combined with --exit-zero"
    if args.ignore_noqa and args.add_noqa:
        return "--ignore-noqa cannot be combined with --add-noqa"
    reason = getattr(args, "add_noqa_reason", None)
    if reason is not None:
        from tensorlint.baseline import reason_problem

        args.add_noqa_reason = reason = reason.strip()
        why = reason_problem(reason)
        if why is not None:
            return f"--add-noqa={printable(reason)}: {why}"
    if args.watch:
        for option in ("add_noqa", "stdin_filename", "show_files", "show_settings"):
            if getattr(args, option):
                return f"--watch cannot be combined with --{option.replace('_', '-')}"
    return None


def check(args: argparse.Namespace) -> int:
    if args.fix_only:
        args.fix = True
    paths: list[Path] = args.paths or [Path(".")]
    try:
        args.config, args.inline = _config_arguments(args.config or [])
        config_file = args.config or find_config_file(paths)
        config = load_config(config_file)
        config = _apply_overrides(config, args)
        check_compatible(config)
        enabled = select(config.select, config.ignore, config.extend_select, config.strict)
        unfixable = codes_matching(config.unfixable)
    except ConfigError as error:
        print(f"error: {printable(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    except SelectionError as error:
        print(f"error: {printable(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    settings = Settings(
        enabled,
        config.numpy_idiom,
        config.assume_torch,
        converting_calls=config.converting_calls,
        target_version=config.target_version,
        unfixable=unfixable,
        ignore_noqa=config.ignore_noqa,
        min_confidence=config.min_confidence,
    )
    within: tuple[str, ...] = ()
    if args.fix or args.add_noqa:  # (only a write asks; a check names hundreds of files)
        # the tree: the named paths and the configuration's folder, never the
        # current directory (``cd ~ && tensorlint check --fix repo/``)
        places = [*paths, *([config.root] if config.root is not None else [])]
        within = tuple(dict.fromkeys(str(p if p.is_dir() else p.parent) for p in places))
    options = RunOptions(
        fix=args.fix, unsafe_fixes=args.unsafe_fixes, diff=args.diff, within=within
    )
    if args.add_noqa and (args.fix or args.diff or args.stdin_filename):
        print("error: --add-noqa cannot be combined with --fix, --diff or --stdin-filename",
              file=sys.stderr)  # fmt: skip
        return EXIT_ERROR
    if args.stdin_filename:
        return check_stdin(Path(args.stdin_filename), config, settings, options, args)
    if args.extend_exclude:
        config = config._replace(exclude=(*config.exclude, *args.extend_exclude))
    overrides = None if args.config else _overrides(args)
    if args.show_files:
        return show_files(paths, config, overrides)
    if args.show_settings:
        return show_settings(paths, config, settings, overrides)
    cache = None
    if not args.no_cache:
        cache = Cache(_cache_dir(args, config))
        if cache.refused is not None:  # someone else could have written it
            print(f"warning: the cache is not used: {printable(cache.refused)}", file=sys.stderr)
            cache = None
    progress = None
    if (args.fix or args.diff) and args.output_format == "text" and wanted(sys.stderr):
        progress = Progress(sys.stderr)
    try:
        # without --config, every file gets its nearest configuration
        results = run(
            paths,
            config,
            settings,
            options,
            jobs=args.jobs,
            cache=cache,
            progress=progress,
            overrides=overrides,
        )
    finally:
        if progress is not None:
            progress.close()
    if not args.quiet:
        codec_notices(results)
    if args.add_noqa:
        return write_baseline(results, options, getattr(args, "add_noqa_reason", None) or "")
    if not results:
        # Ruff's wording; a machine format still gets its (empty) report
        print("warning: No Python files found under the given paths", file=sys.stderr)
        if args.output_format == "text":
            return EXIT_OK
    return deliver(results, args)


def codec_notices(results: Sequence[FileResult]) -> None:
    """One line on stderr per file whose coding cookie names a codec Python
    does not know (``future_fstrings``): it was read as UTF-8, as Ruff reads
    every file. (``--quiet`` leaves these out, as Ruff's leaves out its
    warnings.)"""
    for result in results:
        if result.unknown_codec is not None:
            where = printable(f"{result.path}: unknown encoding {result.unknown_codec!r}")
            print(f"warning: {where} (a codec Python does not have): read as UTF-8",
                  file=sys.stderr)  # fmt: skip


def _cache_dir(args: argparse.Namespace, config: Config) -> Path:
    if args.cache_dir is not None:
        return Path(args.cache_dir)
    from_env = os.environ.get("TENSORLINT_CACHE_DIR")
    if from_env:
        return Path(from_env)
    return (config.root or Path.cwd()) / CACHE_DIR


def show_files(
    paths: Sequence[Path], config: Config, overrides: Optional[dict[str, object]]
) -> int:
    """``--show-files``: the files a check would read, one per line."""
    from tensorlint.engine.runner import files_to_check

    for path in files_to_check(paths, config, overrides):
        print(printable(str(path)))
    return EXIT_OK


def show_settings(
    paths: Sequence[Path],
    config: Config,
    settings: Settings,
    overrides: Optional[dict[str, object]],
) -> int:
    """``--show-settings``: what each named file (or the first file found) gets."""
    from tensorlint.engine.runner import files_to_check
    from tensorlint.file_settings import Resolver

    files = [p for p in paths if not p.is_dir()] or files_to_check(paths, config, overrides)[:1]
    resolver = Resolver(overrides) if overrides is not None else None
    for path in files:
        try:
            chosen = resolver.config(path) if resolver is not None else config
            if resolver is not None:
                effective = resolver.settings(path)
            else:
                effective = settings_for(path, config, settings)
        except (ConfigError, SelectionError) as error:
            print(f"error: {printable(str(error))}", file=sys.stderr)
            return EXIT_ERROR
        role = {True: "library", False: "script", None: "decided by the text"}
        print(f"{printable(str(path))}:")
        print(f"  configuration: {printable(str(chosen.source or '(defaults)'))}")
        for base in chosen.extends:
            print(f"    extends: {printable(str(base))}")
        print(f"  rules: {', '.join(sorted(effective.enabled)) or '(none)'}")
        print(f"  numpy-idiom: {effective.numpy_idiom}")
        print(f"  assume-torch: {str(effective.assume_torch).lower()}")
        print(f"  role: {role[effective.library]}")
        print(f"  exclude: {[shown_pattern(p) for p in chosen.exclude]}")
        print(f"  force-exclude: {str(chosen.force_exclude).lower()}")
        print(f"  respect-gitignore: {str(chosen.respect_gitignore).lower()}")
        version = effective.target_version
        print(f"  target-version: {'.'.join(map(str, version)) if version else '(any)'}")
        print(f"  unfixable: {sorted(effective.unfixable)}")
        print(f"  extend-converting-calls: {list(effective.converting_calls)}")
        print(f"  ignore-noqa: {str(effective.ignore_noqa).lower()}")
        print(f"  min-confidence: {effective.min_confidence}")
    return EXIT_OK


def write_baseline(results: Sequence[FileResult], options: RunOptions, reason: str = "") -> int:
    """``--add-noqa``: write the comments (``reason`` after the codes of each
    new one), say what was done, exit 2 on errors."""
    from tensorlint.baseline import NEVER_WRITTEN, add_noqa
    from tensorlint.fix.io import SourceReadError, WriteRefused, read_source, write_atomic

    added = left = unwritten = files = errors = 0
    for result in results:
        if result.error:
            print(f"error: {printable(result.error)}", file=sys.stderr)
            errors += 1
            continue
        if not result.diagnostics:
            continue
        if result.path.endswith(".ipynb"):  # cells are not edited line by line
            never = sum(d.code in NEVER_WRITTEN for d in result.diagnostics)
            left += len(result.diagnostics) - never
            unwritten += never
            continue
        path = Path(result.path)
        try:
            source = read_source(path)
            baseline = add_noqa(source.text, result.diagnostics, reason)
            if write_atomic(path, source, baseline.text, within=options.within):
                files += 1
        except SourceReadError as error:  # (its message names the file)
            print(f"error: {printable(str(error))}", file=sys.stderr)
            errors += 1
            continue
        except WriteRefused as error:  # (its message says "not rewritten")
            print(f"error: {printable(f'{path}: {error.strerror}')}", file=sys.stderr)
            errors += 1
            continue
        except OSError as error:
            print(
                f"error: {printable(f'{path}: not written: {error.strerror or error}')}",
                file=sys.stderr,
            )
            errors += 1
            continue
        added += baseline.added
        left += baseline.left
        unwritten += baseline.unwritten
    noun = "directive" if added == 1 else "directives"
    print(f"Added {added} noqa {noun} to {files} file{'s' if files != 1 else ''}.", file=sys.stderr)
    if left:
        print(f"{left} finding{'s' if left != 1 else ''} left without one: on a line that "
              "cannot end in a comment on every supported Python (inside a string or an "
              "f-string's braces, or continued with a backslash), in a notebook cell, or in "
              "a file of newer syntax than this Python parses.", file=sys.stderr)  # fmt: skip
    if unwritten:
        print(f"{unwritten} TL900 finding{'s' if unwritten != 1 else ''} (unused noqa codes) "
              "not baselined: its fix removes the codes.", file=sys.stderr)  # fmt: skip
    return EXIT_ERROR if errors else EXIT_OK


def check_stdin(
    name: Path, config: Config, settings: Settings, options: RunOptions, args: argparse.Namespace
) -> int:
    """An editor's buffer: findings for it, or with ``--fix`` its fixed text on stdout."""
    text = sys.stdin.read()
    if args.config:
        file_settings = settings_for(name, config, settings)
    else:  # the nearest configuration of the file the buffer stands for, as in a run
        from tensorlint.file_settings import Resolver

        try:
            file_settings = Resolver(_overrides(args)).settings(name)
        except (ConfigError, SelectionError) as error:
            print(f"error: {printable(str(error))}", file=sys.stderr)
            return EXIT_ERROR
    from tensorlint.notebook import NotebookError
    from tensorlint.notebook import load as load_notebook

    notebook = None
    if name.suffix == ".ipynb":
        try:
            notebook = load_notebook(text)
        except NotebookError as error:
            print(f"error: {printable(f'{name}: {error}')}", file=sys.stderr)
            return EXIT_ERROR
    result = check_text(str(name), notebook.python if notebook else text, file_settings, options)
    if notebook is not None:
        try:
            result = _notebook_result(result, notebook, text)
        except NotebookError as error:
            print(f"error: {printable(f'{name}: {error}')}", file=sys.stderr)
            return EXIT_ERROR
    if args.fix and not args.diff:
        sys.stdout.write(result.fixed_source if result.fixed_source is not None else text)
        sys.stdout = sys.stderr  # the report goes to stderr, after the code
        try:
            return deliver([result], args)
        finally:
            sys.stdout = sys.__stdout__
    return deliver([result], args)


def deliver(results: Sequence[FileResult], args: argparse.Namespace) -> int:
    """:func:`report`, into ``-o/--output-file`` when given (written whole,
    atomically, never coloured; what would have gone to stdout), and the
    exit code ``--exit-non-zero-on-fix`` asks for."""
    if args.output_file is None:
        code = report(results, args)
    else:
        import io

        from tensorlint.output import write_report

        buffer, stdout = io.StringIO(), sys.stdout
        sys.stdout = buffer
        try:
            code = report(results, argparse.Namespace(**{**vars(args), "color": "never"}))
        finally:
            sys.stdout = stdout
        try:
            write_report(args.output_file, buffer.getvalue())
        except OSError as error:
            where = printable(f"{args.output_file}: {error.strerror or error}")
            print(f"error: the report was not written: {where}", file=sys.stderr)
            return EXIT_ERROR
    fixed = args.fix and not args.diff and any(r.fixes_applied for r in results)
    if code == EXIT_OK and args.exit_non_zero_on_fix and fixed:
        return EXIT_FINDINGS  # (Ruff's: something was fixed)
    return code


def report(results: Sequence[FileResult], args: argparse.Namespace) -> int:
    if args.diff:
        sys.stdout.write(render_diff(results, use_color(args.color, sys.stdout, os.environ)))
    if args.statistics:
        sys.stdout.write(text_reporter.statistics(results, args.unsafe_fixes))
        return exit_code(results, args)
    stream = sys.stderr if args.diff else sys.stdout
    # (the lines a finding shows; the code a GitLab fingerprint is made of)
    sources = _sources(results) if args.output_format in SOURCE_FORMATS else None
    options = ReportOptions(
        sources=sources,
        fixing=args.fix or args.diff,
        unsafe=args.unsafe_fixes,
        dry_run=args.diff,
        color=use_color(args.color, stream, os.environ),
        list_findings=not args.fix_only,  # --fix-only: what was fixed, not what is left
        quiet=args.quiet,
    )
    stream.write(FORMATS[args.output_format](results, options))
    if args.show_fixes and (args.fix or args.diff):
        stream.write(text_reporter.fixes_listing(results, args.diff))
    if args.fix_only and not args.diff:  # (with --diff: 1 while fixes are pending, as Ruff)
        return EXIT_ERROR if any(r.error for r in results) else EXIT_OK
    return exit_code(results, args)


def _sources(results: Sequence[FileResult]) -> dict[str, str]:
    """The text of each file with findings, as the findings' positions count
    it (the fixed text after ``--fix`` or ``--diff``); a notebook's JSON: for
    ``full``, ``rdjson`` and ``gitlab`` (``SOURCE_FORMATS``)."""
    from tensorlint.fix.io import SourceReadError, read_source

    found = {}
    for result in results:
        if result.diagnostics:
            try:
                found[result.path] = (
                    result.fixed_source
                    or result.original_source
                    or read_source(Path(result.path)).text
                )
            except SourceReadError:
                continue
    return found


def use_color(choice: str, stream: Any, environ: Mapping[str, str]) -> bool:
    """``--color``: ``always``/``never``; ``auto`` colours a terminal unless
    ``NO_COLOR`` is set (https://no-color.org), and ``FORCE_COLOR`` forces it."""
    if choice != "auto":
        return choice == "always"
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and environ.get("TERM") != "dumb"


def exit_code(results: Sequence[FileResult], args: argparse.Namespace) -> int:
    if any(r.error for r in results):
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
    if args.diff:
        return EXIT_FINDINGS if any(r.fixed_source is not None for r in results) else EXIT_OK
    return EXIT_FINDINGS if any(r.diagnostics for r in results) else EXIT_OK


def _config_arguments(values: Sequence[str]) -> tuple[Optional[Path], dict[str, object]]:
    """``--config`` values: at most one file, and ``KEY = VALUE`` settings
    (TOML, as in ``[tool.tensorlint]``), validated like the file's (Ruff's
    ``--config`` takes both). Raises ConfigError."""
    from tensorlint.config import inline_setting

    # (``os.path.exists``: a setting longer than a file name can be is no file)
    files = [Path(v) for v in values if "=" not in v or os.path.exists(v)]
    if len(files) > 1:
        raise ConfigError(files[1], "--config names more than one file")
    inline: dict[str, object] = {}
    for value in values:
        if "=" in value and not os.path.exists(value):
            inline.update(inline_setting(value))
    return (files[0] if files else None), inline


def _overrides(args: argparse.Namespace) -> dict[str, object]:
    """The configuration values given on the command line."""
    changes: dict[str, object] = dict(getattr(args, "inline", {}))

    for name in (
        "select", "ignore", "extend_select", "strict", "numpy_idiom", "assume_torch",
        "force_exclude",
        "unfixable", "respect_gitignore", "ignore_noqa",  # issue 25's
        "min_confidence",
    ):  # fmt: skip
        value = getattr(args, name)
        if value is not None:
            changes[name] = tuple(value) if isinstance(value, list) else value
    if getattr(args, "target_version", None) is not None:
        changes["target_version"] = parse_version(Path("--target-version"), args.target_version)
    return changes


def _apply_overrides(config: Config, args: argparse.Namespace) -> Config:
    return apply_overrides(config, _overrides(args))


def render_diff(results: Sequence[FileResult], color: bool = False) -> str:
    """``--diff``: a unified diff of every fixed file (``git apply`` takes it);
    with ``color``, coloured as ``git diff`` colours it."""
    import difflib

    chunks: list[str] = []
    for result in results:
        if result.fixed_source is None or result.original_source is None:
            continue
        lines = list(
            difflib.unified_diff(
                result.original_source.splitlines(keepends=True),
                result.fixed_source.splitlines(keepends=True),
                fromfile=f"a/{result.path}",
                tofile=f"b/{result.path}",
            )
        )
        chunks.append(text_reporter.paint_diff(lines) if color else "".join(lines))
    return "".join(chunks)


def explain(code: str) -> int:
    from tensorlint.docs import rule_doc

    rule = BY_CODE.get(code.upper())
    if rule is None:
        known = ", ".join(BY_CODE)
        print(f"error: unknown rule {code!r} (known: {known})", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(rule_doc(rule))
    return EXIT_OK


def explain_rules(args: argparse.Namespace) -> int:
    """``rule CODE``, ``rule --all``, each as text or JSON."""
    from tensorlint.docs import rule_doc, rule_json, rules_json

    if args.all == (args.code is not None):
        print("error: `rule` takes a rule code or --all (one of them)", file=sys.stderr)
        return EXIT_ERROR
    if args.all:
        if args.output_format == "json":
            sys.stdout.write(rules_json(ALL_RULES))
        else:  # each as `rule CODE` prints it
            sys.stdout.write("\n".join(rule_doc(rule) for rule in ALL_RULES))
        return EXIT_OK
    if args.output_format == "json" and args.code.upper() in BY_CODE:
        sys.stdout.write(rule_json(BY_CODE[args.code.upper()]))
        return EXIT_OK
    return explain(args.code)


def clean_cache(args: argparse.Namespace) -> int:
    """``clean``: the cache a ``check`` of the same paths would use, and those below."""
    from tensorlint.clean import clean

    paths: list[Path] = args.paths or [Path(".")]
    found = find_config_file(paths)
    try:
        config = load_config(found)
    except ConfigError:  # (its folder is still where the cache lives)
        config = Config(root=found.resolve().parent if found is not None else None)
    return clean(_cache_dir(args, config), paths)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
