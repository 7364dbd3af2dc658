"""`toolparse serve` (SPEC 9): an OpenAI-compatible proxy that turns tool calls a model
writes as text into `tool_calls`, in front of any chat-completions endpoint.

The only part of toolparse with sockets. Needs the `serve` extra
(`pip install 'toolparse[serve]'`: Starlette, httpx2 over aiohttp, uvicorn, orjson).

    config.py   ServeConfig: the upstream, the rewrite options, the limits
    app.py      the ASGI app: routes, the upstream pool, errors, the access log
    chat.py     POST /v1/chat/completions: forwarded and rewritten (SPEC 8)
    proxy.py    headers, bounded bodies, the proxy's own errors
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
