"""Python's cyclic garbage collector, paused while the engine makes many results at once.

Every `ToolCall` is an object the collector tracks. Made in a burst (`parse()` on a
long text, or the calls of a wrapper of thousands of invokes), they outlive the young
collections that run meanwhile and are promoted; enough promotions start a full
collection, which walks every tracked object of the process, the caller's included.
On the benchmark's wrappers of tiny invokes that made the time a character at 4 MB
30-50 % longer than at 100 KB (docs/performance.md, "Growth and the collector").

With the collector paused for the burst, the calls are young when it ends: the next
young collection finds those the caller still holds, and the ones it has dropped by
then were freed by reference counting. Pausing frees nothing late, because the engine
makes no reference cycles (tests/test_collector.py checks that over the corpus and
the workloads). A paused section is bounded by its input (one text, one block).

The caller's setting is restored on return, exception or not. The setting is the
process's: a thread that switches the collector off while another is inside a paused
section finds it on again when that section ends.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["collector_paused"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def collector_paused(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """`function`, run with the cyclic collector paused (when it was running)."""

    @functools.wraps(function)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return function(*args, **kwargs)
        try:  # (disabled inside: an interrupt between the two cannot leave it off)
            gc.disable()
            return function(*args, **kwargs)
        finally:
            gc.enable()

    return paused
