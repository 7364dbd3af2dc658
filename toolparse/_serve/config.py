"""What one `toolparse serve` process is told: its upstreams, its routes (each with the
rewrite options of the models it takes), the limits. Set by the server's flags or its
configuration file (`fleet.py`), never by a client (SPEC 9).

The flags are a one-route configuration: `ServeConfig(upstream=..., dialect=...)`
without `routes` serves every model by one route named `default`
(`ServeConfig.fleet()`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from toolparse._dialect import Dialect
from toolparse._errors import ConfigError
from toolparse.openai import OnRejected

__all__ = ["CLIENT_TIMEOUTS", "DEFAULT_BODY_TIMEOUT", "DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_BODY",
           "DEFAULT_ROUTE", "DEFAULT_TIMEOUT", "ClientTimeouts", "ForeignPolicy", "LogFormat",
           "Route", "ServeConfig", "Upstream"]

ForeignPolicy: TypeAlias = Literal["pass", "warn", "parse"]
"""What a route does with markup of a bundled dialect it does not read (SPEC 9): sends
it as content, counted (`pass`); the same, logged and reported on the response
(`warn`); or reads it with that dialect, as `dialect="auto"` would (`parse`)."""

LogFormat: TypeAlias = Literal["text", "json"]

DEFAULT_ROUTE: Final = "default"
"""The name of the one route (and its upstream) that the flags describe."""

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
class Upstream:
    """A model server the proxy forwards to, by name."""

    name: str
    url: str
    """Its OpenAI base URL (`http://127.0.0.1:8080/v1`): `/v1/<path>` goes to `<url>/<path>`."""
    api_key_env: str | None = None
    """An environment variable holding its key: sent as `Authorization: Bearer <key>` in
    place of the client's own header. None: the client's header is forwarded."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds to wait between two reads of its answer (and to connect, unless
    `connect_timeout` says otherwise); past it the client gets 504."""
    connect_timeout: float | None = None
    """Seconds to wait for a connection (None: `timeout`)."""


@dataclass(frozen=True, slots=True)
class Route:
    """Which requests take this route (their `model`), where they go, how the answer is
    read. The first route whose `model` matches wins."""

    name: str
    """Its label in metrics and logs (a bounded set: never a client's model string)."""
    model: str
    """The model it takes: an exact name, or a glob (`Qwen/Qwen3-Coder-*`, `*`)."""
    upstream: str
    """The name of the upstream it forwards to."""
    dialect: str | Dialect = "deepseek"
    """The markup the model writes its calls in, or `auto`."""
    reasoning: str | None = "auto"
    """The reasoning format (SPEC 11): `auto` (the dialect's own), a name, or None."""
    in_reasoning: bool = False
    """The template opens the reasoning region in the prompt (SPEC 11), unless a
    request turns thinking off in its `chat_template_kwargs`."""
    on_rejected: OnRejected = "content"
    """SPEC 8's policy for a block with a rejected call."""
    stream_arguments: bool = False
    """Stream each call's arguments as they arrive (SPEC 8)."""
    on_foreign_markup: ForeignPolicy = "warn"
    """Markup of another bundled dialect (SPEC 9)."""

    @property
    def dialect_name(self) -> str:
        """The dialect's name, as metrics and logs label it."""
        return self.dialect if isinstance(self.dialect, str) else self.dialect.name


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """The proxy's settings."""

    upstream: str = ""
    """The one-route form: the upstream's OpenAI base URL (`http://127.0.0.1:8080/v1`):
    the proxy's `/v1/<path>` goes to `<upstream>/<path>`. Unused with `routes`."""
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
    """Open connections to each upstream at most (its pool's limit)."""
    on_foreign_markup: ForeignPolicy = "warn"
    """The one-route form: markup of another bundled dialect (SPEC 9)."""
    routes: tuple[Route, ...] = ()
    """The routes, in order (the first that matches a request's model wins); empty for
    the one-route form (the fields above)."""
    upstreams: tuple[Upstream, ...] = ()
    """The upstreams the routes name (with `routes`)."""
    log_format: LogFormat = "text"
    """Log lines as text, or one JSON object per line."""

    def fleet(self) -> tuple[tuple[Upstream, ...], tuple[Route, ...]]:
        """The upstreams and routes served: `routes` and `upstreams`, or the one route
        (named `default`, every model) that the one-route fields describe."""
        if self.routes:
            return self.upstreams, self.routes
        if not self.upstream:
            raise ConfigError("ServeConfig needs an upstream (one route for every model) or "
                              "routes and their upstreams")
        upstream = Upstream(DEFAULT_ROUTE, self.upstream, timeout=self.timeout)
        route = Route(DEFAULT_ROUTE, "*", DEFAULT_ROUTE, dialect=self.dialect,
                      reasoning=self.reasoning, in_reasoning=self.in_reasoning,
                      on_rejected=self.on_rejected, stream_arguments=self.stream_arguments,
                      on_foreign_markup=self.on_foreign_markup)
        return (upstream,), (route,)
