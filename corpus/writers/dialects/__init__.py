"""One module per dialect (SPEC 5.2, 5.3): how it writes calls, and its own group of cases.

A dialect's module calls `register()` with a `DialectWriter`. The groups that every
dialect takes part in (`realistic`, the answers of its scenarios in its markup, and
`reasoning`, a call quoted while thinking) read the writers from here, so a new dialect
is one new module in this folder: nothing else lists dialects by hand.

A writer's blocks are written next to the calls they mean: a value is meant as the
dialect reads it without tools, a string for typing=schema (a number is its text) and
the JSON's value for typing=json.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from writers.segments import Block, Call, Segment, Thinking

Named = Sequence[tuple[str, dict[str, Any]]]
"""Calls as (name, arguments as meant without tools)."""


@dataclass(frozen=True)
class DialectWriter:
    name: str
    blocks: Callable[[Named, str], list[Block]]
    """The calls written in the dialect, one block or one per call, its values meant as
    read with the given line ends (the caller turns the blocks' LF into them)."""
    define: Callable[[], None]
    """Defines the dialect's own group of cases."""
    mentions: tuple[str, str]
    """The opening tag a model names in prose, and a call's tag as it shows it in inline
    code (`{name}` is the call's name)."""
    tag_names: str = ""
    """A regular expression whose group 1 is a tag name, for tags the CommonMark check's
    built-in patterns do not know (commonmark.py): each Code segment must hold one."""
    reasoning: str | None = "think"
    """The dialect's default reasoning format (SPEC 11), or None for none."""
    quote: Callable[[Call], Block] | None = None
    """How a model quotes a call while thinking, when not as the whole real block."""
    thinking: Callable[[str, bool, bool], Thinking] | None = None
    """A region of the reasoning format (body, opened, closed), when its markers are not
    one literal each (harmony's headers)."""
    realistic: bool = True
    """Whether the realistic answers (prose, an example in code, the call) are written in it."""
    answer: Callable[[list[Segment | str]], list[Segment | str]] | None = None
    """How an answer's text and blocks are sent, when not as they are: a message protocol
    (harmony) puts the text in messages."""
    rank: int | None = None
    """Which realistic scenarios the dialect gets; by default from its name."""
    mention_fails: bool = True
    """Whether the opening tag named in prose opens a block that fails (a prose mention,
    SPEC 3.2), or is text because it is not a whole block head (Mistral's `[TOOL_CALLS]`)."""


WRITERS: dict[str, DialectWriter] = {}


def register(writer: DialectWriter) -> None:
    assert writer.name not in WRITERS, f"two writers for {writer.name}"
    WRITERS[writer.name] = writer


def writers() -> list[DialectWriter]:
    """Every dialect's writer, its module imported once, in a fixed order."""
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if module != "common":
            importlib.import_module(f"{__name__}.{module}")   # (once: modules are cached)
    return sorted(WRITERS.values(), key=lambda w: (w.rank is None, w.rank or 0, w.name))


def rank(writer: DialectWriter) -> int:
    """The writer's place for choosing scenarios: stable whatever other dialects exist."""
    return writer.rank if writer.rank is not None else zlib.crc32(writer.name.encode())


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def schema_args(named: Named, nl: str, *,
                edges: bool) -> list[tuple[str, dict[str, tuple[str, str]]]]:
    """Arguments for a typing=schema dialect: each value is its text, as (written with
    LF, meant with `nl` line ends). With `edges` (value_edges=trim) a multi-line value
    sits on lines of its own: the layout's newlines go, the value's stay."""
    def arg(value: Any) -> tuple[str, str]:
        text = as_text(value)
        return ("\n" + text + "\n" if edges and "\n" in text else text), text.replace("\n", nl)
    return [(n, {k: arg(v) for k, v in a.items()}) for n, a in named]
