"""A chunk-aware lexer over Lark terminals, one compiled pattern per parser state.

Lark's own lexer cannot stream: it lexes only the text it is given and would read the
end of a chunk (`<tool_`) as something else. This lexer matches one token at a time in
the parser state's candidates (the terminals the parser takes there, then the %ignore
ones, in Lark's order: priority, then longest pattern, then name), all in one compiled
alternation, so a token costs one `re` match at C speed. The first alternative that
matches wins, as in Lark.

Terminals are of two kinds (see the header of grammars/dialects/deepseek.lark):

* A **run** is one character class repeated (`[^<]+`, `\\s+`). Any piece of a run is a
  run, so a run that reaches the end of the text is a token, and the next chunk may go
  on with more of it (`continues`): a value arriving in small chunks costs an append per
  chunk, not a match.
* An **atom** is everything else (a tag, `<![CDATA[`, `]]>`). It must arrive whole and
  is at most `MAX_ATOM` characters long: a longer one does not match.

"Not yet" (`NEED_MORE`): the text ends where a candidate could still match (no
alternative matched, but one is a prefix of a match), or where an earlier alternative
could still match and would beat the one that did (`</para` at the end of a value
could still be `</parameter>`, which beats `<`). Both are decided by stepping the
candidates' automata (`_syntax.dfa`) over at most `MAX_ATOM` characters; a terminal
with a lookahead is asked with the `regex` module's partial matching instead.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from toolparse._syntax.dfa import DFA, can_finish, dfa_for, may_continue_into
from toolparse._syntax.regexp import (
    first_chars, lookahead_consumed, partial_pattern, reach, refusal_reach, widths,
    without_captures)

if TYPE_CHECKING:
    import regex

__all__ = ["MAX_ATOM", "NEED_MORE", "StateLexer", "TerminalSpec", "can_start", "next_token",
           "plain_pattern", "row_safe", "settle", "settle_state", "token_reach"]

MAX_ATOM: Final = 1024
"""The longest an atom (a tag, a marker) may be. A longer one does not match."""

NEED_MORE: Final = -1
"""`next_token` result: the text ends where a token could still be arriving."""

# A run: one character class (or class escape) repeated one or more times.
_RUN_SHAPE: Final = re.compile(r"(?:\[(?:\\.|[^\]\\])+\]|\\[sSdDwW]|\\.|[^\\\[\](){}|.*+?^$])\+")
# A run whose class is a negated set of at most a few literal characters: `[^<]+`.
_NEGATED_RUN: Final = re.compile(r"\[\^((?:\\.|[^\]\\]){1,4})\]\+")
_NAMED_GROUP: Final = re.compile(r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>")
_MISSING: Final = object()
_DFAS: dict[str, object] = {}
_CONSUMED_DFAS: dict[str, object] = {}
"""Terminal pattern -> its automaton (or None), once per process."""


@dataclass(frozen=True, slots=True)
class TerminalSpec:
    """One terminal of a grammar, compiled for streaming."""

    name: str
    priority: int
    pattern: str
    is_run: bool
    has_lookahead: bool
    full: re.Pattern[str]
    """The pattern for complete matches (the fast `re` engine)."""
    sort_key: tuple[int, int, int, str]
    starts: frozenset[str] | None = field(default=None)
    """The characters a match can start with; None when it could be almost any."""
    stops: str | None = None
    """For a run of a negated class (`[^<]+`): the characters that end it."""
    has_name: bool = False
    """The pattern has a `(?P<name>...)` group (a tag that carries a name, SPEC 5.1)."""
    bound: int = 0
    """The longest match the lexer's loop takes as it is: MAX_ATOM for an atom, any
    length for a run."""
    refusal: int = 1
    """How many characters after a match its negative lookaheads can read (at least
    one: a match at the end of the text waits for the next character)."""

    @property
    def partial(self) -> regex.Pattern[str]:
        """The pattern in the `regex` engine, which can report a partial match.
        Compiled on first use: `regex` compiles slowly."""
        return partial_pattern(self.full.pattern)

    @property
    def dfa(self) -> DFA | None:
        """The pattern's automaton, or None (a lookahead, or one interegular cannot read)."""
        found = _DFAS.get(self.full.pattern, _MISSING)
        if found is _MISSING:
            found = None if self.has_lookahead else dfa_for(self.full.pattern)
            _DFAS[self.full.pattern] = found
        return found  # type: ignore[return-value]

    @property
    def consumed_dfa(self) -> DFA | None:
        """For a terminal that ends in a positive lookahead (and has no other), the
        automaton of its pattern with the lookahead read as characters
        (`lookahead_consumed`): its prefixes are the texts that may still become a
        match. None otherwise."""
        found = _CONSUMED_DFAS.get(self.full.pattern, _MISSING)
        if found is _MISSING:
            found = None
            if self.has_lookahead and refusal_reach(self.full.pattern) == 0:
                found = dfa_for(lookahead_consumed(plain_pattern(self)))
            _CONSUMED_DFAS[self.full.pattern] = found
        return found  # type: ignore[return-value]

    def continues(self, chunk: str) -> bool:
        """For a run: whether all of `chunk` is more of it."""
        stops = self.stops
        if stops is not None:
            for stop in stops:
                if stop in chunk:
                    return False
            return True
        return self.full.fullmatch(chunk) is not None

    @classmethod
    def compile(cls, name: str, pattern: str, flags: Collection[str], priority: int,
                max_width: int) -> TerminalSpec:
        inline_flags = "".join(sorted(flags))
        source = f"(?{inline_flags}:{pattern})" if inline_flags else pattern
        unwrapped = pattern
        while unwrapped.startswith("(?:") and unwrapped.endswith(")"):
            unwrapped = unwrapped[3:-1]
        is_run = _RUN_SHAPE.fullmatch(unwrapped) is not None
        negated = _NEGATED_RUN.fullmatch(unwrapped) if is_run and not inline_flags else None
        stops = _unescape_class(negated.group(1)) if negated is not None else None
        return cls(
            name=name,
            priority=priority,
            pattern=pattern,
            is_run=is_run,
            bound=sys.maxsize if is_run else MAX_ATOM,
            has_lookahead="(?=" in pattern or "(?!" in pattern,
            refusal=_refusal(source),
            full=re.compile(source),
            # Lark's own order for a contextual lexer state.
            sort_key=(-priority, -max_width, -len(pattern), name),
            starts=first_chars(source),
            stops=stops,
            has_name="(?P<name>" in pattern,
        )


def _unescape_class(body: str) -> str | None:
    chars, i = [], 0
    while i < len(body):
        if body[i] == "\\":
            if i + 1 >= len(body) or body[i + 1].isalnum():
                return None  # a class escape (\s): not a small literal set
            chars.append(body[i + 1])
            i += 2
        elif body[i] == "-" and 0 < i < len(body) - 1:
            return None  # a range
        else:
            chars.append(body[i])
            i += 1
    return "".join(chars)


@dataclass(frozen=True, slots=True)
class StateLexer:
    """The terminals to try in one parser state, as one compiled alternation."""

    candidates: tuple[TerminalSpec, ...]
    master: re.Pattern[str]
    by_group: tuple[TerminalSpec | None, ...]
    """Group number -> the candidate whose alternative that group is."""
    earlier_atoms: dict[str, tuple[TerminalSpec, ...]]
    """Candidate name -> the atoms before it that could start with one of its first
    characters (they beat it when they could still match)."""
    careful: frozenset[str]
    """The candidates whose match near the end of the text needs a second look: an
    earlier atom could still beat them, or they have a lookahead."""
    second_look: dict[str, int]
    """Each candidate -> how many characters must follow a match of it for no second
    look to be needed (`_second_look`; -1 for one that is not careful)."""
    lead: re.Pattern[str]
    """What the lexer's loop matches first: `master` with the state's ignored
    whitespace folded in front (`fold_pattern`), so that one match reads the
    whitespace and the token after it, or `master` itself when it cannot be folded.
    Its groups' candidates are `lead_groups`."""
    lead_groups: tuple[TerminalSpec | None, ...]
    folds: bool
    """`lead` is not `master`: a match may begin with ignored whitespace."""
    tries: dict[str, dict[str, tuple[tuple[TerminalSpec, DFA | None], ...]]] = field(
        default_factory=dict, compare=False)
    """For `_arriving_in`: a candidate's name ("" for all the candidates) -> the first
    character of a text -> the atoms, among the candidates or the atoms earlier than
    that one, that a text starting with it may be a prefix of, with their automata.
    Filled as texts ask."""
    loop_run: re.Pattern[str] | None = field(default=None, compare=False)
    """One or more tokens in a row, each of which the alternation would read as one of
    the state's loop tokens (`loop_run_pattern`); None when the state has none."""
    held: frozenset[str] = frozenset()
    """The runs among the candidates that the parser takes as tokens (neither loop
    tokens nor ignored: JSON's whitespace between two tokens, `_json_ws: JSON_WS?`).
    Fed as far as it goes, such a run cut by a chunk's end could not go on in the next
    chunk as another token of it (the rule takes one), and the rest would be read as
    something else (the dialect's ignored whitespace, lost from the value's text): one
    that reaches the end of the text waits for more (`settle_state`)."""
    margin: int = MAX_ATOM
    """How near the end of the text a token (or a row's end) must be to need a second
    look: the most any candidate reads from where it begins (`token_reach`), at most
    MAX_ATOM. Farther from the end, the text that follows cannot change the match: in a
    string's state (a quote, an escape, a run) a handful of characters, not MAX_ATOM."""

    @classmethod
    def build(cls, ordered: Iterable[TerminalSpec], loops: Collection[str] = (),
              ignored: Collection[str] = (), held: frozenset[str] = frozenset()
              ) -> StateLexer:
        """The lexer of `ordered` (Lark's order, `cheap_first`); `loops`: the names
        of the state's loop tokens (`table.py`), for `loop_run`; `ignored`: the
        grammar's ignored terminals, for `lead`; `held`: as the field says."""
        candidates = cheap_first(tuple(ordered))
        parts: list[str] = []
        by_group: list[TerminalSpec | None] = [None]
        for spec in candidates:
            body = plain_pattern(spec)
            by_group.append(spec)
            by_group.extend([None] * re.compile(body).groups)
            parts.append(f"({body})")
        master = re.compile("|".join(parts) if parts else r"(?!)")
        run = loop_run_pattern(candidates, loops)
        earlier: dict[str, tuple[TerminalSpec, ...]] = {}
        for n, spec in enumerate(candidates):
            earlier[spec.name] = tuple(
                other for other in candidates[:n]
                if not other.is_run and _may_share_start(other, spec)
                and _may_beat(other, spec))
        careful = frozenset(spec.name for spec in candidates
                            if earlier[spec.name] or spec.has_lookahead) | held
        second_look = {spec.name: _second_look(spec, earlier[spec.name])
                       if spec.name in careful else -1 for spec in candidates}
        folded = fold_pattern(candidates, ignored)
        lead, lead_groups = ((re.compile(folded[0]), folded[1]) if folded is not None
                             else (master, tuple(by_group)))
        return cls(candidates, master, tuple(by_group), earlier, careful, second_look, lead,
                   lead_groups, folded is not None, loop_run=re.compile(run) if run is not None else None,
                   held=held, margin=max((token_reach(spec) for spec in candidates), default=1))


def _second_look(spec: TerminalSpec, earlier: tuple[TerminalSpec, ...]) -> int:
    """How many characters must follow a match of `spec` for the text after it to be
    unable to change it (`settle_state`'s second look): its lookahead's `refusal`, and
    the reach of each earlier atom that could still beat it (one that begins where the
    match does can read no farther than that), at most MAX_ATOM."""
    found = spec.refusal if spec.has_lookahead else 0
    for atom in earlier:
        found = max(found, token_reach(atom))
    return min(found, MAX_ATOM)


def token_reach(spec: TerminalSpec) -> int:
    """How many characters from where a token of `spec` begins the text can still change
    it (its widest match with its lookaheads, and one more: `regexp.reach`), at most
    MAX_ATOM; a run with no lookahead, 1 (any text it begins with is a match of it, and
    a match that ends before the end of the text is whole)."""
    if spec.is_run and not spec.has_lookahead:
        return 1
    found = reach(spec.full.pattern)
    return MAX_ATOM if found is None else min(found, MAX_ATOM)


def fold_pattern(candidates: tuple[TerminalSpec, ...], ignored: Collection[str]
                 ) -> tuple[str, tuple[TerminalSpec | None, ...]] | None:
    """The alternation of the candidates that are not ignored, after the one ignored
    candidate's match, if any, taken whole: `(?>WS)?(?:(A)|(B)...)`, and its groups'
    candidates. Only when no other candidate can begin with a character the ignored
    one begins with: then wherever the ignored one matches it is the alternation's
    match, the same state reads on after it (it is ignored), and where nothing
    matches after it, nothing matches at all (the caller reads the slow way, the
    ignored one alone). Else None. (Whitespace between tags: a fifth of the tokens of
    tool-dense text.)"""
    skipped = [spec for spec in candidates if spec.name in ignored]
    if len(skipped) != 1:
        return None
    skip = skipped[0]
    others = [spec for spec in candidates if spec is not skip]
    widths_found = widths(skip.full.pattern)
    if (skip.has_lookahead or not others or widths_found is None or widths_found[0] == 0
            or any(_may_share_start(skip, spec) for spec in others)):
        return None
    groups: list[TerminalSpec | None] = [None]
    for spec in others:
        groups += [spec, *[None] * re.compile(plain_pattern(spec)).groups]
    body = "|".join(f"({plain_pattern(spec)})" for spec in others)
    return f"(?>(?:{plain_pattern(skip)}))?(?:{body})", tuple(groups)


def cheap_first(candidates: tuple[TerminalSpec, ...]) -> tuple[TerminalSpec, ...]:
    """Lark's order, except that a candidate with a shorter pattern goes before those
    ahead of it that never match where it does (`_exclusive`): an alternation tries
    its branches in order and takes the first that matches, so swapping two that
    never both match changes no result, and the one tried first should be the cheaper
    to fail. A parameter's opening tag then no longer waits for the self-closing form,
    which reads the whole tag before it fails at the `>` (tool-dense text: -5 %)."""
    order = list(candidates)
    for i in range(1, len(order)):
        j = i
        while j > 0 and len(order[j].full.pattern) < len(order[j - 1].full.pattern) and (
                _exclusive(order[j - 1], order[j])):
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    return tuple(order)


def _exclusive(a: TerminalSpec, b: TerminalSpec) -> bool:
    """Whether `a` and `b` never both match at one position: no match of either is the
    start of (or equal to) a match of the other."""
    return not (_may_beat(a, b) or _may_beat(b, a))


def plain_pattern(spec: TerminalSpec) -> str:
    """The terminal's pattern with no capturing group (`without_captures`; a named one
    becomes plain first), so that several can share one alternation, each in a group
    of its own that says which matched."""
    return without_captures(_NAMED_GROUP.sub("(", spec.full.pattern))


def loop_run_pattern(candidates: tuple[TerminalSpec, ...], loops: Collection[str]
                     ) -> str | None:
    """A pattern for a row of loop tokens: one alternative per loop candidate, guarded
    by a negative lookahead of every other candidate before it in the alternation, so
    that each repetition matches exactly where the alternation's first match would be
    that loop candidate, and as far as it would reach (the repetition is greedy and
    nothing follows it). Only loop candidates that `row_safe` admits take part; the
    others guard like any other candidate.

    The row's pieces go to the same list either way, and the parser stays in the same
    state (a loop token changes nothing else), so one match stands for many tokens.
    Like the alternation's own matches, it decides nothing near the end of the text:
    the lexer takes a row only when it ends more than the state's `margin` before that
    end (or nothing more can come)."""
    branches: list[str] = []
    guards: list[str] = []
    for spec in candidates:
        body = plain_pattern(spec)
        if spec.name in loops and row_safe(spec):
            guard = f"(?!{'|'.join(guards)})" if guards else ""
            branches.append(f"{guard}(?:{body})")
        else:
            guards.append(f"(?:{body})")
    if not branches:
        return None
    return f"(?:{'|'.join(branches)})+"


def row_safe(spec: TerminalSpec) -> bool:
    """A loop candidate that can stand in a row: it never matches empty, its atoms stay
    within MAX_ATOM, and a lookahead of its, if any, is a negative one that reads at
    most MAX_ATOM characters (Python's `\\0` escape, `[0-7](?![0-7])`): a row is taken
    only when it ends more than the state's `margin` (which counts that reach) before
    the end of the text, so such a lookahead inside it reads text that is there, as the
    alternation's would."""
    found = widths(spec.full.pattern)
    if found is None:
        return False
    low, high = found
    if spec.has_lookahead:
        reach = refusal_reach(spec.full.pattern)
        if "(?=" in spec.pattern or reach is None or reach > MAX_ATOM:
            return False
    return low > 0 and (spec.is_run or (high is not None and high <= MAX_ATOM))


def _may_share_start(a: TerminalSpec, b: TerminalSpec) -> bool:
    """Whether a match of `a` and one of `b` could start with the same character. When
    only one side's first characters are known (`<`), each is tried against the other
    pattern (a run of `[^<]` or of whitespace cannot start with `<`)."""
    if a.starts is not None and b.starts is not None:
        return bool(a.starts & b.starts)
    if a.starts is None and b.starts is None:
        return True
    known, other = (a, b) if a.starts is not None else (b, a)
    assert known.starts is not None
    return any(can_start(other, char) for char in known.starts)


def _may_beat(earlier: TerminalSpec, spec: TerminalSpec) -> bool:
    """Whether `earlier` could still be arriving where `spec` has matched: not when no
    complete match of `spec` is the start of a match of `earlier` (`<parameter ...>`
    ends where `<parameter .../>` cannot go on), which the two automata tell."""
    key = (earlier.full.pattern, spec.full.pattern)
    found = _BEATS.get(key)
    if found is None:
        a, b = spec.dfa, earlier.dfa
        found = _BEATS[key] = a is None or b is None or may_continue_into(a, b)
    return found


_BEATS: dict[tuple[str, str], bool] = {}


def can_start(spec: TerminalSpec, char: str) -> bool:
    """Whether some match of `spec` starts with `char` (a pattern that can match the
    empty string says yes, which only costs a check). Its automaton tells, read from
    the cache; without one (a lookahead), a partial match in `regex` says so."""
    dfa = spec.dfa
    if dfa is None:
        return spec.partial.match(char, partial=True) is not None
    return dfa.final[dfa.initial] or can_finish(dfa, dfa.run(dfa.initial, char))


def next_token(lexer: StateLexer, text: str, pos: int, end: int, final: bool
               ) -> tuple[TerminalSpec | None, int]:
    """Match one token at `text[pos:end]`.

    Returns `(spec, token_end)` for a token; `(spec, NEED_MORE)` when the text ends
    where `spec` could still be arriving (never when `final`); `(None, pos)` when
    nothing can match here. `final` says no more text will come before `end` (the end
    of the stream, or a capture limit).
    """
    return settle(lexer, lexer.master.match(text, pos, end), text, pos, end, final)


def settle(lexer: StateLexer, m: re.Match[str] | None, text: str, pos: int, end: int,
           final: bool) -> tuple[TerminalSpec | None, int]:
    """`next_token` for `m`, the state's alternation matched at `text[pos:end]`."""
    spec, token_end, _ = settle_state(lexer, m, text, pos, end, final)
    return spec, token_end


def _refusal(pattern: str) -> int:
    """`TerminalSpec.refusal` of `pattern`, at most MAX_ATOM."""
    found = refusal_reach(pattern)
    return max(1, MAX_ATOM if found is None else min(found, MAX_ATOM))


def settle_state(lexer: StateLexer, m: re.Match[str] | None, text: str, pos: int, end: int,
                 final: bool) -> tuple[TerminalSpec | None, int, int]:
    """`settle`, and for a token still arriving (NEED_MORE) whose automaton found it
    alive, the automaton's state after text[pos:end] (else -1): the caller need not
    walk the text again to remember it."""
    if m is None or m.end() == pos:
        if not final:
            arriving, state = _arriving_in(lexer, "", text, pos, end)
            if arriving is not None:
                return arriving, NEED_MORE, state
        return None, pos, -1
    spec = lexer.by_group[m.lastindex or 0]
    if spec is None:  # pragma: no cover - every alternative is one outer group
        return None, pos, -1
    token_end = m.end()
    if not spec.is_run and token_end - pos > MAX_ATOM:
        spec, token_end = _bounded(lexer, text, pos, end, final)
        return spec, token_end, -1
    if not final and end - pos <= MAX_ATOM:
        if token_end == end and spec.name in lexer.held:
            return spec, NEED_MORE, -1   # (a run the parser takes once: `held`)
        if spec.has_lookahead and end - token_end < spec.refusal:
            # (the text after it may still refuse it: `<` is STRING_LT only when no
            # `<|end|>` follows, gpt_oss.lark)
            return spec, NEED_MORE, -1
        earlier = lexer.earlier_atoms[spec.name]
        if earlier:
            beaten, state = _arriving_in(lexer, spec.name, text, pos, end)
            if beaten is not None:
                return beaten, NEED_MORE, state
    return spec, token_end, -1


def _arriving_in(lexer: StateLexer, beating: str, text: str, pos: int, end: int
                 ) -> tuple[TerminalSpec | None, int]:
    """`_arriving` over the state's candidates (`beating` "") or the atoms that could
    beat the candidate `beating` (`earlier_atoms`), with the atoms worth trying for
    text[pos] kept per first character (`StateLexer.tries`)."""
    if end - pos >= MAX_ATOM:
        return None, -1
    first = text[pos] if pos < end else ""
    by_first = lexer.tries.get(beating)
    if by_first is None:
        by_first = lexer.tries.setdefault(beating, {})
    tries = by_first.get(first)
    if tries is None:
        among = lexer.earlier_atoms[beating] if beating else lexer.candidates
        tries = by_first[first] = _worth_trying(among, first)
    return _first_prefix(tries, text, pos, end)


def _arriving(candidates: Iterable[TerminalSpec], text: str, pos: int, end: int
              ) -> tuple[TerminalSpec | None, int]:
    """The first candidate that text[pos:end] is a proper prefix of a match of, and its
    automaton's state after it (-1 when it has none)."""
    if end - pos >= MAX_ATOM:
        return None, -1
    first = text[pos] if pos < end else ""
    return _first_prefix(_worth_trying(candidates, first), text, pos, end)


def _worth_trying(candidates: Iterable[TerminalSpec], first: str
                  ) -> tuple[tuple[TerminalSpec, DFA | None], ...]:
    """The atoms among `candidates` that a text starting with `first` ("": an empty
    text) may begin, in order, with their automata."""
    return tuple((spec, spec.dfa) for spec in candidates if not spec.is_run
                 and (spec.starts is None or not first or first in spec.starts))


def _first_prefix(tries: tuple[tuple[TerminalSpec, DFA | None], ...], text: str, pos: int,
                  end: int) -> tuple[TerminalSpec | None, int]:
    """The first of `tries` that text[pos:end] is a proper prefix of a match of, and its
    automaton's state after it (-1 when it has none)."""
    for spec, dfa in tries:
        if dfa is not None:
            state = dfa.advance(dfa.initial, text[pos:end])
            if state >= 0:
                return spec, state
            continue
        consumed = spec.consumed_dfa
        if consumed is not None:
            # (a proper prefix of its text and lookahead: -2, complete, is no longer
            # arriving, as the partial matcher below says; one automaton, not `regex`)
            if consumed.advance(consumed.initial, text[pos:end]) >= 0:
                return spec, -1
            continue
        p = spec.partial.match(text, pos, end, partial=True)
        if p is not None and p.partial:
            return spec, -1
    return None, -1


def _bounded(lexer: StateLexer, text: str, pos: int, end: int, final: bool
             ) -> tuple[TerminalSpec | None, int]:
    """The slow way, one candidate at a time, for an atom longer than MAX_ATOM (which
    does not count as that atom): the next candidate that matches within the bound."""
    for spec in lexer.candidates:
        limit = end if spec.is_run else min(end, pos + MAX_ATOM)
        m = spec.full.match(text, pos, limit)
        if m is not None and m.end() > pos:
            return spec, m.end()
        if not final and not spec.is_run and end < pos + MAX_ATOM:
            if _arriving((spec,), text, pos, end)[0] is not None:
                return spec, NEED_MORE
    return None, pos

