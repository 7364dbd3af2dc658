"""Markdown code context for the stream engine (SPEC section 4).

The engine feeds every character that is not inside a recognised tool block to a
`MarkdownTracker`, in order, in pieces of any size (one character to megabytes). When
it meets a tag that could start a tool block, it asks `context()`: is the next
character inside Markdown code?

- `Context.CODE`: inside a fenced code block (the opening line included), an indented
  code block, or a code span whose closing run has already been seen. The tag is text;
  the engine feeds it to the tracker like any other text.
- `Context.TEXT`: outside code, for certain. The engine captures the block. If the
  block parses, it calls `opaque(raw)`; if it fails, it feeds the released text.
- `Context.PENDING`: undecided (SPEC 4.3): an unmatched backtick run earlier in the
  same paragraph, or a line that may still turn out to be a fence opener. `context()`
  then returns a ticket number. The engine captures the block and holds it; a later
  `feed()`, `opaque()` or `finish()` returns `(ticket, in_code)` once the tracker knows.

Tickets are numbered from 0 up in the order `context()` issued them; a resolution may
come for a later ticket before an earlier one. A ticket whose block failed is simply
ignored by the engine (the tracker need not be told). `context()` assumes, as the engine
guarantees, that the next character is the `<` of the tag.

Theory of operation
-------------------
The tracker is CommonMark's two-phase parser (commonmark.js `incorporateLine`, checked
against markdown-it-py, the reference for SPEC 4) turned inside out so that it never
needs a whole line or paragraph:

*Block phase, per line.* At a line start the tracker holds the line's first characters
(`_lb_parts`) until its block structure is decided: which open containers (block quotes, list
items) it continues, whether it ends or interrupts the open leaf, and what it starts.
Most lines decide on their first non-space character. A few need more: a line that may
be a thematic break, a setext underline or a closing fence (nothing but marker
characters and spaces so far) waits for a character that rules it out or for the end
of the line; while only such characters arrive, new pieces are appended without
re-examination (the "wait set"). Two kinds of line need their whole text and are
*speculated*: a line opening with 3+ backticks is a fence opener unless a backtick
follows on the line, and a `<` line outside a paragraph is an HTML block of kind 7 if it
is one complete tag. Their text is buffered until a backtick, the automaton's failure,
or the line end decides, and then replayed once into the inline phase.

*Inline phase, per paragraph (or heading).* Only backtick runs, backslashes, `<` and
line endings matter. A code span opens at a run of N backticks and closes at the next
run of exactly N, left to right. The tracker keeps the stack of "stuck" openers: i1 is
the first run not yet closed, i(j+1) the first one after ij under the hypothesis that
i1..ij never close (their lengths differ). A run of length n that equals len(ij) closes
ij: everything issued after ij is code, whatever happens to earlier openers, and the
stack is cut back to i1..i(j-1); any other run is pushed. A ticket is attached to the
stack top when issued: an empty stack means TEXT at once, a close below it means code,
the paragraph's end means text.

*Raw HTML and autolinks* win against a code span when they start first (`<a
title="`">`: that backtick is no run), but whether `<...` is a complete tag is known
only at its end. A tag that may still complete is a *candidate*, stepped through a
compiled automaton; it splits the inline state into hypotheses: "the candidate
completes" (the runs inside it are not openers, though they still close earlier
openers, as markdown-it's closer scan sees them) and "it fails" (they are ordinary
runs). The stack is laid out by level (`_bases`); level j is the view that the first j
candidates fail. A run that closes an opener of level L drops the deeper levels (their
candidates started inside the new span); a completing candidate drops the levels
nested in it; a failing one merges its level into its parent's. Tickets issued while
candidates are alive carry one attachment per level (`_BranchTicket`) and resolve when
the levels agree. Nesting is capped at `_MAX_CANDIDATES`.

*Tool blocks* (SPEC G3a) are atoms: `opaque(raw)` advances the inline state past them
without a run, a fence, a line ending or a blank line. Their text is read for three
questions about the Markdown around them, which a CommonMark parser answers from those
characters: the first line finishes a line-type decision waiting on it (an HTML block
start at that `<`; whether a possible fence opener has a backtick after its run; a line
ending in the block ends the line for that decision), raw-HTML candidates opened before
the block step through it (its `"` may end an earlier attribute value), and an end
condition of HTML block kinds 1-5 in it ends that block with the current line.

*Shortcuts* take the common cases past that machinery, where it would change nothing.
`_lines` decides whole "\n" lines of the common shapes (paragraph text, list items,
ATX headings, fence lines, blank lines, indented code, under any open containers) with
one or two compiled matches built from the grammar's block-start terminals, changing
the block state exactly as the line-start machine would; a paragraph line whose only
inline markers are single backticks is counted (`_single_runs`: the runs pair up),
not walked. A `<` whose tag completes or fails before any character with an inline
meaning is no candidate at all: one bounded compiled match of the tag terminals, else
the automata read ahead (`_candidate_ahead`). Anything else goes the general way, and
so do short pieces (under `_LOOKAHEAD_MIN` characters), where reading ahead does not
pay. The tests check that both ways answer every call alike.

Complexity goal: total work is linear in the input (every character is examined a
bounded number of times: by a few compiled searches, at most once more if it sits in a
held line start or a speculated line, once more by a read-ahead from a `<` (which
stops at the next character with an inline meaning, `<` included, or after
`_TAG_WINDOW` characters for the compiled match), and once per live candidate
automaton, at most `_MAX_CANDIDATES`). Memory is bounded by the undecided start of the
current line (or a speculated line), the opener stack (lengths are distinct, so
O(sqrt(paragraph))), the candidate levels and the outstanding tickets. A piece of
mid-line paragraph text with no special character costs one regular-expression search.
"""

from __future__ import annotations

import bisect
import copy
import enum
import functools
import re
from dataclasses import dataclass
from typing import Any

import regex

from toolparse._errors import GrammarError
from toolparse._syntax.dfa import DFA as _DFA
from toolparse._syntax.dfa import compile_dfa, dfa_from_data, dfa_to_data
from toolparse._syntax.regexp import second_chars
from toolparse._syntax.files import cached_json, grammar_path, terminal_table

__all__ = ["Context", "MarkdownTracker", "Resolution"]

Resolution = tuple[int, bool]
"""(ticket, in_code): in_code True means the held block was in code, so it is text."""


class Context(enum.Enum):
    """The code context of the next character."""

    TEXT = "text"
    CODE = "code"
    PENDING = "pending"


# --------------------------------------------------------------------------- syntax

_GRAMMAR = "markdown.lark"

# How many raw-HTML candidates may nest (each inside a quoted value of the previous).
# A `<` beyond that is read as a literal character.
_MAX_CANDIDATES = 4

# How far ahead of a `<` one compiled match looks for a complete tag (a bound on the
# work per `<`; a longer tag is followed by the automata as it arrives).
_TAG_WINDOW = 512

# The shortcuts that read ahead (`_lines`, a tag decided at its `<`) pay for themselves
# on pieces at least this long; short pieces (a few characters while a ticket is
# outstanding) go the general way.
_LOOKAHEAD_MIN = 32

# `_lines` reads a paragraph line from a copy of it up to this length.
_LINE_COPY_MAX = 4096

# A tab advances to the next multiple of this many columns (CommonMark 2.2).
_TAB_STOP = 4
# Indentation of this many columns or more is indented code (CommonMark 4.4).
_CODE_INDENT = 4


@dataclass(frozen=True, slots=True)
class _Syntax:
    """Everything the tracker compiles from grammars/markdown.lark."""

    backtick: str
    tilde: str
    backslash: str
    tag_open: str
    quote_marker: str
    line_ending: re.Pattern[str]
    eol_scan: re.Pattern[str]
    block_start: re.Pattern[str]
    plain_line: re.Pattern[str]
    plain_lines: re.Pattern[str]
    blank_line: re.Pattern[str]
    starts_no_block: re.Pattern[str]
    inline_tag: re.Pattern[str]
    tag_stops: re.Pattern[str]
    inline_stops: str
    plain_ascii: frozenset[str]
    item_or_heading: re.Pattern[str]
    fence_close_line: re.Pattern[str]
    spaces: re.Pattern[str]
    atx: regex.Pattern[str]
    fences: dict[str, regex.Pattern[str]]
    fence_close: regex.Pattern[str]
    thematic: regex.Pattern[str]
    setext: regex.Pattern[str]
    bullet: regex.Pattern[str]
    ordered: regex.Pattern[str]
    ordered_one: re.Pattern[str]
    atx_first: frozenset[str]
    setext_first: frozenset[str]
    thematic_first: frozenset[str]
    list_first: frozenset[str]
    html_starts: tuple[regex.Pattern[str], ...]
    html_ends: tuple[re.Pattern[str] | None, ...]
    html_end_width: int
    backtick_run: re.Pattern[str]
    inline_scan: re.Pattern[str]
    fence_info_scan: re.Pattern[str]
    indent_run: re.Pattern[str]
    wait_ws: re.Pattern[str]
    terminals: dict[str, str]


@functools.cache
def _syntax() -> _Syntax:
    path = grammar_path(_GRAMMAR)
    table = terminal_table(path)
    regexps = {name: t.regexp for name, t in table.items()}
    widths = {name: t.max_width for name, t in table.items()}
    literals = {name: t.literal for name, t in table.items() if t.literal is not None}

    def need(name: str) -> str:
        try:
            return regexps[name]
        except KeyError:
            raise GrammarError(f"{path}: terminal {name} is missing") from None

    def char(name: str) -> str:
        value = literals.get(name)
        if value is None or len(value) != 1:
            raise GrammarError(f"{path}: terminal {name} must be one literal character")
        return value

    def partial(name: str) -> regex.Pattern[str]:
        return regex.compile(need(name))

    backtick, tilde = char("BACKTICK"), char("TILDE")

    def first_chars(*names: str) -> frozenset[str]:
        # The characters a block start can begin with (a fast pre-check before its
        # regular expression), found by asking the expressions themselves.
        starts = re.compile(need("BLOCK_START_SCAN"))
        ascii_ = [chr(c) for c in range(0x21, 0x7F) if starts.fullmatch(chr(c))]
        return frozenset(c for c in ascii_ for name in names
                         if regex.compile(need(name)).match(c, partial=True))

    block_start = need("BLOCK_START_SCAN")
    # A line whose first non-space character (at most 3 spaces in) starts no block:
    # the common case, decided by one match.
    plain_line = re.compile(" {0,3}(?!" + block_start + ")[^ \t\r\n]")
    # Paragraph text with nothing that changes the inline state, across the ends of
    # lines that continue the paragraph as plain text: prose in one match.
    inline_scan = need("INLINE_SCAN")
    if not inline_scan.startswith("[") or inline_scan.startswith("[^"):
        raise GrammarError(f"{path}: INLINE_SCAN must be a character class")
    # A `<` followed by a character that no raw HTML tag or autolink can continue with
    # (`<<`, `< `, `<1`) changes nothing: the scans step over it at C speed.
    tag_open = char("TAG_OPEN")
    alive: set[str] = set()
    for name in ("RAW_HTML", "URI_AUTOLINK", "EMAIL_AUTOLINK"):
        found = second_chars(need(name))
        if found is None or found[0] != tag_open:
            alive = set()
            break
        alive |= found[1]
    plain_class = "[^" + inline_scan[1:]
    if alive:
        alive_class = "".join(re.escape(c) for c in sorted(alive))
        dead_tag_open = re.escape(tag_open) + "(?=[^" + alive_class + "])"
        text_run = f"{plain_class}*(?:{dead_tag_open}{plain_class}*)*"
        scan_class = "[" + inline_scan[1:-1].replace(re.escape(tag_open), "").replace(
            tag_open, "") + "]"
        inline_search = f"{scan_class}|{re.escape(tag_open)}(?![^{alive_class}])"
    else:
        text_run = plain_class + "*"
        inline_search = inline_scan
    plain_lines = re.compile(text_run + "(?:\n {0,3}(?!" + block_start + ")(?=[^ \t\r\n])"
                             + text_run + ")*")
    blank_line = re.compile("[ \t]*" + need("LINE_ENDING_SCAN"))
    # For the line-at-a-time path (`_lines`), at a line's first non-space character
    # (at most 3 columns in, the line ending in the text): a character that starts no
    # block, so the line is paragraph text (the ASCII ones outside BLOCK_START_SCAN as
    # a set; else no block start's terminal matches there, as `_ls_machine` tries
    # them, the setext underline included), and the two block starts it decides
    # itself, a list item whose content is paragraph text (1-4 spaces after the
    # marker), an ATX heading and a fence opener.
    not_a_block = "".join("(?!" + pattern + ")" for pattern in (
        re.escape(char("BLOCKQUOTE_MARKER")), re.escape(char("TAG_OPEN")),
        *(need(name) for name in ("ATX_HEADING_MARKER", "BACKTICK_FENCE", "TILDE_FENCE",
                                  "SETEXT_UNDERLINE", "THEMATIC_BREAK",
                                  "BULLET_LIST_MARKER", "ORDERED_LIST_MARKER"))))
    plain_first = re.compile("(?!" + block_start + ")[^ \t\r\n]")
    no_block = f"(?!{block_start})[^ \t\r\n]|{not_a_block}[^ \t\r\n]"
    starts_no_block = re.compile(no_block)
    item_or_heading = re.compile(
        f"(?={block_start})(?:(?:(?P<bullet>{need('BULLET_LIST_MARKER')})"
        f"|(?P<ordered>{need('ORDERED_LIST_MARKER')}))(?P<spaces> {{1,4}})(?={no_block})"
        f"|(?P<heading>{need('ATX_HEADING_MARKER')})"
        f"|(?P<fence>{need('BACKTICK_FENCE')}|{need('TILDE_FENCE')}))")
    inline_stops = backtick + char("BACKSLASH") + tag_open + "\r\n"
    html_ends: list[re.Pattern[str] | None] = [None]
    for kind in range(1, 6):
        html_ends.append(re.compile(need(f"HTML_BLOCK_{kind}_END")))
    html_ends += [None, None]
    end_width = max(widths[f"HTML_BLOCK_{kind}_END"] for kind in range(1, 6))
    return _Syntax(
        backtick=backtick,
        tilde=tilde,
        backslash=char("BACKSLASH"),
        tag_open=char("TAG_OPEN"),
        quote_marker=char("BLOCKQUOTE_MARKER"),
        line_ending=re.compile(need("LINE_ENDING")),
        eol_scan=re.compile(need("LINE_ENDING_SCAN")),
        block_start=re.compile(block_start),
        plain_line=plain_line,
        plain_lines=plain_lines,
        blank_line=blank_line,
        starts_no_block=starts_no_block,
        inline_tag=re.compile("|".join("(?:" + need(name) + ")" for name in _INLINE_AUTOMATA)),
        # What a tag may not hold for `inline_tag` to stand for the automata: a
        # character with an inline meaning (`_inline_slow` reads these), or NUL (which
        # the automata read as U+FFFD).
        inline_stops=inline_stops,
        tag_stops=re.compile("[" + re.escape(inline_stops) + "\\x00]"),
        plain_ascii=frozenset(c for c in map(chr, range(0x80)) if plain_first.match(c)),
        item_or_heading=item_or_heading,
        spaces=re.compile(" *"),
        atx=partial("ATX_HEADING_MARKER"),
        fences={backtick: partial("BACKTICK_FENCE"), tilde: partial("TILDE_FENCE")},
        fence_close=partial("FENCE_CLOSE"),
        fence_close_line=re.compile(need("FENCE_CLOSE")),
        thematic=partial("THEMATIC_BREAK"),
        setext=partial("SETEXT_UNDERLINE"),
        bullet=partial("BULLET_LIST_MARKER"),
        ordered=partial("ORDERED_LIST_MARKER"),
        ordered_one=re.compile(need("ORDERED_LIST_ONE")),
        atx_first=first_chars("ATX_HEADING_MARKER"),
        setext_first=first_chars("SETEXT_UNDERLINE"),
        thematic_first=first_chars("THEMATIC_BREAK"),
        list_first=first_chars("BULLET_LIST_MARKER", "ORDERED_LIST_MARKER"),
        html_starts=tuple(partial(f"HTML_BLOCK_{kind}_START") for kind in range(1, 7)),
        html_ends=tuple(html_ends),
        html_end_width=end_width,
        backtick_run=re.compile(need("BACKTICK_RUN")),
        inline_scan=re.compile(inline_search),
        fence_info_scan=re.compile(need("FENCE_INFO_SCAN")),
        indent_run=re.compile(need("INDENT_RUN")),
        wait_ws=re.compile("[^ \t]"),
        terminals=regexps,
    )


@functools.cache
def _wait_for_other_than(chars: str) -> re.Pattern[str]:
    """A wait set: the held line start can only change at a character not in `chars`."""
    return re.compile("[^" + re.escape(chars) + "]")


# ------------------------------------------------------------------------- automata

@dataclass(frozen=True, slots=True)
class _Automata:
    inline: tuple[_DFA, ...]  # raw HTML, URI autolink, e-mail autolink
    html_block_7: _DFA


_INLINE_AUTOMATA = ("RAW_HTML", "URI_AUTOLINK", "EMAIL_AUTOLINK")
_AUTOMATA = (*_INLINE_AUTOMATA, "HTML_BLOCK_7_LINE")


@functools.cache
def _automata() -> _Automata:
    """The automata, built with interegular (a few hundred milliseconds) once per
    grammar and then read from the cache (`cached_json`)."""
    regexps = _syntax().terminals
    patterns = [regexps[name] for name in _AUTOMATA]

    def compile_one(pattern: str) -> _DFA:
        # markdown-it replaces NUL with U+FFFD before parsing.
        return compile_dfa(pattern, same_as={"\x00": "\ufffd"})

    def build() -> list[list[Any]]:
        return [dfa_to_data(compile_one(p)) for p in patterns]

    try:
        dfas = [dfa_from_data(d) for d in cached_json("automata", "\0".join(patterns), build)]
    except (TypeError, ValueError, KeyError, IndexError):  # a cache of another shape
        dfas = [compile_one(p) for p in patterns]
    return _Automata(inline=tuple(dfas[:3]), html_block_7=dfas[3])


# ------------------------------------------------------------------- inline state

_ALIVE, _COMPLETE, _DEAD = 0, 1, 2


class _Candidate:
    """A `<` that may still be a complete raw HTML tag or autolink."""

    __slots__ = ("dfas", "live", "states")

    def __init__(self, dfas: tuple[_DFA, ...], states: list[int], live: int) -> None:
        self.dfas = dfas
        self.states = states
        self.live = live  # how many automata are still alive

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
                    return _COMPLETE
                alive = True
            else:
                self.live -= 1
        return _ALIVE if alive else _DEAD

    def skip(self, text: str, i: int, n: int, stops: str) -> int:
        """With one automaton left alive (`live` is 1: a tag past its name, an
        autolink past its scheme), step it over text[i:n] while the characters have
        no inline meaning (none of `stops`) and leave it alive and incomplete, which
        is all `step` would do with them; return where that stops."""
        states = self.states
        k = 0
        while states[k] < 0:
            k += 1
        dfa = self.dfas[k]
        table, default, final = dfa.table, dfa.default, dfa.final
        s = states[k]
        while i < n:
            ch = text[i]
            if ch in stops:
                break
            t = table[s].get(ch, default[s])
            if t < 0 or final[t]:
                break
            s = t
            i += 1
        states[k] = s
        return i


@functools.cache
def _dead_after(tag_open: str, ch: str) -> bool:
    """Whether `tag_open` followed by `ch` can start no raw HTML tag or autolink
    (`<<`, `< `, `<1`): the common case in prose with comparisons, decided once per
    character instead of stepping the automata at every `<`."""
    cand = _new_candidate(tag_open)
    return cand is None or cand.step(ch) == _DEAD


_Automaton = tuple[tuple[dict[str, int], ...], tuple[int, ...], tuple[bool, ...], int]


@functools.cache
def _after_tag_open(tag_open: str) -> tuple[_Automaton, ...]:
    """The inline automata a `tag_open` leaves alive: (table, default, final, state)."""
    out = []
    for dfa in _automata().inline:
        state = dfa.table[dfa.initial].get(tag_open, dfa.default[dfa.initial])
        if state >= 0:
            out.append((dfa.table, dfa.default, dfa.final, state))
    return tuple(out)


def _candidate_ahead(text: str, i: int, n: int, tag_open: str, stops: str) -> int:
    """Read ahead a candidate opened by the `tag_open` just before text[i], with no
    other candidate alive: if the automata decide it before any character whose
    meaning it would change (in `stops`: backticks, backslashes, `tag_open`, line
    endings), it changes nothing and need not be followed: a tag that completes only
    takes characters with no inline meaning, and one that fails leaves the character
    that failed it to mean what it means without it. Returns where the scan goes on
    then (after the completing character, or at the failing one), else -1."""
    live = _after_tag_open(tag_open)
    k = i
    while k < n:
        ch = text[k]
        stop = ch in stops
        if stop and (ch == "\r" or ch == "\n"):
            ch = "\n"  # as `_inline_eol` steps them
        alive = []
        for table, default, final, state in live:
            state = table[state].get(ch, default[state])
            if state >= 0:
                if final[state]:
                    return -1 if stop else k + 1
                alive.append((table, default, final, state))
        if not alive:
            return k
        if stop:
            return -1
        k += 1
        if len(alive) == 1:  # the common case after a few characters: one automaton
            table, default, final, state = alive[0]
            while k < n:
                ch = text[k]
                if ch in stops:
                    if ch == "\r" or ch == "\n":
                        ch = "\n"
                    state = table[state].get(ch, default[state])
                    return k if state < 0 else -1
                state = table[state].get(ch, default[state])
                if state < 0:
                    return k
                if final[state]:
                    return k + 1
                k += 1
            return -1
        live = tuple(alive)
    return -1


def _dead_tags_only(line: str, tag_open: str) -> bool:
    """Whether every `tag_open` in `line` (which ends with its line ending) is followed
    by a character that starts no raw HTML tag or autolink."""
    j = line.find(tag_open)
    while j >= 0:
        if not _dead_after(tag_open, line[j + 1]):
            return False
        j = line.find(tag_open, j + 1)
    return True


@functools.cache
def _opened(tag_open: str) -> tuple[tuple[_DFA, ...], tuple[int, ...], int]:
    """The inline automata, their states after `tag_open`, and how many are alive."""
    dfas = _automata().inline
    states = tuple(d.table[d.initial].get(tag_open, d.default[d.initial]) for d in dfas)
    return dfas, states, sum(s >= 0 for s in states)


def _new_candidate(tag_open: str) -> _Candidate | None:
    dfas, states, live = _opened(tag_open)
    if not live:
        return None
    return _Candidate(dfas, list(states), live)


class _Opener:
    """A stuck backtick run: an opener not closed so far."""

    __slots__ = ("length", "index", "tickets", "alive")

    def __init__(self, length: int, index: int) -> None:
        self.length = length
        self.index = index
        self.tickets: list[int] = []
        self.alive = True


_CODE_MARK = "code"  # a branch ticket's verdict at one level: it is in a span there


class _BranchTicket:
    """A ticket issued while raw-HTML candidates were alive: one attachment per level.

    `attach[j]` is the opener the ticket follows in level j's view (None: no opener,
    text for sure there), or `_CODE_MARK`. Levels past the end of the list share the
    last entry (they were created after the ticket).
    """

    __slots__ = ("ticket", "attach")

    def __init__(self, ticket: int, attach: list[Any]) -> None:
        self.ticket = ticket
        self.attach = attach


# ------------------------------------------------------------------- block state

class _Container:
    __slots__ = ("quote", "content", "has_child")

    def __init__(self, quote: bool, content: int) -> None:
        self.quote = quote          # block quote, else list item
        self.content = content      # list item: columns of the content (marker + padding)
        self.has_child = False


# Leaf blocks (the innermost open non-container block).
_NO_LEAF, _PARA, _HEADING, _FENCE, _ICODE, _HTML = range(6)

# Modes: what the characters of the current line mean.
(_LINE_START, _INLINE, _CODE_LINE, _HTML_LINE, _SPEC_FENCE, _SPEC_HTML7) = range(6)

# Outcomes of the line-start machine.
(_O_CODE, _O_HTML, _O_INLINE, _O_HEADING, _O_FENCE_SPEC, _O_HTML7_SPEC,
 _O_DONE) = range(7)


class _NeedMore(Exception):
    """The held line start cannot be decided yet; `wait` says what could decide it."""

    def __init__(self, wait: re.Pattern[str] | None) -> None:
        self.wait = wait


class MarkdownTracker:
    """Follows CommonMark 0.31.2 block and code-span structure over a text stream."""

    __slots__ = (
        "_syn", "_scan", "_out", "_next_ticket", "_mode", "_after_cr", "_ls_dirty",
        # blocks
        "_blocks", "_leaf", "_fence_char", "_fence_len", "_html_kind", "_html_tail",
        "_html_closing",
        # line start machine
        "_lb_parts", "_lb_len", "_marks", "_ls_off", "_ls_col", "_ls_ptab",
        "_ls_stage", "_ls_k", "_ls_leaf_ok", "_ls_closed", "_ls_started", "_ls_wait",
        "_ls_no_break",
        # speculated lines
        "_spec_run", "_spec_dfa", "_spec_backtick",
        # inline state
        "_stack", "_len_at", "_cands", "_bases", "_branch", "_run", "_run_esc",
        "_esc", "_heading",
    )

    def __init__(self) -> None:
        self._syn = _syntax()
        self._scan = self._syn.inline_scan.search
        self._out: list[Resolution] = []
        self._next_ticket = 0
        self._mode = _LINE_START
        self._after_cr = False
        self._blocks: list[_Container] = []
        self._leaf = _NO_LEAF
        self._fence_char = ""
        self._fence_len = 0
        self._html_kind = 0
        self._html_tail = ""
        self._html_closing = False
        self._lb_parts: list[str] = []
        self._lb_len = 0
        self._marks: list[tuple[int, int | str]] = []
        self._ls_wait: re.Pattern[str] | None = None
        self._spec_run = 0
        self._spec_dfa = 0
        self._spec_backtick = False
        self._stack: list[_Opener] = []
        self._len_at: dict[int, int] = {}
        self._cands: list[_Candidate] = []
        self._bases: list[int] = []
        self._branch: list[_BranchTicket] = []
        self._run = 0
        self._run_esc = False
        self._esc = False
        self._heading = False
        self._reset_line()

    # ================================================================ public API

    def feed(self, text: str) -> list[Resolution]:
        """Consume `text` as Markdown; return the tickets this text resolved."""
        if (self._mode == _INLINE and self._scan(text) is None and not self._cands
                and not self._esc and not self._run and not self._out):
            return []  # mid-line paragraph text with nothing that changes state
        if text:
            self._dispatch(text)
        return self._flush()

    def context(self) -> tuple[Context, int]:
        """The code context of the next character (the `<` of a tool tag).

        The ticket is -1 unless the context is PENDING.
        """
        self._after_cr = False
        mode = self._mode
        if mode == _INLINE:
            if self._run:
                self._end_run()
            if not self._stack:
                return Context.TEXT, -1
            ticket = self._new_ticket()
            self._attach(ticket)
            return Context.PENDING, ticket
        if mode == _CODE_LINE:
            return Context.CODE, -1
        if mode == _HTML_LINE:
            return Context.TEXT, -1
        if mode == _SPEC_FENCE:
            ticket = self._new_ticket()
            self._marks.append((self._lb_len, ticket))
            return Context.PENDING, ticket
        if mode == _SPEC_HTML7:
            dfa = _automata().html_block_7
            state = dfa.table[self._spec_dfa].get(self._syn.tag_open,
                                                  dfa.default[self._spec_dfa])
            if state < 0:  # the `<` ends the tag: the line is a paragraph after all
                self._spec_html7_to_paragraph()
                return self.context()
            if not self._spec_backtick:
                return Context.TEXT, -1
            ticket = self._new_ticket()
            self._marks.append((self._lb_len, ticket))
            return Context.PENDING, ticket
        # _LINE_START: decide the line as far as a `<` next allows.
        if (self._leaf == _FENCE and not self._blocks and not self._marks
                and self._fence_char != self._syn.tag_open
                and not self._held_line().strip(" \t")):
            # A line of a fence (tool-call examples in code): only indentation so far,
            # and a `<` cannot close the fence. What `_ls_machine` decides, directly.
            self._lb_parts, self._lb_len, self._ls_wait = [], 0, None
            self._ls_dirty = True
            self._heading = False
            self._mode = _CODE_LINE
            return Context.CODE, -1
        if self._line_start(peek=True) >= 0:
            return self.context()
        # Stopped at the `<` itself: an HTML block start (kinds 1-6 interrupt a
        # paragraph), a new paragraph or HTML block of kind 7 (TEXT either way), or a
        # paragraph continuation line.
        if self._leaf == _PARA and not self._ls_started and self._stack:
            ticket = self._new_ticket()
            self._marks.append((self._lb_len, ticket))
            return Context.PENDING, ticket
        return Context.TEXT, -1

    def fork(self) -> MarkdownTracker:
        """An independent copy of this tracker, sharing only its compiled syntax: the
        engine feeds a fork ahead of the real tracker when a decision (is a failed
        block's tag in code?) needs text the real tracker must not see yet."""
        memo: dict[int, Any] = {id(self._syn): self._syn, id(self._scan): self._scan}
        twin = object.__new__(MarkdownTracker)
        for name in MarkdownTracker.__slots__:
            if hasattr(self, name):
                setattr(twin, name, copy.deepcopy(getattr(self, name), memo))
        return twin

    def code_kind(self) -> str:
        """Right after `context()` answered CODE or PENDING: the kind of code the tag is
        in (or would be in, should its ticket resolve as code): `fenced`, `indented` or
        `span`. For diagnostics (why a tag was not a call); the engine does not use it."""
        if self._mode == _CODE_LINE:
            return "fenced" if self._leaf == _FENCE else "indented"
        return "fenced" if self._mode == _SPEC_FENCE else "span"

    def opaque(self, raw: str) -> list[Resolution]:
        """A tool block was recognised at the current position (SPEC G3a).

        It is one inline atom with no Markdown meaning: backticks or fences inside it
        open no code and close no code span. Only the block's first line may be read
        to finish deciding the type of the line it starts on (an HTML block start, say).
        """
        self._after_cr = False
        cut = self._syn.eol_scan.search(raw)
        first = raw[:cut.start()] if cut else raw
        has_eol = cut is not None
        if self._mode == _LINE_START and self._line_start(peek=True) < 0:
            self._atom_at_line_start(raw, first, has_eol)
            return self._flush()
        mode = self._mode
        if mode == _INLINE:
            self._inline_atom(raw)
        elif mode == _SPEC_FENCE:
            if self._syn.backtick in first:
                self._spec_fence_to_paragraph()
                self._inline_atom(raw)
            elif has_eol:
                self._spec_fence_to_fence()
            else:
                self._marks.append((self._lb_len, raw))
        elif mode == _SPEC_HTML7:
            self._spec_html7_atom(raw, first, has_eol)
        elif mode == _HTML_LINE:
            self._html_atom(raw)
        return self._flush()

    def finish(self) -> list[Resolution]:
        """End of stream: resolve every outstanding ticket."""
        if self._mode != _LINE_START or self._lb_len or self._marks:
            # A virtual line ending decides the last line (a "\n" after a final "\r"
            # is swallowed as part of it).
            self._dispatch("\n")
        self._after_cr = False
        self._close_leaf()
        self._blocks.clear()
        return self._flush()

    # ============================================================== dispatching

    def _flush(self) -> list[Resolution]:
        out = self._out
        if out:
            self._out = []
        return out

    def _new_ticket(self) -> int:
        ticket = self._next_ticket
        self._next_ticket = ticket + 1
        return ticket

    def _dispatch(self, text: str) -> None:
        i, n = 0, len(text)
        # Whole "\n" lines go through `_lines` while the state is one it handles (a
        # fresh line start, or inline text with no candidate, escape or open run).
        lines = n >= _LOOKAHEAD_MIN and "\n" in text and "\r" not in text
        while i < n:
            mode = self._mode
            if lines and not self._cands and (
                    (mode == _INLINE and not self._esc and not self._run)
                    or (mode == _LINE_START and not self._ls_dirty and not self._after_cr)):
                # It stops where the general code must take one step (or at n).
                i = self._lines(text, i, n)
                if i >= n:
                    return
                mode = self._mode
            if mode == _INLINE:
                i = self._inline_feed(text, i, n)
            elif mode == _LINE_START:
                i = self._line_start_feed(text, i, n)
            elif mode == _CODE_LINE:
                m = self._syn.eol_scan.search(text, i)
                if m is None:
                    return
                i = self._end_line(text, m.start())
            elif mode == _HTML_LINE:
                i = self._html_feed(text, i, n)
            elif mode == _SPEC_FENCE:
                i = self._spec_fence_feed(text, i, n)
            else:
                i = self._spec_html7_feed(text, i, n)

    def _end_line(self, text: str, j: int) -> int:
        """The line ends at text[j] (a line ending character): start the next line."""
        if text[j] == "\r":
            if j + 1 < len(text):
                if text[j + 1] == "\n":
                    j += 1
            else:
                self._after_cr = True
        self._mode = _LINE_START
        if self._ls_dirty:
            self._reset_line()
        return j + 1

    # ====================================================== the line-at-a-time path

    def _lines(self, text: str, i: int, n: int) -> int:
        """Ordinary Markdown a whole "\n" line at a time, each decided by one or two
        compiled matches instead of the resumable line-start machine.

        The line shapes decided here (after the open containers the line continues:
        list items by indentation, block quotes by their marker) are: a blank line; a
        line of a fenced code block (its closing fence included) or of an indented
        one; paragraph text (a new paragraph, a continuation or a lazy continuation);
        4+ columns of indentation; a list item marker with 1-4 spaces and paragraph
        text after it; an ATX heading; a fence opener (a backtick one when no backtick
        follows it on the line). Each changes the block state exactly as `_ls_machine`
        does for that shape. The rest of a paragraph line is taken here when its only
        inline markers are single backticks (and `<` that can start no tag).

        Anything else is left to the general code: a tab before a line's content, any
        other block start, an HTML block, a line cut by the end of `text`, inline text
        with a backslash, a longer backtick run or a `<` that may start a tag
        (`_inline_feed` takes that line and hands back at the next line start).
        Returns where it stopped, at a fresh line start or in clean inline state (no
        candidate, escape or open run), as the general code would be there.
        """
        syn = self._syn
        find = text.find
        backtick, backslash, tag_open = syn.backtick, syn.backslash, syn.tag_open
        double_run = backtick + backtick
        quote_marker = syn.quote_marker
        plain_ascii = syn.plain_ascii
        starts_no_block = syn.starts_no_block.match
        item_or_heading = syn.item_or_heading.match
        spaces = syn.spaces.match
        fence_close = syn.fence_close_line.match
        blocks = self._blocks
        if self._mode == _INLINE:  # the rest of a line the general code started
            e = find("\n", i)
            if e < 0:
                return i
        else:
            e = -1
        while True:
            if e < 0:
                # A line start. Stage 0: the containers the line continues (k of
                # them); `pos` is where the last one's content starts, `q` the next
                # non-space character.
                e = find("\n", i)
                if e < 0:
                    return i
                leaf = self._leaf
                pos = i
                k = 0
                nb = len(blocks)
                while True:
                    q = pos
                    if text[q] == " " and (run := spaces(text, q)) is not None:
                        q = run.end()
                    ch = text[q]
                    if ch == "\t":
                        return i  # columns: the general code counts them
                    if k == nb:
                        break
                    cont = blocks[k]
                    if cont.quote:
                        if q - pos >= _CODE_INDENT or ch != quote_marker:
                            break
                        pos = q + 1
                        after = text[pos]
                        if after == " ":
                            pos += 1
                        elif after == "\t":
                            return i
                    elif ch == "\n":
                        if not cont.has_child:
                            break
                    elif q - pos >= cont.content:
                        pos += cont.content
                    else:
                        break
                    k += 1
                indent = q - pos
                all_matched = k == nb
                if ch == "\n":  # a blank line
                    if all_matched:
                        if leaf == _FENCE or leaf == _ICODE:
                            i, e = e + 1, -1
                            if i >= n:
                                return i
                            continue
                        if leaf == _HTML and self._html_kind < 6:
                            return i
                    if leaf != _NO_LEAF:
                        if leaf == _PARA and self._stack:
                            self._end_paragraph()
                        self._leaf = _NO_LEAF
                    if k < nb:
                        del blocks[k:]
                    i, e = e + 1, -1
                    if i >= n:
                        return i
                    continue
                # Stage 1: the open leaf, when every container continues.
                if all_matched and leaf != _PARA and leaf != _NO_LEAF:
                    if leaf == _FENCE:
                        if indent < _CODE_INDENT and ch == self._fence_char:
                            close = fence_close(text, q)
                            if (close is not None and len(close.group().rstrip(" \t"))
                                    >= self._fence_len):
                                self._leaf = _NO_LEAF
                        i, e = e + 1, -1
                        if i >= n:
                            return i
                        continue
                    if leaf == _HTML:
                        return i
                    if indent >= _CODE_INDENT:  # indented code goes on
                        i, e = e + 1, -1
                        if i >= n:
                            return i
                        continue
                # Stage 2: block starts.
                if indent >= _CODE_INDENT:
                    if leaf != _PARA:  # (indented code cannot interrupt a paragraph)
                        self._leaf = _ICODE
                        if k < nb:
                            del blocks[k:]
                        if blocks:
                            blocks[-1].has_child = True
                        i, e = e + 1, -1
                        if i >= n:
                            return i
                        continue
                    i = q
                elif (ch in plain_ascii
                      or ((m := item_or_heading(text, q)) is None and starts_no_block(text, q))):
                    if leaf != _PARA:  # else a continuation line, or a lazy one
                        self._leaf = _PARA
                        if k < nb:
                            del blocks[k:]
                        if blocks:
                            blocks[-1].has_child = True
                    i = q
                else:
                    if m is None:
                        return i
                    kind = m.lastgroup
                    if kind == "fence":
                        if ch != syn.tilde and find(backtick, m.end(), e) >= 0:
                            return i  # a backtick fence's info string has no backtick
                    elif kind != "heading" and all_matched and leaf == _PARA:
                        ordered = m.group("ordered")
                        if ordered is not None and syn.ordered_one.fullmatch(ordered) is None:
                            return i  # only an item that starts at 1 interrupts a paragraph
                    if leaf == _PARA and self._stack:
                        self._end_paragraph()
                    if k < nb:
                        del blocks[k:]
                    if blocks:
                        blocks[-1].has_child = True
                    if kind == "fence":  # the opening line is code
                        self._leaf = _FENCE
                        self._fence_char, self._fence_len = ch, m.end() - q
                        i, e = e + 1, -1
                        if i >= n:
                            return i
                        continue
                    i = m.end()
                    if kind == "heading":
                        self._leaf = _HEADING
                        self._heading = True
                    else:
                        item = _Container(False, indent + i - q)
                        item.has_child = True
                        blocks.append(item)
                        self._leaf = _PARA
            # Inline text from i to the line ending at e (a copy: `in` is cheaper than
            # bounded searches; a very long line goes the general way instead).
            line = text[i:e + 1] if e - i < _LINE_COPY_MAX else ""
            if (not line or backslash in line or double_run in line
                    or (tag_open in line and not _dead_tags_only(line, tag_open))):
                self._mode = _INLINE
                i = self._inline_feed(text, i, n)
                if self._mode != _LINE_START or self._cands or i >= n:
                    return i
                e = -1
                continue
            runs = line.count(backtick)
            if runs and (runs & 1 or self._stack):  # (else they pair up among themselves)
                self._single_runs(runs)
            if self._heading:  # the line ends the heading
                self._heading = False
                if self._stack:
                    self._end_paragraph()
                self._leaf = _NO_LEAF
            self._mode = _LINE_START
            if self._ls_dirty:
                self._reset_line()
            i, e = e + 1, -1
            if i >= n:
                return i

    def _single_runs(self, count: int) -> None:
        """`count` backtick runs of length 1 in paragraph text with no other inline
        marker: the first closes a stuck opener of length 1 if there is one, and the
        rest pair up among themselves (the last one stays open if they are odd)."""
        index = self._len_at.get(1)
        if index is not None:
            self._close_at(index, 0)
            count -= 1
        if count & 1:
            stack = self._stack
            opener = _Opener(1, len(stack))
            stack.append(opener)
            self._len_at[1] = opener.index

    def _reset_line(self) -> None:
        self._lb_parts = []
        self._lb_len = 0
        self._marks = []
        self._ls_off = 0
        self._ls_col = 0
        self._ls_ptab = False
        self._ls_stage = 0
        self._ls_k = 0
        self._ls_leaf_ok = False
        self._ls_closed = False
        self._ls_started = False
        self._ls_wait = None
        self._ls_no_break: dict[str, int] = {}
        self._ls_dirty = False

    # ============================================================ line start

    def _line_start_feed(self, text: str, i: int, n: int) -> int:
        if self._after_cr:
            self._after_cr = False
            if text[i] == "\n":
                return i + 1
        syn = self._syn
        m = syn.eol_scan.search(text, i)
        end = m.end() if m else n
        if not self._lb_len and not self._marks and not self._blocks:
            # Fast paths (no container is open): a plain paragraph line, a blank line,
            # a line of a fenced or indented code block that cannot close it.
            leaf = self._leaf
            if leaf == _NO_LEAF or leaf == _PARA:
                p = syn.plain_line.match(text, i, end)
                if p is not None:
                    self._leaf = _PARA
                    self._mode = _INLINE
                    return p.end() - 1
            b = syn.blank_line.match(text, i, end)
            if b is not None:
                if leaf == _PARA or (leaf == _HTML and self._html_kind >= 6):
                    self._close_leaf()
                return self._end_line(text, b.end() - 1)
            if leaf == _FENCE or leaf == _ICODE:
                p = syn.indent_run.match(text, i, end)
                k = p.end() if p is not None else i
                if k < end and (p is None or "\t" not in p.group()):
                    width = k - i
                    if width >= _CODE_INDENT or (leaf == _FENCE
                                                 and text[k] != self._fence_char):
                        self._mode = _CODE_LINE
                        return i
        chunk = text[i:end]
        wait = self._ls_wait
        if wait is not None and m is None and wait.search(chunk) is None:
            self._lb_parts.append(chunk)
            self._lb_len += len(chunk)
            return end
        direct = not self._lb_len and not self._marks
        self._lb_parts.append(chunk)
        self._lb_len += len(chunk)
        at = self._line_start(peek=False, replay=not direct)
        if at < 0:
            return end
        return i + at if direct else end

    def _held_line(self) -> str:
        parts = self._lb_parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    def _line_start(self, peek: bool, replay: bool = True) -> int:
        """Run the line-start machine over the held line. Once the line's type is
        decided, switch modes and return where the rest of the line starts in the held
        text (which has been replayed unless `replay` is false); else return -1."""
        self._ls_dirty = True
        buf = self._held_line()
        if peek:
            buf += self._syn.tag_open
        try:
            outcome, at = self._ls_machine(buf)
        except _NeedMore as need:
            self._ls_wait = need.wait
            # Drop what the machine has consumed: a held line start stays short
            # however it arrives, and nothing before the registers is read again.
            cut = self._ls_off
            if cut:
                self._lb_parts = [buf[cut:self._lb_len]]
                self._lb_len -= cut
                self._ls_off = 0
                self._marks = [(off - cut, t) for off, t in self._marks]
                self._ls_no_break = {c: q - cut for c, q in self._ls_no_break.items()}
            return -1
        self._ls_wait = None
        return self._enter(outcome, buf[:self._lb_len] if peek else buf, at, replay)

    def _enter(self, outcome: int, buf: str, at: int, replay: bool = True) -> int:
        """Switch to the mode the line-start machine chose; replay the held text (or
        return where the caller should go on with it)."""
        marks = self._marks
        self._lb_parts = []
        self._lb_len = 0
        self._marks = []
        self._heading = outcome == _O_HEADING
        if outcome == _O_INLINE or outcome == _O_HEADING:
            self._mode = _INLINE
        elif outcome == _O_CODE or outcome == _O_DONE:
            self._mode = _CODE_LINE  # the rest of the line means nothing
        elif outcome == _O_HTML:
            self._mode = _HTML_LINE
        elif outcome == _O_FENCE_SPEC:
            self._mode = _SPEC_FENCE
            self._spec_backtick = False
            run = self._spec_run
            self._lb_parts = [buf[at:at + run]]
            self._lb_len = run
            at += run
        else:  # _O_HTML7_SPEC
            self._mode = _SPEC_HTML7
            self._spec_backtick = False
            self._spec_dfa = _automata().html_block_7.initial
        if replay:
            self._replay(buf, at, marks)
        return at

    def _replay(self, buf: str, at: int, marks: list[tuple[int, int | str]]) -> None:
        """Feed buf[at:] through the current mode, with tickets and atoms in place."""
        for off, item in marks:
            if off < at:
                self._resolve_ticket(item, False)
                continue
            if off > at:
                self._dispatch(buf[at:off])
                at = off
            self._place(item)
        if at < len(buf):
            self._dispatch(buf[at:])

    def _place(self, item: int | str) -> None:
        """A held ticket (an int) or tool block (its text) reaches the current mode."""
        mode = self._mode
        if isinstance(item, str):  # a tool block held with the line
            raw = item
            if mode == _INLINE:
                self._inline_atom(raw)
            elif mode == _SPEC_FENCE:
                self._marks.append((self._lb_len, raw))
            elif mode == _SPEC_HTML7:
                cut = self._syn.eol_scan.search(raw)
                self._spec_html7_atom(raw, raw[:cut.start()] if cut else raw,
                                      cut is not None)
            elif mode == _HTML_LINE:
                self._html_atom(raw)
            return
        ticket = item
        if mode == _INLINE:
            if self._run:
                self._end_run()
            if not self._stack:
                self._resolve_ticket(ticket, False)
            else:
                self._attach(ticket)
        elif mode == _SPEC_FENCE or mode == _SPEC_HTML7:
            self._marks.append((self._lb_len, ticket))
        elif mode == _CODE_LINE:
            self._resolve_ticket(ticket, True)
        else:
            self._resolve_ticket(ticket, False)

    def _resolve_ticket(self, item: int | str, in_code: bool) -> None:
        if isinstance(item, int):
            self._out.append((item, in_code))

    def _resolve_marks(self, marks: list[tuple[int, int | str]], in_code: bool) -> None:
        for _, item in marks:
            if isinstance(item, int):
                self._out.append((item, in_code))

    # ------------------------------------------------------ the line-start machine
    #
    # commonmark.js `incorporateLine`, resumable: the registers (_ls_off, _ls_col,
    # _ls_ptab: offset, column, partly consumed tab) and the stage are saved after
    # every decided step, and a step that runs out of text raises _NeedMore before
    # it changes anything. Offsets are relative to the held line.

    def _nns(self, buf: str) -> tuple[int, int, bool]:
        """The next non-space character from the registers: (offset, column, blank)."""
        i = self._ls_off
        col = self._ls_col
        if i < len(buf):
            ch = buf[i]
            if ch != " " and ch != "\t":
                return i, col, ch == "\n" or ch == "\r"
        m = self._syn.indent_run.match(buf, i)
        if m is not None:
            j = m.end()
            run = buf[i:j]
            if "\t" in run:
                for ch in run:
                    col = col + _TAB_STOP - col % _TAB_STOP if ch == "\t" else col + 1
            else:
                col += j - i
            i = j
        if i >= len(buf):
            raise _NeedMore(self._syn.wait_ws)
        ch = buf[i]
        return i, col, ch == "\n" or ch == "\r"

    def _advance(self, buf: str, count: int, columns: bool) -> None:
        off, col = self._ls_off, self._ls_col
        ptab = self._ls_ptab
        n = len(buf)
        while count > 0 and off < n:
            ch = buf[off]
            if ch == "\t":
                to_tab = _TAB_STOP - col % _TAB_STOP
                if columns:
                    ptab = to_tab > count
                    step = count if to_tab > count else to_tab
                    col += step
                    if not ptab:
                        off += 1
                    count -= step
                else:
                    ptab = False
                    col += to_tab
                    off += 1
                    count -= 1
            elif ch == "\n" or ch == "\r":
                break
            else:
                ptab = False
                off += 1
                col += 1
                count -= 1
        self._ls_off, self._ls_col, self._ls_ptab = off, col, ptab

    def _goto(self, i: int, col: int) -> None:
        self._ls_off, self._ls_col, self._ls_ptab = i, col, False

    def _ls_machine(self, buf: str) -> tuple[int, int]:
        syn = self._syn
        blocks = self._blocks
        n = len(buf)
        # ---- stage 0: the open containers
        if self._ls_stage == 0:
            while self._ls_k < len(blocks):
                cont = blocks[self._ls_k]
                i, col, blank = self._nns(buf)
                indent = col - self._ls_col
                if cont.quote:
                    if indent < _CODE_INDENT and buf[i] == syn.quote_marker:
                        if i + 1 >= n:
                            raise _NeedMore(None)
                        self._goto(i, col)
                        self._advance(buf, 1, False)
                        if buf[self._ls_off] in " \t":
                            self._advance(buf, 1, True)
                    else:
                        break
                elif blank:
                    if not cont.has_child:
                        break
                    self._goto(i, col)
                elif indent >= cont.content:
                    self._advance(buf, cont.content, True)
                else:
                    break
                self._ls_k += 1
            self._ls_stage = 1
            if self._ls_k < len(blocks) or self._leaf == _NO_LEAF:
                self._ls_stage = 2
                self._ls_closed = self._ls_k == len(blocks)
        # ---- stage 1: the open leaf
        if self._ls_stage == 1:
            i, col, blank = self._nns(buf)
            indent = col - self._ls_col
            leaf = self._leaf
            if leaf == _FENCE:
                if indent < _CODE_INDENT and buf[i] == self._fence_char:
                    m = syn.fence_close.match(buf, i, partial=True)
                    if m is not None:
                        if m.partial:
                            rest = buf[i:]
                            fc = self._fence_char
                            raise _NeedMore(_wait_for_other_than(fc) if rest.strip(fc) == ""
                                            else syn.wait_ws)
                        if len(m.group().rstrip(" \t")) >= self._fence_len:
                            self._leaf = _NO_LEAF
                            return _O_DONE, m.end()
                return _O_CODE, i
            if leaf == _ICODE:
                if indent >= _CODE_INDENT or blank:
                    return _O_CODE, i
                self._ls_leaf_ok = False
            elif leaf == _HTML:
                if not (blank and self._html_kind >= 6):
                    self._html_tail = ""
                    self._html_closing = False
                    return _O_HTML, i
                self._ls_leaf_ok = False
            else:  # paragraph
                self._ls_leaf_ok = not blank
            self._ls_stage = 2
            self._ls_closed = self._ls_leaf_ok
        # ---- stage 2: block starts
        while True:
            i, col, blank = self._nns(buf)
            indent = col - self._ls_col
            indented = indent >= _CODE_INDENT
            ch = buf[i]
            if not indented and syn.block_start.match(ch) is None:
                break
            in_para = self._leaf == _PARA and self._ls_leaf_ok and not self._ls_started
            if not indented:
                if ch == syn.quote_marker:
                    if i + 1 >= n:
                        raise _NeedMore(None)
                    self._goto(i, col)
                    self._advance(buf, 1, False)
                    if buf[self._ls_off] in " \t":
                        self._advance(buf, 1, True)
                    self._close_unmatched()
                    self._add_container(_Container(True, 0))
                    continue
                m = syn.atx.match(buf, i, partial=True) if ch in syn.atx_first else None
                if m is not None:
                    if m.partial:
                        raise _NeedMore(None)
                    self._close_unmatched()
                    self._add_leaf(_HEADING)
                    return _O_HEADING, m.end()
                fence = syn.fences.get(ch)
                if fence is not None:
                    m = fence.match(buf, i, partial=True)
                    if m is not None:
                        if m.partial or m.end() == n:  # the run may go on
                            raise _NeedMore(_wait_for_other_than(ch))
                        if ch == syn.tilde:
                            self._close_unmatched()
                            self._add_leaf(_FENCE)
                            self._fence_char, self._fence_len = ch, m.end() - i
                            return _O_CODE, i
                        self._spec_run = m.end() - i
                        self._goto(i, col)
                        return _O_FENCE_SPEC, i
                if ch == syn.tag_open:
                    kind = self._html_start_kind(buf, i)
                    if kind:
                        self._close_unmatched()
                        self._add_leaf(_HTML)
                        self._html_kind = kind
                        self._html_tail = ""
                        self._html_closing = False
                        return _O_HTML, i
                    if not in_para and not (not self._ls_closed and self._leaf == _PARA):
                        self._close_unmatched()
                        self._goto(i, col)
                        return _O_HTML7_SPEC, i
                if in_para and ch in syn.setext_first:
                    m = syn.setext.match(buf, i, partial=True)
                    if m is not None:
                        if m.partial:
                            raise _NeedMore(_wait_for_other_than(" \t" + ch))
                        self._close_leaf()
                        return _O_DONE, m.end()
                m = (self._thematic_break(buf, i, ch)
                     if ch in syn.thematic_first else None)
                if m is not None:
                    if m.partial:
                        raise _NeedMore(_wait_for_other_than(" \t" + ch))
                    self._close_unmatched()
                    self._close_leaf()
                    parent = self._blocks[-1] if self._blocks else None
                    if parent is not None:
                        parent.has_child = True
                    return _O_DONE, m.end()
                item = (self._list_marker(buf, i, col, indent, in_para)
                        if ch in syn.list_first else None)
                if item is not None:
                    self._close_unmatched()
                    self._add_container(item)
                    continue
                break
            if not blank and self._leaf != _PARA:
                self._advance(buf, _CODE_INDENT, True)
                self._close_unmatched()
                self._add_leaf(_ICODE)
                return _O_CODE, i
            break
        return self._step_c(i, blank)

    def _thematic_break(self, buf: str, i: int, ch: str) -> regex.Match[str] | None:
        """THEMATIC_BREAK at buf[i]. The first character after i that is neither `ch`
        nor a space or tab rules it out at every later position too, so it is
        remembered for the line: nested list markers (`- - - - x`) do not re-scan
        the rest of the line at each level."""
        known = self._ls_no_break.get(ch)
        if known is not None and known > i:
            return None
        other = _wait_for_other_than(" \t" + ch).search(buf, i)
        if other is not None and buf[other.start()] not in "\r\n":
            self._ls_no_break[ch] = other.start()
            return None
        return self._syn.thematic.match(buf, i, partial=True)

    def _step_c(self, i: int, blank: bool) -> tuple[int, int]:
        """No (further) block start: the rest of the line is text."""
        if not self._ls_closed and not blank and self._leaf == _PARA:
            return _O_INLINE, i  # lazy continuation
        self._close_unmatched()
        if blank:
            return _O_DONE, i
        if self._leaf != _PARA:
            self._add_leaf(_PARA)
        return _O_INLINE, i

    def _html_start_kind(self, buf: str, i: int) -> int:
        for kind, pattern in enumerate(self._syn.html_starts, 1):
            m = pattern.match(buf, i, partial=True)
            if m is not None:
                if m.partial:
                    raise _NeedMore(None)
                return kind
        return 0

    def _list_marker(self, buf: str, i: int, col: int, indent: int,
                     in_para: bool) -> _Container | None:
        syn = self._syn
        m = syn.bullet.match(buf, i, partial=True)
        if m is None:
            m = syn.ordered.match(buf, i, partial=True)
            if m is None:
                return None
            if m.partial:
                raise _NeedMore(None)
            if in_para and syn.ordered_one.fullmatch(m.group()) is None:
                return None
        elif m.partial:
            raise _NeedMore(None)
        width = m.end() - i
        n = len(buf)
        if in_para:
            # An item that interrupts a paragraph may not start with a blank line.
            r = syn.indent_run.match(buf, m.end())
            j = r.end() if r else m.end()
            if j >= n:
                raise _NeedMore(syn.wait_ws)
            if buf[j] == "\n" or buf[j] == "\r":
                return None
        # Peek far enough for the spaces after the marker (at most 5 columns).
        saved = (self._ls_off, self._ls_col, self._ls_ptab)
        self._goto(i, col)
        self._advance(buf, width, True)
        start_col, start_off = self._ls_col, self._ls_off
        while True:
            self._advance(buf, 1, True)
            if self._ls_off >= n:
                self._ls_off, self._ls_col, self._ls_ptab = saved
                raise _NeedMore(None)
            nxt = buf[self._ls_off]
            if not (self._ls_col - start_col < 5 and nxt in " \t"):
                break
        blank_item = nxt == "\n" or nxt == "\r"
        spaces = self._ls_col - start_col
        if spaces >= 5 or spaces < 1 or blank_item:
            padding = width + 1
            self._ls_col, self._ls_off = start_col, start_off
            if buf[self._ls_off] in " \t":
                self._advance(buf, 1, True)
        else:
            padding = width + spaces
        return _Container(False, indent + padding)

    def _close_unmatched(self) -> None:
        if self._ls_closed:
            return
        if self._leaf != _NO_LEAF and not self._ls_leaf_ok:
            self._close_leaf()
        del self._blocks[self._ls_k:]
        self._ls_closed = True

    def _close_leaf(self) -> None:
        if self._leaf == _PARA or self._leaf == _HEADING:
            self._end_paragraph()
        self._leaf = _NO_LEAF

    def _add_container(self, cont: _Container) -> None:
        self._close_leaf()
        if self._blocks:
            self._blocks[-1].has_child = True
        self._blocks.append(cont)
        self._ls_k = len(self._blocks)
        self._ls_started = True
        self._ls_closed = True

    def _add_leaf(self, kind: int) -> None:
        self._close_leaf()
        if self._blocks:
            self._blocks[-1].has_child = True
        self._leaf = kind
        self._ls_leaf_ok = True
        self._ls_started = True

    # ------------------------------------------------- a tool block at a line start

    def _atom_at_line_start(self, raw: str, first: str, has_eol: bool) -> None:
        """The line-start machine stopped at the `<` that begins a tool block: decide
        the line from the block's first line, then take the block as an atom."""
        buf = self._held_line()
        at = self._lb_len
        probe = buf + first + ("\n" if has_eol else "")
        kind = 0
        for k, pattern in enumerate(self._syn.html_starts, 1):
            m = pattern.match(probe, at, partial=True)
            if m is not None and not m.partial:
                kind = k
                break
        marks = [(0, item) for _, item in self._marks]
        self._lb_parts, self._lb_len, self._marks = [], 0, []
        if kind:
            self._close_unmatched()
            self._add_leaf(_HTML)
            self._html_kind, self._html_tail, self._html_closing = kind, "", False
            self._mode = _HTML_LINE
            self._resolve_marks(marks, False)
            self._html_atom(raw)
            return
        in_para = self._leaf == _PARA and self._ls_leaf_ok and not self._ls_started
        if not in_para and not (not self._ls_closed and self._leaf == _PARA):
            # A new block: an HTML block of kind 7 if the first line is one tag.
            self._close_unmatched()
            self._mode = _SPEC_HTML7
            self._spec_dfa = _automata().html_block_7.initial
            self._spec_backtick = False
            self._marks = marks
            self._spec_html7_atom(raw, first, has_eol)
            return
        self._step_c(at, False)
        self._mode = _INLINE
        self._heading = False
        self._replay("", 0, marks)
        self._inline_atom(raw)

    # ------------------------------------------------------- speculated fence line

    def _spec_fence_feed(self, text: str, i: int, n: int) -> int:
        m = self._syn.fence_info_scan.search(text, i)
        if m is None:
            self._lb_parts.append(text[i:n])
            self._lb_len += n - i
            return n
        j = m.start()
        if j > i:
            self._lb_parts.append(text[i:j])
            self._lb_len += j - i
        if text[j] == self._syn.backtick:
            self._spec_fence_to_paragraph()
        else:
            self._spec_fence_to_fence()
        return j

    def _spec_fence_to_paragraph(self) -> None:
        """A backtick after the opening run: the line is paragraph text."""
        buf = self._held_line()
        marks = self._marks
        self._lb_parts, self._lb_len, self._marks = [], 0, []
        self._step_c(0, False)
        self._mode = _INLINE
        self._heading = False
        self._replay(buf, 0, marks)

    def _spec_fence_to_fence(self) -> None:
        """The line ended with no backtick after the run: a fence opens."""
        marks = self._marks
        self._lb_parts, self._lb_len, self._marks = [], 0, []
        self._close_unmatched()
        self._add_leaf(_FENCE)
        self._fence_char, self._fence_len = self._syn.backtick, self._spec_run
        self._mode = _CODE_LINE
        self._resolve_marks(marks, True)

    # -------------------------------------------------- speculated HTML kind 7 line

    def _spec_html7_feed(self, text: str, i: int, n: int) -> int:
        dfa = _automata().html_block_7
        table, default = dfa.table, dfa.default
        state = self._spec_dfa
        backtick = self._syn.backtick
        j = i
        while j < n:
            ch = text[j]
            if ch == "\n" or ch == "\r":
                break
            nxt = table[state].get(ch, default[state])
            if nxt < 0:
                break
            if ch == backtick:
                self._spec_backtick = True
            state = nxt
            j += 1
        if j > i:
            self._lb_parts.append(text[i:j])
            self._lb_len += j - i
        self._spec_dfa = state
        if j == n:
            return n
        if (text[j] == "\n" or text[j] == "\r") and dfa.final[state]:
            marks = self._marks
            self._lb_parts, self._lb_len, self._marks = [], 0, []
            self._add_leaf(_HTML)
            self._html_kind, self._html_tail, self._html_closing = 7, "", False
            self._mode = _HTML_LINE
            self._resolve_marks(marks, False)
            return j
        self._spec_html7_to_paragraph()
        return j

    def _spec_html7_atom(self, raw: str, first: str, has_eol: bool) -> None:
        """A tool block on a line that may be an HTML block of kind 7: its first line
        decides (its line ending ends the line for that decision)."""
        dfa = _automata().html_block_7
        state = dfa.run(self._spec_dfa, first)
        if state < 0 or (has_eol and not dfa.final[state]):
            self._spec_html7_to_paragraph()
            self._inline_atom(raw)
        elif has_eol:
            marks = self._marks
            self._lb_parts, self._lb_len, self._marks = [], 0, []
            self._add_leaf(_HTML)
            self._html_kind, self._html_tail, self._html_closing = 7, "", False
            self._mode = _HTML_LINE
            self._resolve_marks(marks, False)
        else:
            self._spec_dfa = state
            self._marks.append((self._lb_len, raw))

    def _spec_html7_to_paragraph(self) -> None:
        buf = self._held_line()
        marks = self._marks
        self._lb_parts, self._lb_len, self._marks = [], 0, []
        self._add_leaf(_PARA)
        self._mode = _INLINE
        self._heading = False
        self._replay(buf, 0, marks)

    # ----------------------------------------------------------------- HTML lines

    def _html_feed(self, text: str, i: int, n: int) -> int:
        m = self._syn.eol_scan.search(text, i)
        j = m.start() if m else n
        kind = self._html_kind
        if kind <= 5 and not self._html_closing and j > i:
            seg = self._html_tail + text[i:j]
            end = self._syn.html_ends[kind]
            assert end is not None
            if end.search(seg) is not None:
                self._html_closing = True
            else:
                self._html_tail = seg[-(self._syn.html_end_width - 1):]
        if m is None:
            return n
        if self._html_closing:
            self._leaf = _NO_LEAF
        return self._end_line(text, j)

    def _html_atom(self, raw: str) -> None:
        """A tool block inside an HTML block. Its lines are no Markdown lines (a blank
        line in it does not end the block), but an end condition of kinds 1-5 in its
        text ends the block with this line, as markdown-it, which sees that text, does."""
        kind = self._html_kind
        if kind <= 5 and not self._html_closing:
            end = self._syn.html_ends[kind]
            assert end is not None
            if end.search(raw) is not None:
                self._html_closing = True
        self._html_tail = ""

    # ============================================================== inline phase

    def _inline_feed(self, text: str, i: int, n: int) -> int:
        """Paragraph or heading content from text[i]; returns after the line ending
        (the next line's start) or at n."""
        syn = self._syn
        scan = syn.inline_scan.search
        backtick, backslash, tag_open = syn.backtick, syn.backslash, syn.tag_open
        runs = syn.backtick_run.match

        bulk = syn.plain_lines.match if not self._blocks else None
        while i < n:
            if self._cands or self._esc or self._run:
                i = self._inline_slow(text, i, n)
                if self._mode != _INLINE:
                    return i
                continue
            if bulk is not None and not self._heading:
                # No container: plain continuation lines need no line-start work.
                plain = bulk(text, i)
                j = plain.end() if plain is not None else i
                if j >= n:
                    return n
            else:
                m = scan(text, i)
                if m is None:
                    return n
                j = m.start()
            ch = text[j]
            if ch == backtick:
                k = j + 1
                if k < n and text[k] == backtick and (run := runs(text, k)) is not None:
                    k = run.end()
                if k == n:
                    self._run, self._run_esc = k - j, False
                    return n
                # `_close_or_push(k - j, False)` with no candidate (so at level 0)
                index = self._len_at.get(k - j)
                if index is not None:
                    self._close_at(index, 0)
                else:
                    stack = self._stack
                    opener = _Opener(k - j, len(stack))
                    stack.append(opener)
                    self._len_at[k - j] = opener.index
                i = k
            elif ch == backslash:
                if j + 1 == n:
                    self._esc = True
                    return n
                nxt = text[j + 1]
                if nxt == backtick:
                    run = runs(text, j + 1)
                    k = run.end() if run is not None else j + 2
                    if k == n:
                        self._run, self._run_esc = k - j - 1, True
                        return n
                    self._close_or_push(k - j - 1, True)
                    i = k
                elif nxt == "\n" or nxt == "\r":
                    i = j + 1
                else:
                    i = j + 2
            elif ch == tag_open:
                i = self._tag_open(text, j + 1, n)
            else:
                self._inline_eol()
                return self._end_line(text, j)
        return n

    def _inline_slow(self, text: str, i: int, n: int) -> int:
        """Character by character, while candidates are alive (or an escape or run is
        pending); returns as soon as the fast scan can take over again."""
        syn = self._syn
        backtick, backslash, tag_open = syn.backtick, syn.backslash, syn.tag_open
        stops = syn.inline_stops
        while i < n:
            cands = self._cands
            if (len(cands) == 1 and cands[0].live == 1 and not self._run and not self._esc
                    and text[i] not in stops):
                i = cands[0].skip(text, i, n, stops)
                if i == n:
                    return n
            ch = text[i]
            if ch == backtick:
                if self._cands:
                    self._step_candidates(ch)
                if not self._run:
                    self._run_esc = self._esc
                    self._esc = False
                self._run += 1
                i += 1
                continue
            if self._run:
                self._end_run()
            if ch == "\n" or ch == "\r":
                self._inline_eol()
                return self._end_line(text, i)
            if self._cands and self._step_candidates(ch):
                self._esc = False
            elif self._esc:
                self._esc = False
            elif ch == backslash:
                self._esc = True
            elif ch == tag_open:
                i = self._tag_open(text, i + 1, n)
                if not self._cands:
                    return i
                continue
            i += 1
            if not self._cands and not self._esc:
                return i
        return n

    def _tag_open(self, text: str, i: int, n: int) -> int:
        """An unescaped `<` just before text[i] in paragraph text: a candidate, unless
        it is decided at once. Returns where the scan goes on."""
        cands = self._cands
        if len(cands) >= _MAX_CANDIDATES:
            return i
        syn = self._syn
        tag_open = syn.tag_open
        if i < n and _dead_after(tag_open, text[i]):
            return i  # (`<<`, `< `, `<1`)
        if not cands and n - i >= _LOOKAHEAD_MIN:
            # A complete tag or autolink right here, with nothing inside that has an
            # inline meaning: the candidate would complete inside it, so it changes
            # nothing (see `_candidate_ahead`). One bounded match; else the automata.
            m = syn.inline_tag.match(text, i - 1, min(n, i - 1 + _TAG_WINDOW))
            if m is not None and syn.tag_stops.search(text, i, m.end()) is None:
                return m.end()
            k = _candidate_ahead(text, i, n, tag_open, syn.inline_stops)
            if k >= 0:
                return k
        cand = _new_candidate(tag_open)
        if cand is not None:
            self._push_candidate(cand)
        return i

    def _inline_eol(self) -> None:
        if self._run:
            self._end_run()
        self._esc = False
        if self._cands:
            self._step_candidates("\n")
        if self._heading:
            self._heading = False
            self._close_leaf()

    def _inline_atom(self, raw: str) -> None:
        """A tool block inside paragraph text (SPEC G3a): an atom that opens and closes
        nothing. Raw-HTML candidates that opened before it still read its characters,
        as markdown-it would: they decide only whether that earlier `<` was a tag."""
        if self._run:
            self._end_run()
        self._esc = False
        if self._cands:
            for ch in self._syn.line_ending.sub("\n", raw):
                self._step_candidates(ch)
                if not self._cands:
                    break

    # ------------------------------------------------------------- code spans

    def _end_run(self) -> None:
        length, escaped = self._run, self._run_esc
        self._run, self._run_esc = 0, False
        self._close_or_push(length, escaped)

    def _close_or_push(self, length: int, escaped: bool) -> None:
        """A complete backtick run (its first backtick escaped if `escaped`).

        As a closer, the whole run counts (markdown-it scans for closers without
        regard to escapes); as an opener, an escaped first backtick is literal.
        """
        index = self._len_at.get(length)
        if index is not None:
            self._close_at(index, bisect.bisect_right(self._bases, index))
            return
        if escaped:
            length -= 1
            if not length or length in self._len_at:
                # An opener of this length is already stuck below: whatever closes
                # this one closes that one first, so it adds nothing.
                return
        stack = self._stack
        opener = _Opener(length, len(stack))
        stack.append(opener)
        self._len_at[length] = opener.index

    def _close_at(self, index: int, level: int) -> None:
        """The opener at `index` (in `level`'s part of the stack) is closed."""
        stack = self._stack
        out = self._out
        len_at = self._len_at
        for opener in stack[index:]:
            opener.alive = False
            del len_at[opener.length]
            for ticket in opener.tickets:
                out.append((ticket, True))
        del stack[index:]
        if len(self._cands) > level:
            del self._cands[level:]
            del self._bases[level:]
        if self._branch:
            for bt in self._branch:
                attach = bt.attach
                if len(attach) <= level:
                    attach.extend([attach[-1]] * (level + 1 - len(attach)))
                else:
                    del attach[level + 1:]
                here = attach[level]
                if isinstance(here, _Opener) and not here.alive:
                    attach[level] = _CODE_MARK
            self._settle_branch()

    # ------------------------------------------------------------- candidates

    def _push_candidate(self, cand: _Candidate) -> None:
        self._bases.append(len(self._stack))
        self._cands.append(cand)

    def _step_candidates(self, ch: str) -> bool:
        """Step every live candidate; True if one completed (consuming `ch`)."""
        cands = self._cands
        j = 0
        changed = False
        while j < len(cands):
            result = cands[j].step(ch)
            if result == _ALIVE:
                j += 1
            elif result == _COMPLETE:
                # The tag from candidate j is complete: the levels that assumed it
                # fails, and the runs pushed there (inside the tag), are gone.
                base = self._bases[j]
                for opener in self._stack[base:]:
                    opener.alive = False
                    del self._len_at[opener.length]
                del self._stack[base:]
                del cands[j:]
                del self._bases[j:]
                for bt in self._branch:
                    del bt.attach[j + 1:]
                self._settle_branch()
                return True
            else:
                # Not a tag: level j+1 (which read it as text) becomes level j.
                del cands[j]
                del self._bases[j]
                for bt in self._branch:
                    if len(bt.attach) > j + 1:
                        del bt.attach[j]
                changed = True
        if changed and self._branch:
            self._settle_branch()
        return False

    # ---------------------------------------------------------------- tickets

    def _attach(self, ticket: int) -> None:
        """Attach a ticket to the current position (the opener stack is not empty)."""
        stack = self._stack
        if not self._cands:
            stack[-1].tickets.append(ticket)
            return
        attach: list[Any] = [stack[b - 1] if b > 0 else None for b in self._bases]
        attach.append(stack[-1])
        self._branch.append(_BranchTicket(ticket, attach))

    def _settle_branch(self) -> None:
        live = len(self._cands) + 1
        keep = []
        for bt in self._branch:
            attach = bt.attach[:live]
            bt.attach = attach
            if all(a is _CODE_MARK for a in attach):
                self._out.append((bt.ticket, True))
            elif all(a is None for a in attach):
                self._out.append((bt.ticket, False))
            elif live == 1:
                opener = attach[0]
                assert isinstance(opener, _Opener)
                opener.tickets.append(bt.ticket)
            else:
                keep.append(bt)
        self._branch = keep

    def _end_paragraph(self) -> None:
        """The paragraph (or heading) ends: every open ticket is text, except those a
        span in the surviving reading (all candidates fail) already covers."""
        out = self._out
        if self._run:
            self._end_run()
        for opener in self._stack:
            opener.alive = False
            for ticket in opener.tickets:
                out.append((ticket, False))
        live = len(self._cands) + 1
        for bt in self._branch:
            last = bt.attach[live - 1] if len(bt.attach) >= live else bt.attach[-1]
            out.append((bt.ticket, last is _CODE_MARK))
        self._stack = []
        self._len_at = {}
        self._cands = []
        self._bases = []
        self._branch = []
        self._esc = False
        self._heading = False
