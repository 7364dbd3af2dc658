"""cohere: `<|START_ACTION|>` and a JSON array of {"tool_call_id", "tool_name", "parameters"}."""

from __future__ import annotations

from typing import Any

from writers.dialects.json_arrays import JsonCalls, json_calls_dialect


def _element(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tool_call_id": "0", "tool_name": name, "parameters": arguments}


json_calls_dialect("cohere", JsonCalls("<|START_ACTION|>", "<|END_ACTION|>", _element),
                   tag_names=r"<\|(START_ACTION|END_ACTION)\|>", reasoning="command")
