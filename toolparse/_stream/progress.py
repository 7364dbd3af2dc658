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
Any other argument goes out whole when its parameter closes. With tools, nothing of a
call goes out before it is complete and checked (repair may change any value).

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

Cost: the block's text is read once more, call by call, to slice each call's own text
(`_call_text`, a cursor that only moves forward).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolparse._calls import CallPolicy, build_call, build_calls
from toolparse._calls.values import type_arguments
from toolparse._dialect.build import RawCall, RawParam, name_text
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.table import Driver, Tag
from toolparse._dialect.value_stream import ValueStream
from toolparse._dialect.values import Cdata
from toolparse._events import DIVERGED, BlockFailure, ToolCall

__all__ = ["Aborted", "Call", "CallProgress", "Delta", "Started"]


class Call:
    """One call of the open block, as far as it has arrived."""

    __slots__ = ("tag", "name", "id", "live", "started", "done", "broken", "keys", "sent",
                 "sent_size", "param", "index", "tool", "aborted", "diverged_at")

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
        self.keys: set[str] = set()
        """The argument names that went out."""
        self.sent: list[str] = []
        """The arguments text that went out, in pieces."""
        self.sent_size = 0
        self.param: _Param | None = None
        """The argument being written, when it streams."""
        self.index = -1
        """Set by Output when the CallStarted goes out."""
        self.tool: ToolCall | None = None
        """The call built, once its invoke is complete."""
        self.aborted = False
        """Its CallsAborted was made (withdrawn, or its block failed)."""


class _Param:
    """An argument being written: where its value stands on the parser's stack and how
    much of it went out."""

    __slots__ = ("head", "stream", "sent", "main", "main_done", "open", "open_done",
                 "cdata_sent")

    def __init__(self, head: Any, stream: ValueStream | None) -> None:
        self.head = head
        """Its first token (a `Tag`)."""
        self.stream = stream
        """None: it does not stream (it goes out whole when it closes)."""
        self.sent: list[str] = []
        """This member's text that went out (`,"key":"` and value pieces)."""
        self.main: list[Any] | None = None
        """The list of its value's pieces, and how many of them were read."""
        self.main_done = 0
        self.open: list[Any] | None = None
        """The content list of a CDATA section still open, and how much was read."""
        self.open_done = 0
        self.cdata_sent = 0
        """Characters of that open section already given to the stream."""


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
                 "current", "events", "param_starts", "json_starts", "guess", "held", "parts",
                 "cursor")

    def __init__(self, grammar: Grammar, *, policy: CallPolicy | None,
                 new_id: Callable[[], str], block_start: int, held: bool = False) -> None:
        self.grammar = grammar
        self.policy = policy
        """The tools (None: none given): each call is typed and checked by them."""
        self.checked = policy is not None
        """Tools were given: nothing of a call goes out before it is complete and
        checked."""
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
        self.guess = grammar.header.typing == "attribute"
        self.parts: list[str] = []
        """The block's text so far, piece by piece (the capture's own list)."""
        self.cursor = (0, block_start)
        """(i, offset): `parts[i]` begins at stream offset `offset`; it only moves on."""

    def attach(self, parts: list[str]) -> None:
        """The capture's list of the block's text, which it appends to as it lexes."""
        self.parts = parts

    # ---- what the capture and the builders say -------------------------------------------

    def builders(self, builders: tuple[Any, ...]) -> tuple[Any, ...]:
        """The grammar's builders, those of `name`, `param` and `invoke` telling this
        progress what they built."""
        wrapped = []
        for info, builder in zip(self.grammar.table.rules, builders):
            own = info.origin.rsplit("__", 1)[-1] if not info.origin.startswith("__") else info.origin
            hooks: dict[str, Callable[[Any, list[Any]], None]] = {
                "name": self._named, "param": self._param_done, "invoke": self._call_done}
            hook = hooks.get(own)
            wrapped.append(_tell(builder, hook) if builder is not None and hook else builder)
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
        call.tool = build_call(raw, self._call_text(raw[3], raw[4], _last_tag(children)),
                               self.policy, call.id, self.guess)
        self._finish(call)

    def _param_done(self, param: RawParam, children: list[Any]) -> None:
        call = self.open[0] if self.open else None
        if call is None or not call.started or call.broken or self.checked:
            return
        streaming = call.param
        call.param = None
        name = param[0]
        if name in call.keys:
            self._diverges(call, children)  # a repeated name: the final value is a list
            return
        member = ("," if call.keys else "{") + _member(param, self.guess)
        sent = "".join(streaming.sent) if streaming is not None and streaming.stream else ""
        if not member.startswith(sent):
            self._diverges(call, children)
            return
        call.keys.add(name)
        self._send(call, member[len(sent):])

    def _diverges(self, call: Call, children: list[Any] | None = None) -> None:
        """What went out of `call` may not be a prefix of its final arguments: no more
        pieces; whether it is one is decided when the call is complete (`_finish`)."""
        call.broken = True
        first = _first_tag(children) if children is not None else None
        call.diverged_at = first.start if first is not None else -1

    def _finish(self, call: Call) -> None:
        """The call is built: the rest of its final arguments goes out, or, when what
        went out is not a prefix of them (or the call is rejected), it is withdrawn."""
        tool = call.tool
        assert tool is not None
        final = tool.arguments_json if tool.accepted else None
        sent = "".join(call.sent)
        if final is not None and final.startswith(sent):
            self._send(call, final[len(sent):])
        elif sent:
            at = call.diverged_at if call.diverged_at >= 0 else tool.end
            call.aborted = True
            self.events.append(Aborted((call,), BlockFailure(DIVERGED, tool.start, tool.end, at)))
        call.broken = True

    def _call_text(self, start: int, end: int, last: Tag | None) -> str:
        """The block's text from stream offset `start` to `end` (a call's). The capture
        appends a token's text after the parser took it, so a call's last tag may not
        be in `parts` yet: then it is `last`."""
        parts = self.parts
        count = len(parts)
        i, at = self.cursor
        while i < count and at + len(parts[i]) <= start:
            at += len(parts[i])
            i += 1
        self.cursor = (i, at)
        pieces = []
        reached = at
        while i < count and reached < end:
            pieces.append(parts[i])
            reached += len(parts[i])
            i += 1
        if reached < end and last is not None and last.start == reached:
            pieces.append(last.text)
        return "".join(pieces)[start - at:end - at]

    # ---- streaming ---------------------------------------------------------------------

    def look(self, driver: Driver) -> None:
        """After a chunk: stream what became certain of the argument being written."""
        call = self.current
        if call is None or not call.started or call.broken or self.checked:
            return
        values = driver.values
        at = len(values) - 1
        while at >= 0 and values[at] is not call.tag:
            at -= 1
        head = -1
        for i in range(len(values) - 1, at, -1):
            value = values[i]
            if isinstance(value, Tag) and (value.term in self.param_starts
                                           or value.term in self.json_starts):
                head = i
                break
        if head < 0:
            return
        param = call.param
        if param is None or param.head is not values[head]:
            param = call.param = self._begin(call, values, head)
            if param is None:
                return
        if param.stream is not None:
            self._read(call, param, values, head)

    def follows(self, run: list[Any]) -> bool:
        """Whether pieces appended to `run` (the list a value's text goes to, right after
        a `look`) are the text of the value being streamed: then `more` streams them."""
        call = self.current
        if call is None or not call.started or call.broken or self.checked:
            return False
        param = call.param
        return param is not None and param.stream is not None and (
            run is param.main or run is param.open)

    def more(self, run: list[Any]) -> bool:
        """The engine appended one piece to `run` (`follows(run)` was True): stream it.
        True when that sent something."""
        call = self.current
        assert call is not None and call.param is not None
        param = call.param
        stream = param.stream
        assert stream is not None
        piece = run[-1]
        if run is param.main:
            out = stream.text(piece)
            param.main_done = len(run)
        else:
            out = stream.cdata(piece)
            param.cdata_sent += len(piece)
            param.open_done = len(run)
        before = len(self.events)
        self._stream(call, param, out)
        return len(self.events) > before

    def _begin(self, call: Call, values: list[Any], head: int) -> _Param | None:
        tag = values[head]
        if tag.term in self.json_starts:
            if call.keys or tag.text != "{":
                return _Param(tag, None)  # an array (rejected) or after arguments
            param = _Param(tag, ValueStream("json"))
            self._stream(call, param, param.stream.text(tag.text) if param.stream else "")
            return param
        found = self.grammar.build.param_head(values[head:])
        if found is None:
            return None  # the key is not known yet: look again later
        key, string_attr = found
        if key in call.keys:
            self._diverges(call, [tag])  # a repeated name: its value must not stream
            return None
        if not (string_attr is True or self.grammar.header.typing == "schema"):
            return _Param(tag, None)
        param = _Param(tag, ValueStream(self.grammar.build.value_edges))
        head_text = ("," if call.keys else "{") + json.dumps(key, ensure_ascii=False) + ':"'
        param.sent.append(head_text)
        self._send(call, head_text)
        return param

    def _read(self, call: Call, param: _Param, values: list[Any], head: int) -> None:
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

    def _stream(self, call: Call, param: _Param, text: str) -> None:
        if text:
            escaped = json.dumps(text, ensure_ascii=False)[1:-1] if param.head.term not in \
                self.json_starts else text
            param.sent.append(escaped)
            self._send(call, escaped)

    # ---- events ------------------------------------------------------------------------

    def _start(self, call: Call) -> None:
        call.started = True
        call.id = "" if self.held else self.new_id()
        self.events.append(Started(call, self.block_start))

    def _send(self, call: Call, text: str) -> None:
        if text:
            call.sent.append(text)
            call.sent_size += len(text)
            self.events.append(Delta(call, text))

    def ids(self) -> Callable[[], str]:
        """The ids of the block's calls, in order."""
        return iter([call.id for call in self.calls]).__next__

    def finish(self, raws: tuple[RawCall, ...], block: str) -> tuple[ToolCall, ...]:
        """The block is complete (`raws`, its text `block`): its calls, as each was
        built when it was complete. Every call of a block is an invoke the builders
        reported, in order; were one missing, all are built here from the block."""
        tools = [call.tool for call in self.calls]
        if len(tools) == len(raws) and all(
                tool is not None and (tool.start, tool.end) == (rc[3], rc[4])
                for tool, rc in zip(tools, raws)):
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

    def started(self) -> tuple[Call, ...]:
        """The calls whose CallStarted was made and that were not withdrawn, for the
        CallsAborted of a failed block."""
        return tuple(call for call in [*self.calls, *self.open]
                     if call.started and not call.aborted)

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


def _last_tag(children: list[Any]) -> Tag | None:
    """The last `Tag` among a rule's children (nested lists included)."""
    for child in reversed(children):
        if isinstance(child, Tag):
            return child
        if isinstance(child, list):
            found = _last_tag(child)
            if found is not None:
                return found
    return None


def _member(param: RawParam, guess: bool) -> str:
    """`"key":value`, as the call's arguments JSON will hold it."""
    arguments, _ = type_arguments([param], None, guess=guess)
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)[1:-1]
