"""`toolparse scan`: audit transcript archives (SPEC 10). The public face is
`toolparse.scan`; docs/scan.md has the record format and the cluster recipe.

- `options`: ScanOptions, the tools file.
- `fields`: where a record keeps the answer text, its id and the recorded calls.
- `record`: the Scanner: one input record to one output record.
- `explain`: the markup a recorded call may have come from (code, failed blocks).
- `compare`: matching recorded calls to found calls; the difference records.
- `inputs`: JSONL and Parquet files read in bounded batches.
- `work`, `pool`: one batch's work; batches through worker processes, in order.
- `arrow`: the Arrow schema, Parquet writing and reading.
- `summary`: the counts and the table at the end.
- `progress`: the progress bar on a terminal.
- `generate`: seeded archives for the tests, the benchmark and the bundled example.
"""
