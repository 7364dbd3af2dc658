"""`auto`: free text, then any blocks (SPEC 12), for the llguidance writer.

The free text holds no block opener (so the model cannot start a block the grammar does
not then constrain), and the text and the first block's opening tag are one lexeme
(llguidance ends a lexeme where the next byte cannot continue it and never goes back).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolparse._dialect.records import RuleRecord, Symbol
from toolparse._export import regex

if TYPE_CHECKING:
    from toolparse._export.llguidance import _Context, _Writer

__all__ = ["after_prose"]

_BETWEEN = r"[ \t]*(?:(?:\r\n|\n|\r) {0,3})*"
"""`auto`: the whitespace written between two blocks, which the parser reads as text: no
line indented four columns (a tab, or four spaces), which after a blank line would be
Markdown's indented code and turn the next block into text (docs/markdown.md)."""


def after_prose(writer: _Writer, block: str) -> str:
    """`auto`: text that holds no block opener, then any blocks, `_BETWEEN` between
    them. The text and the first block's opening tag are one lexeme (see
    `_Writer.alternative`)."""
    grammar = writer.grammar
    words: set[str] = set()
    for spec in grammar.openers:
        words |= writer.heads(writer.terminals[spec.name], "opens a block")
    prose = regex.avoiding(words)[1:-1]
    firsts = []
    for index, (opener, tail) in enumerate(_openings(writer)):
        name = f"opened_{index}"
        writer.out[name] = f"{name}: /(?:{prose})(?:{opener})/ {tail}"
        firsts.append(name)
    if writer.ws:
        writer.out["between"] = f"between: /{_BETWEEN}/"
    more = f"(between {block})*" if writer.ws else f"{block}*"
    writer.out["prose"] = f"prose: /{prose}/"
    return f"prose | ({' | '.join(firsts)}) {more}"


def _openings(writer: _Writer) -> list[tuple[str, str]]:
    """Each way a block starts, as its first tag's pattern and the rest of the block:
    from `block`'s alternatives, and through `invoke`'s (one per tool) where a block
    starts with its call (Hermes, GLM)."""
    out = []
    for rule in writer.alternatives("block", ()):  # the forms `required` writes
        head, *rest = rule.expansion
        after = writer.alternative(rule._replace(expansion=tuple(rest)), ()) if rest else ""
        heads: list[tuple[Symbol, _Context, list[Symbol]]]
        if head.is_term:
            heads = [(head, (), [])]
        elif head.name == "invoke":
            heads = [(r.expansion[0], (tool,), list(r.expansion[1:]))
                     for tool in writer.tools
                     for r in writer.alternatives("invoke", (tool,))]
        else:
            raise writer.fail("a block that starts with neither a tag nor a call")
        for first, ctx, inner in heads:
            if not first.is_term:
                raise writer.fail("a call that does not start with a tag")
            term, tight = writer.settled(writer.terminals[first.name],
                                         inner[0] if inner else None)
            opener = writer.terminal(term, ctx, bool(ctx))[1:-1]
            tail = writer.alternative(RuleRecord("invoke", tuple(inner), False), ctx) \
                if inner else ""
            parts = [p for p in (tail, after) if p and p != '""']
            ws = writer.ws if writer.ws else ""
            glued = f" {ws} ".join(parts) if ws else " ".join(parts)
            out.append((opener, f"{ws} {glued}" if ws and glued and not tight
                        else glued or '""'))
    return out
