"""Output records as Arrow and Parquet (the `scan` extra: pyarrow).

The Arrow schema is the record format of docs/scan.md, field for field, so a record
read back from Parquet (`to_pylist()`) equals the JSON record it was made from. Writing
is streamed: `ParquetSink` takes batches and writes a row group whenever
`ROW_GROUP_ROWS` records are waiting, so memory stays bounded whatever the input size.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any, Final

from toolparse._scan.output import replacing

__all__ = ["ParquetSink", "arrow_schema", "read_parquet_records", "require_pyarrow", "to_arrow",
           "write_parquet"]

ROW_GROUP_ROWS: Final = 16_384
"""Records per Parquet row group (the sink's buffer)."""


def require_pyarrow() -> Any:
    """The pyarrow module (with `pyarrow.parquet` loaded), or an error that says how to
    get it. Imported by name: pyarrow ships no type information, so its objects are
    `Any` here."""
    try:
        pyarrow = importlib.import_module("pyarrow")
        importlib.import_module("pyarrow.parquet")
    except ImportError:
        from toolparse._scan.options import ScanOptionError

        raise ScanOptionError("Parquet needs pyarrow: pip install 'toolparse[scan]'") from None
    return pyarrow


@functools.cache
def arrow_schema() -> Any:
    """The Arrow schema of an output record."""
    pa = require_pyarrow()
    string, integer = pa.string(), pa.int64()
    call = pa.struct([("index", integer), ("id", string), ("name", string),
                      ("arguments", string), ("status", string), ("reason", string),
                      ("start", integer), ("end", integer), ("line", integer),
                      ("block", integer)])
    failure = pa.struct([("reason", string), ("start", integer), ("end", integer),
                         ("at", integer), ("line", integer), ("expected", pa.list_(string))])
    difference = pa.struct([("reason", string), ("name", string), ("recorded", integer),
                            ("call", integer), ("kind", string), ("line", integer),
                            ("start", integer), ("detail", string)])
    error = pa.struct([("reason", string), ("message", string)])
    quoted = pa.struct([("name", string), ("arguments", string), ("start", integer),
                        ("line", integer)])
    schema: Any = pa.schema([
        ("source", string), ("line", integer), ("id", string), ("error", error),
        ("chars", integer), ("calls", pa.list_(call)), ("failures", pa.list_(failure)),
        ("truncated", pa.bool_()), ("reasoning_chars", integer),
        ("reasoning_calls", pa.list_(quoted)), ("recorded", integer),
        ("differences", pa.list_(difference))])
    return schema


def to_arrow(records: Iterable[Mapping[str, Any]]) -> Any:
    """Output records as one Arrow table with the record schema."""
    pa = require_pyarrow()
    table: Any = pa.Table.from_pylist(list(records), schema=arrow_schema())
    return table


class ParquetSink:
    """Writes record batches to one Parquet file, a row group per `ROW_GROUP_ROWS`."""

    def __init__(self, where: str | Path | IO[bytes]) -> None:
        pa = require_pyarrow()
        self._pa = pa
        self._writer = pa.parquet.ParquetWriter(where, arrow_schema())
        self._waiting: list[Any] = []
        self._rows = 0

    def write(self, table: Any) -> None:
        self._waiting.append(table)
        self._rows += table.num_rows
        if self._rows >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._waiting:
            self._writer.write_table(self._pa.concat_tables(self._waiting),
                                     row_group_size=max(self._rows, 1))
        self._waiting, self._rows = [], 0

    def close(self) -> None:
        self._flush()
        self._writer.close()


def write_parquet(records: Iterable[Mapping[str, Any]], where: str | Path | IO[bytes]) -> int:
    """Write output records to a Parquet file; returns how many were written. `where`
    is a path (its folder is made if missing), a URL that fsspec opens (`s3://...`,
    with the filesystem's own package installed), or a binary file object.

    A path is written under a temporary name beside it and renamed into place when
    every record is written (`toolparse._scan.output.replacing`): until then the old
    file is whole, so `records` may even be read from it (`write_parquet(scan_file(p),
    p)`), and a write that fails or is interrupted leaves it as it was."""
    if isinstance(where, str) and "://" in where:
        fsspec = importlib.import_module("fsspec")
        with fsspec.open(where, "wb") as file:
            return write_parquet(records, file)
    if not isinstance(where, (str, Path)):
        return _write_records(records, where)
    Path(where).parent.mkdir(parents=True, exist_ok=True)
    with replacing(where) as temporary:
        return _write_records(records, temporary)


def _write_records(records: Iterable[Mapping[str, Any]], where: str | IO[bytes]) -> int:
    sink = ParquetSink(where)
    count = 0
    try:
        batch: list[Mapping[str, Any]] = []
        for record in records:
            batch.append(record)
            if len(batch) >= ROW_GROUP_ROWS:
                sink.write(to_arrow(batch))
                count += len(batch)
                batch = []
        if batch:
            sink.write(to_arrow(batch))
            count += len(batch)
    finally:
        sink.close()
    return count


def read_parquet_records(where: str | Path | IO[bytes]) -> list[dict[str, Any]]:
    """Output records back from a Parquet file (for checks and notebooks: all at once)."""
    pa = require_pyarrow()
    rows: list[dict[str, Any]] = pa.parquet.read_table(where).to_pylist()
    return rows
