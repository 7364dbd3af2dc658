"""Where `toolparse scan` writes (issue 47, item 1): never over one of its inputs, and
never half a file over an old output (docs/scan.md, "Output")."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolparse import scan
from toolparse._cli import main
from toolparse._scan import generate as gen
from toolparse._scan import pool

COUNT = 40


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["scan", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def cli(*argv: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "toolparse", "scan", *argv],
                          capture_output=kwargs.pop("capture_output", "stdout" not in kwargs),
                          check=False, timeout=300, **kwargs)


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    path = tmp_path / "archive.jsonl"
    gen.write_archive(path, gen.generate(COUNT, seed=3))
    return path


@pytest.fixture
def parquet_archive(tmp_path: Path, archive: Path) -> Path:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in archive.read_text(encoding="utf-8").splitlines()]
    schema = pa.unify_schemas([pa.Table.from_pylist([row]).schema for row in rows])
    path = tmp_path / "archive.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def spellings(path: Path) -> Iterator[tuple[str, str]]:
    """(how, a name of the same file): the path itself, another spelling of it, a
    symbolic link and a hard link to it."""
    yield "as given", str(path)
    yield "another spelling", str(path.parent / ".." / path.parent.name / "." / path.name)
    link = path.with_name("link-" + path.name)
    link.symlink_to(path)
    yield "symbolic link", str(link)
    hard = path.with_name("hard-" + path.name)
    os.link(path, hard)
    yield "hard link", str(hard)


def test_an_output_that_is_an_input_is_refused_before_anything_is_opened(
        capsys: pytest.CaptureFixture[str], archive: Path, tmp_path: Path) -> None:
    before = archive.read_bytes()
    other = tmp_path / "other.jsonl"
    other.write_bytes(before[:before.index(b"\n") + 1])
    for how, name in spellings(archive):
        status, out, err = run(capsys, str(other), str(archive), "-q", "-o", name)
        assert status == 2, how
        assert out == "" and len(err.strip().splitlines()) == 1, (how, err)
        assert "is the input" in err and "Traceback" not in err, (how, err)
        assert archive.read_bytes() == before, how
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "archive.jsonl", "hard-archive.jsonl", "link-archive.jsonl", "other.jsonl"]


def test_a_parquet_output_that_is_its_input_is_refused(
        capsys: pytest.CaptureFixture[str], parquet_archive: Path) -> None:
    before = parquet_archive.read_bytes()
    for how, name in spellings(parquet_archive):
        status, _, err = run(capsys, str(parquet_archive), "-q", "-o", name)
        assert status == 2 and "is the input" in err, (how, err)
        assert parquet_archive.read_bytes() == before, how


def test_standard_streams_that_are_an_input_are_refused(archive: Path) -> None:
    before = archive.read_bytes()
    with open(archive, "rb") as stdin:       # toolparse scan - -o archive < archive
        done = cli("-", "-o", str(archive), stdin=stdin)
    assert done.returncode == 2 and b"standard input" in done.stderr
    with open(archive, "ab") as stdout:      # toolparse scan archive >> archive
        done = cli(str(archive), stdout=stdout, stderr=subprocess.PIPE)
    assert done.returncode == 2 and b"standard output is the input" in done.stderr
    assert archive.read_bytes() == before


def test_an_interrupted_scan_leaves_the_old_output_whole(
        capsys: pytest.CaptureFixture[str], archive: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.jsonl"
    status, _, _ = run(capsys, str(archive), "--jobs", "1", "-q", "-o", str(target))
    assert status == 0
    old = target.read_bytes()
    assert len(old.splitlines()) == COUNT
    real = pool.scan_batches

    def interrupted(*args: Any) -> Iterator[Any]:
        for number, result in enumerate(real(*args)):
            if number == 1:
                raise KeyboardInterrupt
            yield result

    monkeypatch.setattr(pool, "scan_batches", interrupted)
    bigger = tmp_path / "bigger.jsonl"
    bigger.write_bytes(archive.read_bytes() * 20)        # several batches
    assert main(["scan", str(bigger), "--jobs", "1", "-q", "-o", str(target)]) == 130
    assert target.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive.jsonl", "bigger.jsonl",
                                                          "out.jsonl"]


def test_a_finished_scan_replaces_the_output_keeping_its_mode_and_links(
        capsys: pytest.CaptureFixture[str], archive: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old\n" * 1000)
    target.chmod(0o640)
    link = tmp_path / "latest.jsonl"
    link.symlink_to(target)
    status, _, _ = run(capsys, str(archive), "--jobs", "1", "-q", "-o", str(link))
    assert status == 0
    assert link.is_symlink() and len(target.read_bytes().splitlines()) == COUNT
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive.jsonl", "latest.jsonl",
                                                          "out.jsonl"]


def test_an_output_that_is_not_a_regular_file_is_written_in_place(
        capsys: pytest.CaptureFixture[str], archive: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        status, _, _ = run(capsys, str(archive), "--jobs", "1", "-q", "-o", str(fifo))
    finally:
        if reader.is_alive():        # let the reader go, if the scan never opened the pipe
            # No reader on the pipe (ENXIO) means the reader has already read to the end
            # and closed it, and is only returning: nothing to let go.
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=60)
    assert status == 0 and len(received[0].splitlines()) == COUNT
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_write_parquet_may_read_the_file_it_replaces(parquet_archive: Path) -> None:
    expected = list(scan.scan_file(parquet_archive))
    assert len(expected) == COUNT
    written = scan.write_parquet(scan.scan_file(parquet_archive), parquet_archive)
    assert written == COUNT
    assert scan.read_parquet_records(parquet_archive) == expected
    assert sorted(p.name for p in parquet_archive.parent.iterdir()) == [
        "archive.jsonl", "archive.parquet"]


def test_write_parquet_that_fails_leaves_the_old_file(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    target = tmp_path / "out.parquet"
    records = scan.scan_batch(['{"id": 1, "role": "assistant", "content": "hi"}'])
    scan.write_parquet(records, target)
    old = target.read_bytes()

    def failing() -> Iterator[dict[str, Any]]:
        yield from records
        raise RuntimeError("the source broke")

    with pytest.raises(RuntimeError):
        scan.write_parquet(failing(), target)
    assert target.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == ["out.parquet"]
