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
from collections import deque
from enum import Enum
from typing import Any, TypeVar

__all__ = ["attribute_names", "deep_copy", "shallow_copy"]

T = TypeVar("T")


_NAMES: dict[type, tuple[str, ...]] = {}

_SHARED = frozenset({int, str, bool, float, type(None), bytes})
"""Types whose values a copy shares: immutable and holding nothing (what `copy.deepcopy`
would return as they are), so a copy need not call it for them."""
_ABSENT = object()


def _copy_value(value: Any, memo: dict[int, Any]) -> Any:
    """`copy.deepcopy(value, memo)`, made here for the kinds of value the state holds.

    The state's values are mostly small or empty lists, dicts and deques of numbers and
    strings, and objects of its own classes. `copy.deepcopy` dispatches each through its
    generic tables at a few thousand instructions a container (in the compiled build a
    fork cost about 330,000 instructions that way, seventeenth sitting); here it is a
    type test. The memo works as `copy.deepcopy`'s does: a value reached twice is copied
    once, and a container is in the memo before its items are copied. (`copy.deepcopy`
    also keeps each original alive in the memo, against a temporary's id being reused;
    every value here is an attribute of the live original.)"""
    kind = type(value)
    if kind in _SHARED:
        return value
    key = id(value)
    twin = memo.get(key, _ABSENT)
    if twin is not _ABSENT:
        return twin
    if kind is list:
        twin = memo[key] = []
        twin.extend([_copy_value(item, memo) for item in value])
    elif kind is dict:
        twin = memo[key] = {}
        for k, v in value.items():
            twin[_copy_value(k, memo)] = _copy_value(v, memo)
    elif kind is deque:
        twin = memo[key] = deque((), value.maxlen)
        twin.extend([_copy_value(item, memo) for item in value])
    elif kind is tuple:
        items = [_copy_value(item, memo) for item in value]
        same = all(a is b for a, b in zip(items, value))
        twin = memo[key] = value if same else tuple(items)  # (as `copy.deepcopy`)
    elif isinstance(value, Enum):
        return value  # (`Enum.__deepcopy__` returns the member itself)
    elif hasattr(kind, "__deepcopy__") and not isinstance(value, type):
        twin = memo[key] = value.__deepcopy__(memo)  # (the state's classes, the automata)
    else:
        return copy.deepcopy(value, memo)
    return twin


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
            setattr(twin, name, _copy_value(value, memo))
    return twin


def shallow_copy(obj: T, twin: T) -> T:
    """Make `twin` a copy of `obj` that shares its attributes' values, except that each
    list is copied (the lists are what the copy changes on its own)."""
    for name in attribute_names(type(obj)):
        if hasattr(obj, name):
            value = getattr(obj, name)
            setattr(twin, name, list(value) if isinstance(value, list) else value)
    return twin
