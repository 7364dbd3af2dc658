"""From the calls a block's markup holds to `ToolCall`s: typing, policy and repair.

- `values`: typing a parameter value, by SPEC 3 alone or by the tool's JSON Schema.
- `policy`: what `tools=`, `model=` and `repair=` asked for, and building the calls.
- `repair`: schema-guided argument repair (SPEC 6), one module per group of rules.
"""

from toolparse._calls.policy import CallPolicy, build_calls, make_policy

__all__ = ["CallPolicy", "build_calls", "make_policy"]
