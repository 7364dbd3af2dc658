"""Schema-guided argument repair (SPEC section 6).

PLACEHOLDER: the repair work replaces this module; the names are fixed by SPEC section 2.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RepairConfig", "RepairOutcome", "repair_tool_call"]


class RepairConfig:
    """Placeholder."""


class RepairOutcome:
    """Placeholder."""

    reason: str | None = None
    hint: str | None = None
    text: str | None = None


def repair_tool_call(name: str, arguments: Any, schema: Any, *, model: str | None = None,
                     config: RepairConfig | None = None) -> RepairOutcome:
    raise NotImplementedError("repair_tool_call is not built yet")
