"""`Dialect`: a tool-call grammar the parser reads, bundled or a user's file.

A dialect is one grammar file (grammars/dialects/<name>.lark), or, for `dialect="auto"`, every
bundled one at once. What the engine compiles from the files lives in `_grammars`
(`grammar.Grammar`), not in the public surface.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

from toolparse._arguments import require, require_path
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.openers import BlockStarts
from toolparse._reasoning.formats import MAX_MARKER, Marker
from toolparse._syntax.regexp import widths

__all__ = ["Dialect"]


class Dialect:
    """A tool-call markup the parser reads: one grammar file, or several (`auto`).

    Get one with `Dialect.bundled(name)` (or pass the name as `dialect=`), or load an
    edited or new grammar with `Dialect.from_file(path)`.

    Attributes:
        name: The dialect's name: the grammar file's stem unless given, or `"auto"`.
        path: The grammar file (None for `auto`, which reads all bundled files).
        typing: How argument values are typed: `attribute`, `schema` or `json` (the
            grammar header's `typing=`; `mixed` for `auto`).
        reasoning: The reasoning format `reasoning="auto"` reads (SPEC 11): the grammar
            header's `reasoning=` (None: no regions); for `auto`, `"auto"`: every
            bundled format's opener at the start of the stream.
        description: One line saying what the dialect accepts (the grammar file's
            first comment).
    """

    __slots__ = ("name", "path", "typing", "description", "reasoning", "_grammars", "_starts",
                 "_anchors")

    def __init__(self, name: str, path: Path | None, grammars: tuple[Grammar, ...],
                 description: str = "") -> None:
        self.name = name
        self.path = path
        self._grammars = grammars
        typings = {grammar.header.typing.name for grammar in grammars}
        self.typing = typings.pop() if len(typings) == 1 else "mixed"
        self.description = description or (grammars[0].header.description if grammars else "")
        defaults = {grammar.header.reasoning for grammar in grammars}
        self.reasoning = defaults.pop() if len(grammars) == 1 and defaults else (
            "auto" if len(grammars) > 1 else None)
        self._starts = _block_starts(grammars)
        """What SCAN searches for (compiled when first used)."""
        self._anchors = _anchored_starts(grammars)
        """The openers that count only at the start of the answer (SPEC 5.3 b), or None."""

    @classmethod
    def from_file(cls, path: str | Path, *, name: str | None = None) -> Dialect:
        """Load a dialect from a grammar file (a copy of a bundled one, edited, say).

        Args:
            path: The `.lark` file. It may `%import` the bundled grammars.
            name: The dialect's name; the file's stem by default.

        Raises:
            GrammarError: The file cannot be read, does not load, or cannot yield a
                call; the message names the file, line and rule.
            ConfigTypeError: `path` is not a str or path, or `name` not a str.
        """
        from toolparse._dialect.loader import load_file  # the loader builds Dialects

        file = require_path(path, "Dialect.from_file: path")
        if name is not None:
            require(name, str, "Dialect.from_file: name", "a str")
        return load_file(file, name)

    @classmethod
    def bundled(cls, name: str) -> Dialect:
        """A bundled dialect by name (`deepseek`, `qwen3_coder`, ..., or `auto`).

        Raises:
            UnknownDialectError: No such dialect; the message lists the bundled names
                and a near miss, if any (`"DeepSeek"`: did you mean `"deepseek"`?).
                `DialectTypeError`, one of them, when `name` is not a str.
        """
        from toolparse._dialect.loader import load_bundled

        return load_bundled(name)

    # ---- for the engine --------------------------------------------------------------

    def _reasoning_enders(self) -> tuple[Marker, ...]:
        """The block-opening terminals that end a reasoning region (SPEC G3b: the
        grammar header's `ends_reasoning=`), as markers the region searches for."""
        enders: list[Marker] = []
        for grammar in self._grammars:
            for name in grammar.header.ends_reasoning:
                spec = grammar.terminals[name]
                dfa = spec.dfa
                if dfa is not None:
                    span = widths(spec.pattern)
                    longest = span[1] if span is not None and span[1] is not None else MAX_MARKER
                    enders.append(Marker(name, spec.pattern, dfa, longest))
        return tuple(enders)

    # ---- for the diagnostics beside the engine (toolparse.scan, the display) ------------

    def _block_starts(self, text: str, start: int = 0, end: int | None = None
                      ) -> list[re.Match[str]]:
        """Every block-start tag of the dialect's grammars in text[start:end], in order,
        one per place (for diagnostics; the engine finds them as the text streams)."""
        stop = len(text) if end is None else end
        return list(self._starts.search.finditer(text, start, stop))

    def _has_block_start(self, text: str) -> bool:
        """Whether any block-start tag of the dialect occurs in `text` at all."""
        return self._starts.search.search(text) is not None

    def _call_tag_name(self, tag: str) -> str | None:
        """The tool a call's opening tag names (by its name group or attribute), or None
        when `tag` opens no call of the dialect or names nothing."""
        from toolparse._dialect.build import BlockRejected
        from toolparse._dialect.table import Tag

        for grammar in self._grammars:
            for term in sorted(grammar.roles.call_starts):
                if grammar.terminals[term].full.fullmatch(tag):
                    try:
                        return grammar.build.tag_name(Tag(term, tag, 0))
                    except BlockRejected:
                        return None
        return None

    def __repr__(self) -> str:
        return f"Dialect({self.name!r}, path={str(self.path) if self.path else None!r})"


def _block_starts(grammars: tuple[Grammar, ...]) -> BlockStarts:
    """The one grammar's openers, or every grammar's at once (`auto`), each terminal
    named after its grammar so that none shadows another."""
    if len(grammars) == 1:
        return grammars[0].block_starts
    return _named_starts(grammars, lambda grammar: grammar.block_starts)


def _anchored_starts(grammars: tuple[Grammar, ...]) -> BlockStarts | None:
    """The anchored openers (`anchored=`) of the one grammar or of every grammar, as
    `_block_starts` names them; None when there are none."""
    if len(grammars) == 1:
        return grammars[0].anchored_starts
    if all(grammar.anchored_starts is None for grammar in grammars):
        return None
    return _named_starts(grammars, lambda grammar: grammar.anchored_starts)


def _named_starts(grammars: tuple[Grammar, ...],
                  starts: Callable[[Grammar], BlockStarts | None]) -> BlockStarts:
    specs = [dataclasses.replace(spec, name=f"{grammar.name}.{spec.name}")
             for grammar in grammars for found in (starts(grammar),) if found is not None
             for spec in found.openers]
    return BlockStarts(tuple(sorted(specs, key=lambda spec: spec.sort_key)))
