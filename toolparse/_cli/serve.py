"""`toolparse serve`: the OpenAI-compatible proxy (SPEC 9), in the `serve` extra.

The server's packages are imported only when the command runs, so the rest of the
command line works without them; without them this command says how to get them.
"""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import urlsplit

from toolparse._cli.common import (
    MAX_PROCESSES,
    UsageError,
    add_dialect_options,
    chosen_dialect,
    port,
    positive_int,
    processes,
    reasoning_options,
    seconds,
)
from toolparse._errors import ConfigError, UnknownDialectError

__all__ = ["add_parser", "run"]

# ServeConfig's defaults (toolparse._serve.config), repeated: the server's packages are
# not imported until the command runs (a test checks that they agree).
DEFAULT_TIMEOUT = 600.0
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_MAX_BODY = 32 << 20

def add_parser(commands: Any) -> None:
    serve = commands.add_parser(
        "serve", help="run an OpenAI-compatible proxy that turns tool calls written as text "
                      "into tool_calls",
        description="Proxy /v1/* to an OpenAI-compatible upstream whose model writes tool "
                    "calls as text; answers of POST /v1/chat/completions come back with "
                    "those calls as tool_calls (streaming or not). Needs the serve extra: "
                    "pip install 'toolparse[serve]'.")
    serve.add_argument("--upstream", required=True, metavar="URL",
                       help="the upstream's OpenAI base URL, such as http://127.0.0.1:8080/v1")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=port, default=8000,
                       help="port to listen on, 1 to 65535 (default 8000)")
    add_dialect_options(serve)
    serve.add_argument("--reasoning", metavar="NAME", default="auto",
                       help="the reasoning format, sent as reasoning_content: auto (the "
                            "dialect's own, the default), a format's name, or none")
    serve.add_argument("--in-reasoning", action="store_true",
                       help="the model's template opens the reasoning region in the prompt "
                            "(a request's chat_template_kwargs thinking=false turns it off)")
    serve.add_argument("--on-rejected", choices=("content", "drop", "keep"), default="content",
                       help="a block with a call its schema rejects: send its text as content "
                            "(default), drop that call, or keep it")
    serve.add_argument("--stream-arguments", action="store_true",
                       help="send each call's id and name as soon as it starts, then its "
                            "arguments in pieces (a cut call then ends the answer 'stop')")
    serve.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                       help="upstream connect and read timeout; past it, 504 "
                            f"(default {DEFAULT_TIMEOUT:g})")
    serve.add_argument("--header-timeout", type=seconds, default=DEFAULT_HEADER_TIMEOUT,
                       metavar="SECONDS",
                       help="a client must send a request's headers within this time, else "
                            "408 and the connection is closed "
                            f"(default {DEFAULT_HEADER_TIMEOUT:g})")
    serve.add_argument("--body-timeout", type=seconds, default=DEFAULT_BODY_TIMEOUT,
                       metavar="SECONDS",
                       help="the longest pause while a client sends a request's body, else "
                            f"408 and the connection is closed (default {DEFAULT_BODY_TIMEOUT:g})")
    serve.add_argument("--max-body", type=positive_int, default=DEFAULT_MAX_BODY, metavar="BYTES",
                       help="larger request bodies get 413 (default 33554432, 32 MiB)")
    serve.add_argument("--workers", type=processes, default=1, metavar="N",
                       help=f"worker processes on the one port, 1 to {MAX_PROCESSES} (default "
                            "1); each takes any request, so throughput grows with cores")
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                       default="info", help="default info: one line per request, no content")
    serve.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from toolparse._serve import ServeConfig, run as serve_forever
    except ImportError as error:
        raise UsageError(f"serve needs the serve extra ({error.name or 'a package'} is not "
                         "installed): pip install 'toolparse[serve]'") from None
    from toolparse.openai import stream_rewriter

    _check_upstream(args.upstream)

    reasoning = reasoning_options(args)
    config = ServeConfig(upstream=args.upstream, dialect=chosen_dialect(args) or "deepseek",
                         on_rejected=args.on_rejected, stream_arguments=args.stream_arguments,
                         timeout=args.timeout, max_body=args.max_body,
                         header_timeout=args.header_timeout, body_timeout=args.body_timeout,
                         **reasoning)
    # The options as a request will use them: an error here, not at the first request.
    try:
        stream_rewriter(dialect=config.dialect, stream_arguments=config.stream_arguments,
                        on_rejected=config.on_rejected, **reasoning)
    except (UnknownDialectError, ConfigError) as error:
        raise UsageError(str(error)) from None
    serve_forever(config, host=args.host, port=args.port, log_level=args.log_level,
                  workers=args.workers)
    return 0


def _check_upstream(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"--upstream must be an http:// or https:// URL, not {url!r}")
