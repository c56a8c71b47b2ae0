"""A pytest plugin that watches torch <-> NumPy conversions while tests run.

``pytest -p tensorlint.sanitize`` records every ``torch.from_numpy``,
``torch.as_tensor``/``torch.asarray`` that shares an array's memory,
``Tensor.numpy()`` and ``np.asarray(tensor)`` (``Tensor.__array__``) the tests
execute, with the line of the user's code that made it, and reports:

- **write-throughs that happened**: after a conversion whose source the
  converting code holds (a name, an attribute: not a temporary such as
  ``torch.from_numpy(np.load(p))``), the tensor was written in place (torch's
  version counter moved) or the array's bytes changed (a write through
  NumPy), while the conversion's result was still referenced. Checked when
  the test ends (the frames of the code that converted are kept until then,
  so their local variables count as references), and when a site's records
  are recycled;
- **conversion crashes that happened**: ``.numpy()`` raising on a tensor that
  requires grad, or on a tensor that is not on the CPU.

At the end it runs ``tensorlint check --strict`` on the files where
conversions ran and matches each runtime event to the static finding at the
same line: *confirmed* (both), *missed* (a runtime hazard no rule reports),
*exercised* (a finding whose line ran without a hazard being seen) and *not
exercised* (a finding whose line never ran).

Options: ``--tensorlint-report PATH`` writes the whole record as JSON;
``--tensorlint-no-static`` skips the static check.

torch and numpy are imported only when the plugin is configured; without
torch the plugin says so once and watches nothing.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import weakref
import zlib
from collections import defaultdict, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

#: how many live conversions of one site are watched at once: older ones are
#: checked and dropped (a conversion in a loop of a million steps)
PER_SITE = 8
#: arrays larger than this are not checksummed (torch's version counter
#: still sees writes through the tensor)
CHECKSUM_LIMIT = 64 << 20

_HERE = os.path.dirname(os.path.abspath(__file__))


def _probe(value: Any) -> int:
    return sys.getrefcount(value)


#: the references a patched function sees to an argument nobody else holds
#: (a temporary): its own parameter and ``getrefcount``'s
_TEMPORARY = _probe(object())

#: rule families that a runtime event confirms
_WRITE_CODES = frozenset({"TL201", "TL202", "TL204", "TL211", "TL212", "TL213"})
_CRASH_CODES = {
    "grad": frozenset({"TL102", "TL112"}),
    "device": frozenset({"TL101", "TL111"}),
}


@dataclass
class Event:
    """Something that happened at a conversion site."""

    kind: str  #: "write-through", "grad", "device"
    file: str
    line: int
    test: str
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "test": self.test,
            "detail": self.detail,
        }


@dataclass
class _Alias:
    """One conversion whose two sides share memory, watched while both live."""

    conversion: str
    file: str
    line: int
    test: str
    source: Any  #: the converted object (kept alive until the check)
    result: Any  #: weakref.ref to what the conversion returned
    tensor: Any  #: the tensor side (a strong reference to ``source``, or a weakref)
    array: Any  #: the array side
    version: int
    checksum: Optional[int]


@dataclass
class Record:
    """What the plugin saw in one session."""

    #: (file, line) -> conversion kind -> how many ran
    ran: dict[tuple[str, int], dict[str, int]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "conversions": [
                {"file": f, "line": n, "kind": k, "count": c}
                for (f, n), kinds in sorted(self.ran.items())
                for k, c in sorted(kinds.items())
            ],
            "events": [e.as_dict() for e in self.events],
        }


def _checksum(array: Any) -> Optional[int]:
    if array.nbytes > CHECKSUM_LIMIT:
        return None
    import numpy as np

    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    try:
        return zlib.crc32(memoryview(array).cast("B"))
    except (TypeError, ValueError):  # an object array, a zero-size view
        return zlib.crc32(array.tobytes()) if array.dtype != object else None


def _never_raises(method: Callable[..., None]) -> Callable[..., None]:
    """The plugin must change no test's outcome: an error of its own while
    recording is counted (and reported at the end), never raised."""

    @functools.wraps(method)
    def guarded(self: Watcher, *args: Any) -> None:
        try:
            method(self, *args)
        except Exception:  # (any error of ours: count it, go on)
            self.internal_errors += 1

    return guarded


class Watcher:
    """Patches the conversions and keeps what they did."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.record = Record()
        self.test = ""
        self._live: dict[tuple[str, int], deque[_Alias]] = defaultdict(deque)
        self._restore: list[Callable[[], None]] = []
        self._busy = False  #: inside a patched call (``.numpy()`` calling ``__array__``)
        self._frames: dict[int, Any] = {}
        self._paths: dict[str, str] = {}
        #: test -> a digest of the values of each comparison it made, in order
        self.compared: dict[str, list[str]] = {}
        self.internal_errors = 0

    # -- where a call comes from ---------------------------------------------

    def _site(self, frame: Any) -> tuple[str, int]:
        """The file (relative to the folder pytest runs in) and line of ``frame``."""
        filename = frame.f_code.co_filename
        relative = self._paths.get(filename)
        if relative is None:
            relative = self._paths[filename] = os.path.relpath(filename, self.root)
        return relative, frame.f_lineno

    # -- patching --------------------------------------------------------------

    def install(self) -> None:
        import numpy as np
        import torch

        tensor_cls = torch.Tensor

        def patch(owner: Any, name: str, make: Callable[[Any], Any]) -> None:
            original = getattr(owner, name)
            setattr(owner, name, make(original))
            self._restore.append(lambda: setattr(owner, name, original))

        def to_tensor(kind: str) -> Callable[[Any], Any]:
            def make(original: Any) -> Any:
                def wrapper(data: Any, *args: Any, **kwargs: Any) -> Any:
                    __tracebackhide__ = True
                    caller = sys._getframe(1)
                    if _is_library(caller.f_code.co_filename):
                        return original(data, *args, **kwargs)
                    held = sys.getrefcount(data) > _TEMPORARY or _base_held(data)
                    tensor = original(data, *args, **kwargs)
                    # (``as_tensor``/``asarray`` share only an array of the
                    # tensor's type on its device; ``from_numpy`` always does)
                    if kind == "from_numpy" or (
                        isinstance(data, np.ndarray) and _shares(tensor, data)
                    ):
                        self._converted(caller, kind, data, tensor, held)
                    return tensor

                return wrapper

            return make

        def to_array(kind: str) -> Callable[[Any], Any]:
            def make(original: Any) -> Any:
                def convert(tensor: Any, *args: Any, **kwargs: Any) -> Any:
                    __tracebackhide__ = True
                    caller = sys._getframe(1)
                    if self._busy or _is_library(caller.f_code.co_filename):
                        return original(tensor, *args, **kwargs)
                    held = (
                        kind == "__array__"  # (NumPy holds what it converts)
                        or sys.getrefcount(tensor) > _TEMPORARY
                        or _storage_shared(tensor)
                    )
                    self._busy = True
                    try:
                        array = original(tensor, *args, **kwargs)
                    except (TypeError, RuntimeError) as error:
                        self._crashed(caller, tensor, error)
                        raise
                    finally:
                        self._busy = False
                    if isinstance(array, np.ndarray) and _shares(tensor, array):
                        self._converted(caller, kind, tensor, array, held)
                    return array

                return convert

            return make

        patch(torch, "from_numpy", to_tensor("from_numpy"))
        patch(torch, "as_tensor", to_tensor("as_tensor"))
        if hasattr(torch, "asarray"):
            patch(torch, "asarray", to_tensor("asarray"))
        patch(tensor_cls, "numpy", to_array("numpy"))
        patch(tensor_cls, "__array__", to_array("__array__"))

    def install_comparisons(self) -> None:
        """Record what the tests compare: the two values given to each of
        ``COMPARISONS`` (``migrate --verify`` checks that fixes keep them)."""
        import importlib

        for dotted in COMPARISONS:
            module_name, _, name = dotted.rpartition(".")
            try:
                module = importlib.import_module(module_name)
            except ImportError:
                continue
            original = getattr(module, name, None)
            if original is None:
                continue
            setattr(module, name, self._comparison(original))
            self._restore.append(functools.partial(setattr, module, name, original))

    def _comparison(self, original: Any) -> Any:
        def compare(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            if not self._busy and len(args) >= 2:
                self._record_comparison(args[0], args[1])
            return original(*args, **kwargs)

        return compare

    @_never_raises
    def _record_comparison(self, expected: Any, actual: Any) -> None:
        self._busy = True
        try:
            digest = f"{_digest(expected)}/{_digest(actual)}"
        finally:
            self._busy = False
        self.compared.setdefault(self.test, []).append(digest)

    def uninstall(self) -> None:
        while self._restore:
            self._restore.pop()()

    # -- what a conversion did -------------------------------------------------

    @_never_raises
    def _converted(self, caller: Any, kind: str, source: Any, result: Any, held: bool) -> None:
        """``result`` shares memory with ``source``; ``held``: the caller
        holds ``source`` (or memory it views), so a write may surprise it."""
        site = self._site(caller)
        counts = self.record.ran.setdefault(site, {})
        counts[kind] = counts.get(kind, 0) + 1
        if not held:
            return
        try:
            result_ref = weakref.ref(result)
        except TypeError:
            return
        tensor, array = (result, source) if kind in _TO_TENSOR else (source, result)
        live = self._live[site]
        if len(live) >= PER_SITE:
            self._check(live.popleft())
        live.append(
            _Alias(kind, site[0], site[1], self.test, source, result_ref,
                   weakref.ref(tensor), weakref.ref(array), tensor._version,
                   _checksum(array))
        )  # fmt: skip
        self._keep_frames(caller)

    def _keep_frames(self, frame: Any) -> None:
        """Keep the user's frames on the stack until the test ends: a local
        variable of a function that has returned still counts."""
        frames = self._frames
        while frame is not None:
            if id(frame) in frames:
                break  # kept with its callers before
            if not _is_library(frame.f_code.co_filename):
                frames[id(frame)] = frame
            frame = frame.f_back

    @_never_raises
    def _crashed(self, caller: Any, tensor: Any, error: BaseException) -> None:
        site = self._site(caller)
        text = str(error)
        if "requires grad" in text:
            kind = "grad"
        elif "cuda" in text.lower() or "device" in text.lower() or tensor.device.type != "cpu":
            kind = "device"
        else:
            return
        first = text.splitlines()[0] if text else type(error).__name__
        self.record.events.append(Event(kind, site[0], site[1], self.test, first))

    @_never_raises
    def _check(self, alias: _Alias) -> None:
        tensor = alias.tensor()
        array = alias.array()
        if alias.result() is None or tensor is None or array is None:
            return  # nothing holds the result: nobody could see the change
        if tensor._version != alias.version:
            side = "the tensor was written in place"
        elif alias.checksum is not None and _checksum(array) != alias.checksum:
            side = "the array was written"
        else:
            return
        self.record.events.append(
            Event("write-through", alias.file, alias.line, alias.test,
                  f"{_CONVERSIONS[alias.conversion]}: {side}, and the other side "
                  "shares its memory")
        )  # fmt: skip

    def finish_test(self) -> None:
        """Check and forget every conversion the test made."""
        for live in self._live.values():
            while live:
                self._check(live.popleft())
        self._live.clear()
        self._frames.clear()


#: the comparisons whose two values ``--tensorlint-values`` records
COMPARISONS = (
    "torch.testing.assert_close", "torch.allclose", "torch.equal",
    "numpy.testing.assert_allclose", "numpy.testing.assert_array_equal",
    "numpy.testing.assert_array_almost_equal", "numpy.testing.assert_equal",
    "numpy.allclose", "numpy.array_equal",
)  # fmt: skip


def _digest(value: Any) -> str:
    """A digest of a value's type, shape and bytes (a tensor's on the CPU)."""
    import numpy as np

    detach = getattr(value, "detach", None)
    if callable(detach) and hasattr(value, "device"):
        try:
            value = value.detach().cpu().resolve_conj().resolve_neg().numpy()
        except (RuntimeError, TypeError):
            return f"tensor:{tuple(value.shape)}"
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return f"object:{value.shape}"
        data = np.ascontiguousarray(value)
        return f"{data.dtype}:{data.shape}:{zlib.crc32(data.tobytes()):08x}"
    text = repr(value)
    return f"{type(value).__name__}:{zlib.crc32(text.encode('utf-8', 'replace')):08x}"


_TO_TENSOR = frozenset({"from_numpy", "as_tensor", "asarray"})
_CONVERSIONS = {
    "from_numpy": "torch.from_numpy",
    "as_tensor": "torch.as_tensor",
    "asarray": "torch.asarray",
    "numpy": "Tensor.numpy()",
    "__array__": "np.asarray(tensor)",
}


@functools.lru_cache(maxsize=4096)
def _is_library(filename: str) -> bool:
    """Is ``filename`` torch's, NumPy's, an installed package's or this module's?"""
    if filename.startswith("<") and filename != "<string>":
        return True
    if filename.startswith(_HERE):
        return True
    parts = Path(filename).parts
    return any(p in ("torch", "numpy", "site-packages", "dist-packages") for p in parts[:-1])


def _base_refs(view: Any) -> int:
    base = view.base
    return sys.getrefcount(base)


@functools.cache
def _base_tie() -> int:
    """The references ``_base_held`` sees to the base of a temporary view."""
    import numpy as np

    return _base_refs(np.ones(2).reshape(2, 1))


def _base_held(array: Any) -> bool:
    """Is a temporary array a view of memory someone holds (``self.data[i]``)?"""
    tie = _base_tie()
    base = getattr(array, "base", None)
    while base is not None:
        if sys.getrefcount(base) > tie:  # more than its view's, ours and getrefcount's
            return True
        base = getattr(base, "base", None)
    return False


def _storage_shared(tensor: Any) -> bool:
    """Does another tensor use this tensor's memory (``weight.detach()``)?"""
    try:
        import torch

        storage = tensor.untyped_storage()
        return bool(torch._C._storage_Use_Count(storage._cdata) > 2)  # (``storage``'s own)
    except (AttributeError, RuntimeError, TypeError):
        return True


def _shares(tensor: Any, array: Any) -> bool:
    """Do the tensor and the array use the same memory?"""
    try:
        if tensor.device.type != "cpu" or tensor.numel() == 0:
            return False
        return bool(tensor.data_ptr() == array.__array_interface__["data"][0])
    except (RuntimeError, AttributeError, TypeError):
        return False


# -- matching with the static rules ----------------------------------------


@dataclass
class Match:
    confirmed: list[tuple[Event, str]] = field(default_factory=list)
    missed: list[Event] = field(default_factory=list)
    exercised: list[dict[str, Any]] = field(default_factory=list)
    not_exercised: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "confirmed": [{**e.as_dict(), "code": code} for e, code in self.confirmed],
            "missed": [e.as_dict() for e in self.missed],
            "exercised": self.exercised,
            "not_exercised": self.not_exercised,
        }


def static_findings(root: str, files: list[str]) -> list[dict[str, Any]]:
    """``tensorlint check --strict`` on ``files``, as the command line gives it."""
    if not files:
        return []
    command = [sys.executable, "-m", "tensorlint", "check", "--strict", "--no-cache",
               "--output-format", "json", "--exit-zero", *files]  # fmt: skip
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    try:
        findings: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    except (ValueError, KeyError):
        return []
    return [f for f in findings if f.get("cell") is None]


def match(record: Record, findings: list[dict[str, Any]]) -> Match:
    by_line: dict[tuple[str, int], list[str]] = defaultdict(list)
    for finding in findings:
        by_line[(os.path.normpath(finding["file"]), finding["line"])].append(finding["code"])
    result = Match()
    for event in record.events:
        codes = by_line.get((os.path.normpath(event.file), event.line), [])
        family = _WRITE_CODES if event.kind == "write-through" else _CRASH_CODES[event.kind]
        found = [c for c in codes if c in family]
        if found:
            result.confirmed.append((event, found[0]))
        else:
            result.missed.append(event)
    hazard_lines = {(os.path.normpath(e.file), e.line) for e in record.events}
    ran = {(os.path.normpath(f), n) for f, n in record.ran}
    for finding in findings:
        key = (os.path.normpath(finding["file"]), finding["line"])
        if key in hazard_lines:
            continue
        entry = {"file": finding["file"], "line": finding["line"], "code": finding["code"]}
        (result.exercised if key in ran else result.not_exercised).append(entry)
    return result


# -- pytest hooks ------------------------------------------------------------

_KEY = "_tensorlint_watcher"


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("tensorlint", "tensorlint: watch torch <-> NumPy conversions")
    group.addoption("--tensorlint-report", metavar="PATH", default=None,
                    help="write what the conversions did, as JSON")  # fmt: skip
    group.addoption("--tensorlint-no-static", action="store_true", default=False,
                    help="do not match what ran with tensorlint check's findings")  # fmt: skip
    group.addoption("--tensorlint-values", metavar="PATH", default=None,
                    help="write a digest of the values each test compares, as JSON")  # fmt: skip


def pytest_configure(config: Any) -> None:
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        config.issue_config_time_warning(
            UserWarning(f"tensorlint.sanitize watches nothing: {error}"), stacklevel=2
        )
        return
    watcher = Watcher(str(config.invocation_params.dir))
    watcher.install()
    if config.getoption("tensorlint_values"):
        watcher.install_comparisons()
    setattr(config, _KEY, watcher)


def pytest_unconfigure(config: Any) -> None:
    watcher: Optional[Watcher] = getattr(config, _KEY, None)
    if watcher is not None:
        watcher.uninstall()


def _watcher(item: Any) -> Optional[Watcher]:
    return getattr(item.config, _KEY, None)


def pytest_runtest_setup(item: Any) -> None:
    watcher = _watcher(item)
    if watcher is not None:
        watcher.test = item.nodeid


def pytest_runtest_teardown(item: Any, nextitem: Any) -> None:
    watcher = _watcher(item)
    if watcher is not None:
        watcher.finish_test()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    watcher: Optional[Watcher] = getattr(config, _KEY, None)
    if watcher is None:
        return
    watcher.finish_test()
    record = watcher.record
    matched: Optional[Match] = None
    if not config.getoption("tensorlint_no_static"):
        files = sorted({f for f, _ in record.ran} | {e.file for e in record.events})
        files = [f for f in files if os.path.isfile(os.path.join(watcher.root, f))]
        matched = match(record, static_findings(watcher.root, files))
    for line in summary_lines(record, matched):
        terminalreporter.write_line(line)
    if watcher.internal_errors:
        terminalreporter.write_line(
            f"tensorlint: {watcher.internal_errors} error(s) of the plugin's own while "
            "recording (no test was affected); please report them"
        )
    values = config.getoption("tensorlint_values")
    if values:
        Path(values).write_text(json.dumps(watcher.compared, indent=1) + "\n", encoding="utf-8")
    path = config.getoption("tensorlint_report")
    if path:
        report = record.as_dict()
        if matched is not None:
            report["static"] = matched.as_dict()
        Path(path).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def summary_lines(record: Record, matched: Optional[Match]) -> Iterator[str]:
    conversions = sum(sum(k.values()) for k in record.ran.values())
    yield (
        f"tensorlint: {conversions} conversion(s) at {len(record.ran)} site(s); "
        f"{len(record.events)} hazard(s) happened"
    )
    for event in record.events:
        where = f"{event.file}:{event.line}"
        yield f"  {where}: {event.kind}: {event.detail} ({event.test})"
    if matched is None:
        return
    yield (
        f"tensorlint: static findings matched: {len(matched.confirmed)} confirmed, "
        f"{len(matched.missed)} missed by the rules, {len(matched.exercised)} exercised "
        f"without a hazard, {len(matched.not_exercised)} not exercised"
    )
    for event in matched.missed:
        yield f"  missed: {event.file}:{event.line}: {event.kind} ({event.detail})"
