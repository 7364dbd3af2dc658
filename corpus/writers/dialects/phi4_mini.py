"""phi4_mini: `functools[{"name": ..., "arguments": {...}}, ...]`; nothing closes it
(SPEC 5.3 a, e)."""

from __future__ import annotations

from writers.cases import case
from writers.dialects.json_heads import element, json_head_dialect, list_block

HEAD = "functools["


def _own(g: str) -> None:
    case(g, "module-in-prose", "Python's functools module named in prose, and in code, is "
         "text: only `functools[` opens a block",
         "Use functools.partial here, or `functools.reduce`; functools is in the standard "
         "library.\n", dialect=g)
    case(g, "parameters-any-order", "A call may write its arguments before its name, or as "
         "\"parameters\"", list_block(HEAD, [("get_time", {"tz": "UTC"}), ("ping", {})], [
             '{"arguments": {"tz": "UTC"}, "name": "get_time"}',
             '{"name": "ping", "parameters": {}}']), dialect=g)
    case(g, "laid-out", "The array laid out over lines, as the model writes several calls",
         "Let me check.\n", list_block(HEAD, [("get_weather", {"city": "Tokyo"}),
                                             ("get_time", {"timezone": "Asia/Tokyo"})], [
             "\n  " + element("get_weather", {"city": "Tokyo"}),
             "\n  " + element("get_time", {"timezone": "Asia/Tokyo"}) + "\n"]), dialect=g)


json_head_dialect("phi4_mini", HEAD, word="functools", tag_names=r"(functools)", own=_own)
