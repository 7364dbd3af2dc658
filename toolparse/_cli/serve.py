"""`toolparse serve`: the OpenAI-compatible proxy (SPEC 9), in the `serve` extra.

    toolparse serve --upstream URL [--dialect NAME | --grammar PATH] [route options]
    toolparse serve --config FILE
    toolparse serve --check-config FILE

The flags describe one route (every model, one upstream); `--config` reads a fleet's
upstreams and routes from a TOML file (`toolparse/_serve/fleet.py`), and
`--check-config` only checks one (exit status 0, or 2 with the key that is wrong).

The server's packages are imported only when the command runs, so the rest of the
command line works without them; without them this command says how to get them.
"""

from __future__ import annotations

import argparse
import dataclasses
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
__all__ = ["add_parser", "run"]

# ServeConfig's defaults (toolparse._serve.config), repeated: the server's packages are
# not imported until the command runs (a test checks that they agree).
DEFAULT_TIMEOUT = 600.0
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_MAX_BODY = 32 << 20

ROUTE_FLAGS = {"upstream": "--upstream", "dialect": "--dialect", "grammar": "--grammar",
               "reasoning": "--reasoning", "in_reasoning": "--in-reasoning",
               "on_rejected": "--on-rejected", "stream_arguments": "--stream-arguments"}
"""The flags that describe the one route; with --config, each route says its own."""

INSTALL = "pip install '.[serve]' in a toolparse checkout"
"""How to get the serve extra (the package is not on PyPI yet)."""


def add_parser(commands: Any) -> None:
    serve = commands.add_parser(
        "serve", help="run an OpenAI-compatible proxy that turns tool calls written as text "
                      "into tool_calls",
        description="Proxy /v1/* to an OpenAI-compatible upstream whose model writes tool "
                    "calls as text; answers of POST /v1/chat/completions come back with "
                    "those calls as tool_calls (streaming or not). The flags describe one "
                    "route; --config FILE serves a fleet (routes by model, docs/serve.md). "
                    f"Needs the serve extra: {INSTALL}.")
    where = serve.add_mutually_exclusive_group(required=True)
    where.add_argument("--upstream", metavar="URL",
                       help="the upstream's OpenAI base URL, such as http://127.0.0.1:8080/v1 "
                            "(one route for every model)")
    where.add_argument("--config", metavar="FILE",
                       help="a TOML file of upstreams and routes by model (docs/serve.md)")
    where.add_argument("--check-config", metavar="FILE",
                       help="check a configuration file, print its routes, and exit")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=port, default=8000,
                       help="port to listen on, 1 to 65535 (default 8000)")
    add_dialect_options(serve)
    serve.add_argument("--reasoning", metavar="NAME",
                       help="the reasoning format, sent as reasoning_content: auto (the "
                            "dialect's own, the default), a format's name, or none")
    serve.add_argument("--in-reasoning", action="store_true", default=None,
                       help="the model's template opens the reasoning region in the prompt "
                            "(a request's chat_template_kwargs thinking=false turns it off)")
    serve.add_argument("--on-rejected", choices=("content", "drop", "keep"),
                       help="a block with a call its schema rejects: send its text as content "
                            "(default), drop that call, or keep it")
    serve.add_argument("--stream-arguments", action="store_true", default=None,
                       help="send each call's id and name as soon as it starts, then its "
                            "arguments in pieces (a cut call then ends the answer 'stop')")
    serve.add_argument("--on-foreign-markup", choices=("pass", "warn", "parse"), default="warn",
                       help="markup of another bundled dialect: send it as content, counted "
                            "(pass); also log it and say so on the response (warn, the "
                            "default); or read it with its dialect (parse). With --config, "
                            "the default of routes that do not say")
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
                       default="info", help="default info: one line per request, and one "
                                            "per failed block, rejected call and foreign "
                                            "markup")
    serve.add_argument("--log-format", choices=("text", "json"), default="text",
                       help="log lines as text (default) or one JSON object per line")
    serve.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from toolparse._serve import ServeConfig, run as serve_forever
        from toolparse._serve.fleet import check_fleet, load_fleet
    except ImportError as error:
        raise UsageError(f"serve needs the serve extra ({error.name or 'a package'} is not "
                         f"installed): {INSTALL}") from None
    base = ServeConfig(timeout=args.timeout, max_body=args.max_body,
                       header_timeout=args.header_timeout, body_timeout=args.body_timeout,
                       on_foreign_markup=args.on_foreign_markup, log_format=args.log_format)
    file = args.config or args.check_config
    if file is not None:
        given = [flag for name, flag in ROUTE_FLAGS.items() if getattr(args, name) is not None]
        if given:
            raise UsageError(f"{given[0]} describes the one route of the flags; with a "
                             "configuration file, each route says its own")
        config = load_fleet(file, base)
        if args.check_config is not None:
            _print_routes(file, config)
            return 0
    else:
        config = _one_route(args, base)
        check_fleet(config)   # the options as a request will use them: an error now
    serve_forever(config, host=args.host, port=args.port, log_level=args.log_level,
                  workers=args.workers)
    return 0


def _one_route(args: argparse.Namespace, base: Any) -> Any:
    """The configuration the route flags describe (ServeConfig's one-route form)."""
    _check_upstream(args.upstream)
    args.reasoning = args.reasoning or "auto"
    args.in_reasoning = bool(args.in_reasoning)
    return dataclasses.replace(
        base, upstream=args.upstream, dialect=chosen_dialect(args) or "deepseek",
        on_rejected=args.on_rejected or "content",
        stream_arguments=bool(args.stream_arguments), **reasoning_options(args))


def _print_routes(file: str, config: Any) -> None:
    upstreams, routes = config.fleet()
    urls = {upstream.name: upstream.url for upstream in upstreams}
    print(f"{file}: {len(upstreams)} upstream(s), {len(routes)} route(s); the first route "
          "whose model matches takes a request")
    for route in routes:
        reasoning = route.reasoning or "none"
        print(f"  {route.name}: model {route.model!r} -> {route.upstream} "
              f"({urls[route.upstream]}), dialect {route.dialect_name}, reasoning "
              f"{reasoning}{', in_reasoning' if route.in_reasoning else ''}, on_rejected "
              f"{route.on_rejected}, foreign markup {route.on_foreign_markup}"
              f"{', stream_arguments' if route.stream_arguments else ''}")


def _check_upstream(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"--upstream must be an http:// or https:// URL, not {url!r}")
