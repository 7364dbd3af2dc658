"""Which route a request takes (SPEC 9): the first whose `model` matches the request's
`model`, exactly or as a glob (`fnmatch`, case-sensitive: `*` also matches `/`).

A route is resolved once, when the app is built (`RouteRuntime`): its upstream, the
dialect its parsers read with (under `on_foreign_markup = "parse"`, every bundled
dialect, its own first), what it recognises of other dialects, its metrics. A request
then costs one lookup of its model (remembered for the last `_REMEMBERED` models).
"""

from __future__ import annotations

import fnmatch
import os
from typing import Any, Final

from toolparse._dialect import Dialect
from toolparse._dialect.loader import resolve_dialect
from toolparse._serve.config import Route, ServeConfig, Upstream
from toolparse._serve.fleet import NO_ROUTE
from toolparse._serve.foreign import ForeignMarkup, composite, foreign_markup
from toolparse._serve.metrics import Metrics, RouteMetrics
from toolparse._serve.observe import Watch

__all__ = ["RouteRuntime", "Router"]

_REMEMBERED: Final = 4096
"""Models whose route is remembered (cleared when full)."""

_REMEMBERED_LENGTH: Final = 256
"""Longer model strings are matched each time, never kept."""


class RouteRuntime:
    """A route as its requests use it."""

    __slots__ = ("route", "upstream", "metrics", "reading", "markup", "reasoning", "api_key")

    def __init__(self, route: Route, upstream: Upstream, metrics: Metrics,
                 api_key: str | None) -> None:
        self.route = route
        self.upstream = upstream
        self.metrics = metrics.route(route.name, route.dialect_name)
        own = resolve_dialect(route.dialect)
        self.markup: ForeignMarkup | None = foreign_markup(own)
        parse = route.on_foreign_markup == "parse"
        self.reading: Dialect = composite(own) if parse else own
        """The dialect its parsers read with."""
        self.reasoning = own.reasoning if parse and route.reasoning == "auto" \
            else route.reasoning
        """The reasoning format: under `parse`, `auto` is the route's own dialect's."""
        self.api_key = api_key
        """The upstream's key, or None (the client's own header is forwarded)."""

    @property
    def name(self) -> str:
        return self.route.name

    def parser_options(self, in_reasoning: bool) -> dict[str, Any]:
        """What the adapter is given for a request on this route (SPEC 8, 11)."""
        route = self.route
        return {"dialect": self.reading, "on_rejected": route.on_rejected,
                "reasoning": self.reasoning, "in_reasoning": in_reasoning}

    def watch(self, request_id: str) -> Watch:
        return Watch(request_id, self.route.name, self.metrics, self.reading, self.markup,
                     self.route.on_foreign_markup)


class Router:
    """The routes of a configuration, in order."""

    def __init__(self, config: ServeConfig, metrics: Metrics) -> None:
        upstreams, routes = config.fleet()
        self.upstreams = {upstream.name: upstream for upstream in upstreams}
        self.api_keys = {upstream.name: os.environ.get(upstream.api_key_env) or None
                         if upstream.api_key_env else None for upstream in upstreams}
        """Each upstream's key, read from the environment once, at the start."""
        self.routes = [RouteRuntime(route, self.upstreams[route.upstream], metrics,
                                    self.api_keys[route.upstream]) for route in routes]
        self.unrouted: RouteMetrics = metrics.route(NO_ROUTE, NO_ROUTE)
        """The metrics of requests that took no route (no match, a bad request)."""
        self._remembered: dict[str, RouteRuntime | None] = {}

    def match(self, model: str) -> RouteRuntime | None:
        """The first route whose model matches `model`, or None."""
        remembered = self._remembered
        if model in remembered:
            return remembered[model]
        found = next((runtime for runtime in self.routes
                      if fnmatch.fnmatchcase(model, runtime.route.model)), None)
        if len(model) <= _REMEMBERED_LENGTH:
            if len(remembered) >= _REMEMBERED:
                remembered.clear()
            remembered[model] = found
        return found

    def first(self) -> RouteRuntime:
        return self.routes[0]
