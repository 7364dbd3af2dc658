"""The functions `toolparse.scan` exposes: records in, output records out.

`scan_records` streams (an iterator in, an iterator out); `scan_batch` maps one batch
to a list, for data engines (`dask.bag.Bag.map_partitions`, a pandas DataFrame's
records, an Arrow table); `scan_file` streams a JSONL or Parquet file. All three give
exactly the records `toolparse scan` writes for the same input.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from toolparse._scan.inputs import MAX_RECORD_BYTES, Input, open_inputs, open_url
from toolparse._scan.options import ScanOptions
from toolparse._scan.record import Scanner

__all__ = ["scan_batch", "scan_file", "scan_files", "scan_records", "scanner_for"]

_cached: list[tuple[ScanOptions, Scanner]] = []


def scanner_for(options: ScanOptions) -> Scanner:
    """A Scanner for `options`, reused while the options stay the same (a data engine
    calls `scan_batch` once per partition with the same options)."""
    if _cached and _cached[0][0] == options:
        return _cached[0][1]
    scanner = Scanner(options)
    _cached[:] = [(options, scanner)]
    return scanner


def _options(options: ScanOptions | None, fields: dict[str, Any]) -> ScanOptions:
    if options is None:
        return ScanOptions(**fields)
    if fields:
        raise TypeError("give either a ScanOptions or its fields as keywords, not both")
    if not isinstance(options, ScanOptions):
        raise TypeError(f"options must be a ScanOptions, not {type(options).__name__}")
    return options


def scan_records(items: Iterable[Any], options: ScanOptions | None = None, *,
                 source: str | None = None, first_line: int = 1,
                 **option_fields: Any) -> Iterator[dict[str, Any]]:
    """One output record per input record, in order, streamed.

    Each item is a JSONL line (`str` or `bytes`), a decoded record (a mapping), or a
    `(line, path)` pair as `dask.bag.read_text(..., include_path=True)` gives. Items
    are numbered from `first_line` (their `line`); for pairs, `source` is the pair's
    path and numbering starts again at 1 where the path changes. A blank line gives no
    record but takes its number. `options` (or its fields as keywords:
    `scan_records(lines, compare_recorded="auto")`) say what to read and compare.
    """
    scanner = scanner_for(_options(options, option_fields))   # bad options raise now
    return _scanned(scanner, items, source, first_line)


def _scanned(scanner: Scanner, items: Iterable[Any], source: str | None,
             first_line: int) -> Iterator[dict[str, Any]]:
    number = first_line - 1
    current = source
    for item in items:
        if _is_pair(item):
            item, path = item
            if path != current:
                current, number = path, 0
        number += 1
        if isinstance(item, (str, bytes, bytearray)) and (not item or item.isspace()):
            continue
        yield scanner.scan(item, current, number)


def _is_pair(item: Any) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str)


def scan_batch(batch: Any, options: ScanOptions | None = None, *, source: str | None = None,
               first_line: int = 1, **option_fields: Any) -> list[dict[str, Any]]:
    """`scan_records` for one batch, as a list: the function to map over a data
    engine's partitions. `batch` may also be an Arrow table or record batch, or a
    pandas DataFrame (one record per row)."""
    return list(scan_records(_rows(batch), options, source=source, first_line=first_line,
                             **option_fields))


def _rows(batch: Any) -> Iterable[Any]:
    if hasattr(batch, "to_pylist"):          # pyarrow.Table, pyarrow.RecordBatch
        rows: list[Mapping[str, Any]] = batch.to_pylist()
        return rows
    if hasattr(batch, "to_dict") and hasattr(batch, "columns"):   # pandas.DataFrame
        frame_rows: list[Mapping[str, Any]] = batch.to_dict(orient="records")
        return frame_rows
    if isinstance(batch, Iterable):
        return batch
    raise TypeError(f"a batch is an iterable of records, not {type(batch).__name__}")


def scan_file(path: str | Path, options: ScanOptions | None = None, *,
              max_record_bytes: int = MAX_RECORD_BYTES,
              **option_fields: Any) -> Iterator[dict[str, Any]]:
    """The output records of one JSONL or Parquet file, streamed; `source` is the path
    as given. A URL (`s3://...`, `file://...`) is read through fsspec (installed with
    the `dask` extra), Parquet when it ends in `.parquet` or `.pq`."""
    scanner = scanner_for(_options(options, option_fields))   # bad options raise now,
    name = str(path)                                          # and an unreadable file
    (source,) = [open_url(name)] if "://" in name else open_inputs([name])
    return _file_records(scanner, source, max_record_bytes)


def _file_records(scanner: Scanner, source: Input, max_record_bytes: int,
                  ) -> Iterator[dict[str, Any]]:
    for batch in source.batches(max_record_bytes):
        items: list[Any] = batch.items if batch.items is not None else batch.rows.to_pylist()
        for item, number in zip(items, batch.numbers):
            yield scanner.scan(item, batch.source, number)


def scan_files(paths: Iterable[str | Path], options: ScanOptions | None = None,
               **option_fields: Any) -> list[dict[str, Any]]:
    """The output records of whole files (paths or URLs), as one list: the function to
    map over a data engine's partitions of file names (Parquet archives on a cluster)."""
    return [record for path in paths
            for record in scan_file(path, options, **option_fields)]
