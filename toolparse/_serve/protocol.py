"""The HTTP/1.1 protocol uvicorn runs for each client connection: its own (httptools,
the C parser), with a time-out for the request's headers and one for its body.

uvicorn bounds the wait between two requests on a kept-alive connection, and nothing
else: a client that connects and sends part of its headers, or fewer body bytes than
its `content-length` says, holds its connection, its task and its buffer for as long
as it likes. Here:

- headers: a request's headers must be complete within `header` seconds of the
  connection's start (its first request) or of the request's first byte (a later one
  on a kept-alive connection);
- body: the request's body must keep coming: at most `body` seconds between two reads
  of it (the wait nginx's `client_body_timeout` bounds), counted from the end of the
  headers.

Past either, the client gets `408 Request Timeout` (an OpenAI-shaped error body,
`connection: close`) and the connection is closed; a connection that sent nothing at
all is closed without an answer, as an idle kept-alive one is, and one whose response
has started is only closed. A wait that is the server's doing is not counted: while
reading is paused (a body the app has not read yet, a pipelined request waiting its
turn) or an earlier response on the connection is still being sent, the clock starts
again. The app being slow to answer is never the client's fault either: nothing is
timed once the request is whole.

The time-outs come from the app, through the ASGI lifespan state (`CLIENT_TIMEOUTS`:
`create_app` puts the `ServeConfig`'s there, so each worker process of `--workers N`
gets them with the rest of its settings); an app that puts none gets the defaults.
One timer per connection at a time; each body read only moves its deadline.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Final, Literal

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from toolparse._serve.config import (
    CLIENT_TIMEOUTS,
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    ClientTimeouts,
)

__all__ = ["PROTOCOL", "TimedHttpProtocol"]

PROTOCOL: Final = f"{__name__}:TimedHttpProtocol"
"""uvicorn's `http` setting that selects this protocol."""

log = logging.getLogger("toolparse.serve")

_Phase = Literal["headers", "body"]
_FLAGS: Final[dict[_Phase, str]] = {"headers": "--header-timeout", "body": "--body-timeout"}


class TimedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with the client time-outs of the module's header."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        timeouts = app_state.get(CLIENT_TIMEOUTS)
        self._timeouts = timeouts if isinstance(timeouts, ClientTimeouts) else \
            ClientTimeouts(DEFAULT_HEADER_TIMEOUT, DEFAULT_BODY_TIMEOUT)
        self._phase: _Phase | None = None
        """What the client is being waited for; None: nothing is timed."""
        self._deadline = 0.0
        """When the wait ends (the event loop's clock)."""
        self._timer: asyncio.TimerHandle | None = None
        self._request_begun = False
        """A byte of the current request has come."""

    # ---- the phases ----------------------------------------------------------------------

    def _wait_for(self, phase: _Phase | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._phase = phase
        if phase is not None:
            seconds = self._timeouts.header if phase == "headers" else self._timeouts.body
            self._deadline = self.loop.time() + seconds
            self._timer = self.loop.call_at(self._deadline, self._expired)

    def _expired(self) -> None:
        self._timer = None
        phase = self._phase
        if phase is None or self.transport.is_closing():
            return
        if self._server_is_waiting():
            self._wait_for(phase)        # not the client's doing: the clock starts again
            return
        now = self.loop.time()
        if now < self._deadline:         # the body moved on since the timer was set
            self._timer = self.loop.call_at(self._deadline, self._expired)
            return
        self._drop(phase)

    def _server_is_waiting(self) -> bool:
        cycle = self.cycle
        earlier_response = (self._phase == "headers" and cycle is not None
                            and not cycle.response_complete)
        return self.flow.read_paused or earlier_response

    def _drop(self, phase: _Phase) -> None:
        seconds = self._timeouts.header if phase == "headers" else self._timeouts.body
        self._phase = None
        if phase == "headers" and not self._request_begun:
            log.debug("closed a connection that sent no request within %g s", seconds)
            self.transport.close()
            return
        log.info("closed a connection: the request's %s did not come within %g s (%s)",
                 phase, seconds, _FLAGS[phase])
        cycle = self.cycle if phase == "body" else None
        if cycle is not None and cycle.response_started:
            self.transport.close()
            return
        if cycle is not None:             # the app is waiting for the body: it is told the
            cycle.disconnected = True     # client left, and what it sends goes nowhere
            cycle.message_event.set()
        self.transport.write(self._timeout_response(phase, seconds))
        self.transport.close()

    def _timeout_response(self, phase: _Phase, seconds: float) -> bytes:
        message = (f"the request's {phase} did not come within {seconds:g} s (the server's "
                   f"{_FLAGS[phase]}); the connection is closed")
        body = json.dumps({"error": {"message": message, "type": "invalid_request_error",
                                     "param": None, "code": "request_timeout"}}).encode()
        head = [b"HTTP/1.1 408 Request Timeout\r\n"]
        head += [name + b": " + value + b"\r\n"
                 for name, value in self.server_state.default_headers]
        head += [b"content-type: application/json\r\n",
                 b"content-length: %d\r\n" % len(body), b"connection: close\r\n\r\n"]
        return b"".join(head) + body

    # ---- uvicorn's protocol, with the phases --------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._wait_for("headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._wait_for(None)
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._request_begun = True
        if self._phase is None:           # a later request: timed from its first byte
            self._wait_for("headers")

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._wait_for("body")            # ended at once by a request without a body

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        self._deadline = self.loop.time() + self._timeouts.body

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._wait_for(None)
        self._request_begun = False
