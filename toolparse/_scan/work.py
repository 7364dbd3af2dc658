"""The work of one batch, the same in the parent (`--jobs 1`) and in a worker process.

`start(options, output)` builds the process's `Scanner` once; `run(batch)` scans the
batch's records and returns them already in the output format (JSONL bytes, or an
Arrow table) with their `Summary`, so the parent only writes and adds up. Because
`--jobs 1` runs these same two functions in-process, its output is byte for byte what
any number of workers gives.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal

from toolparse._scan.arrow import to_arrow
from toolparse._scan.inputs import Batch
from toolparse._scan.options import ScanOptions
from toolparse._scan.record import Scanner
from toolparse._scan.summary import Summary

__all__ = ["BatchResult", "OutputFormat", "dumps", "run", "start"]

OutputFormat = Literal["jsonl", "parquet"]


@dataclass(frozen=True, slots=True)
class BatchResult:
    """A scanned batch: its output, its counts, and the input bytes it stood for."""

    output: Any
    """JSONL: the records' lines as UTF-8 bytes. Parquet: an Arrow table."""
    summary: Summary
    size: int


_state: dict[str, Any] = {}
"""This process's Scanner and output format (set by `start`)."""

_DUMPS: Final = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                                 allow_nan=False).encode


def dumps(record: dict[str, Any]) -> str:
    """One output record as its JSONL line (without the newline): keys sorted, no
    spaces, non-ASCII as itself."""
    return _DUMPS(record)


def start(options: ScanOptions, output: OutputFormat) -> None:
    """Prepare this process to run batches (a pool's initializer)."""
    _state["scanner"] = Scanner(options)
    _state["output"] = output


def run(batch: Batch) -> BatchResult:
    """Scan one batch (after `start`)."""
    scanner: Scanner = _state["scanner"]
    if batch.items is not None:
        items: list[Any] = batch.items
    else:
        items = batch.rows.to_pylist()
    records = [scanner.scan(item, batch.source, number)
               for item, number in zip(items, batch.numbers)]
    summary = Summary()
    for record in records:
        summary.add(record)
    if _state["output"] == "parquet":
        return BatchResult(to_arrow(records), summary, batch.size)
    text = "".join(dumps(record) + "\n" for record in records)
    return BatchResult(text.encode("utf-8"), summary, batch.size)
