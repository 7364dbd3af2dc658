"""Incremental events (SPEC 7): news of an open block's calls while it arrives.

With `StreamParser(incremental=True)` every capture has a `CallProgress`. It learns
what the parser learns, from the two places that know it:

- the capture tells it when a call's first token goes to the parser (`opening`) and
  when the parser took it (`opened`);
- the builders of `name`, `param` and `invoke` (wrapped, `builders`) tell it when a
  call's name, an argument and a call are complete.

After each chunk the stream engine asks it to `look` at the argument being written: a
value known to be a string (`string="true"`, or a dialect typed by schema when no tools
are given) streams as it arrives, through a `ValueStream` (the certain prefix of the
value `value_text` will read), JSON-escaped; so does a JSON body (`{...}`), as written.
Any other argument goes out whole when its parameter closes, and so does every argument of
a grammar with `member`s (a value that may be elements is no string until it closes).
With tools, nothing of a call goes out before it is complete and checked (repair may
change any value).

A call is built (`build_call`: typed, and with tools checked and repaired) as soon as
its invoke is complete, not at the end of its block: then it gets the rest of its final
`arguments_json` (its closing `}`, or with tools all of it), so a section of several
calls sends call 0's arguments while call 1 is still being written. The pieces must
concatenate to that text (SPEC 7: the pieces never lie). When they cannot (a parameter
name written twice makes a list; a JSON body that is not one valid object is rejected
and its arguments are `{}`; anything else), the call is *withdrawn*: `Aborted` with
reason `diverged`, before its block. Where a divergence shows before a piece goes out
(a repeated name's second value, an array body), the pieces stop at once instead.

The events made here are internal (`Started`, `Delta`, `Aborted`, holding the `Call`
they are about); `Output` numbers the calls as their `CallStarted` goes out, so that
calls of a block found in code (whose events are dropped) leave no gap.

Cost. Between its tags nothing of a call can go out unless a value streams, so the
engine keeps chunks unlexed until a tag that can make an event (`gates`: the event
gates of `gates.py`), and a chunk of a value that streams is appended to the value and
made into its piece by `Engine.feed` itself in the common case (more text in the value's
body: `Argument.quick`), else in one call (`Argument.piece`). Per argument, its
member's JSON (which the call's `arguments_json` then reuses); per call, at the end of
its block, its own text (`finish`, set in place on the call built here and not yet
given out).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any, Final

from toolparse._calls import CallPolicy, build_call, build_calls
from toolparse._calls.values import element_value, type_value
from toolparse._dialect.build import RawCall, RawParam, name_text
from toolparse._dialect.gates import CALL_RULES, EVENT_RULES, Closers
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.roles import own_name
from toolparse._dialect.table import Driver, Tag
from toolparse._dialect.value_stream import EdgedStream, ValueStream
from toolparse._dialect.values import Cdata
from toolparse._events import DIVERGED, ArgumentsDelta, BlockFailure, ToolCall

__all__ = ["Aborted", "Argument", "Call", "CallProgress", "Delta", "Started", "make_delta"]


class Call:
    """One call of the open block, as far as it has arrived."""

    __slots__ = ("tag", "name", "id", "live", "started", "done", "broken", "arguments",
                 "flagged", "members", "sent", "param", "index", "tool", "aborted",
                 "diverged_at", "repeated", "escaped", "verbatim")

    def __init__(self, tag: Any) -> None:
        self.tag = tag
        """The call's first token (a `Tag`), to find the call on the parser's stack."""
        self.name: str | None = None
        self.id = ""
        self.live = False
        """The parser took the call's first token."""
        self.started = False
        """Its CallStarted was made."""
        self.done = False
        """The call's invoke rule was reduced."""
        self.broken = False
        """What went out may no longer be a prefix of the final arguments: no more
        pieces until the call is complete (then they are compared)."""
        self.diverged_at = -1
        """Where that showed (a stream offset), for the `diverged` failure."""
        self.repeated = False
        """A name that went out came again: the pieces certainly diverge."""
        self.arguments: dict[str, Any] = {}
        """The arguments that went out, typed, in order (without tools)."""
        self.flagged: list[str] = []
        """Those whose `string="false"` text was not JSON (the call's `json_errors`)."""
        self.members: list[str] = []
        """Their `"key":value` texts, as the arguments JSON holds them."""
        self.sent: list[str] = []
        """The arguments text that went out, in pieces."""
        self.param: Argument | None = None
        """The argument being written, when it streams."""
        self.index = -1
        """Set by Output when the CallStarted goes out."""
        self.tool: ToolCall | None = None
        """The call built, once its invoke is complete."""
        self.aborted = False
        """Its CallsAborted was made (withdrawn, or its block failed)."""
        self.escaped: dict[str, ArgumentsDelta] = {}
        """The events of its streamed pieces so far, by the piece's text before escaping
        (`CallProgress.piece`): chunks of a few characters repeat, and an event is
        immutable. `verbatim`: the same for pieces that go out as written (a JSON body)."""
        self.verbatim: dict[str, ArgumentsDelta] = {}


class Argument:
    """An argument being written: where its value stands on the parser's stack and how
    much of it went out."""

    __slots__ = ("head", "stream", "escape", "sent_from", "main", "main_done", "open",
                 "open_done", "cdata_sent", "events", "sent", "fast", "fast_cdata", "text",
                 "cdata", "call", "quick")

    def __init__(self, head: Any, stream: ValueStream | None, escape: bool = True,
                 call: Call | None = None) -> None:
        self.head = head
        """Its first token (a `Tag`)."""
        self.stream = stream
        """None: it does not stream (it goes out whole when it closes)."""
        self.escape = escape
        """Its pieces go out JSON-escaped (a string value; a JSON body goes as written)."""
        stream = stream if stream is not None else _SILENT
        self.fast: Callable[[str], str | None] = stream.fast
        self.fast_cdata: Callable[[str], str | None] = stream.fast_cdata
        self.text: Callable[[str], str] = stream.text
        self.cdata: Callable[[str], str] = stream.cdata
        """The stream's methods, bound once (`CallProgress.piece`)."""
        self.sent_from = 0
        """Where this member's pieces begin among its call's `sent`."""
        self.main: list[Any] | None = None
        """The list of its value's pieces, and how many of them were read."""
        self.main_done = 0
        self.open: list[Any] | None = None
        """The content list of a CDATA section still open, and how much was read."""
        self.open_done = 0
        self.cdata_sent = 0
        """Characters of that open section already given to the stream."""
        self.call: Call = call if call is not None else _NO_CALL
        """The call it belongs to (for a streaming argument; else a stand-in)."""
        self.sent: list[str] = self.call.sent
        """Its call's `sent` (the same list), and the events of its call's pieces by
        their text (`Call.escaped` or `Call.verbatim`, as it escapes or not)."""
        self.events: dict[str, ArgumentsDelta] = (
            {} if call is None else call.escaped if escape else call.verbatim)
        self.quick: EdgedStream | None = None
        """Its stream, while `Engine.feed` may take the chunks of the run `follows`
        found itself (that run is the value's text, and the stream is in its body:
        `EdgedStream.fast`, inlined there); else None (`piece`)."""

    def piece(self, run: list[Any]) -> list[Any]:
        """The engine appended a chunk to `run` (`CallProgress.follows` found it, and
        the block is outside code for certain, nothing held): its piece of the
        arguments, as the events to give out now (an `ArgumentsDelta`, or none while
        the chunk's characters are not certain). The common case of a text chunk in the
        value's body is `Engine.feed`'s (`quick`); this is the rest: the stream's
        common case is one bound call (`fast`), and a piece seen before in the call
        reuses its event. (Every chunk appended since the last `look` has had its
        piece: `main_done` counts them all.)"""
        chunk = run[-1]
        if run is self.main:
            self.main_done = len(run)
            if not chunk:
                return []
            out = self.fast(chunk)
            if out is None:
                out = self.text(chunk)
            self.quick = _quick(self.stream)
        else:
            self.open_done = len(run)
            self.cdata_sent += len(chunk)
            out = self.fast_cdata(chunk)
            if out is None:
                out = self.cdata(chunk)
        if not out:
            return []
        event = self.events.get(out)
        if event is None:
            event = self.event(out)
        self.sent.append(event.text)
        return [event]

    def event(self, out: str) -> ArgumentsDelta:
        """The event of a piece `out` (before escaping) not seen before in its call,
        kept for its next time. (`make_delta`, inlined: at 4-char chunks of code, about
        half the pieces are new to their call.)"""
        events = self.events
        if len(events) >= _EVENTS_KEPT:
            events.clear()
        event = events[out] = _new(ArgumentsDelta)
        _set_delta_index(event, self.call.index)
        _set_delta_text(event, encode_basestring(out)[1:-1]
                        if self.escape and _ESCAPED.search(out) is not None else out)
        return event

    def caught_up(self) -> None:
        """The engine leaves the run it took chunks of (`quick`): every piece of it went
        out, so `CallProgress.look` reads on after them."""
        main = self.main
        if self.quick is not None and main is not None:
            self.main_done = len(main)


_NO_CALL: Final = Call(None)
"""The call of an argument that does not stream (`Argument.call`)."""

_SILENT: Final = ValueStream()
"""The stream whose methods an argument that does not stream holds (never asked)."""


class Started:
    __slots__ = ("call", "block_start")

    def __init__(self, call: Call, block_start: int) -> None:
        self.call = call
        self.block_start = block_start


class Delta:
    __slots__ = ("call", "text")

    def __init__(self, call: Call, text: str) -> None:
        self.call = call
        self.text = text


class Aborted:
    __slots__ = ("calls", "failure")

    def __init__(self, calls: tuple[Call, ...], failure: BlockFailure) -> None:
        self.calls = calls
        self.failure = failure


ProgressEvent = Started | Delta | Aborted


class CallProgress:
    """The calls of one capture, and the incremental events they made so far."""

    __slots__ = ("grammar", "policy", "checked", "new_id", "block_start", "calls", "open",
                 "current", "events", "param_starts", "json_starts", "json_chars", "guess", "held",
                 "event_gates", "heads")

    def __init__(self, grammar: Grammar, *, policy: CallPolicy | None,
                 new_id: Callable[[], str], block_start: int, held: bool = False) -> None:
        self.grammar = grammar
        self.policy = policy
        """The tools (None: none given): each call is typed and checked by them."""
        self.checked = policy is not None
        """Tools were given: nothing of a call goes out before it is complete and
        checked."""
        self.event_gates = grammar.event_gates(CALL_RULES if self.checked else EVENT_RULES)
        """The gates and closers of the tags that can make an event here (`gates.py`:
        with tools a call's own, else an argument's too)."""
        self.new_id = new_id
        self.held = held
        """The block's tag may sit in code: its events wait with it, and its calls draw
        their ids only when it turns out to be a block (`draw_ids`)."""
        self.block_start = block_start
        self.calls: list[Call] = []
        """The block's complete calls, in order (one per RawCall)."""
        self.open: list[Call] = []
        """Calls whose first token was fed and whose invoke is not complete, oldest
        first: a builder's news is about the oldest (a call can end only when the
        parser reduces it, which a grammar may do on the next call's first token)."""
        self.current: Call | None = None
        """The call being written (the newest open one)."""
        self.events: list[ProgressEvent] = []
        """Events not handed on yet."""
        roles = grammar.roles
        self.param_starts = roles.param_starts
        self.json_starts = roles.json_starts
        self.heads = roles.param_starts | roles.json_starts
        """The first terminals of an argument (or of a JSON body)."""
        self.json_chars = _first_chars(grammar, roles.json_starts)
        self.guess = grammar.header.typing.guesses

    # ---- what the capture and the builders say -------------------------------------------

    def builders(self, builders: tuple[Any, ...]) -> tuple[Any, ...]:
        """The grammar's builders, those of `name`, `param` and `invoke` telling this
        progress what they built (`_hooked`: which rules those are, per grammar)."""
        hooks: dict[str, Callable[[Any, list[Any]], None]] = {
            "name": self._named, "param": self._param_done, "invoke": self._call_done}
        wrapped = list(builders)
        for index, own in _hooked(self.grammar):
            wrapped[index] = _tell(builders[index], hooks[own])
        return tuple(wrapped)

    def opening(self, token: Any) -> Call:
        """A call's first token is about to go to the parser."""
        call = Call(token)
        self.open.append(call)
        self.current = call
        if self.grammar.name_at_tag and isinstance(token, Tag):
            call.name = self.grammar.build.tag_name(token)
        return call

    def opened(self, call: Call) -> None:
        """The parser took the call's first token."""
        call.live = True
        if call.name and not call.started:
            self._start(call)

    def _named(self, value: Any, children: list[Any]) -> None:
        call = self.open[0] if self.open else None
        if call is not None and call.name is None:
            call.name = name_text(value) or None
            if call.live:
                self._start(call)

    def _call_done(self, raw: RawCall, children: list[Any]) -> None:
        """An invoke is complete: build the call now, and finish its deltas."""
        call = self.open.pop(0) if self.open else Call(None)
        self.current = self.open[-1] if self.open else None
        call.name = call.name or raw[0]
        call.done = True
        call.param = None
        self.calls.append(call)
        # The parser took the call's first token (it may be this very one: an empty
        # invoke, before `opened` was told).
        call.live = True
        if not call.started:
            self._start(call)
        # Without tools, every argument that went out was typed as the call types it:
        # the call is built from those values, not typed again.
        typed = ((call.arguments, tuple(call.flagged))
                 if not call.broken and raw[2] is None and len(call.members) == len(raw[1])
                 and self.policy is None else None)
        # Its `raw` is set when its block is complete (`finish`), from the block's text.
        call.tool = build_call(raw, "", self.policy, call.id, self.guess, typed)
        self._finish(call, "{" + ",".join(call.members) + "}" if typed is not None else None)

    def _param_done(self, param: RawParam, children: list[Any]) -> None:
        """An argument is complete: typed (as the call will be), it goes out as a member
        of the arguments object, or the rest of it after the pieces that streamed."""
        call = self.open[0] if self.open else None
        if call is None or not call.started or call.broken or self.checked:
            return
        streaming = call.param
        call.param = None
        name, text, string_attr, cdata_only = param
        if name in call.arguments:
            self._diverges(call, children, repeated=True)  # the final value is a list
            return
        if not isinstance(text, str):  # members (MiniMax-M3): typed as the call types them
            value, flagged = element_value(text, None, None, self.guess), False
        else:
            value, flagged = (type_value(text, string_attr=string_attr, cdata_only=cdata_only)
                              if self.guess else (text, False))
        member = encode_basestring(name) + ":" + _json_of(value)
        opened = ("," if call.arguments else "{") + member
        sent = ("".join(call.sent[streaming.sent_from:])
                if streaming is not None and streaming.stream else "")
        if not opened.startswith(sent):
            self._diverges(call, children)
            return
        call.arguments[name] = value
        if flagged and name not in call.flagged:
            call.flagged.append(name)
        call.members.append(member)
        self._send(call, opened[len(sent):])

    def _diverges(self, call: Call, children: list[Any] | None = None,
                  repeated: bool = False) -> None:
        """What went out of `call` may not be a prefix of its final arguments: no more
        pieces; whether it is one is decided when the call is complete (`_finish`).
        `repeated`: a name that went out comes again, and then it is certain: the
        pieces hold `"name":` and the first value's JSON, the final arguments
        `"name":[` and that JSON, and no JSON text is `[` followed by its own start."""
        call.broken = True
        call.repeated = call.repeated or repeated
        first = _first_tag(children) if children is not None else None
        call.diverged_at = first.start if first is not None else -1

    def _finish(self, call: Call, final: str | None = None) -> None:
        """The call is built: the rest of its final arguments goes out, or, when what
        went out is not a prefix of them (or the call is rejected), it is withdrawn.
        `final`: its `arguments_json` when known without writing it again (the members
        that went out, which `json.dumps` of the same values writes the same way)."""
        tool = call.tool
        assert tool is not None
        if call.repeated:
            final = None   # (certain: `_diverges`)
        elif final is None:
            final = tool.arguments_json if tool.accepted else None
        sent = "".join(call.sent)
        if final is not None and final.startswith(sent):
            self._send(call, final[len(sent):])
        elif sent:
            at = call.diverged_at if call.diverged_at >= 0 else tool.end
            call.aborted = True
            self.events.append(Aborted((call,), BlockFailure(DIVERGED, tool.start, tool.end, at)))
        call.broken = True

    # ---- streaming ---------------------------------------------------------------------

    def look(self, driver: Driver) -> None:
        """After a chunk: stream what became certain of the argument being written."""
        call = self.current
        if call is None or not call.started or call.broken or self.checked:
            return
        # The newest argument's first token above the call's own on the parser's stack.
        values, tag, heads = driver.values, call.tag, self.heads
        head = len(values) - 1
        while head >= 0:
            value = values[head]
            if value is tag:
                return
            if isinstance(value, Tag) and value.term in heads:
                break
            head -= 1
        else:
            return
        param = call.param
        if param is None or param.head is not values[head]:
            param = call.param = self._begin(call, values, head)
            if param is None:
                return
        if param.stream is not None:
            self._read(call, param, values, head)

    def gates(self, driver: Driver) -> tuple[str, Closers | None] | None:
        """The gates and closers (`gates.py`) the engine may keep chunks unlexed
        against now (`Engine._keep_quiet`): the event tags' (`Grammar.event_gates`),
        unless a value streams (None: every chunk has its piece) or a JSON body may
        start next (it streams from its first character: those characters are gates
        too, and every gate lexes)."""
        call = self.current
        if call is None or not call.started or call.broken or self.checked:
            return self.event_gates
        param = call.param
        if param is not None and param.stream is not None:
            return None
        takes = driver.actions[driver.stack[-1]]
        if not any(start in takes for start in self.json_starts):
            return self.event_gates
        gates = self.event_gates[0]
        if not (gates and self.json_chars):
            return None
        return gates + self.json_chars, None

    def follows(self, run: list[Any]) -> Argument | None:
        """The argument being streamed, when pieces appended to `run` (the list a
        value's text goes to, right after a `look`) are its value's text: then its
        `piece` streams them (or `Engine.feed`, while it is `quick`); else None."""
        call = self.current
        if call is None or not call.started or call.broken or self.checked:
            return None
        param = call.param
        if param is not None and param.stream is not None and (
                run is param.main or run is param.open):
            param.quick = _quick(param.stream) if run is param.main else None
            return param
        return None

    def _begin(self, call: Call, values: list[Any], head: int) -> Argument | None:
        tag = values[head]
        if tag.term in self.json_starts:
            if call.arguments or tag.text != "{":
                return Argument(tag, None)  # an array (rejected) or after arguments
            param = Argument(tag, self.grammar.build.body.stream(), False, call)
            param.sent_from = len(call.sent)
            self._stream(call, param, param.stream.text(tag.text) if param.stream else "")
            return param
        found = self.grammar.build.param_head(values[head:])
        if found is None:
            return None  # the key is not known yet: look again later
        key, string_attr = found
        if key in call.arguments:
            self._diverges(call, [tag], repeated=True)  # its value must not stream
            return None
        if not (string_attr is True or self.grammar.header.typing.schema_types) \
                or self.grammar.build.members:
            # A value that may turn out to be members (not a string) goes out whole.
            return Argument(tag, None)
        param = Argument(tag, self.grammar.build.values.stream(), True, call)
        param.sent_from = len(call.sent)
        self._send(call, ("," if call.arguments else "{") + encode_basestring(key) + ':"')
        return param

    def _read(self, call: Call, param: Argument, values: list[Any], head: int) -> None:
        """Give the stream the value's pieces that arrived since the last look."""
        stream = param.stream
        assert stream is not None
        sections = self.grammar.roles.section_opens
        start = head + 1
        for i in range(len(values) - 1, head, -1):
            value = values[i]
            if isinstance(value, Tag) and value.term not in sections:
                start = i + 1  # a value after its own opening token (GLM's value tag)
                break
        out: list[str] = []
        in_section = False
        for value in values[start:]:
            if isinstance(value, list) and not in_section:
                if value is not param.main:
                    param.main, param.main_done = value, 0
                for piece in value[param.main_done:]:
                    if isinstance(piece, Cdata):
                        out.append(stream.cdata(piece.text[param.cdata_sent:]))
                        param.cdata_sent = 0
                    elif isinstance(piece, str):
                        out.append(stream.text(piece))
                param.main_done = len(value)
            elif isinstance(value, Tag) and value.term in sections and not in_section:
                in_section = True
            elif isinstance(value, list) and in_section:
                if value is not param.open:
                    param.open, param.open_done = value, 0
                for piece in value[param.open_done:]:
                    if not isinstance(piece, str):
                        break
                    out.append(stream.cdata(piece))
                    param.cdata_sent += len(piece)
                    param.open_done += 1
                break
            else:
                break  # a nested section still open: its text goes out when it closes
        self._stream(call, param, "".join(out))

    def _stream(self, call: Call, param: Argument, text: str) -> None:
        if text:
            self._send(call, encode_basestring(text)[1:-1] if param.escape else text)

    # ---- events ------------------------------------------------------------------------

    def _start(self, call: Call) -> None:
        call.started = True
        call.id = "" if self.held else self.new_id()
        self.events.append(Started(call, self.block_start))

    def _send(self, call: Call, text: str) -> None:
        if text:
            call.sent.append(text)
            self.events.append(Delta(call, text))

    def ids(self) -> Callable[[], str]:
        """The ids of the block's calls, in order."""
        return iter([call.id for call in self.calls]).__next__

    def finish(self, raws: tuple[RawCall, ...], block: str) -> tuple[ToolCall, ...]:
        """The block is complete (`raws`, its text `block`): its calls, as each was
        built when it was complete. Every call of a block is an invoke the builders
        reported, in order; were one missing, all are built here from the block."""
        tools = [call.tool for call in self.calls]
        start = self.block_start
        if len(tools) == len(raws) and all(
                tool is not None and (tool.start, tool.end) == (rc[3], rc[4])
                for tool, rc in zip(tools, raws)):
            # Each call was built here when its invoke was complete, with no text, and
            # nothing else holds it yet: it gets its text in place (a copy by
            # `dataclasses.replace` cost more than the rest of the call's events).
            for tool in tools:
                if tool is not None:
                    _set_raw(tool, block[tool.start - start:tool.end - start])
            return tuple(tool for tool in tools if tool is not None)
        ids = iter([call.id for call in self.calls])
        return build_calls(raws, block, self.block_start, self.policy,
                           lambda: next(ids, "") or self.new_id(), self.grammar.header.typing)

    def draw_ids(self) -> None:
        """The held block is outside code: its started calls get their ids, in order."""
        self.held = False
        for call in [*self.calls, *self.open]:
            if call.started and not call.id:
                call.id = self.new_id()

    def started(self) -> tuple[Call, ...] | None:
        """The calls whose CallStarted was made and that were not withdrawn, for the
        CallsAborted of a failed block; None when no call started. (Every started call
        withdrawn: none, and the CallsAborted still comes, to say that the block those
        calls wait on failed: SPEC 7, a failed block's CallsAborted comes first.)"""
        calls = [*self.calls, *self.open]
        if not any(call.started for call in calls):
            return None
        return tuple(call for call in calls if call.started and not call.aborted)

    def take(self) -> list[ProgressEvent]:
        events, self.events = self.events, []
        return events


def _tell(builder: Callable[[list[Any]], Any], hook: Callable[[Any, list[Any]], None]
          ) -> Callable[[list[Any]], Any]:
    def told(children: list[Any]) -> Any:
        value = builder(children)
        hook(value, children)
        return value
    return told


def _first_tag(children: list[Any]) -> Tag | None:
    """The first `Tag` among a rule's children (nested lists included)."""
    for child in children:
        if isinstance(child, Tag):
            return child
        if isinstance(child, list):
            found = _first_tag(child)
            if found is not None:
                return found
    return None


@functools.cache
def _first_chars(grammar: Grammar, names: frozenset[str]) -> str:
    """The characters the terminals `names` can begin with ("" when any can)."""
    chars: set[str] = set()
    for name in names:
        starts = grammar.terminals[name].starts
        if starts is None:
            return ""
        chars |= set(starts)
    return "".join(sorted(chars))


@functools.cache
def _hooked(grammar: Grammar) -> tuple[tuple[int, str], ...]:
    """The rules whose builders `CallProgress.builders` wraps: (index, own name)."""
    found = []
    for index, (info, builder) in enumerate(zip(grammar.table.rules, grammar.builders)):
        own = own_name(info.origin)
        if builder is not None and own in ("name", "param", "invoke"):
            found.append((index, own))
    return tuple(found)


def _quick(stream: ValueStream | None) -> EdgedStream | None:
    """`Argument.quick` for a value's text: its stream when in the body of a value
    read by edges, and no `&` waits (the start of an entity, `EdgedStream.fast`)."""
    return (stream if isinstance(stream, EdgedStream) and stream.body
            and "&" not in stream.pending else None)


_ESCAPED: Final = re.compile(r'["\\\x00-\x1f]')
"""A character `json.dumps` escapes (with `ensure_ascii=False`): a piece without one
goes out as it is."""

_EVENTS_KEPT: Final = 1024
"""How many events of one value `CallProgress.piece` keeps for reuse (then it starts over)."""

_new: Final = object.__new__
_set_delta_index: Final = ArgumentsDelta.__dict__["index"].__set__
_set_delta_text: Final = ArgumentsDelta.__dict__["text"].__set__
_set_raw: Final = ToolCall.__dict__["raw"].__set__
"""Sets a `ToolCall`'s text, before the call is given out (`CallProgress.finish`)."""


def make_delta(index: int, text: str) -> ArgumentsDelta:
    """An `ArgumentsDelta` event, built without the dataclass constructor's overhead
    (one per chunk of a value that streams; `output.make_text` does the same for Text)."""
    event = _new(ArgumentsDelta)
    _set_delta_index(event, index)
    _set_delta_text(event, text)
    return event


_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
"""The encoder `json.dumps` makes for a call's `arguments_json` (`ToolCall`), made once."""


def _json_of(value: Any) -> str:
    """`value` as `arguments_json` writes it (a string through the C encoder itself)."""
    return encode_basestring(value) if type(value) is str else _ENCODER.encode(value)
