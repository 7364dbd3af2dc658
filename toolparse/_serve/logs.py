"""The proxy's log lines: one per request, and one per failed block, rejected call and
foreign-markup sighting (SPEC 9), as text or as one JSON object per line
(`--log-format`).

A structured line is a record of the `toolparse.serve` logger whose `toolparse` attribute
holds its fields (`event`, `request_id`, `route`, `dialect`, `reason`, `message`,
`excerpt`, ...); `JsonFormatter` writes them as an object, `TextFormatter` as
`key=value` pairs after the event's name. Other lines (uvicorn's, warnings) are written
the same way with `event: "log"` and their message.

What is never written: a header (the `Authorization` header and an upstream's key
included), a query string, a request body, a whole answer. A sighting or failure
carries at most `EXCERPT` characters of the model's text around it (the excerpt).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any, Final

__all__ = ["EXCERPT", "JsonFormatter", "TextFormatter", "configure", "excerpt", "log",
           "log_event", "new_request_id"]

log = logging.getLogger("toolparse.serve")

EXCERPT: Final = 200
"""The most characters of the model's text a log line quotes."""

_TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def new_request_id() -> str:
    """A request's id: 16 random hex digits (also sent as `x-toolparse-request-id`)."""
    return os.urandom(8).hex()


def excerpt(text: str, at: int = 0) -> str:
    """At most `EXCERPT` characters of `text`, from a little before `at` (where the
    trouble is) on."""
    start = max(0, min(at - EXCERPT // 4, len(text) - EXCERPT))
    return text[start:start + EXCERPT]


def log_event(level: int, event: str, **fields: Any) -> None:
    """One structured line (if the logger writes `level`)."""
    if not log.isEnabledFor(level):
        return
    record = {"event": event, **fields}
    log.log(level, "%s", _as_text(record), extra={"toolparse": record})


def _as_text(record: dict[str, Any]) -> str:
    parts = [str(record["event"])]
    for key, value in record.items():
        if key == "event" or value is None:
            continue
        text = value if isinstance(value, (int, float)) else str(value)
        if isinstance(text, str) and (not text or not text.isprintable()
                                      or any(c in ' "=' for c in text)):
            text = json.dumps(text, ensure_ascii=False)   # one line, control codes escaped
        parts.append(f"{key}={text}")
    return " ".join(parts)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__(_TEXT_FORMAT)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: `time`, `level`, `logger`, then the record's fields (or
    `event: "log"` and its `message`)."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {"time": self.formatTime(record), "level":
                                record.levelname.lower(), "logger": record.name}
        fields = getattr(record, "toolparse", None)
        if isinstance(fields, dict):
            data.update(fields)
        else:
            data.update(event="log", message=record.getMessage())
        if record.exc_info and record.levelno <= logging.DEBUG:
            data["traceback"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def configure(log_level: str, log_format: str) -> None:
    """Write the proxy's lines to standard error, as text or JSON, at `log_level`."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    log.handlers[:] = [handler]
    log.propagate = False
    log.setLevel(log_level.upper())


def uvicorn_log_config(log_format: str) -> dict[str, Any] | None:
    """uvicorn's own loggers in the same format (None: uvicorn's default, for text)."""
    if log_format != "json":
        return None
    formatter = {"()": f"{__name__}.JsonFormatter"}
    handler = {"class": "logging.StreamHandler", "formatter": "json",
               "stream": "ext://sys.stderr"}
    return {"version": 1, "disable_existing_loggers": False,
            "formatters": {"json": formatter}, "handlers": {"default": handler},
            "loggers": {"uvicorn": {"handlers": ["default"], "level": "INFO",
                                    "propagate": False},
                        "uvicorn.error": {"level": "INFO"},
                        "uvicorn.access": {"handlers": [], "propagate": False}}}
