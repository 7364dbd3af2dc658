"""Inside a value: whether more text can only stay in the run a block's lexing ended in.

When a chunk's lexing ends inside a string value (`[^"\\\\<]+`, a loop token: a piece of
the value, `table.py`), the parser stays in that state for as long as the text that
follows is read as the same state's loop tokens: more of the run, escapes, a `<`. None
of those makes an event or ends the block, so a gate character among them (a `]` or
`}` of code in a JSON string) ends nothing, and the engine need not lex the text kept
so far to learn that (`Keeping.quiet`, `keeping.py`).

`Inside` says, for one parser state and the run it ended in, whether a text that
follows stays inside: the text holds none of the run's stop characters (it is all more
of the run), or it is a row of the state's loop tokens (`StateLexer.loop_run`, read
as the lexer's alternation reads them one by one), perhaps ending with one
still arriving. It is read off the grammar's terminals, for a state where that reading
is sound:

* every candidate the alternation tries before the run begins only with one of the
  run's stop characters, so that no token but the run can begin in the middle of the
  run's text (where a stop character is, the run has ended and any token may begin);
* every candidate reads a bounded width (with its lookahead's reach: the state
  lexer's `margin`): a token that begins farther than that from the end of the text is
  read as the whole text would read it.

A text is *settled* once no stop character is nearer its end than the tokens that may
begin with it read (`reaches`): it then ends inside the run, and the next text is read
from there on its own. Until then it is kept (`pending`) and read again with the next
one, at most `MAX_PENDING` characters; beyond that, or when the row stops before the
end at something that is not a loop token still arriving, the text may leave the
value, and the keeping goes back to its gates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from toolparse._dialect.lexer import (
    MAX_ATOM,
    NEED_MORE,
    StateLexer,
    TerminalSpec,
    row_safe,
    settle_state,
    token_reach,
)

__all__ = ["LEFT", "MAX_PENDING", "Inside", "inside_of"]

MAX_ARRIVING: Final = 1024
"""The most texts `Inside.arriving` keeps."""

MAX_PENDING: Final = 256
"""The most text kept unsettled (read again with each next chunk: the bound keeps that
linear)."""

LEFT: Final = None
"""`Inside.read`: the text may leave the value."""


@dataclass(frozen=True, slots=True)
class Inside:
    """What keeps the lexer in one state's run (module docstring)."""

    stops: frozenset[str]
    """The run's stop characters: a text with none of them is all more of the run."""
    row: re.Pattern[str]
    """The state's loop tokens in a row (`StateLexer.loop_run`)."""
    reaches: tuple[tuple[str, int], ...]
    """Each stop character, and the most a token that begins with it reads (`read`: a
    text is settled when no stop character is that near its end)."""
    margin: int
    lexer: StateLexer
    members: frozenset[str]
    """The loop tokens that may stand in the row (a token still arriving at the end of
    an unsettled text must be one of them)."""
    arriving: dict[str, bool] = field(default_factory=dict, compare=False)
    """The texts where a row stopped (`\\`, `\\u00`) found to be a loop token still
    arriving, or not: they repeat."""

    def read(self, text: str) -> str | None:
        """After a settled point, `text` (the pending text and a chunk) stays inside:
        "" when it is settled, `text` itself when it is not yet (kept, to be read again
        with the next chunk), or `LEFT` when it may leave the value."""
        end = len(text)
        found = self.row.match(text)
        at = 0 if found is None else found.end()
        if at == end:
            for stop, reach in self.reaches:
                if text.find(stop, end - reach if end > reach else 0) >= 0:
                    return text if end <= MAX_PENDING else LEFT
            return ""
        if end - at > self.margin or end > MAX_PENDING:
            return LEFT
        # The row stops before the end: only a loop token still arriving may be there.
        arriving = self.arriving.get(text[at:])
        if arriving is None:
            arriving = self._arriving(text[at:])
        return text if arriving else LEFT

    def _arriving(self, rest: str) -> bool:
        """Whether `rest` (at most `margin` characters, where the row stopped) is a loop
        token still arriving, and nothing else; kept for the next time (`arriving`)."""
        lexer = self.lexer
        spec, token_end, _ = settle_state(lexer, lexer.master.match(rest), rest, 0, len(rest),
                                          False)
        found = token_end == NEED_MORE and spec is not None and spec.name in self.members
        if len(self.arriving) < MAX_ARRIVING:
            self.arriving[rest] = found
        return found


def inside_of(lexer: StateLexer, run: TerminalSpec, loops: frozenset[str]) -> Inside | None:
    """The `Inside` of `run` (a loop token of the state, with stop characters) in the
    state whose lexer is `lexer` and loop tokens `loops`; None where the reading is not
    sound (module docstring) or the state has no row."""
    stops = run.stops
    row = lexer.loop_run
    if not stops or row is None or run not in lexer.candidates:
        return None
    members = frozenset(spec.name for spec in lexer.candidates
                        if spec.name in loops and row_safe(spec))
    if run.name not in members:
        return None
    if lexer.margin >= MAX_ATOM:
        return None   # a candidate that reads unbounded text
    for spec in lexer.candidates:
        if spec is run:
            break
        if spec.starts is None or not spec.starts <= frozenset(stops):
            return None   # a token that could begin in the run's text
    reaches = tuple((stop, max((token_reach(spec) for spec in lexer.candidates if spec is not run
                                and (spec.starts is None or stop in spec.starts)), default=1))
                    for stop in stops)
    return Inside(frozenset(stops), row, reaches, lexer.margin, lexer, members)
