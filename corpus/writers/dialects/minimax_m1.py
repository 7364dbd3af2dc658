"""minimax_m1: `<tool_calls>` and one {"name", "arguments"} object per line."""

from __future__ import annotations

from writers.cases import case
from writers.dialects.json_arrays import JsonCalls, json_calls_dialect, named_members

CALLS = JsonCalls("<tool_calls>", "</tool_calls>", named_members("name", "arguments"), lines=True)


def _own() -> None:
    case("minimax_m1", "vllm-two-lines", "Two calls, one per line, nested arguments, as vLLM's "
         "minimax parser test writes them",
         "Let me help.\n",
         CALLS.block([("get_current_weather", {"city": "Seattle", "state": "WA", "unit": "celsius"}),
                      ("calculate_area", {"shape": "rectangle",
                                          "dimensions": {"width": 10, "height": 5}})]),
         "\n", dialect="minimax_m1")


json_calls_dialect("minimax_m1", CALLS, tag_names=r"</?(tool_calls)>", own=_own)
