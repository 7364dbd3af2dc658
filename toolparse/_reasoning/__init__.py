"""Reasoning regions (SPEC 11): a model's thinking, read apart from its answer.

- `formats`: the reasoning formats, read from `grammars/reasoning/*.lark` (markers only;
  Python spells none); `reasoning_formats()` lists the bundled ones.
- `region`: where a region opens and ends in a text still arriving.

The stream engine runs a region as a mode of its own (`_stream/reasoning.py`): no call
comes from inside one (SPEC G3b), and the answer after it is a fresh Markdown document.
"""

from toolparse._reasoning.formats import (
    ReasoningFormat, load_format, reasoning_formats, resolve_format)
from toolparse._reasoning.region import NO_REGION, WAIT, Markers, Regions

__all__ = ["NO_REGION", "WAIT", "Markers", "ReasoningFormat", "Regions", "load_format",
           "reasoning_formats", "resolve_format"]
