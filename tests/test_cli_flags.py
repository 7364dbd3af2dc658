"""Every numeric flag of every command is checked the same way (issue 47, item 12): a
value out of its documented range is bad use (exit status 2, one line naming the flag),
before anything starts; a value in range works (docs/cli.md, "Numbers")."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import toolparse._serve
from toolparse._cli import main
from toolparse._cli import serve as serve_command
from toolparse._cli.common import port, positive_int, processes, seconds
from toolparse._cli.main import _argument_parser
from toolparse._serve import ServeConfig

UPSTREAM = ["--upstream", "http://127.0.0.1:9/v1"]

OUT_OF_RANGE = [
    # (command and flag, values refused)
    (["scan", "{jsonl}", "--jobs"], ["99999999999", "100000", "257", "0", "-1", "four", "1.5"]),
    (["scan", "{jsonl}", "--max-record-bytes"], ["0", "99999999999999999999", "1073741825"]),
    (["parse", "{text}", "--chunk-size"], ["0", "-3", "1073741825", "9" * 5000]),
    (["serve", *UPSTREAM, "--port"], ["99999", "65536", "-1", "0", "http"]),
    (["serve", *UPSTREAM, "--workers"], ["0", "257", "100000"]),
    (["serve", *UPSTREAM, "--max-body"], ["0", "-1", "1099511627776"]),
    (["serve", *UPSTREAM, "--timeout"], ["0", "-1", "nan", "inf", "1e400", "86401", "soon"]),
    (["serve", *UPSTREAM, "--header-timeout"], ["0", "-0.5", "nan", "inf", "86401"]),
    (["serve", *UPSTREAM, "--body-timeout"], ["0", "-2", "nan", "-inf", "100000"]),
]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text('{"role": "assistant", "content": "hi"}\n', encoding="utf-8")
    text = tmp_path / "in.txt"
    text.write_text("hi", encoding="utf-8")
    return {"jsonl": str(jsonl), "text": str(text)}


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """`toolparse serve` runs the app no further than building its settings."""
    started: list[Any] = []
    monkeypatch.setattr(toolparse._serve, "run", lambda config, **where: started.append(where))
    return started


@pytest.mark.parametrize(("argv", "values"), OUT_OF_RANGE,
                         ids=[argv[-1] + " " + argv[0] for argv, _ in OUT_OF_RANGE])
def test_a_value_out_of_range_is_bad_use_naming_the_flag(
        capsys: pytest.CaptureFixture[str], files: dict[str, str], no_server: list[Any],
        argv: list[str], values: list[str]) -> None:
    for value in values:
        status = main([arg.format(**files) for arg in argv] + [value])
        out, err = capsys.readouterr()
        assert status == 2, (argv[-1], value, err)
        assert out == "" and "Traceback" not in err
        last = err.strip().splitlines()[-1]
        assert f"argument {argv[-1]}: " in last and len(last) < 200, last
    assert no_server == []


def test_values_at_the_bounds_are_taken() -> None:
    parser = _argument_parser()
    args = parser.parse_args(["scan", "x", "--jobs", "256", "--max-record-bytes", "1073741824"])
    assert (args.jobs, args.max_record_bytes) == (256, 1 << 30)
    args = parser.parse_args(["serve", *UPSTREAM, "--port", "65535", "--workers", "256",
                              "--timeout", "86400", "--header-timeout", "0.01",
                              "--body-timeout", "1e-3", "--max-body", "1"])
    assert (args.port, args.workers, args.timeout, args.header_timeout, args.body_timeout,
            args.max_body) == (65535, 256, 86400.0, 0.01, 0.001, 1)
    assert parser.parse_args(["serve", *UPSTREAM, "--port", "1"]).port == 1
    assert parser.parse_args(["parse", "--chunk-size", "1073741824"]).chunk_size == 1 << 30
    assert 1 <= parser.parse_args(["scan", "x"]).jobs <= 256


def test_serve_passes_its_client_time_outs_to_the_server(no_server: list[Any],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    configs: list[ServeConfig] = []
    monkeypatch.setattr(toolparse._serve, "run",
                        lambda config, **where: configs.append(config))
    assert main(["serve", *UPSTREAM, "--header-timeout", "2.5", "--body-timeout", "7"]) == 0
    assert (configs[0].header_timeout, configs[0].body_timeout) == (2.5, 7.0)
    assert main(["serve", *UPSTREAM]) == 0
    defaults = ServeConfig(upstream="http://x/v1")
    assert (configs[1].header_timeout, configs[1].body_timeout, configs[1].timeout,
            configs[1].max_body) == (defaults.header_timeout, defaults.body_timeout,
                                     defaults.timeout, defaults.max_body)
    assert (serve_command.DEFAULT_HEADER_TIMEOUT, serve_command.DEFAULT_BODY_TIMEOUT,
            serve_command.DEFAULT_TIMEOUT, serve_command.DEFAULT_MAX_BODY) == \
        (defaults.header_timeout, defaults.body_timeout, defaults.timeout, defaults.max_body)


def test_a_bad_port_exits_2_before_the_server_starts() -> None:
    for port in ("-1", "99999"):
        done = subprocess.run([sys.executable, "-m", "toolparse", "serve", *UPSTREAM,
                               "--port", port], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert "Uvicorn" not in done.stderr and "Traceback" not in done.stderr
        assert done.stderr.strip().splitlines()[-1].endswith(f"not '{port}'")


def test_a_huge_job_count_exits_2_without_a_traceback(files: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-m", "toolparse", "scan", files["jsonl"],
                           "--jobs", "99999999999"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--jobs: must be from 1 to 256" in done.stderr


def deep_tools(path: Path, levels: int) -> Path:
    """A tools file whose schema nests `levels` objects (twice as deep as JSON; 100,000
    levels is past the decoder's reach whatever the recursion limit)."""
    schema = ('{"type": "object", "properties": {"a": ' * levels + '{"type": "string"}'
              + "}}" * levels)
    path.write_text('[{"type": "function", "function": {"name": "deep", "parameters": '
                    + schema + "}}]", encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["parse", "scan"])
@pytest.mark.parametrize("levels", [100_000, 100])
def test_a_deep_tools_file_is_bad_use_in_one_line(capsys: pytest.CaptureFixture[str],
                                                   files: dict[str, str], tmp_path: Path,
                                                   command: str, levels: int) -> None:
    tools = deep_tools(tmp_path / "deep.json", levels)
    source = files["text"] if command == "parse" else files["jsonl"]
    status = main([command, source, "--tools", str(tools)])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and f"toolparse: {tools}: " in err
    # Within what the decoder reads, the schema's own depth limit names the tool.
    if levels == 100:
        assert "tool 'deep'" in err and "nests deeper than" in err
    else:
        assert "nested deeper than the JSON decoder reads" in err


def test_an_interrupt_exits_130_in_one_line(capsys: pytest.CaptureFixture[str],
                                            files: dict[str, str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from toolparse._cli import parse

    def interrupted(args: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(parse, "run", interrupted)
    parser_defaults = _argument_parser().parse_args(["parse", files["text"]])
    assert parser_defaults.run is interrupted
    assert main(["parse", files["text"]]) == 130
    assert capsys.readouterr().err == "toolparse: interrupted\n"


def test_every_numeric_flag_and_every_exit_status_is_documented() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    numbers = page[page.index("## Numbers"):page.index("## Exit status")]
    statuses = page[page.index("## Exit status"):]
    commands = next(action for action in _argument_parser()._actions
                    if isinstance(action, argparse._SubParsersAction))
    numeric = [(name, flag) for name, command in commands.choices.items()
               for action in command._actions if action.type in (positive_int, processes,
                                                                    port, seconds)
               for flag in action.option_strings if flag.startswith("--")]
    assert len(numeric) == 9
    for name, flag in numeric:
        row = next((line for line in numbers.splitlines() if line.startswith(f"| `{flag} ")),
                   None)
        assert row is not None and f"| {name} |" in row, (name, flag)
    for status in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 130 |"):
        assert status in statuses, status
