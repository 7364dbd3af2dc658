"""`toolparse serve` (SPEC 9): an OpenAI-compatible proxy that turns tool calls a model
writes as text into `tool_calls`, in front of any chat-completions endpoints, routing
each request by its model.

The only part of toolparse with sockets. Needs the `serve` extra (`pip install
'.[serve]'` in a checkout: Starlette, httpx2 over aiohttp, uvicorn, orjson,
prometheus-client).

    config.py   ServeConfig: upstreams, routes, the rewrite options, the limits
    fleet.py    the TOML configuration file (--config), checked at the start
    routing.py  which route a request's model takes; a route as requests use it
    app.py      the ASGI app: routes, the upstream pools, errors, the access log, metrics
    chat.py     POST /v1/chat/completions: forwarded and rewritten (SPEC 8)
    models.py   GET /v1/models: every upstream's models, with the route each takes
    observe.py  what the parsers find, counted and logged as it goes out
    foreign.py  markup of the bundled dialects a route does not read
    metrics.py  GET /metrics (Prometheus text format): the counters and histograms
    logs.py     log lines as text or JSON; the request ids
    proxy.py    headers, bounded bodies, the proxy's own errors, a request's facts
    sse.py      SSE events in and out; the chat stream's translator (sans-I/O)
    runs.py     the content-only chunks of one read, rewritten as one (sans-I/O)
    codec.py    JSON in and out: a stated depth, and anything decoded encodes again
    transport.py  the upstream leg: httpx2's client over aiohttp's pool and parser
    protocol.py   the client leg: uvicorn's HTTP protocol with header and body time-outs
    server.py   running the app under uvicorn
"""

from toolparse._serve.app import create_app
from toolparse._serve.config import ServeConfig
from toolparse._serve.server import run

__all__ = ["ServeConfig", "create_app", "run"]
