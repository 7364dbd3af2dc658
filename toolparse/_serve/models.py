"""`GET /v1/models`: the models of every upstream, each with the route it takes.

Each upstream is asked for its `models` at once (with the client's headers, or the
upstream's own key). A model is listed when the route its id takes forwards to the
upstream that listed it, with that route's name in `toolparse_route`: a client then
sees exactly the models the proxy serves, and an operator which route each takes. An
upstream that fails or answers an error is left out (one warning each); when none
answers, the client gets 502.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import httpx2
from starlette.requests import Request
from starlette.responses import Response

from toolparse._serve.codec import dumps, loads
from toolparse._serve.logs import log
from toolparse._serve.proxy import ProxyError, upstream_request
from toolparse._serve.routing import Router

__all__ = ["ROUTE_FIELD", "list_models"]

ROUTE_FIELD = "toolparse_route"
"""The member of each listed model that names the route it takes."""


async def list_models(request: Request, router: Router,
                      clients: Mapping[str, httpx2.AsyncClient]) -> Response:
    names = list(router.upstreams)
    answers: dict[str, list[Any] | None] = {}

    async def ask(name: str) -> None:
        answers[name] = await _models_of(request, router, clients, name)

    async with anyio.create_task_group() as group:
        for name in names:
            group.start_soon(ask, name)
    if all(answers[name] is None for name in names):
        raise ProxyError(502, "no upstream answered its list of models", "upstream_error",
                         "upstream_unreachable")
    listed: dict[str, Any] = {}
    for name in names:
        for model in answers[name] or ():
            if not isinstance(model, dict) or not isinstance(model.get("id"), str):
                continue
            runtime = router.match(model["id"])
            if runtime is not None and runtime.upstream.name == name \
                    and model["id"] not in listed:
                listed[model["id"]] = {**model, ROUTE_FIELD: runtime.name}
    body = {"object": "list", "data": list(listed.values())}
    return Response(dumps(body), media_type="application/json")


async def _models_of(request: Request, router: Router,
                     clients: Mapping[str, httpx2.AsyncClient], name: str) -> list[Any] | None:
    """The `data` of one upstream's list of models, or None (logged) when it has none."""
    client = clients[name]
    try:
        response = await client.send(upstream_request(client, request, b"models", b"",
                                                      router.api_keys[name]))
        answer = loads(response.content) if response.status_code == 200 else None
    except (httpx2.TransportError, ValueError) as error:
        log.warning("upstream %s: no list of models (%s)", name, type(error).__name__)
        return None
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list):
        log.warning("upstream %s: no list of models (status %d)", name, response.status_code)
        return None
    return data
