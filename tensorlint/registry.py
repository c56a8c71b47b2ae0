"""The one list of rules, and selection by code or prefix."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tensorlint.rule import Rule
from tensorlint.rules.tl101 import NumpyOnAcceleratorTensor
from tensorlint.rules.tl102 import NumpyOnGradTensor
from tensorlint.rules.tl103 import ImplicitTensorToArray
from tensorlint.rules.tl111 import NumpyOnUnknownDeviceTensor
from tensorlint.rules.tl112 import NumpyOnUnknownGradTensor
from tensorlint.rules.tl113 import ImplicitUnknownTensorToArray
from tensorlint.rules.tl201 import FromNumpyWriteThrough
from tensorlint.rules.tl202 import NumpyWriteThrough
from tensorlint.rules.tl204 import WriteToReadonlyArrayTensor
from tensorlint.rules.tl211 import FromNumpySharedMemory
from tensorlint.rules.tl212 import NumpySharedMemory
from tensorlint.rules.tl213 import AsTensorSharedMemory
from tensorlint.rules.tl301 import DataAttributeDetach
from tensorlint.rules.tl900 import UnusedNoqa

#: Every rule, in code order. The single source of truth for the catalog.
ALL_RULES: tuple[type[Rule], ...] = (
    NumpyOnAcceleratorTensor,
    NumpyOnGradTensor,
    ImplicitTensorToArray,
    NumpyOnUnknownDeviceTensor,
    NumpyOnUnknownGradTensor,
    ImplicitUnknownTensorToArray,
    FromNumpyWriteThrough,
    NumpyWriteThrough,
    WriteToReadonlyArrayTensor,
    FromNumpySharedMemory,
    NumpySharedMemory,
    AsTensorSharedMemory,
    DataAttributeDetach,
    UnusedNoqa,
)

BY_CODE: dict[str, type[Rule]] = {rule.CODE: rule for rule in ALL_RULES}


class SelectionError(ValueError):
    pass


def matches(code: str, selector: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def check_selectors(selectors: Iterable[str]) -> None:
    for selector in selectors:
        if not any(matches(rule.CODE, selector) for rule in ALL_RULES):
            raise SelectionError(f"unknown rule code or prefix {selector!r}")


def select(
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    extend_select: Sequence[str] = (),
    strict: bool = False,
) -> frozenset[str]:
    """The enabled codes, Ruff-style.

    ``select`` replaces the default set (the rules on by default, plus the
    strict ones with ``strict``); ``extend_select`` adds to it; ``ignore``
    removes, and the longer (more specific) selector wins when both name a
    rule. A prefix selects a strict rule only with ``strict``; its exact
    code always does.
    """
    check_selectors([*select, *ignore, *extend_select])
    enabled: set[str] = set()
    for rule in ALL_RULES:
        chosen = -1
        if not select:
            chosen = 0 if (rule.DEFAULT or strict) else -1
        else:
            for selector in select:
                if matches(rule.CODE, selector) and (
                    rule.DEFAULT or strict or selector == rule.CODE
                ):
                    chosen = max(chosen, len(selector))
        for selector in extend_select:
            if matches(rule.CODE, selector) and (rule.DEFAULT or strict or selector == rule.CODE):
                chosen = max(chosen, len(selector))
        ignored = max((len(s) for s in ignore if matches(rule.CODE, s)), default=-1)
        if chosen >= 0 and ignored < chosen:
            enabled.add(rule.CODE)
    return frozenset(enabled)


def codes_matching(selectors: Sequence[str]) -> frozenset[str]:
    """The codes of the rules ``selectors`` (codes or prefixes, ``ALL``) name,
    whether or not they are enabled (``unfixable``); SelectionError for a
    selector that names no rule."""
    check_selectors(selectors)
    return frozenset(
        rule.CODE for rule in ALL_RULES if any(matches(rule.CODE, s) for s in selectors)
    )
