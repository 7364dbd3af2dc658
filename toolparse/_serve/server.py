"""Running the proxy: uvicorn, one process, with the proxy's own access log."""

from __future__ import annotations

import logging

import uvicorn

from toolparse._serve.app import create_app
from toolparse._serve.config import ServeConfig

__all__ = ["run"]


def run(config: ServeConfig, *, host: str = "127.0.0.1", port: int = 8000,
        log_level: str = "info") -> None:
    """Serve until interrupted. uvicorn's own access log is off: it would log query
    strings, where some clients put keys; `toolparse.serve` logs each request instead."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("toolparse.serve").setLevel(log_level.upper())
    uvicorn.run(create_app(config), host=host, port=port, log_level=log_level,
                access_log=False, server_header=False, lifespan="on")
