"""Running the proxy under uvicorn: one process, or several workers on one socket.

With `workers > 1`, uvicorn starts that many processes (its supervisor restarts any
that dies) and each builds the app again from `app_from_environment`: the settings go
to them in one environment variable, as JSON, and a dialect loaded from a grammar file
goes by its path (each worker loads it; an upstream's key stays in the environment,
under the name the configuration gives). The app holds no state beyond a request, so
any worker can take any request. The workers count their metrics in files of one
directory (prometheus-client's multiprocess mode; `PROMETHEUS_MULTIPROC_DIR`, a
temporary directory unless it is set), so that any worker's `/metrics` counts them all.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from typing import Any, Final

import uvicorn
from starlette.types import ASGIApp

from toolparse._dialect import Dialect
from toolparse._dialect.loader import bundled_dialects
from toolparse._errors import ConfigError
from toolparse._serve.app import create_app
from toolparse._serve.config import Route, ServeConfig, Upstream
from toolparse._serve.logs import configure, uvicorn_log_config
from toolparse._serve.metrics import MULTIPROCESS_VARIABLE
from toolparse._serve.protocol import PROTOCOL

__all__ = ["CONFIG_VARIABLE", "app_from_environment", "run", "uvicorn_settings"]

CONFIG_VARIABLE: Final = "TOOLPARSE_SERVE_CONFIG"
"""The environment variable that carries a worker's settings (`encode_config`)."""

def run(config: ServeConfig, *, host: str = "127.0.0.1", port: int = 8000,
        log_level: str = "info", workers: int = 1) -> None:
    """Serve until interrupted (`uvicorn_settings` says how)."""
    options: dict[str, Any] = dict(host=host, port=port, **uvicorn_settings(log_level))
    log_config = uvicorn_log_config(config.log_format)
    if log_config is not None:
        options["log_config"] = log_config
    if workers == 1:
        configure(log_level, config.log_format)
        uvicorn.run(create_app(config), **options)
        return
    os.environ[CONFIG_VARIABLE] = encode_config(config, log_level)
    shared = None
    if not os.environ.get(MULTIPROCESS_VARIABLE):
        shared = os.environ[MULTIPROCESS_VARIABLE] = tempfile.mkdtemp(prefix="toolparse-metrics-")
    try:
        uvicorn.run(f"{__name__}:app_from_environment", factory=True, workers=workers, **options)
    finally:
        if shared is not None:
            shutil.rmtree(shared, ignore_errors=True)


def uvicorn_settings(log_level: str = "info") -> dict[str, Any]:
    """The uvicorn settings `run` serves with (tests and embedders use them too): the
    protocol that times each client's request (`protocol.py`), no websockets (the
    proxy has no such route), no `server` header, the app's lifespan. uvicorn's own
    access log is off: it would log query strings, where some clients put keys;
    `toolparse.serve` logs each request instead."""
    return dict(http=PROTOCOL, ws="none", log_level=log_level, access_log=False,
                server_header=False, lifespan="on")


def app_from_environment() -> ASGIApp:
    """The app of one worker, from the settings `run` left in the environment."""
    try:
        settings = json.loads(os.environ[CONFIG_VARIABLE])
    except (KeyError, ValueError):
        raise ConfigError(f"{CONFIG_VARIABLE} is not set to the settings of toolparse serve "
                          "(workers are started by `toolparse serve --workers N`)") from None
    log_level = settings.pop("log_level")
    settings["dialect"] = _decoded_dialect(settings["dialect"], settings.pop("grammar"))
    routes = []
    for route in settings["routes"]:
        grammar = route.pop("grammar")
        routes.append(Route(**{**route, "dialect": _decoded_dialect(route["dialect"], grammar)}))
    settings["routes"] = tuple(routes)
    settings["upstreams"] = tuple(Upstream(**upstream) for upstream in settings["upstreams"])
    config = ServeConfig(**settings)
    configure(log_level, config.log_format)
    return create_app(config)


def encode_config(config: ServeConfig, log_level: str) -> str:
    """The settings as JSON for the workers; a dialect from a grammar file by its path."""
    settings = {field.name: getattr(config, field.name) for field in dataclasses.fields(config)}
    settings["dialect"], settings["grammar"] = _encoded_dialect(config.dialect)
    routes = []
    for route in config.routes:
        fields = {field.name: getattr(route, field.name) for field in dataclasses.fields(route)}
        fields["dialect"], fields["grammar"] = _encoded_dialect(route.dialect)
        routes.append(fields)
    settings["routes"] = routes
    settings["upstreams"] = [dataclasses.asdict(upstream) for upstream in config.upstreams]
    settings["log_level"] = log_level
    return json.dumps(settings)


def _encoded_dialect(dialect: str | Dialect) -> tuple[str, str | None]:
    """A dialect as a name (bundled, or auto) or a name and its grammar file."""
    if not isinstance(dialect, Dialect):
        return dialect, None
    if dialect.path is not None and bundled_dialects().get(dialect.name) != dialect.path:
        return dialect.name, str(dialect.path)
    return dialect.name, None


def _decoded_dialect(name: str, grammar: str | None) -> str | Dialect:
    return Dialect.from_file(grammar, name=name) if grammar is not None else name
