"""The stream engine's options checked once, with errors that name what is wrong."""

from __future__ import annotations

from collections.abc import Callable

from toolparse._errors import ConfigError, ConfigTypeError

__all__ = ["check_max_capture", "checked_ids"]

def check_max_capture(max_capture: object) -> None:
    if isinstance(max_capture, bool) or not isinstance(max_capture, int):
        raise ConfigTypeError(
            f"max_capture must be an int (a number of characters), not {type(max_capture).__name__}")
    if max_capture < 1:
        raise ConfigError(f"max_capture must be at least 1 character, not {max_capture}")


def checked_ids(factory: Callable[[], str]) -> Callable[[], str]:
    """`factory`, with a clear error when it returns something other than a str."""
    def new_id() -> str:
        value = factory()
        if not isinstance(value, str):
            raise ConfigTypeError(f"id_factory returned {type(value).__name__}, not a str")
        return value
    return new_id
