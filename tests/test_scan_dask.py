"""The cluster recipe of docs/scan.md, run as written on a local Dask cluster of two
worker processes: its records are exactly those `toolparse scan --jobs 1` writes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolparse import scan
from toolparse._scan import generate as gen

distributed = pytest.importorskip("distributed", reason="the cluster test needs dask (test extra)")
pytest.importorskip("pyarrow", reason="the recipe writes Parquet (test extra)")

DOCS = Path(__file__).resolve().parents[1] / "docs" / "scan.md"


def recipe() -> dict[str, Any]:
    """The functions the recipe block of docs/scan.md defines."""
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(r"<!-- recipe: [^>]*-->\n```python\n(.*?)```", text, re.S)
    assert match, "docs/scan.md has no recipe block"
    namespace: dict[str, Any] = {}
    exec(compile(match.group(1), str(DOCS), "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with cluster, distributed.Client(cluster) as connected:
        yield connected


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("archives")
    paths = []
    for seed in (1, 2, 3):
        path = folder / f"day-{seed}.jsonl"
        gen.write_archive(path, gen.generate(300, seed=seed))
        paths.append(path)
    with open(paths[0], "ab") as file:     # a line that is not UTF-8 text
        file.write(b'{"role": "assistant", "content": "\xff"}\n')
    return paths


def command_records(paths: list[Path], tools: Path, tmp_path: Path) -> list[dict[str, Any]]:
    out = tmp_path / "command.jsonl"
    done = subprocess.run([sys.executable, "-m", "toolparse", "scan", *map(str, paths),
                           "--jobs", "1", "--compare-recorded", "auto", "--tools", str(tools),
                           "-o", str(out), "-q"], capture_output=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def parts(folder: Path) -> list[dict[str, Any]]:
    files = sorted(folder.glob("part-*.parquet"))
    assert files
    return [record for file in files for record in scan.read_parquet_records(file)]


def test_the_jsonl_recipe_on_two_workers_gives_the_commands_records(client, archives, tmp_path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(list(gen.TOOLS)), encoding="utf-8")
    expected = command_records(archives, tools, tmp_path)
    options = scan.ScanOptions(compare_recorded="auto", tools=scan.load_tools(tools))
    out = tmp_path / "audit"
    count = recipe()["audit_jsonl"](client, [str(p) for p in archives], str(out), options)
    assert count == len(expected) == 901
    assert parts(out) == expected
    assert len(client.scheduler_info()["workers"]) == 2
    assert expected[300]["error"]["reason"] == "not_utf8"
    assert sum(len(r["differences"] or ()) for r in expected) > 100


def test_the_parquet_recipe_reads_parquet_archives_on_the_workers(client, archives, tmp_path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sources = []
    for path in archives[1:]:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                if _is_json(line)]
        schema = pa.unify_schemas([pa.Table.from_pylist([row]).schema for row in rows])
        target = tmp_path / (path.stem + ".parquet")
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), target, row_group_size=64)
        sources.append(target)
    options = scan.ScanOptions(compare_recorded="auto")
    out = tmp_path / "audit-parquet"
    count = recipe()["audit_parquet"](client, [str(p) for p in sources], str(out), options)
    expected = [record for source in sources for record in scan.scan_file(source, options)]
    assert count == len(expected) > 500
    assert parts(out) == expected


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True
