"""`toolparse scan` on the command line: formats, job counts, inputs, bad use, the
summary and the progress bar (SPEC 10, docs/scan.md)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest

from toolparse import scan
from toolparse._cli import main
from toolparse._scan import generate as gen
from toolparse._scan import pool
from toolparse._scan.inputs import Batch
from toolparse._scan.options import ScanOptions

REPO = Path(__file__).resolve().parents[1]

COUNT = 500
"""Records in the generated archive."""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["scan", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def cli(*argv: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "toolparse", "scan", *argv],
                          capture_output=True, check=False, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scan") / "archive.jsonl"
    gen.write_archive(path, gen.generate(COUNT, seed=21))
    return path


@pytest.fixture(scope="module")
def tools_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tools") / "tools.json"
    path.write_text(json.dumps(list(gen.TOOLS)), encoding="utf-8")
    return path


def jsonl(text: str | bytes) -> list[dict[str, Any]]:
    lines = text.decode("utf-8") if isinstance(text, bytes) else text
    return [json.loads(line) for line in lines.splitlines()]


def test_one_record_per_line_on_stdout_and_the_summary_on_stderr(capsys, archive: Path) -> None:
    status, out, err = run(capsys, str(archive), "--jobs", "1", "--compare-recorded", "auto")
    assert status == 0
    records = jsonl(out)
    assert len(records) == COUNT and [r["line"] for r in records] == list(range(1, COUNT + 1))
    assert all(r["source"] == str(archive) for r in records)
    assert records == scan.scan_batch(archive.read_bytes().splitlines(), compare_recorded="auto",
                                      source=str(archive))
    # Piped: no progress bar, only the summary table.
    assert err.startswith(f"toolparse scan: {COUNT} records from 1 input in ")
    summary = scan.summarize(records)
    assert summary.table() in err and "\r" not in err and "records/s" in err
    assert summary.differences["in_code"] > 20 and summary.errors["invalid_json"] > 5


def test_jobs_1_and_jobs_2_write_identical_bytes(archive: Path, tools_file: Path,
                                                 tmp_path: Path) -> None:
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.jsonl"
        done = cli(str(archive), str(archive), "--jobs", jobs, "--compare-recorded", "auto",
                   "--tools", str(tools_file), "-o", str(out))
        assert done.returncode == 0, done.stderr
        assert f"{2 * COUNT:,} records".encode() in done.stderr and f"{jobs} job".encode() in done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert len(jsonl(outputs[0])) == 2 * COUNT


def test_parquet_output_reads_back_as_the_jsonl_records(capsys, archive: Path,
                                                       tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    status, out, _ = run(capsys, str(archive), "--jobs", "1", "--compare-recorded", "auto", "-q")
    assert status == 0
    target = tmp_path / "out.parquet"
    status, _, err = run(capsys, str(archive), "--jobs", "2", "--compare-recorded", "auto",
                         "-o", str(target), "-q")
    assert status == 0 and err == ""
    assert scan.read_parquet_records(target) == jsonl(out)
    import pyarrow.parquet as pq

    assert pq.read_schema(target).equals(scan.arrow_schema())


def test_parquet_input(capsys, tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    items = gen.generate(300, seed=5, kinds={"plain": 2, "fenced": 1, "missed": 1})
    rows = [json.loads(item.line) for item in items]
    source = tmp_path / "archive.parquet"
    # Both transcript shapes in one table: its schema is the union of the rows' own.
    schema = pa.unify_schemas([pa.Table.from_pylist([row]).schema for row in rows])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), source, row_group_size=70)
    status, out, _ = run(capsys, str(source), "--jobs", "1", "--compare-recorded", "auto")
    assert status == 0
    records = jsonl(out)
    assert [r["line"] for r in records] == list(range(1, 301))
    expected = scan.scan_batch(rows, compare_recorded="auto", source=str(source))
    assert records == expected
    assert sum(len(r["differences"]) for r in records) == sum(len(i.differences) for i in items) > 30


def test_standard_input_is_read_as_jsonl(archive: Path) -> None:
    done = cli("-", "--jobs", "2", input=archive.read_bytes())
    assert done.returncode == 0
    records = jsonl(done.stdout)
    assert len(records) == COUNT and records[0]["source"] == "-"


def test_bad_lines_are_error_records_and_the_scan_goes_on(capsys, tmp_path: Path) -> None:
    good = json.dumps({"role": "assistant", "content": "hello"})
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join([good.encode(), good[:20].encode(), b'{"other": 1}',
                                 b"\xff\xfe", b"x" * 5000, good.encode()]))   # no final newline
    status, out, err = run(capsys, str(path), "--jobs", "1", "--max-record-bytes", "4096")
    assert status == 0
    errors = [r["error"]["reason"] if r["error"] else None for r in jsonl(out)]
    assert errors == [None, "invalid_json", "no_field", "not_utf8", "too_long", None]
    assert "too_long 1" in err


@pytest.mark.parametrize("argv,message", [
    (["{missing}"], "cannot read {missing}"),
    (["{archive}", "--field", "a..b"], "field path"),
    (["{archive}", "--dialect", "nope"], "unknown dialect 'nope'"),
    (["{archive}", "--format", "parquet"], "needs -o FILE"),
    (["{archive}", "--tools", "{missing}"], "cannot read"),
    (["{archive}", "--tools", "{archive}"], "is not JSON"),
    (["{archive}", "--tools", "{bad_tools}"], "tool #0"),
    (["{dir}"], "cannot read {dir}: is a directory"),
    (["{archive}", "--jobs", "0"], "must be from 1 to 256"),
    (["-", "-"], "only once"),
], ids=["missing-input", "field", "dialect", "parquet-to-stdout", "tools-missing",
        "tools-not-json", "tools-bad-schema", "directory", "jobs", "stdin-twice"])
def test_bad_use_exits_2_with_one_line(capsys, archive: Path, tmp_path: Path, argv, message) -> None:
    bad_tools = tmp_path / "bad-tools.json"
    bad_tools.write_text('[{"type": "function", "function": {"name": ""}}]', encoding="utf-8")
    names = {"missing": str(tmp_path / "no-such.jsonl"), "archive": str(archive),
             "bad_tools": str(bad_tools), "dir": str(tmp_path)}
    status, out, err = run(capsys, *(arg.format(**names) for arg in argv))
    assert status == 2 and out == ""
    # One message line (after argparse's usage line, for its own errors); no traceback.
    assert message.format(**names).lower() in err.strip().splitlines()[-1].lower(), err
    assert "Traceback" not in err


def test_an_unwritable_output_exits_2(capsys, archive: Path, tmp_path: Path) -> None:
    status, _, err = run(capsys, str(archive), "-o", str(tmp_path / "no" / "dir" / "out.jsonl"))
    assert status == 2 and "cannot write" in err


def test_the_progress_bar_shows_on_a_terminal_only(archive: Path, tmp_path: Path) -> None:
    pytest.importorskip("tqdm")
    out = str(tmp_path / "out.jsonl")
    shown = _on_a_terminal(str(archive), "--jobs", "1", "-o", out)
    bar = shown.split("toolparse scan:")[0]       # what came before the summary
    assert "scan:" in bar and "%|" in bar and "records" in bar and "B/s" in bar, shown  # tqdm's
    assert f"toolparse scan: {COUNT} records" in shown
    quiet = _on_a_terminal(str(archive), "--jobs", "1", "-o", out, "--no-progress")
    assert quiet.startswith(f"toolparse scan: {COUNT} records"), quiet
    piped = cli(str(archive), "--jobs", "1", "-o", out)
    assert piped.stderr.startswith(f"toolparse scan: {COUNT} records".encode())


def _on_a_terminal(*argv: str) -> str:
    """What the command writes to standard error when that is a terminal."""
    controller, terminal = pty.openpty()
    # A terminal 100 columns wide (a new pty has none, and tqdm would draw nothing).
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    try:
        process = subprocess.Popen([sys.executable, "-m", "toolparse", "scan", *argv],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=terminal)
        os.close(terminal)
        shown = _read_all(controller)
        assert process.wait(timeout=300) == 0
    finally:
        os.close(controller)
    return shown


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 300)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:      # the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("other_thread", [False, True], ids=["forked", "fork-server"])
def test_workers_never_run_more_than_a_bounded_number_of_batches_ahead(other_thread) -> None:
    # With another thread alive the workers come from the fork server instead of a fork.
    stop = threading.Event()
    if other_thread:
        threading.Thread(target=stop.wait, daemon=True).start()
        assert pool._context().get_start_method() == "forkserver"
    try:
        _bounded_and_in_order()
    finally:
        stop.set()


def _bounded_and_in_order() -> None:
    line = json.dumps({"role": "assistant", "content": "hello"}).encode()
    pulled = []

    def batches():
        for i in range(40):
            pulled.append(i)
            yield Batch("x", [i + 1], [line])

    taken = 0
    for result in pool.scan_batches(batches(), ScanOptions(), "jsonl", jobs=2):
        taken += 1
        assert len(pulled) <= taken + 2 * pool.IN_FLIGHT_PER_JOB
        assert json.loads(result.output)["line"] == taken      # in input order
    assert taken == 40


def test_the_wheel_ships_the_example_archive(tmp_path: Path) -> None:
    pytest.importorskip("hatchling", reason="building the wheel needs hatchling (test extra)")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "--wheel-dir", str(tmp_path), str(REPO)], check=True)
    (wheel,) = tmp_path.glob("toolparse-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"toolparse/_scan/example.jsonl", "toolparse/_scan/example-tools.json",
            "toolparse/scan.py"} <= names
    assert scan.EXAMPLE_ARCHIVE.is_file() and scan.EXAMPLE_TOOLS.is_file()


def test_the_scan_benchmark_runs_and_reports_every_figure(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, "-m", "benchmarks.scan", "--smoke", "--json",
                           str(figures)], cwd=REPO, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    for label in ("--jobs 1", "--jobs 2", "speed-up", "parallel efficiency", "per CPU-second",
                  'parse("")', "parse(200 chars)", "MarkdownTracker()"):
        assert label in done.stdout, label
    results = json.loads(figures.read_text(encoding="utf-8"))
    assert results["throughput"]["records"] == 300 and results["throughput"]["speedup"] > 0
    assert set(results["by_kind"]) == set(gen.KINDS)
