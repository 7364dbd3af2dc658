"""Running the proxy under uvicorn: one process, or several workers on one socket.

With `workers > 1`, uvicorn starts that many processes (its supervisor restarts any
that dies) and each builds the app again from `app_from_environment`: the settings go
to them in one environment variable, as JSON, and a dialect loaded from a grammar file
goes by its path (each worker loads it). The app holds no state beyond a request, so
any worker can take any request.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from typing import Any, Final

import uvicorn
from starlette.types import ASGIApp

from toolparse._dialect import Dialect
from toolparse._dialect.loader import bundled_dialects
from toolparse._errors import ConfigError
from toolparse._serve.app import create_app
from toolparse._serve.config import ServeConfig
from toolparse._serve.protocol import PROTOCOL

__all__ = ["CONFIG_VARIABLE", "app_from_environment", "run", "uvicorn_settings"]

CONFIG_VARIABLE: Final = "TOOLPARSE_SERVE_CONFIG"
"""The environment variable that carries a worker's settings (`encode_config`)."""

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def run(config: ServeConfig, *, host: str = "127.0.0.1", port: int = 8000,
        log_level: str = "info", workers: int = 1) -> None:
    """Serve until interrupted (`uvicorn_settings` says how)."""
    options: dict[str, Any] = dict(host=host, port=port, **uvicorn_settings(log_level))
    if workers == 1:
        _log_to_stderr(log_level)
        uvicorn.run(create_app(config), **options)
        return
    os.environ[CONFIG_VARIABLE] = encode_config(config, log_level)
    uvicorn.run(f"{__name__}:app_from_environment", factory=True, workers=workers, **options)


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
    grammar = settings.pop("grammar")
    if grammar is not None:
        settings["dialect"] = Dialect.from_file(grammar, name=settings["dialect"])
    _log_to_stderr(log_level)
    return create_app(ServeConfig(**settings))


def encode_config(config: ServeConfig, log_level: str) -> str:
    """The settings as JSON for the workers; a dialect from a grammar file by its path."""
    settings = {field.name: getattr(config, field.name) for field in dataclasses.fields(config)}
    dialect = config.dialect
    settings["grammar"] = None
    if isinstance(dialect, Dialect):   # bundled (or auto) by name, else by its file
        settings["dialect"] = dialect.name
        if dialect.path is not None and bundled_dialects().get(dialect.name) != dialect.path:
            settings["grammar"] = str(dialect.path)
    settings["log_level"] = log_level
    return json.dumps(settings)


def _log_to_stderr(log_level: str) -> None:
    logging.basicConfig(format=_FORMAT)
    logging.getLogger("toolparse.serve").setLevel(log_level.upper())
