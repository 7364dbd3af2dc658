"""Reading archives: JSONL and Parquet files, in bounded batches, never whole.

A JSONL file is read line by line as bytes (decoding is the worker's job, so a line
that is not UTF-8 is that record's error). A line longer than `max_record_bytes` is
read through in pieces and dropped, leaving a `TooLong` marker in its place: memory
holds at most one batch per worker in flight plus one line, whatever the file size.
Blank lines give no record (their numbers still count). A Parquet file is read in
Arrow record batches of `batch_rows` rows; a row is a record.

Cost: one pass over each input; a batch is at most `BATCH_LINES` lines or about
`BATCH_BYTES` bytes.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from toolparse._scan.arrow import require_pyarrow
from toolparse._scan.options import ScanOptionError
from toolparse._scan.record import TooLong

__all__ = ["BATCH_BYTES", "BATCH_LINES", "Batch", "Input", "MAX_RECORD_BYTES", "PARQUET_SUFFIXES",
           "open_inputs", "open_url"]

BATCH_LINES: Final = 256
"""Records per batch, at most."""

BATCH_BYTES: Final = 1 << 20
"""Input bytes per batch, about (a batch ends at the line that passes it)."""

MAX_RECORD_BYTES: Final = 64 << 20
"""Default longest JSONL line read; a longer one is the record's `too_long` error."""

PARQUET_SUFFIXES: Final = (".parquet", ".pq")

_SKIP_PIECE: Final = 1 << 20
_PARQUET_MAGIC: Final = b"PAR1"


@dataclass(frozen=True, slots=True)
class Batch:
    """Consecutive records of one input, ready for a worker."""

    source: str
    """The input's name, as given."""
    numbers: list[int]
    """Each record's line (JSONL) or row (Parquet) number, from 1."""
    items: list[bytes | TooLong] | None
    """JSONL: the lines, as bytes."""
    rows: Any = None
    """Parquet: an Arrow RecordBatch, one row per record."""
    size: int = 0
    """The input bytes this batch stands for (for the progress bar)."""


@dataclass(frozen=True, slots=True)
class Input:
    """One input file, checked readable, not yet read."""

    name: str
    path: Path | None
    """None for standard input."""
    parquet: bool
    size: int | None
    """Bytes, when known (a regular file)."""
    url: str | None = None
    """A URL fsspec opens (`s3://...`, `file://...`), for `scan_file` on a cluster."""

    def batches(self, max_record_bytes: int = MAX_RECORD_BYTES,
                batch_rows: int = BATCH_LINES) -> Iterator[Batch]:
        """The input's records, in order, in batches."""
        with _binary(self) as stream:
            if self.parquet:
                yield from _parquet_batches(self, stream, batch_rows)
            else:
                yield from _jsonl_batches(stream, self.name, max_record_bytes)


def open_url(url: str) -> Input:
    """An input named by a URL (read through fsspec); Parquet by its suffix."""
    return Input(url, None, url.lower().endswith(PARQUET_SUFFIXES), None, url)


def open_inputs(names: list[str]) -> list[Input]:
    """Check each input can be read (a bad one raises `ScanOptionError`, before any
    record is scanned); `-` is standard input, read as JSONL."""
    inputs: list[Input] = []
    for name in names:
        if name == "-":
            inputs.append(Input(name, None, False, None))
            continue
        path = Path(name)
        try:
            with open(path, "rb") as file:
                magic = file.read(len(_PARQUET_MAGIC))
            size = os.stat(path).st_size
        except OSError as error:
            raise ScanOptionError(f"cannot read {name}: {error.strerror or error}") from None
        if path.is_dir():
            raise ScanOptionError(f"cannot read {name}: it is a directory")
        parquet = magic == _PARQUET_MAGIC or path.suffix.lower() in PARQUET_SUFFIXES
        if parquet:
            require_pyarrow()
        inputs.append(Input(name, path, parquet, size))
    return inputs


@contextlib.contextmanager
def _binary(source: Input) -> Iterator[IO[bytes]]:
    if source.url is not None:
        fsspec = importlib.import_module("fsspec")
        with fsspec.open(source.url, "rb") as file:
            yield file
        return
    if source.path is None:
        yield sys.stdin.buffer
        return
    with open(source.path, "rb") as file:
        yield file


def _jsonl_batches(stream: IO[bytes], source: str, max_record_bytes: int) -> Iterator[Batch]:
    numbers: list[int] = []
    items: list[bytes | TooLong] = []
    size = 0
    for number, item, length in _lines(stream, max_record_bytes):
        size += length
        if item is None:
            continue
        numbers.append(number)
        items.append(item)
        if len(items) >= BATCH_LINES or size >= BATCH_BYTES:
            yield Batch(source, numbers, items, size=size)
            numbers, items, size = [], [], 0
    if items or size:
        yield Batch(source, numbers, items, size=size)


def _lines(stream: IO[bytes], limit: int) -> Iterator[tuple[int, bytes | TooLong | None, int]]:
    """(line number, the line or a TooLong or None for a blank line, bytes read)."""
    number = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not line.endswith(b"\n"):
            size = len(line) + _skip_rest(stream)
            yield number, TooLong(size, limit), size
        elif line.strip():
            yield number, line, len(line)
        else:
            yield number, None, len(line)


def _skip_rest(stream: IO[bytes]) -> int:
    """Read to the end of the current line without keeping it; the bytes read."""
    skipped = 0
    while piece := stream.readline(_SKIP_PIECE):
        skipped += len(piece)
        if piece.endswith(b"\n"):
            break
    return skipped


def _parquet_batches(source: Input, stream: IO[bytes], batch_rows: int) -> Iterator[Batch]:
    pa = require_pyarrow()
    try:
        file = pa.parquet.ParquetFile(stream)
    except (OSError, ValueError, pa.ArrowException) as error:
        raise ScanOptionError(f"cannot read {source.name}: {error}") from None
    total = max(file.metadata.num_rows, 1)
    first = 1
    with contextlib.closing(file):
        for rows in file.iter_batches(batch_size=batch_rows):
            count = rows.num_rows
            size = (source.size or 0) * count // total
            yield Batch(source.name, list(range(first, first + count)), None, rows, size)
            first += count
