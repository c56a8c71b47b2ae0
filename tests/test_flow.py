"""The event log's queries: indexed, with the answers of a scan of every event."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from analysis_helpers import analyze

from tensorlint.analysis import syntax
from tensorlint.analysis.flow import Event, EventLog

ROOT = Path(__file__).parent.parent


def _after(log: EventLog, first: int, second: int, storage: int | None) -> bool:
    """The definition the indexed queries replace (a scan of every loop)."""
    created = log.storages[storage].created_at if storage is not None else -2
    if second > first:
        return not (first < created <= second)
    for loop in log.loops:
        inside = loop.start <= second and loop.start <= first <= loop.end
        recreated = first < created <= loop.end or loop.start <= created <= second
        if inside and not recreated:
            return True
    return False


def _uses_after(log: EventLog, idx: int, storage: int) -> Iterator[Event]:
    for event in log.events:
        if event.kind != "use":
            continue
        direct = storage in event.storages and _after(log, idx, event.idx, storage)
        if direct or (storage in event.held and _after(log, idx, event.idx, None)):
            yield event


def _writes_after(log: EventLog, idx: int, storage: int) -> Iterator[Event]:
    for event in log.events:
        if event.kind == "write" and storage in event.storages:
            same = event.idx == idx and event.through_conversion
            if same or _after(log, idx, event.idx, storage):
                yield event


_LOOPS = """
import numpy as np
import torch

def f(a, b, items):
    t = torch.from_numpy(a)
    for x in items:
        t.add_(1)
        c = a.numpy()
        while x:
            a += 1
            b = np.zeros(3)
            u = torch.from_numpy(b)
            for y in b:
                y.sort()
            held = [t, u]
            held.append(c)
        b.sort()
        u.add_(held[0])
    else:
        t[0] = 2
    return torch.from_numpy(b), held
"""


def _sources() -> list[str]:
    texts = [_LOOPS]
    for folder in (ROOT / "fixtures", ROOT / "bench" / "cross"):
        texts += [p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.py"))]
    return texts


def test_the_indexed_queries_answer_as_a_scan_of_every_event() -> None:
    logs = 0
    for text in _sources():
        try:
            analysis = analyze(text)
        except Exception:  # (fixtures of syntax errors)
            continue
        for owner in analysis.index.scopes:
            if not isinstance(owner, (syntax.Module, syntax.FunctionDef)):
                continue
            log = analysis.function(owner).log
            if not log.events:
                continue
            logs += 1
            last = max(e.idx for e in log.events) + 2
            # the walk records events in statement order (the index's premise)
            assert [e.idx for e in log.events] == sorted(e.idx for e in log.events)
            for storage in log.storages:
                for idx in range(-1, last):
                    assert list(log.writes_after(idx, storage)) == list(
                        _writes_after(log, idx, storage)
                    )
                    assert list(log.uses_after(idx, storage)) == list(
                        _uses_after(log, idx, storage)
                    )
                    for second in range(-1, last):
                        assert log.after(idx, second, storage) == _after(log, idx, second, storage)
    assert logs > 100


@pytest.mark.parametrize("n", [500, 1000])
def test_a_query_reads_only_the_events_it_may_return(n: int) -> None:
    # each conversion's queries used to read every event of the function:
    # 8,000 conversions in one function took 14 s, 21,000 over 60 s
    lines = ["import torch", "", "def f(a):"]
    lines += [f"    t{i} = torch.from_numpy(a)\n    t{i}.add_(1)" for i in range(n)]
    analysis = analyze("\n".join(lines) + "\n")
    function = next(o for o in analysis.index.scopes if isinstance(o, syntax.FunctionDef))
    log = analysis.function(function).log
    read = 0
    events = log.events

    class Counting(list):  # type: ignore[type-arg]
        def __getitem__(self, index: object) -> object:
            nonlocal read
            read += 1
            return super().__getitem__(index)  # type: ignore[index]

        def __iter__(self) -> Iterator[Event]:
            nonlocal read
            for event in super().__iter__():
                read += 1
                yield event

    log.events = Counting(events)
    next(log.uses_after(0, 0), None)  # (an index reads each event once)
    read = 0
    for conversion in log.conversions.values():
        assert conversion.source is not None
        found = list(log.writes_after(conversion.idx, conversion.result))
        assert [w.idx for w in found] == [conversion.idx + 1]
        assert next(log.uses_after(conversion.idx, conversion.result)).idx == conversion.idx + 1
        next(log.uses_after(conversion.idx, conversion.source), None)
    assert read <= 3 * n
