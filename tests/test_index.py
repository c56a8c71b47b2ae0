"""The module index: what it keeps per site."""

from __future__ import annotations

import sys
import threading
import tracemalloc

from tensorlint.analysis.index import build_index
from tensorlint.analysis.parse import parse_whole


def _index_bytes(terms: int) -> int:
    """Peak bytes allocated building the index of a ``g(a0) and g(a1) and ...``
    chain (``and`` nests to the left: the n-th call is n levels deep)."""
    chain = " and ".join(f"g(a{i})" for i in range(terms))
    source = f"import torch\n\ndef g(v):\n    return torch.from_numpy(v)\n\nx = {chain}\n"
    found: list[tuple[int, int, int]] = []

    def work() -> None:  # the walks recurse once per level
        module = parse_whole(source)
        tracemalloc.start()
        try:
            index = build_index(module, frozenset({"g"}))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        found.append((peak, len(index.calls), len(index.calls[0].ancestors)))

    limit = sys.getrecursionlimit()
    size = threading.stack_size(256 * 1024 * 1024)
    sys.setrecursionlimit(max(limit, 50_000))
    try:
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(size)
    peak, calls, depth = found[0]
    assert calls == terms and depth > terms  # (the first call is the deepest)
    return peak


def test_the_ancestors_of_sites_are_shared_so_memory_is_linear_in_the_depth() -> None:
    # a tuple of ancestors per site: a 20,000-term chain of calls held
    # 200 million references (1.6 GB); doubling the chain quadrupled it
    small, large = _index_bytes(1000), _index_bytes(2000)
    assert large <= 2.5 * small, (small, large)


def test_ancestors_read_as_the_tuple_of_the_path() -> None:
    from tensorlint.analysis.walk import Ancestors

    nodes = [object() for _ in range(6)]
    path = Ancestors()
    for node in nodes:
        path = path.below(node)  # type: ignore[arg-type]
    expected = tuple(nodes)
    assert len(path) == 6 and tuple(path) == expected and list(reversed(path)) == nodes[::-1]
    for i in [5, 4, 2, 3, 0, 1, -1, -6, 5]:  # the cursor, down and up again
        assert path[i] is expected[i]
    assert path[1:3] == expected[1:3]
    assert nodes[2] in path and object() not in path
    assert len(Ancestors()) == 0 and list(Ancestors()) == []


def test_instances_are_names_bound_once_by_a_call_of_a_capitalised_name() -> None:
    source = (
        "import models\n\n"
        "net = models.Critic(8)\n"
        "sampler = Sampler()\n"
        "sampler = load()\n"
        "plain = build()\n"
        "a, b = Pair()\n"
        "for row in Rows():\n    pass\n\n"
        "def f(agent):\n    agent = Agent()\n    local = Local()\n    return local\n"
    )
    index = build_index(parse_whole(source), frozenset())
    module = next(s for s in index.scopes.values() if s.kind == "module")
    assert module.instances == {"net": "models.Critic", "sampler": None}
    function = next(s for s in index.scopes.values() if s.kind == "function")
    assert function.instances == {"local": "Local"}  # (``agent`` is a parameter)
