"""Feeding paragraph and heading text through the inline rules.

Only a few characters can change the inline state (INLINE_SCAN: backticks, backslashes,
`<`, brackets, line endings); text between them is skipped by one compiled search. A
piece of mid-line text with none of them costs that one search. While a candidate is
alive, an escape or a backtick run is still arriving, or a `]` waits for the character
after it, the text goes character by character (`_slow`), and back to the fast loop as
soon as none of that holds.

`feed` stops at a line ending and returns its index: the line ending belongs to the
block phase (the tracker), which calls `eol` and then decides the next line.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from toolparse._markdown.inlines import code_span, links, raw_html
from toolparse._markdown.inlines.state import (
    CODE_MARK, DEFS_NO, DEFS_YES, InlineState, Opener, Resolution)
from toolparse._markdown.inlines.tickets import attach
from toolparse._markdown.inlines.views import skip_candidates, step_candidates
from toolparse._markdown.syntax import Syntax, automata, syntax
from toolparse._syntax.once import Once
from toolparse._syntax.regexp import second_chars
from toolparse._errors import GrammarError

__all__ = ["Scan", "scan_patterns", "feed", "eol", "atom", "ticket", "prepare",
           "begin_paragraph", "begin_heading", "end_paragraph", "quiet"]


class Scan(NamedTuple):
    """The compiled searches of the inline phase."""

    search: re.Pattern[str]       # the next character that may change the state
    plain_lines: re.Pattern[str]  # plain text across plain continuation lines
    plain_class: str              # a character with no inline meaning, as a class


def scan_patterns() -> Scan:
    return _SCAN.get()


def _build_scan() -> Scan:
    syn = syntax()
    inline_scan = syn.need("INLINE_SCAN")
    if not inline_scan.startswith("[") or inline_scan.startswith("[^"):
        raise GrammarError(f"{syn.path}: INLINE_SCAN must be a character class")
    # A `<` followed by a character that no raw HTML tag or autolink can continue with
    # (`<<`, `< `, `<1`) changes nothing: the scans step over it at C speed.
    tag_open = syn.tag_open
    alive: set[str] = set()
    for name in ("RAW_HTML", "URI_AUTOLINK", "EMAIL_AUTOLINK"):
        found = second_chars(syn.need(name))
        if found is None or found[0] != tag_open:
            alive = set()
            break
        alive |= found[1]
    plain_class = "[^" + inline_scan[1:]
    if alive:
        alive_class = "".join(re.escape(c) for c in sorted(alive))
        dead_tag_open = re.escape(tag_open) + "(?=[^" + alive_class + "])"
        text_run = f"{plain_class}*(?:{dead_tag_open}{plain_class}*)*"
        # One character class first, so that a search skips to it at C speed (the
        # standard library's engine finds no fast prefix in an alternation whose first
        # branch is a class); then a `<` must be followed by a character it can
        # continue with, or by the end.
        search = (f"{inline_scan}(?:(?<!{re.escape(tag_open)})|(?![^{alive_class}]))")
    else:
        text_run = plain_class + "*"
        search = inline_scan
    block_start = syn.need("BLOCK_START_SCAN")
    plain_lines = re.compile(text_run + "(?:\n {0,3}(?!" + block_start + ")(?=[^ \t\r\n])"
                             + text_run + ")*")
    return Scan(re.compile(search), plain_lines, plain_class)


_SCAN: Final = Once(_build_scan)


def quiet(s: InlineState) -> bool:
    """Nothing is arriving that a plain piece of text could change."""
    return not (s.cands or s.esc or s.run or s.closed is not None or s.line_fresh)


# ------------------------------------------------------------------ paragraphs

def begin_paragraph(s: InlineState) -> None:
    """A paragraph opens: definitions may begin it."""
    s.defs = DEFS_YES
    s.title_next = False
    s.line_fresh = True


def begin_heading(s: InlineState) -> None:
    s.defs = DEFS_NO
    s.line_fresh = False


def end_paragraph(s: InlineState) -> None:
    """The paragraph (or heading) ends: every open ticket is text, except those a span
    in the surviving view (every candidate fails) already covers."""
    if not (s.stack or s.cands or s.branch or s.serial or s.run):
        s.offset = 0  # nothing was kept: the light part of `reset`
        s.defs = DEFS_NO
        s.title_next = s.line_fresh = s.esc = False
        s.last = ""
        s.esc_end = -1
        s.assumed.clear()
        s.tainted = False
        return
    out = s.out
    if s.run:
        code_span.end_run(s)
    for opener in s.stack:
        opener.alive = False
        for t in opener.tickets:
            out.append((t, False))
    live = len(s.cands) + 1
    for bt in s.branch:
        last = bt.attach[live - 1] if len(bt.attach) >= live else bt.attach[-1]
        out.append((bt.ticket, last is CODE_MARK))
    s.reset()


def prepare(s: InlineState) -> None:
    """Before a tool tag here: what was arriving ends (a run, a `]`'s next character,
    a definition that did not start). `links.fork_needed(s, "")` first."""
    if s.run:
        code_span.end_run(s)
    if s.closed is not None:
        links.after_close(s, "")
    if s.line_fresh:
        links.start_line(s, "")


def ticket(s: InlineState, number: int) -> bool:
    """A tool tag at the current position: attach `number` and return True, or return
    False when it is outside code for certain (no stuck opener)."""
    if s.run or s.closed is not None or s.line_fresh:
        prepare(s)
    if not s.stack:
        return False
    attach(s, number)
    return True


def _resolve_pending(s: InlineState) -> None:
    """An atom or line ending: a run or escape that was arriving ends, a `]` waiting
    on its next character is followed by none."""
    if s.run:
        code_span.end_run(s)
    s.esc = False
    if s.closed is not None:
        links.after_close(s, "")


def eol(s: InlineState) -> None:
    """The line ends (inside the paragraph; the tracker decides what comes next)."""
    _resolve_pending(s)
    if s.cands:
        step_candidates(s, "\n")
    links.record(s, "\n")
    s.last = "\n"
    s.line_fresh = s.defs == DEFS_YES


def atom(s: InlineState, raw: str) -> None:
    """A tool block inside paragraph text (SPEC G3a): an atom that opens and closes
    nothing. Candidates that opened before it still read its characters, as
    markdown-it would: they decide only whether that earlier `<` or `](` was one."""
    _resolve_pending(s)
    if s.line_fresh:
        links.start_line(s, "")
    if s.cands:
        for ch in syntax().line_ending.sub("\n", raw):
            step_candidates(s, ch)
            if not s.cands:
                break
    links.record(s, raw)
    s.last = ""


# ---------------------------------------------------------------------- feeding

def feed(s: InlineState, text: str, i: int, n: int, bulk: bool) -> int:
    """Paragraph or heading content text[i:n]; returns the index of the line ending
    that stops it, or n. `bulk`: plain continuation lines need no block-phase work
    (no container is open, not a heading)."""
    start = i
    while True:
        if s.cands or s.esc or s.run or s.closed is not None or s.line_fresh:  # (quiet)
            if i > start:
                s.last = text[i - 1]
            i = _slow(s, text, i, n)
        else:
            i = _fast(s, text, i, n, bulk)
        if i >= n or text[i] == "\n" or text[i] == "\r" or s.fork_label is not None:
            if i > start:
                s.last = text[i - 1]
            return i


def _fast(s: InlineState, text: str, i: int, n: int, bulk: bool) -> int:
    """The fast loop: from one character that may change the state to the next.
    Returns at a line ending, at n, or where the slow loop must take over."""
    syn = syntax()
    scan = scan_patterns()
    search = scan.search.search
    backtick, backslash, tag_open = syn.backtick, syn.backslash, syn.tag_open
    runs = syn.backtick_run.match
    plain = scan.plain_lines.match if bulk and not s.serial else None
    base = i  # text[base:i] is recorded when the loop leaves it
    try:
        while i < n:
            if plain is not None:
                m = plain(text, i)
                j = m.end() if m is not None else i
                if j >= n:
                    i = n
                    break
            else:
                found = search(text, i)
                if found is None:
                    i = n
                    break
                j = found.start()
            ch = text[j]
            if ch == backtick:
                k = j + 1
                if k < n and text[k] == backtick and (run := runs(text, k)) is not None:
                    k = run.end()
                if k == n:
                    s.run, s.run_esc = k - j, False
                    i = n
                    break
                length = k - j
                index = s.len_at.get(length)  # (no candidate: view 0)
                if index is not None:
                    code_span.close_at(s, index, 0)
                else:  # (code_span.push)
                    stack = s.stack
                    s.len_at[length] = len(stack)
                    stack.append(Opener(length, len(stack), (s.head, s.inactive)))
                i = k
            elif ch == backslash:
                i = _escape(s, text, j, n, base)
            elif ch == tag_open:
                serial = s.serial
                i = raw_html.tag_open(s, text, j + 1, n)
                if s.cands:
                    break
                if s.serial != serial:  # brackets inside a tag, counted: as `_slow`
                    plain = None        # would leave it, the text is recorded now
            elif ch == "\n" or ch == "\r":
                i = j
                break
            else:  # a bracket
                if ch == syn.link_open:
                    links.record(s, text[base:j + 1])
                else:
                    links.record(s, text[base:j])
                    base = i = j
                    if (label := links.fork_needed(s, ch)) is not None:
                        s.fork_label = label  # the tracker splits the world here
                        break
                    links.record(s, ch)
                base = i = j + 1
                _bracket(s, ch == syn.link_open, text[j - 1] if j > 0 else s.last)
                if s.closed is not None:
                    break
    finally:
        if s.serial:
            links.record(s, text[base:i])
        else:
            s.offset += i - base
    return i


def _escape(s: InlineState, text: str, j: int, n: int, base: int) -> int:
    """The backslash text[j] in the fast loop (`s.offset` is at text[base]); returns
    where the loop goes on."""
    if j + 1 == n:
        s.esc = True
        return n
    nxt = text[j + 1]
    syn = syntax()
    if nxt == syn.backtick:
        run = syn.backtick_run.match(text, j + 1)
        k = run.end() if run is not None else j + 2
        if k == n:
            s.run, s.run_esc = k - j - 1, True
            return n
        code_span.close_or_push(s, k - j - 1, True)
        return k
    if nxt == "\n" or nxt == "\r":
        return j + 1
    s.esc_end = s.offset + (j + 2 - base)
    return j + 2


def _bracket(s: InlineState, opening: bool, prev: str) -> None:
    """A bracket, just recorded (`s.offset` is after it); `prev` is the character
    before it."""
    if opening:
        image = prev == syntax().image_open[0] and s.esc_end != s.offset - 1
        links.open_bracket(s, image)
        return
    node = s.head
    label = None
    if node is not None:
        since = links.text_since(s, node.start, "")
        label = since[:-1] if since is not None else None
    links.close_bracket(s, label)


def _slow(s: InlineState, text: str, i: int, n: int) -> int:
    """Character by character, while candidates are alive (or an escape, a run or a
    `]` is pending, or a definition may start); returns as soon as the fast loop can
    take over again, or at a line ending."""
    stops = raw_html.patterns().stops
    syn = syntax()
    link_close = syn.link_close
    while i < n:
        ch = text[i]
        if ch == "\n" or ch == "\r":
            return i
        cands = s.cands
        if (cands and not s.run and not s.esc and s.closed is None and not s.line_fresh
                and ch not in stops):
            k = skip_candidates(cands, text, i, n, stops)
            if k > i:
                links.record(s, text[i:k])
                s.last = text[k - 1]
                i = k
                continue
        if s.line_fresh:
            links.start_line(s, ch)
        if (s.closed is not None or ch == link_close) and (
                label := links.fork_needed(s, ch)) is not None:
            s.fork_label = label  # the tracker splits the world here
            return i
        i = _one(s, text, i, n, ch, syn)
        if quiet(s):
            return i
    return n


def _one(s: InlineState, text: str, i: int, n: int, ch: str, syn: Syntax) -> int:
    """text[i] (= `ch`, no line ending) in slow mode; returns the next index."""
    prev = s.last
    links.record(s, ch)
    s.last = ch
    if ch == syn.backtick:
        if s.cands:
            step_candidates(s, ch)
        if s.closed is not None:
            links.after_close(s, ch)
        if not s.run:
            s.run_esc = s.esc
            s.esc = False
        s.run += 1
        return i + 1
    if s.run:
        code_span.end_run(s)
    if s.cands and step_candidates(s, ch):
        s.esc = False  # a candidate completed with it
        return i + 1
    if s.closed is not None and links.after_close(s, ch):
        return i + 1  # the `[` of a reference label, now open
    if s.esc:
        s.esc = False
        s.esc_end = s.offset
    elif ch == syn.backslash:
        s.esc = True
    elif ch == syn.tag_open:
        k = raw_html.tag_open(s, text, i + 1, n)
        if k > i + 1:
            links.record(s, text[i + 1:k])
            s.last = text[k - 1]
        return k
    elif ch == syn.link_open or ch == syn.link_close:
        _bracket(s, ch == syn.link_open, prev)
    return i + 1
