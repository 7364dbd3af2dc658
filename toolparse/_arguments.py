"""The public functions' arguments checked, with errors that name them (SPEC G8).

A wrong-typed argument raises `ConfigTypeError` (a `ToolparseError` and a `TypeError`)
naming the function, the argument and what it takes, instead of whatever the first
operation on it happens to raise (`TypeError: expected str, bytes or os.PathLike
object`, `AttributeError`, or nothing and a wrong answer).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from toolparse._errors import ConfigTypeError

__all__ = ["require", "require_args", "require_items", "require_path"]

def require(value: object, types: type | tuple[type, ...], where: str, expected: str,
            error: type[TypeError] = ConfigTypeError) -> None:
    """Raises `error` unless `value` is one of `types` (a bool is no int)."""
    wanted = types if isinstance(types, tuple) else (types,)
    if not isinstance(value, wanted) or (isinstance(value, bool) and bool not in wanted
                                         and int in wanted):
        raise error(f"{where} must be {expected}, not {type(value).__name__}")


def require_args(function: str, *checks: tuple[str, object, type | tuple[type, ...], str]
                 ) -> None:
    """`require` for each (argument name, value, types, what it takes) of `function`."""
    for name, value, types, expected in checks:
        require(value, types, f"{function}: {name}", expected)


def require_path(value: object, where: str) -> Path:
    """`value` as a Path: a str or an os.PathLike of a str."""
    if isinstance(value, str):
        return Path(value)
    if isinstance(value, os.PathLike):
        found = os.fspath(value)
        if isinstance(found, str):
            return Path(found)
    raise ConfigTypeError(f"{where} must be a path (a str or a pathlib.Path), "
                          f"not {type(value).__name__}")


def require_items(values: object, types: type | tuple[type, ...], where: str,
                  expected: str, each: str) -> list[Any]:
    """The items of iterable `values` (`expected`, such as "offsets"), each one of
    `types` (`each`: "an int"); a str is not taken for an iterable of its characters."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ConfigTypeError(f"{where} must be an iterable of {expected}, "
                              f"not {type(values).__name__}")
    items = list(values)
    for n, item in enumerate(items):
        require(item, types, f"{where}[{n}]", each)
    return items
