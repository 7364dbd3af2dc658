"""From the calls a block's markup holds to `ToolCall`s: typing, policy and repair.

- `values`: typing a parameter value, by SPEC 3 alone or by the tool's JSON Schema.
- `patterns`: schema patterns matched by RE2, in linear time (SPEC G10).
- `policy`: what `tools=`, `model=` and `repair=` asked for, and building the calls.
- `repair`: schema-guided argument repair (SPEC 6), one module per group of rules, and
  the safety checks of tool schemas (SPEC 6.1).
"""

from toolparse._calls.policy import (
    CallPolicy,
    RepairOption,
    SupportsModelDump,
    ToolDefinition,
    ToolDefinitions,
    build_call,
    build_calls,
    make_policy,
)

__all__ = ["CallPolicy", "RepairOption", "SupportsModelDump", "ToolDefinition",
           "ToolDefinitions", "build_call", "build_calls", "make_policy"]
