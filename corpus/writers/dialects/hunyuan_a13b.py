"""hunyuan_a13b: `<tool_calls>` and a JSON array of {"name", "arguments"} objects."""

from __future__ import annotations

from writers.cases import case
from writers.dialects.json_arrays import JsonCalls, json_calls_dialect, named_members

CALLS = JsonCalls("<tool_calls>", "</tool_calls>", named_members("name", "arguments"))


def _own() -> None:
    case("hunyuan_a13b", "vllm-nested-and-types", "Nested objects and every JSON type, as "
         "vLLM's hunyuan_a13b parser test writes them, then text after the block (kept: G4)",
         CALLS.block([("get_weather", {"city": "San Francisco", "metric": "celsius"}),
                      ("register_user", {"name": "John Doe", "age": 37, "address": {
                          "city": "San Francisco", "state": "CA"}, "role": None,
                          "passed_test": True, "aliases": ["John", "Johnny"]})]),
         "\nThank you!\n", dialect="hunyuan_a13b")


json_calls_dialect("hunyuan_a13b", CALLS, tag_names=r"</?(tool_calls)>", own=_own)
