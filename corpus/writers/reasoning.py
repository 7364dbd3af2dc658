"""Reasoning regions (SPEC 11, G3b)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from writers.cases import case
from writers.deepseek_calls import SHELL, WEATHER
from writers.dialects import DialectWriter, writers
from writers.dialects.kimi_k2 import kimi_calls
from writers.realistic_dialects import dialect_blocks
from writers.segments import Block, Call, Thinking, block, text

# ---- reasoning regions (SPEC 11, G3b) ----------------------------------------------------------
#
# Every dialect with a default reasoning format, and every bundled format: a call quoted
# while the model thinks is reasoning, never a call; the real call after the region is one.
# The markers are read from the grammar files, through toolparse, never spelled here.

def _markers(fmt: str) -> tuple[str, str]:
    import toolparse

    spelled = toolparse.ReasoningFormat.bundled(fmt)
    return spelled.spelled("OPEN"), spelled.spelled("CLOSE")


def _thinking(fmt: str, body: str, *, opened: bool = True, closed: bool = True) -> Thinking:
    opener, closer = _markers(fmt)
    return Thinking(body, (opener if opened else "") + body + (closer if closed else ""))


def _real_block(dialect: str, call: Call) -> Block:
    if dialect == "deepseek":
        return block(call)
    (real,) = [b for b in dialect_blocks(dialect, (call,)) if isinstance(b, Block)]
    return real


def _reasoning_dialects() -> list[tuple[str, Callable[..., Thinking],
                                         Callable[[Call], Block] | None]]:
    """(dialect, how a region of its default format is written, how it quotes a call)
    for each dialect that has a default format."""
    def region(w: DialectWriter) -> Callable[..., Thinking]:
        if w.thinking is not None:
            thinking = w.thinking
            return lambda body, opened=True, closed=True: thinking(body, opened, closed)
        return partial(_thinking, w.reasoning)
    return [("deepseek", partial(_thinking, "think"), None)] + [
        (w.name, region(w), w.quote) for w in writers() if w.reasoning is not None]


def reasoning() -> None:
    g = "reasoning"
    shell = Call("run_shell", (text("command", "rm -rf build"),))
    for d, thinking, quote in _reasoning_dialects():
        quoted = (quote or partial(_real_block, d))(shell).raw
        real = _real_block(d, WEATHER)
        case(g, f"{d}-quoted-call-then-real-call",
             "A call quoted while thinking is reasoning, never a call (SPEC G3b); the real "
             "call after the region is one",
             thinking(f"The format is {quoted}, but first I should ask.\n"),
             "\n\nI'll check the weather.\n", real, "\n", dialect=d)
        case(g, f"{d}-in-reasoning", "The prompt opened the region (in_reasoning): the "
             "stream starts inside it, with no opener",
             thinking(f"Plan: {quoted}\n", opened=False), "\nChecking.\n", real,
             "\n", dialect=d, in_reasoning=True)
        case(g, f"{d}-never-closed", "A region that never closes is reasoning to the end, "
             "not a failure: nothing in it runs",
             thinking(f"Maybe {quoted} or", closed=False), dialect=d)
    opener, closer = _markers("think")
    case(g, "mid-answer-marker", "A marker anywhere but the start is text: the call after "
         "it is a call", f"Wrap your thoughts in {opener} and {closer} tags.\n\n",
         block(WEATHER), "\n")
    case(g, "stray-closer", "A closer with no opener is text, unless the stream started "
         "inside a region", f"Done thinking{closer} here it is.\n", block(WEATHER), "\n")
    case(g, "fence-in-thinking", "A fence opened while thinking opens no code after the "
         "region: the answer is a fresh Markdown document",
         _thinking("think", "```python\nprint('unclosed')\n"), "\n", block(WEATHER), "\n")
    case(g, "nested-openers", "Nested openers: the first closer ends the region",
         _thinking("think", f"a {opener} b"), f" c{closer}\n", block(WEATHER), "\n")
    case(g, "whitespace-before-opener", "Whitespace before the opener is text, out at once, "
         "but not Markdown: four spaces before the region make no indented code after it",
         "    \n", _thinking("think", "x"), "\n", block(WEATHER), "\n")
    section = kimi_calls(("get_weather", '{"city": "Berlin"}', {"city": "Berlin"}))
    case(g, "kimi-section-inside-thinking", "Kimi-K2.5 opens its tool section before it "
         "closes its thinking: the section ends the region and is a call (SPEC G3b)",
         _thinking("think", "I will call it.", closed=False), section, "\n",
         dialect="kimi_k2")
    for fmt in ("seed_think", "mistral_think", "mm_think", "kimi_think", "command",
                "apertus", "gemma4"):
        quoted = block(SHELL).raw
        case(g, f"format-{fmt}", f"The {fmt} format's region: a quoted call is reasoning, "
             "the real call after it runs",
             _thinking(fmt, f"Let me not run {quoted} yet.\n"), "\n", block(WEATHER), "\n",
             reasoning=fmt)


