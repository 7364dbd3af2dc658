"""What a scan is asked to do: `ScanOptions`, plain data that pickles to worker processes
and cluster workers, checked once (`check`) so that bad options fail before any record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolparse._errors import ToolparseError
from toolparse._scan.fields import AUTO, FieldPath
from toolparse._stream import DEFAULT_MAX_CAPTURE

__all__ = ["ScanOptionError", "ScanOptions", "load_tools"]


class ScanOptionError(ToolparseError, ValueError):
    """A scan option that cannot work (a bad field path, an unreadable tools file)."""


@dataclass(frozen=True)
class ScanOptions:
    """How to read and judge each record. Every field is plain data (picklable)."""

    field: str | None = None
    """Dotted path to the answer text; None: the assistant message's content."""

    compare_recorded: str | None = None
    """Dotted path to the recorded tool calls, `auto` for the `tool_calls` beside the
    answer text, or None for no comparison."""

    id_field: str | None = "id"
    """Dotted path to the record's own id (a string or a whole number), or None."""

    dialect: str = "deepseek"
    """A bundled dialect name (ignored when `grammar` is given)."""

    grammar: str | None = None
    """A grammar file to load instead of a bundled dialect."""

    tools: tuple[Mapping[str, Any], ...] | None = None
    """OpenAI-style tool definitions: calls are checked against them (SPEC 6)."""

    max_capture: int = DEFAULT_MAX_CAPTURE
    """`max_capture` for each parse (SPEC G7)."""

    reasoning: str | None = "auto"
    """The reasoning format (SPEC 11): `auto`, a bundled format's name, or None."""

    in_reasoning: bool = False
    """Each answer starts inside a reasoning region (the prompt opened it)."""

    def __post_init__(self) -> None:
        if self.tools is not None and not isinstance(self.tools, tuple):
            object.__setattr__(self, "tools", tuple(self.tools))

    def paths(self) -> tuple[FieldPath | None, FieldPath | None, FieldPath | None]:
        """The field, recorded-calls and id paths, parsed (None where not given or auto)."""
        try:
            field = FieldPath.parse(self.field) if self.field is not None else None
            recorded = (FieldPath.parse(self.compare_recorded)
                        if self.compare_recorded not in (None, AUTO) else None)
            ident = FieldPath.parse(self.id_field) if self.id_field is not None else None
        except ValueError as error:
            raise ScanOptionError(str(error)) from None
        return field, recorded, ident


def load_tools(path: str | Path) -> tuple[Mapping[str, Any], ...]:
    """Tool definitions from a JSON file: a list of OpenAI-style definitions, or an
    object with such a list under `tools`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ScanOptionError(f"cannot read {path}: {error.strerror or error}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ScanOptionError(f"{path} is not JSON: {error}") from None
    except RecursionError:
        raise ScanOptionError(f"{path}: nested deeper than the JSON decoder reads") from None
    if isinstance(data, Mapping) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if not isinstance(data, list) or not all(isinstance(item, Mapping) for item in data):
        raise ScanOptionError(f"{path}: expected a list of tool definitions (or an object "
                              "with one under \"tools\")")
    return tuple(data)
