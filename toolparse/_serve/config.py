"""What one `toolparse serve` process is told: the upstream, the rewrite options, the
limits. Set by the server's flags, never by a client (SPEC 9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from toolparse._dialect import Dialect
from toolparse.openai import OnRejected

__all__ = ["CLIENT_TIMEOUTS", "DEFAULT_BODY_TIMEOUT", "DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_BODY",
           "DEFAULT_TIMEOUT", "ClientTimeouts", "ServeConfig"]

DEFAULT_TIMEOUT: Final = 600.0
"""Seconds to wait for the upstream to connect, or between two reads of its answer."""

DEFAULT_MAX_BODY: Final = 32 << 20
"""The largest request body accepted (32 MiB: long conversations with images fit)."""

DEFAULT_HEADER_TIMEOUT: Final = 10.0
"""Seconds a client has to send a request's headers (they come in one packet or two)."""

DEFAULT_BODY_TIMEOUT: Final = 30.0
"""Seconds a client may pause while sending a request's body."""

CLIENT_TIMEOUTS: Final = "toolparse.client_timeouts"
"""The key under which the app puts its `ClientTimeouts` in the ASGI lifespan state,
where the server's protocol (`protocol.py`) reads them."""


@dataclass(frozen=True, slots=True)
class ClientTimeouts:
    """How long a client may take to send a request, in seconds (`protocol.py`)."""

    header: float
    """From the connection's start, or a later request's first byte, to its headers' end."""
    body: float
    """Between two reads of the body (and from the headers' end to the first)."""


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """The proxy's settings."""

    upstream: str
    """The upstream's OpenAI base URL (`http://127.0.0.1:8080/v1`): the proxy's
    `/v1/<path>` goes to `<upstream>/<path>`."""
    dialect: str | Dialect = "deepseek"
    """The markup the model writes its tool calls in."""
    on_rejected: OnRejected = "content"
    """SPEC 8's policy for blocks with a rejected call."""
    stream_arguments: bool = False
    """Stream each call's arguments as they arrive (SPEC 8)."""
    reasoning: str | None = "auto"
    """The reasoning format (SPEC 11): `auto` (the dialect's own), a bundled format's
    name, or None for none."""
    in_reasoning: bool = False
    """The prompt opens the reasoning region (the template did) unless the request turns
    thinking off in its `chat_template_kwargs` (`thinking` or `enable_thinking`)."""
    timeout: float = DEFAULT_TIMEOUT
    """Upstream connect and read timeout, in seconds; past it the client gets 504."""
    max_body: int = DEFAULT_MAX_BODY
    """Request bodies larger than this many bytes get 413."""
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    """Seconds a client has to send a request's headers; past it, 408 and the
    connection is closed (under uvicorn with `protocol.PROTOCOL`, as `run` serves)."""
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    """Seconds a client may pause while sending a body; past it, 408 and closed."""
    max_connections: int = 1000
    """Open upstream connections at most (the pool's limit)."""
