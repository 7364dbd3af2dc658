"""A value built on first use and kept: `functools.cache` for a function of no
arguments, at the cost of an attribute read.

The compiled build reads what the Markdown tracker needs at every line and every `<`
(its syntax, its patterns, its automata) through these: a call through
`functools.cache`'s wrapper is a call into the interpreter's C API (about 250
instructions), a call of `Once.get` a native call and a field read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Once"]

T = TypeVar("T")


class Once(Generic[T]):
    """`build()`, called once, on the first `get()`; its value afterwards. (Two
    threads may both build it the first time; each gets a value `build` made.)"""

    __slots__ = ("build", "value")

    def __init__(self, build: Callable[[], T]) -> None:
        self.build = build
        self.value: T | None = None

    def get(self) -> T:
        value = self.value
        if value is None:
            value = self.value = self.build()
        return value
