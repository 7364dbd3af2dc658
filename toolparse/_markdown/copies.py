"""Copies of the tracker's state objects: `MarkdownTracker.fork` and `Candidate.clone`.

`copy.deepcopy` cannot copy these classes by itself in the compiled build: there they
are mypyc native classes, which have neither `__dict__` nor `__slots__`, and whose
`__new__` runs `__init__`. So each class makes a fresh instance with its own
constructor, and `deep_copy` or `shallow_copy` fills in every attribute by name, as
`__slots__` (pure Python) or `__mypyc_attrs__` (compiled) lists them. An attribute
added to a class is copied with no further code.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

__all__ = ["attribute_names", "deep_copy", "shallow_copy"]

T = TypeVar("T")


_NAMES: dict[type, tuple[str, ...]] = {}

_SHARED = frozenset({int, str, bool, float, type(None), bytes})
"""Types whose values a copy shares: immutable and holding nothing (what `copy.deepcopy`
would return as they are), so a copy need not call it for them."""
_ABSENT = object()


def attribute_names(cls: type) -> tuple[str, ...]:
    """The instance attributes of `cls` and its bases."""
    names = _NAMES.get(cls)
    if names is None:
        found: list[str] = []
        for klass in cls.__mro__:
            own: Any = getattr(klass, "__mypyc_attrs__", None) or getattr(klass, "__slots__", ())
            found += [name for name in own if name not in found and name != "__dict__"]
        names = _NAMES[cls] = tuple(found)
    return names


def deep_copy(obj: T, twin: T, memo: dict[int, Any]) -> T:
    """Make `twin` (a fresh instance of `obj`'s class) a deep copy of `obj`, as
    `copy.deepcopy` would with `memo`: an object reached twice is copied once."""
    memo[id(obj)] = twin
    for name in attribute_names(type(obj)):
        value = getattr(obj, name, _ABSENT)
        if value is not _ABSENT:
            setattr(twin, name, value if type(value) in _SHARED
                    else copy.deepcopy(value, memo))
    return twin


def shallow_copy(obj: T, twin: T) -> T:
    """Make `twin` a copy of `obj` that shares its attributes' values, except that each
    list is copied (the lists are what the copy changes on its own)."""
    for name in attribute_names(type(obj)):
        if hasattr(obj, name):
            value = getattr(obj, name)
            setattr(twin, name, list(value) if isinstance(value, list) else value)
    return twin
