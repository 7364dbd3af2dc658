"""Audit transcript archives: which tool calls were real, which a gateway ran from
examples in Markdown code, which it missed, which blocks were broken (SPEC 10).

    from toolparse import scan

    records = scan.scan_file("transcripts.jsonl", compare_recorded="auto")
    for record in records:
        for difference in record["differences"]:
            print(record["line"], difference["reason"], difference["name"])

`scan_records` and `scan_batch` take records from anywhere (lines, decoded records, a
DataFrame's rows, a Dask partition); each input gives one output record, in the format
docs/scan.md defines, identical whatever process, job count or engine made it. The
command line is `toolparse scan` (docs/scan.md). Parquet needs the `scan` extra.
"""

from __future__ import annotations

from pathlib import Path

from toolparse._scan.api import scan_batch, scan_file, scan_files, scan_records
from toolparse._scan.arrow import arrow_schema, read_parquet_records, to_arrow, write_parquet
from toolparse._scan.fields import AUTO
from toolparse._scan.options import ScanOptionError, ScanOptions, load_tools
from toolparse._scan.summary import Summary, summarize
from toolparse._scan.table import DifferenceTable, differences_table

__all__ = ["AUTO", "DifferenceTable", "EXAMPLE_ARCHIVE", "EXAMPLE_TOOLS", "RECORD_VERSION",
           "ScanOptionError", "ScanOptions", "Summary", "arrow_schema", "differences_table",
           "load_tools", "read_parquet_records", "scan_batch", "scan_file", "scan_files",
           "scan_records", "summarize", "to_arrow", "write_parquet"]

RECORD_VERSION = 1
"""The version of the output record format (docs/scan.md); a change that is not an
addition raises it."""

EXAMPLE_ARCHIVE = Path(__file__).resolve().parent / "_scan" / "example.jsonl"
"""A small bundled archive of transcripts, with false executions and missed calls."""

EXAMPLE_TOOLS = Path(__file__).resolve().parent / "_scan" / "example-tools.json"
"""The tools the example archive's gateway offered."""
