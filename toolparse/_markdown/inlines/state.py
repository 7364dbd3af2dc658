"""The inline state of the open paragraph or heading, in one place.

The inline phase is CommonMark's left-to-right inline scan turned inside out: the
text arrives in pieces, so every construct that may still turn out either way is kept
as a hypothesis until a later character decides it (theory in `runner.py`). This
module holds that state and nothing else; the rules that change it are in this
package, one concern per file:

    code_span.py   backtick runs, the stack of stuck openers, backslash escapes
    raw_html.py    raw inline HTML and autolinks (candidates)
    links.py       brackets, inline links and images, references, definitions
    tickets.py     the streaming tickets of SPEC 4.3

*Views.* While candidates (a `<` that may be a tag, a `](` that may be a link's tail, a
definition) are alive, the state splits into views: view j is "candidates 0..j-1 fail,
candidate j completes" (its text is consumed by candidate j), and the last view is
"every candidate fails". Views share the opener stack by prefix (`bases[j]` is the
stack height when candidate j started) and the bracket stack by persistent nodes
(`snaps[j]` is the bracket state when candidate j started).

Bounds: the opener stack holds runs of distinct lengths (O(sqrt(paragraph))); at most
`MAX_CANDIDATES` candidates; the bracket stack at most `MAX_BRACKETS` deep (a deeper
`[` is literal text, as if unmatched); label text is kept for the last
`LABEL_WINDOW` characters only (a longer label is no label).
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Callable
from typing import Any, Final

from toolparse._markdown.copies import deep_copy, shallow_copy
from toolparse._syntax.dfa import DFA, Union

__all__ = ["InlineState", "Definitions", "Opener", "BranchTicket", "Bracket", "Candidate",
           "ALIVE", "COMPLETE", "DEAD", "CODE_MARK", "MAX_CANDIDATES", "MAX_BRACKETS",
           "LABEL_WINDOW", "DEFS_NO", "DEFS_YES", "Resolution", "skip_states"]

Resolution = tuple[int, bool]

# How many candidates may be alive at once (each inside the text of the previous). A
# `<` or `](` beyond that is read as literal text.
MAX_CANDIDATES: Final = 4
# How deep link brackets nest. A `[` beyond that is literal (no link can open there).
MAX_BRACKETS: Final = 64
# A link label is at most 999 characters between its brackets (CommonMark 4.7).
LABEL_WINDOW: Final = 1001

ALIVE, COMPLETE, DEAD = 0, 1, 2
CODE_MARK: Final = "code"  # a branch ticket's verdict at one level: it is in a span there

# The definitions phase of a paragraph (CommonMark 4.7: definitions only at its start).
DEFS_NO: Final = 0    # inline content has begun (or a heading): no definition can follow
DEFS_YES: Final = 1   # only complete definitions so far: a line may begin another


class Definitions:
    """The normalized labels of the link reference definitions seen so far (a set that
    only grows: `in`, `len`, `add`).

    A copy (the tracker's fork) shares the labels of its original and keeps only those
    it adds itself. Copying them all would make each fork cost time in the number of
    definitions seen, and a text of many definitions and then many waiting blocks
    quadratic time (SPEC G6). Sharing is sound because the original does not change
    while its copy is read: the engine holds the real tracker until the fork has
    answered, and then drops the fork (`_stream/undecided.py`).
    """

    __slots__ = ("base", "own", "count")

    def __init__(self, base: Definitions | None = None) -> None:
        self.base = base             # the original's labels (None: this is the original)
        self.own: set[str] = set()   # the labels added here
        self.count = len(base) if base is not None else 0

    def __contains__(self, label: str) -> bool:
        if label in self.own:
            return True
        return self.base is not None and label in self.base

    def __len__(self) -> int:
        return self.count

    def add(self, label: str) -> None:
        if label not in self:
            self.own.add(label)
            self.count += 1

    def __deepcopy__(self, memo: dict[int, Any]) -> Definitions:
        twin = Definitions(self)
        memo[id(self)] = twin
        return twin


class Bracket:
    """An open `[` or `![` (a persistent stack node: views share them)."""

    __slots__ = ("serial", "image", "parent", "depth", "start", "ref_for", "ref_text")

    def __init__(self, serial: int, image: bool, parent: Bracket | None, start: int,
                 ref_for: Bracket | None, ref_text: str | None) -> None:
        self.serial = serial    # order of creation: a link deactivates the older ones
        self.image = image
        self.parent = parent
        self.depth: int = parent.depth + 1 if parent is not None else 1
        self.start = start      # inline offset just after the `[`
        self.ref_for = ref_for  # `[text][label]`: this is the label of `text` ...
        self.ref_text = ref_text  # ... whose raw text this is (None: too long)

    def __deepcopy__(self, memo: dict[int, Any]) -> Bracket:
        return self  # never changed once made: copies share it, as views do


BracketState = tuple["Bracket | None", int]  # (top, serials below this are inactive)


class Opener:
    """A stuck backtick run: an opener not closed so far."""

    __slots__ = ("length", "index", "tickets", "alive", "brackets")

    def __init__(self, length: int, index: int, brackets: BracketState) -> None:
        self.length = length
        self.index = index
        self.tickets: list[int] = []
        self.alive = True
        self.brackets = brackets  # the bracket state before it (restored if it closes)

    def __deepcopy__(self, memo: dict[int, Any]) -> Opener:
        return deep_copy(self, Opener(self.length, self.index, self.brackets), memo)


class BranchTicket:
    """A ticket issued while candidates were alive: one attachment per view.

    `attach[j]` is the opener the ticket follows in view j (None: no opener, text for
    sure there), or `CODE_MARK`. Views past the end of the list share the last entry
    (they were created after the ticket).
    """

    __slots__ = ("ticket", "attach")

    def __init__(self, ticket: int, attach: list[Any]) -> None:
        self.ticket = ticket
        self.attach = attach

    def __deepcopy__(self, memo: dict[int, Any]) -> BranchTicket:
        return deep_copy(self, BranchTicket(self.ticket, self.attach), memo)


@functools.cache
def _exit_search(chars: str) -> Callable[[str, int, int], re.Match[str] | None]:
    """The search for the next of `chars` (a looping state's exits and the stops)."""
    return re.compile("[" + re.escape(chars) + "]").search


def skip_states(auto: DFA | Union, state: int, text: str, i: int, n: int, stops: str
                ) -> tuple[int, int]:
    """Step `auto` from `state` over text[i:n] while the characters have no inline
    meaning (none of `stops`) and it neither dies nor completes: (where that stops, the
    state there)."""
    table, default, final, loops = auto.table, auto.default, auto.final, auto.loops
    while i < n:
        row = table[state]
        if row is None:
            row = auto.row(state)
        exits = loops[state]
        if exits is not None:
            # A state every other character keeps (a quoted value): jump to the next
            # character that leaves it or has an inline meaning.
            m = _exit_search(exits + stops)(text, i, n)
            if m is None:
                return n, state
            i = m.start()
        ch = text[i]
        if ch in stops:
            break
        moved = row.get(ch, default[state])
        if moved < 0 or final[moved]:
            break
        state = moved
        i += 1
    return i, state


class Candidate:
    """Text that may still turn out to be one inline construct, stepped through its
    automata. Subclasses say what completing or failing changes (`links.py`)."""

    __slots__ = ("dfas", "live", "states", "which")

    def __init__(self, dfas: tuple[DFA, ...], states: list[int], live: int) -> None:
        self.dfas = dfas
        self.states = states
        self.live = live  # how many automata are still alive
        self.which = -1   # the automaton that completed

    def step(self, ch: str) -> int:
        alive = False
        states = self.states
        for k, dfa in enumerate(self.dfas):
            s = states[k]
            if s < 0:
                continue
            s = dfa.table[s].get(ch, dfa.default[s])
            states[k] = s
            if s >= 0:
                if dfa.final[s]:
                    self.which = k
                    return COMPLETE
                alive = True
            else:
                self.live -= 1
        return ALIVE if alive else DEAD

    def skip(self, text: str, i: int, n: int, stops: str) -> int:
        """With one automaton left alive, step it over text[i:n] while the characters
        have no inline meaning (none of `stops`) and leave it alive and incomplete,
        which is all `step` would do with them; return where that stops. (With more
        alive, nothing is skipped: the characters go to `step`.)"""
        states = self.states
        if self.live > 1:
            return i
        k = 0
        while states[k] < 0:
            k += 1
        i, states[k] = skip_states(self.dfas[k], states[k], text, i, n, stops)
        return i

    def skipped(self, before: list[int], text: str) -> None:
        """Set the automata to where `before` (their states) goes over `text`, which
        neither completes nor kills the candidate (the end of another's skip)."""
        states = [dfa.run(state, text) if state >= 0 else -1
                  for dfa, state in zip(self.dfas, before)]
        self.states[:] = states
        self.live = sum(state >= 0 for state in states)

    def blank(self) -> Candidate:
        """A fresh candidate of this class, for a copy to fill in (`copies.py`)."""
        return Candidate(self.dfas, [], 0)

    def clone(self) -> Candidate:
        """A copy for another view: it steps on its own, sharing what never changes."""
        return shallow_copy(self, self.blank())

    def __deepcopy__(self, memo: dict[int, Any]) -> Candidate:
        return deep_copy(self, self.blank(), memo)

    def completed(self, s: InlineState, level: int) -> None:
        """Candidate `level` completed; its view is now the last one."""

    def failed(self, s: InlineState, level: int) -> None:
        """Candidate `level` failed; the views after it move up one."""


class InlineState:
    """Everything the inline phase of one paragraph (or heading) remembers."""

    __slots__ = (
        "out", "definitions", "stack", "len_at", "cands", "bases", "snaps", "branch",
        "run", "run_esc", "esc", "head", "inactive", "serial", "closed",
        "offset", "recent", "recent_len", "defs", "title_next", "line_fresh", "last",
        "esc_end", "closed_text", "assumed", "fork_label", "tainted",
    )

    def __init__(self, out: list[Resolution], definitions: Definitions) -> None:
        self.out = out                  # resolutions for the tracker (shared list)
        self.definitions = definitions  # normalized labels of the definitions seen
        # code spans
        self.stack: list[Opener] = []   # stuck openers, outermost first
        self.len_at: dict[int, int] = {}  # opener length -> its index in `stack`
        self.run = 0                    # length of a backtick run still arriving
        self.run_esc = False            # ... whose first backtick was escaped
        self.esc = False                # a backslash was the last character
        # candidates and views
        self.cands: list[Candidate] = []
        self.bases: list[int] = []      # stack height when each candidate started
        self.snaps: list[BracketState] = []  # bracket state when each started
        self.branch: list[BranchTicket] = []
        # links (the last view's brackets)
        self.head: Bracket | None = None  # the innermost open bracket
        self.inactive = 0               # brackets with a serial below this are inactive
        self.serial = 0                 # the next bracket's serial
        self.closed: Bracket | None = None  # a `]` just closed this; next char decides
        self.offset = 0                 # inline characters so far in this paragraph
        self.recent: deque[tuple[int, str]] = deque()  # (offset, text): the last characters
        self.recent_len = 0
        self.defs = DEFS_NO             # the definitions phase (DEFS_*)
        self.title_next = False         # a definition's title may start this line
        self.line_fresh = False         # the next character starts a paragraph line
        self.last = ""                  # the last inline character (for `![`)
        self.esc_end = -1               # inline offset just after the last escape pair
        self.closed_text: str | None = None  # the raw text inside `closed`
        # worlds (a label that a definition later in the document may still define)
        self.assumed: dict[str, bool] = {}  # label -> assumed defined, in this world
        self.fork_label: str | None = None  # stopped: this label must be assumed first
        self.tainted = False            # past the bound on worlds: verdicts are code

    def brackets(self) -> BracketState:
        return self.head, self.inactive

    def clone(self, out: list[Resolution]) -> InlineState:
        """A copy that can go its own way (another world), resolving into `out`."""
        twin = InlineState(out, self.definitions)
        openers = {id(o): Opener(o.length, o.index, o.brackets) for o in self.stack}
        for o in self.stack:
            copy = openers[id(o)]
            copy.tickets = list(o.tickets)
        twin.stack = [openers[id(o)] for o in self.stack]
        twin.len_at = dict(self.len_at)
        twin.cands = [c.clone() for c in self.cands]
        twin.bases = list(self.bases)
        twin.snaps = list(self.snaps)
        twin.branch = [BranchTicket(b.ticket, [openers.get(id(a), a) if isinstance(a, Opener)
                                               else a for a in b.attach])
                       for b in self.branch]
        for name in ("run", "run_esc", "esc", "head", "inactive", "serial", "closed",
                     "offset", "recent_len", "defs", "title_next", "line_fresh", "last",
                     "esc_end", "closed_text", "tainted"):
            setattr(twin, name, getattr(self, name))
        twin.recent = deque(self.recent)
        twin.assumed = dict(self.assumed)
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> InlineState:
        return deep_copy(self, InlineState(self.out, self.definitions), memo)

    def reset(self) -> None:
        """The paragraph ended: forget everything but the shared lists."""
        self.stack = []
        self.len_at = {}
        self.cands = []
        self.bases = []
        self.snaps = []
        self.branch = []
        self.run = 0
        self.run_esc = False
        self.esc = False
        self.head = None
        self.inactive = 0
        self.closed = None
        self.offset = 0
        self.recent = deque()
        self.recent_len = 0
        self.defs = DEFS_NO
        self.title_next = False
        self.line_fresh = False
        self.serial = 0
        self.last = ""
        self.esc_end = -1
        self.closed_text = None
        self.assumed = {}
        self.fork_label = None
        self.tainted = False
