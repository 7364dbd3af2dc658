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
Any other argument goes out whole when its parameter closes. With tools, nothing goes
out before the block is complete and checked (repair may change any value).

At the end of the block each call gets the rest of its final `arguments_json`. What
went out is a prefix of it, except in two cases no streaming can foresee, where the
call's deltas simply stop (the `ToolCallBlock` has the truth): a parameter name that
comes again after its value went out (the value becomes a list), and a call that turns
out rejected (a JSON body that is not one object).

The events made here are internal (`Started`, `Delta`, `Aborted`, holding the `Call`
they are about); `Output` numbers the calls as their `CallStarted` goes out, so that
calls of a block found in code (whose events are dropped) leave no gap.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolparse._calls.values import type_arguments
from toolparse._dialect.build import RawCall, RawParam, name_text
from toolparse._dialect.grammar import Grammar
from toolparse._dialect.table import Driver, Tag
from toolparse._dialect.value_stream import ValueStream
from toolparse._dialect.values import Cdata
from toolparse._events import BlockFailure

__all__ = ["Aborted", "Call", "CallProgress", "Delta", "Started"]


class Call:
    """One call of the open block, as far as it has arrived."""

    __slots__ = ("tag", "name", "id", "live", "started", "done", "broken", "keys", "sent",
                 "sent_size", "param", "index")

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
        """What went out can no longer be a prefix of the final arguments: no more."""
        self.keys: set[str] = set()
        """The argument names that went out."""
        self.sent: list[str] = []
        """The arguments text that went out, in pieces."""
        self.sent_size = 0
        self.param: _Param | None = None
        """The argument being written, when it streams."""
        self.index = -1
        """Set by Output when the CallStarted goes out."""


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

    __slots__ = ("grammar", "checked", "new_id", "block_start", "calls", "current", "events",
                 "param_starts", "json_starts", "guess", "held")

    def __init__(self, grammar: Grammar, *, checked: bool, new_id: Callable[[], str],
                 block_start: int, held: bool = False) -> None:
        self.grammar = grammar
        self.checked = checked
        """Tools were given: no delta before the block is complete and checked."""
        self.new_id = new_id
        self.held = held
        """The block's tag may sit in code: its events wait with it, and its calls draw
        their ids only when it turns out to be a block (`draw_ids`)."""
        self.block_start = block_start
        self.calls: list[Call] = []
        """The block's complete calls, in order (one per RawCall)."""
        self.current: Call | None = None
        """The call being written."""
        self.events: list[ProgressEvent] = []
        """Events not handed on yet."""
        roles = grammar.roles
        self.param_starts = roles.param_starts
        self.json_starts = roles.json_starts
        self.guess = grammar.header.typing == "attribute"

    # ---- what the capture and the builders say -------------------------------------------

    def builders(self, builders: tuple[Any, ...]) -> tuple[Any, ...]:
        """The grammar's builders, those of `name`, `param` and `invoke` telling this
        progress what they built."""
        wrapped = []
        for info, builder in zip(self.grammar.table.rules, builders):
            own = info.origin.rsplit("__", 1)[-1] if not info.origin.startswith("__") else info.origin
            hooks: dict[str, Callable[[Any], None]] = {
                "name": self._named, "param": self._param_done, "invoke": self._call_done}
            hook = hooks.get(own)
            wrapped.append(_tell(builder, hook) if builder is not None and hook else builder)
        return tuple(wrapped)

    def opening(self, token: Any) -> Call:
        """A call's first token is about to go to the parser."""
        call = Call(token)
        self.current = call
        if self.grammar.name_at_tag and isinstance(token, Tag):
            call.name = self.grammar.build.tag_name(token)
        return call

    def opened(self, call: Call) -> None:
        """The parser took the call's first token."""
        call.live = True
        if call.name:
            self._start(call)

    def _named(self, value: Any) -> None:
        call = self.current
        if call is not None and call.name is None:
            call.name = name_text(value) or None
            if call.live:
                self._start(call)

    def _call_done(self, raw: RawCall) -> None:
        call = self.current
        if call is None:  # an invoke with no first token seen (never: it starts one)
            call = Call(None)
        call.name = call.name or raw[0]
        call.done = True
        call.param = None
        self.current = None
        self.calls.append(call)
        if call.live and not call.started:
            self._start(call)

    def _param_done(self, param: RawParam) -> None:
        call = self.current
        if call is None or not call.started or call.broken or self.checked:
            return
        streaming = call.param
        call.param = None
        name = param[0]
        if name in call.keys:
            call.broken = True  # a repeated name: the final value is a list
            return
        member = ("," if call.keys else "{") + _member(param, self.guess)
        sent = "".join(streaming.sent) if streaming is not None and streaming.stream else ""
        if not member.startswith(sent):
            call.broken = True
            return
        call.keys.add(name)
        self._send(call, member[len(sent):])

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
            call.broken = True
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
        """The ids of the block's calls, in order, for `build_calls`."""
        return iter([call.id for call in self.calls]).__next__

    def complete(self, arguments: list[str | None]) -> None:
        """The block is complete: each call's final arguments text (None for a rejected
        call); each call gets the rest of its text."""
        for call, final in zip(self.calls, arguments):
            if call.broken or final is None:
                continue
            sent = "".join(call.sent)
            if final.startswith(sent):
                self._send(call, final[len(sent):])

    def draw_ids(self) -> None:
        """The held block is outside code: its started calls get their ids, in order."""
        self.held = False
        for call in self.started():
            if not call.id:
                call.id = self.new_id()

    def started(self) -> tuple[Call, ...]:
        """The calls whose CallStarted was made, for a CallsAborted."""
        calls = [*self.calls, *([self.current] if self.current is not None else [])]
        return tuple(call for call in calls if call.started)

    def take(self) -> list[ProgressEvent]:
        events, self.events = self.events, []
        return events


def _tell(builder: Callable[[list[Any]], Any], hook: Callable[[Any], None]
          ) -> Callable[[list[Any]], Any]:
    def told(children: list[Any]) -> Any:
        value = builder(children)
        hook(value)
        return value
    return told


def _member(param: RawParam, guess: bool) -> str:
    """`"key":value`, as the call's arguments JSON will hold it."""
    arguments, _ = type_arguments([param], None, guess=guess)
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)[1:-1]
