"""The Markdown syntax the tracker reads from grammars/markdown.lark, compiled once.

Nothing here spells a marker: every character, pattern and automaton comes from a
terminal of the grammar file, by name. `syntax()` gives the compiled patterns (cached
per process); `automata()` the deterministic automata that are stepped as characters
arrive (built with interegular once per grammar and cached on disk). Rule modules ask
for what they need by terminal name; the patterns that combine several rules (the
whole-line shortcut, the inline scan) are composed where those rules are listed
(`lines.py`, `inlines/runner.py`).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final, NamedTuple

from toolparse._errors import GrammarError
from toolparse._syntax.dfa import DFA, compile_dfa, dfa_from_data, dfa_to_data
from toolparse._syntax.files import cached_json, grammar_path, terminal_table
from toolparse._syntax.once import Once
from toolparse._syntax.regexp import Partial, partial_pattern

__all__ = ["GRAMMAR", "Syntax", "Automata", "syntax", "automata", "wait_for_other_than",
           "TAB_STOP", "CODE_INDENT"]

GRAMMAR = "markdown.lark"

# A tab advances to the next multiple of this many columns (CommonMark 2.2).
TAB_STOP: Final = 4
# Indentation of this many columns or more is indented code (CommonMark 4.4).
CODE_INDENT: Final = 4

# The shortcuts that read ahead (whole lines in `lines.py`, a tag decided at its `<` in
# `inlines/raw_html.py`) pay for themselves on pieces at least this long; short pieces
# (a few characters while a ticket is outstanding) go the general way. The tests move
# it (to 0: shortcuts wherever they apply; out of reach: never) to compare the ways.
LOOKAHEAD_MIN = 32


class Syntax(NamedTuple):
    """The grammar's terminals: single characters, and compiled patterns by name."""

    path: str
    regexps: dict[str, str]
    widths: dict[str, int]
    literals: dict[str, str]
    backtick: str
    tilde: str
    backslash: str
    tag_open: str
    quote_marker: str
    link_open: str
    link_close: str
    image_open: str
    paren_open: str
    line_ending: re.Pattern[str]
    eol_scan: re.Pattern[str]
    block_start: re.Pattern[str]
    indent_run: re.Pattern[str]
    spaces: re.Pattern[str]
    wait_ws: re.Pattern[str]
    backtick_run: re.Pattern[str]
    fence_info_scan: re.Pattern[str]
    link_label: re.Pattern[str]

    def need(self, name: str) -> str:
        """The regular expression of terminal `name`."""
        try:
            return self.regexps[name]
        except KeyError:
            raise GrammarError(f"{self.path}: terminal {name} is missing") from None

    def partial(self, name: str) -> Partial:
        """Terminal `name` for partial matching (a marker cut by the end of the text
        reads "need more", never "no"), compiled on its first match."""
        return Partial(self.need(name))

    def compiled(self, name: str) -> re.Pattern[str]:
        return _compiled(self.need(name))

    def first_chars(self, *names: str) -> frozenset[str]:
        """The ASCII characters a block start of these terminals can begin with (a
        pre-check before the pattern), found by asking the patterns themselves (once:
        the answer is cached with the patterns, so that a warm start needs no `regex`)."""
        scan = self.need("BLOCK_START_SCAN")
        return frozenset().union(*(_first_chars(scan, self.need(name)) for name in names))


@functools.cache
def _first_chars(scan: str, pattern: str) -> frozenset[str]:
    def build() -> str:
        starts = _compiled(scan)
        ascii_ = [chr(c) for c in range(0x21, 0x7F) if starts.fullmatch(chr(c))]
        marker = partial_pattern(pattern)
        return "".join(c for c in ascii_ if marker.match(c, partial=True))
    return cached_json("first_chars", f"{scan}\0{pattern}", build, frozenset)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def syntax() -> Syntax:
    """The Markdown grammar's syntax, built on first use."""
    return _SYNTAX.get()


def _build_syntax() -> Syntax:
    path = grammar_path(GRAMMAR)
    table = terminal_table(path)
    literals = {name: t.literal for name, t in table.items() if t.literal is not None}

    def char(name: str, width: int = 1) -> str:
        value = literals.get(name)
        if value is None or len(value) != width:
            raise GrammarError(f"{path}: terminal {name} must be a literal of {width} "
                               "character(s)")
        return value

    regexps = {name: t.regexp for name, t in table.items()}
    found = Syntax(
        path=str(path), regexps=regexps,
        widths={name: t.max_width for name, t in table.items()},
        literals=literals,
        backtick=char("BACKTICK"), tilde=char("TILDE"), backslash=char("BACKSLASH"),
        tag_open=char("TAG_OPEN"), quote_marker=char("BLOCKQUOTE_MARKER"),
        link_open=char("LINK_OPEN"), link_close=char("LINK_CLOSE"),
        image_open=char("IMAGE_OPEN", 2), paren_open=char("LINK_PAREN_OPEN"),
        line_ending=re.compile(regexps.get("LINE_ENDING", "")),
        eol_scan=re.compile(regexps.get("LINE_ENDING_SCAN", "")),
        block_start=re.compile(regexps.get("BLOCK_START_SCAN", "")),
        indent_run=re.compile(regexps.get("INDENT_RUN", "")),
        spaces=re.compile(" *"),
        wait_ws=re.compile("[^ \t]"),
        backtick_run=re.compile(regexps.get("BACKTICK_RUN", "")),
        fence_info_scan=re.compile(regexps.get("FENCE_INFO_SCAN", "")),
        link_label=re.compile(regexps.get("LINK_LABEL", "")),
    )
    for name in ("LINE_ENDING", "LINE_ENDING_SCAN", "BLOCK_START_SCAN", "INDENT_RUN",
                 "BACKTICK_RUN", "FENCE_INFO_SCAN", "LINK_LABEL", "INLINE_SCAN"):
        found.need(name)
    if found.image_open[1] != found.link_open:
        raise GrammarError(f"{path}: IMAGE_OPEN must end with LINK_OPEN")
    return found


_SYNTAX: Final = Once(_build_syntax)


@functools.cache
def wait_for_other_than(chars: str) -> re.Pattern[str]:
    """A wait set: the held line start can only change at a character not in `chars`."""
    return re.compile("[^" + re.escape(chars) + "]")


# ------------------------------------------------------------------------- automata

INLINE_AUTOMATA = ("RAW_HTML", "URI_AUTOLINK", "EMAIL_AUTOLINK")
LINK_AUTOMATA = ("LINK_TAIL", "DEFINITION_BARE", "DEFINITION_TITLED", "TITLE_LINE")
_AUTOMATA = (*INLINE_AUTOMATA, "HTML_BLOCK_7_LINE", *LINK_AUTOMATA)


class Automata(NamedTuple):
    inline: tuple[DFA, ...]    # raw HTML, URI autolink, e-mail autolink
    html_block_7: DFA          # a whole line that is one tag
    link_tail: DFA             # `(destination "title")` after a link's `]`
    definition: tuple[DFA, DFA]  # a definition ending after its destination, or title
    title_line: DFA            # a definition's title on the next line


@functools.cache
def automata() -> Automata:
    """The automata, built with interegular (a second or two) once per grammar and
    then read from the cache (`cached_json`)."""
    syn = syntax()
    patterns = [syn.need(name) for name in _AUTOMATA]

    def compile_one(pattern: str) -> DFA:
        # markdown-it replaces NUL with U+FFFD before parsing.
        return compile_dfa(pattern, same_as={"\x00": "\ufffd"})

    def build() -> list[list[Any]]:
        return [dfa_to_data(compile_one(p)) for p in patterns]

    try:
        dfas = [dfa_from_data(d) for d in cached_json("automata", "\0".join(patterns), build)]
    except (TypeError, ValueError, KeyError, IndexError):  # a cache of another shape
        dfas = [compile_one(p) for p in patterns]
    return Automata(inline=tuple(dfas[:3]), html_block_7=dfas[3], link_tail=dfas[4],
                    definition=(dfas[5], dfas[6]), title_line=dfas[7])
