"""nemotron: `<TOOLCALL>` and a JSON array of {"name", "arguments"} objects."""

from __future__ import annotations

from writers.dialects.json_arrays import JsonCalls, json_calls_dialect, named_members

json_calls_dialect("nemotron", JsonCalls("<TOOLCALL>", "</TOOLCALL>",
                                         named_members("name", "arguments")),
                   tag_names=r"</?(TOOLCALL)>")
