"""apertus: `<|tools_prefix|>` and a JSON array of {NAME: arguments} objects."""

from __future__ import annotations

from writers.dialects.json_arrays import JsonCalls, json_calls_dialect, keyed

json_calls_dialect("apertus", JsonCalls("<|tools_prefix|>", "<|tools_suffix|>", keyed),
                   tag_names=r"<\|(tools_prefix|tools_suffix)\|>", reasoning="apertus")
