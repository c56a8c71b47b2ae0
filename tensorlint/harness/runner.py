"""Run harness cases: original vs rewritten code over the input matrix.

A case file is ordinary Python with a module-level table::

    HARNESS = {"call": "case", "inputs": "array"}

``call`` names a one-argument function; ``inputs`` is ``"tensor"`` or
``"array"``. Optional keys: ``"intent": True`` (the conversion shares memory
on purpose: the fixer must leave the file alone and the sharing must stay)
and ``"checks"`` (a list overriding which of the five checks apply).
"""

from __future__ import annotations

import ast
import types
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from tensorlint.fix.apply import fix_source
from tensorlint.harness import compare
from tensorlint.harness.inputs import EXPECTED_DEVICES, InputSpec, available_devices, matrix
from tensorlint.registry import select
from tensorlint.rule import Settings

VALUES = "values kept"
HAZARD = "hazard removed"
SHARING = "no sharing left"
UNTOUCHED = "inputs untouched"
INTENT = "intent kept"
UNCHANGED = "left unchanged"
CHECKS = (VALUES, HAZARD, SHARING, UNTOUCHED, INTENT)


class CaseError(Exception):
    """A case file that cannot be used; one line naming the file and the reason."""


@dataclass(frozen=True)
class Case:
    name: str
    path: Path
    call: str
    inputs: str
    intent: bool
    expect_unchanged: bool
    checks: frozenset[str]
    original: str
    rewritten: str


@dataclass(frozen=True)
class CellResult:
    case: str
    input: str
    device: str
    outcome: str  # "passed", "failed" or "skipped"
    check: Optional[str] = None  #: the first failing check
    detail: str = ""


def harness_settings(numpy_idiom: str = "cpu-detach") -> Settings:
    """Every rule, strict ones included: the migration profile."""
    return Settings(enabled=select(strict=True), numpy_idiom=numpy_idiom)


def read_table(source: str, path: Path) -> dict[str, Any]:
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise CaseError(f"{path}: syntax error at line {error.lineno}: {error.msg}") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "HARNESS" for t in node.targets
        ):
            try:
                table = ast.literal_eval(node.value)
            except ValueError:
                raise CaseError(f"{path}: HARNESS must be a literal dict") from None
            if not isinstance(table, dict):
                raise CaseError(f"{path}: HARNESS must be a literal dict")
            return table
    raise CaseError(f"{path}: no HARNESS table")


def is_case_file(path: Path) -> bool:
    try:
        return "HARNESS =" in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def load_case(
    path: Path,
    settings: Optional[Settings] = None,
    rewritten: Optional[str] = None,
    name: Optional[str] = None,
) -> Case:
    """Read a case; the rewritten code comes from tensorlint's own fixer."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CaseError(f"{path}: cannot read: {error}") from None
    table = read_table(source, path)
    call, inputs = table.get("call"), table.get("inputs")
    if not isinstance(call, str) or inputs not in ("tensor", "array"):
        raise CaseError(f"{path}: HARNESS needs 'call' (a name) and 'inputs' ('tensor'/'array')")
    intent = bool(table.get("intent", False))
    unchanged = intent or path.stem.startswith("ok_")
    if rewritten is None:
        outcome = fix_source(source, settings or harness_settings(), unsafe=True)
        if outcome.error:
            raise CaseError(f"{path}: {outcome.error}")
        rewritten = outcome.source
    default = {VALUES, HAZARD, UNTOUCHED}
    if intent:
        default = {VALUES, HAZARD, INTENT}
    elif path.parent.name.startswith("TL2"):
        default.add(SHARING)
    checks = frozenset(table.get("checks", default))
    unknown = checks - set(CHECKS)
    if unknown:
        raise CaseError(f"{path}: unknown checks {sorted(unknown)}")
    return Case(
        name or f"{path.parent.name}/{path.stem}",
        path,
        call,
        inputs,
        intent,
        unchanged,
        checks,
        source,
        rewritten,
    )


def _load(source: str, label: str, call: str) -> Callable[[Any], Any]:
    module = types.ModuleType(label)
    module.__file__ = label
    exec(compile(source, label, "exec"), module.__dict__)
    function = module.__dict__.get(call)
    if not callable(function):
        raise CaseError(f"{label}: no function {call!r}")
    return function  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Outcome:
    value: Any = None
    error: Optional[BaseException] = None


def _run(function: Callable[[Any], Any], argument: Any) -> Outcome:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return Outcome(function(argument))
        except Exception as error:
            return Outcome(error=error)


def is_conversion_error(error: Optional[BaseException]) -> bool:
    """The two errors the rules exist for: ``.numpy()`` on a CUDA tensor
    (TypeError) and on a tensor that requires grad (RuntimeError)."""
    text = str(error)
    if isinstance(error, TypeError):
        return "device type tensor to numpy" in text
    if isinstance(error, RuntimeError):
        return "Can't call numpy() on Tensor that requires grad" in text
    return False


def _reference_input(spec: InputSpec) -> Any:
    value = spec.build()
    if spec.kind == "tensor":
        return value.detach().cpu()
    return value


def run_cell(
    case: Case,
    original: Callable[[Any], Any],
    rewritten: Callable[[Any], Any],
    spec: InputSpec,
) -> CellResult:
    def fail(check: str, detail: str) -> CellResult:
        return CellResult(case.name, spec.id, spec.device, "failed", check, detail)

    before_input = spec.build()
    old = _run(original, before_input)
    new_input = spec.build()
    before = compare.snapshot(new_input)
    new = _run(rewritten, new_input)

    if old.error is not None and is_conversion_error(old.error) and HAZARD in case.checks:
        # the reference: the original on a detached CPU copy of the input
        reference = _run(original, _reference_input(spec))
        if reference.error is not None:
            # e.g. bfloat16: the conversion fails for another reason, and the
            # rewritten code must fail the same way
            if type(new.error) is not type(reference.error):
                got = "a value" if new.error is None else type(new.error).__name__
                expected = type(reference.error).__name__
                return fail(HAZARD, f"the reference raises {expected}, rewritten {got}")
        elif new.error is not None:
            return fail(HAZARD, f"rewritten still raises {type(new.error).__name__}: {new.error}")
        else:
            why = compare.difference(reference.value, new.value)
            if why is not None:
                return fail(HAZARD, f"differs from the reference conversion: {why}")
    elif old.error is not None:
        if new.error is None or type(new.error) is not type(old.error):
            got = "a value" if new.error is None else type(new.error).__name__
            return fail(VALUES, f"original raises {type(old.error).__name__}, rewritten {got}")
    elif VALUES in case.checks:
        if new.error is not None:
            return fail(VALUES, f"rewritten raises {type(new.error).__name__}: {new.error}")
        why = compare.difference(old.value, new.value)
        if why is not None:
            return fail(VALUES, why)

    if UNTOUCHED in case.checks and new.error is None:
        why = compare.changed(before, new_input)
        if why is not None:
            return fail(UNTOUCHED, f"the input's {why}")

    if SHARING in case.checks and new.error is None:
        results = list(compare.leaves(new.value))
        for result in results:
            if compare.shares_memory(result, new_input):
                return fail(SHARING, f"the result {compare.describe(result)} shares the input")
        kept = [compare.snapshot(r) for r in results]
        if compare.mutate(new_input):
            for result, snap in zip(results, kept):
                if compare.changed(snap, result) is not None:
                    return fail(SHARING, "writing to the input changed the result")

    if INTENT in case.checks and old.error is None and _has_elements(before_input):
        shared = (
            any(compare.shares_memory(r, before_input) for r in compare.leaves(old.value))
            or compare.changed(compare.snapshot(spec.build()), before_input) is not None
        )
        if not shared:
            return fail(INTENT, "the original no longer shares memory with its input")

    return CellResult(case.name, spec.id, spec.device, "passed")


def _has_elements(value: Any) -> bool:
    size = getattr(value, "size", None)
    count = size if isinstance(size, int) else getattr(value, "numel", lambda: 1)()
    return bool(count)


def run_case(case: Case, devices: Optional[Sequence[str]] = None) -> list[CellResult]:
    present = list(devices) if devices is not None else available_devices()
    names = tuple(dict.fromkeys([*EXPECTED_DEVICES, *present]))
    specs = list(matrix(case.inputs, names))
    if case.expect_unchanged and case.rewritten != case.original:
        check = INTENT if case.intent else UNCHANGED
        detail = "the fixer rewrote a case that must be left alone"
        return [CellResult(case.name, s.id, s.device, "failed", check, detail) for s in specs]
    original = _load(case.original, f"<{case.name}:original>", case.call)
    rewritten = _load(case.rewritten, f"<{case.name}:rewritten>", case.call)
    results = []
    for spec in specs:
        if spec.device not in present:
            reason = f"no {spec.device.upper()} device"
            results.append(CellResult(case.name, spec.id, spec.device, "skipped", None, reason))
            continue
        results.append(run_cell(case, original, rewritten, spec))
    return results


def find_cases(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(p for p in sorted(path.rglob("*.py")) if is_case_file(p))
        else:
            found.append(path)
    return [p for p in found if not p.name.endswith(".fixed.py")]
