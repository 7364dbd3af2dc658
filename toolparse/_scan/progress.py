"""The progress bar: tqdm's, on standard error, only when that is a terminal.

Piped or redirected, and where tqdm is not installed (it comes with the `scan` extra),
nothing is drawn. The bar counts input bytes (the total is the inputs' size when known)
and shows the records scanned so far.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, TextIO

__all__ = ["Progress"]


class Progress:
    """Progress over `total` input bytes (None: unknown), drawn on `stream` if it is a
    terminal and tqdm can be imported."""

    def __init__(self, total: int | None, stream: TextIO | None = None,
                 enabled: bool = True) -> None:
        stream = stream if stream is not None else sys.stderr
        self._records = 0
        self._bar: Any = None
        if not enabled or not _is_terminal(stream):
            return
        try:
            tqdm = importlib.import_module("tqdm")
        except ImportError:
            return
        # No monitor thread: the bar is redrawn as batches come back, and a process with
        # no other thread may fork its workers (`pool`).
        tqdm.tqdm.monitor_interval = 0
        # The records count is on the bar from its first drawing: a scan shorter than
        # tqdm's redraw interval shows only that one.
        self._bar = tqdm.tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024,
                              desc="scan", file=stream, leave=False, dynamic_ncols=True,
                              smoothing=0.1, postfix="0 records")

    @property
    def drawn(self) -> bool:
        """True when a bar is on the terminal."""
        return self._bar is not None

    def advance(self, size: int, records: int) -> None:
        """`size` more input bytes read, making `records` more records."""
        if self._bar is None:
            return
        self._records += records
        self._bar.set_postfix_str(f"{self._records:,} records", refresh=False)
        self._bar.update(size)

    def close(self) -> None:
        """Take the bar off the terminal."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):   # a closed stream
        return False
