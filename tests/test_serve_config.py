"""`toolparse serve --config` and `--check-config` (SPEC 9, issue 44): the fleet file is
checked at the start, each mistake one line naming the key (exit status 2); routes
match models in order; the pieces the proxy counts with, alone: foreign markup found
whatever the chunking, parsers watched without changing what they give."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import toolparse
from toolparse._cli.main import main
from toolparse._serve import ServeConfig
from toolparse._serve.config import Route, Upstream
from toolparse._serve.fleet import FleetError, load_fleet
from toolparse._serve.foreign import Spotter, composite, foreign_markup
from toolparse._serve.metrics import Metrics
from toolparse._serve.observe import Watch, WatchedParser, install, watching
from toolparse._serve.routing import Router
from toolparse._syntax.files import grammars_dir
from toolparse.openai import _parsers, stream_rewriter

GOOD = """
[upstreams.local]
url = "http://127.0.0.1:8000/v1"
api_key_env = "TOOLPARSE_TEST_KEY"

[[routes]]
name = "qwen"
model = "Qwen/Qwen3-Coder-*"
upstream = "local"
dialect = "qwen3_coder"
reasoning = "think"

[[routes]]
name = "rest"
model = "*"
upstream = "local"
dialect = "auto"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "fleet.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPARSE_TEST_KEY", "sk-test")


def test_the_interface_example_loads(tmp_path: Path) -> None:
    config = load_fleet(write(tmp_path, GOOD), ServeConfig(timeout=30))
    upstreams, routes = config.fleet()
    assert upstreams == (Upstream("local", "http://127.0.0.1:8000/v1", "TOOLPARSE_TEST_KEY", 30.0),)
    assert [(r.name, r.model, r.upstream, r.dialect, r.reasoning) for r in routes] == [
        ("qwen", "Qwen/Qwen3-Coder-*", "local", "qwen3_coder", "think"),
        ("rest", "*", "local", "auto", "auto")]
    assert all(r.on_foreign_markup == "warn" and r.on_rejected == "content" for r in routes)


BAD = [
    # (what is changed in GOOD, the start of the error after the file's name)
    (('dialect = "qwen3_coder"', 'dialect = "qwen3"'),
     "routes[0] ('qwen').dialect: unknown dialect 'qwen3'; did you mean 'qwen3_coder'?"),
    (('model = "Qwen/Qwen3-Coder-*"', 'model = "Qwen/[Qwen3"'),
     "routes[0] ('qwen').model: 'Qwen/[Qwen3' is not a glob: the '[' at character 6 is "
     "never closed"),
    (('api_key_env = "TOOLPARSE_TEST_KEY"', 'api_key_env = "TOOLPARSE_NO_SUCH_KEY"'),
     "upstreams.local.api_key_env: the environment variable 'TOOLPARSE_NO_SUCH_KEY' is "
     "not set"),
    (('upstream = "local"\ndialect = "auto"', 'upstream = "elsewhere"\ndialect = "auto"'),
     "routes[1] ('rest').upstream: no upstream named 'elsewhere'"),
    (('reasoning = "think"', 'reasoning = "thinking"'),
     "routes[0] ('qwen').reasoning: unknown reasoning format 'thinking'"),
    (('reasoning = "think"', 'reasoning = "think"\nstream_argument = true'),
     "routes[0] ('qwen'): unknown key 'stream_argument'"),
    (('name = "rest"', 'name = "qwen"'), "routes[1] ('qwen').name: a second route named 'qwen'"),
    (('name = "rest"', 'name = "rest route"'), "routes[1] ('rest route').name: 'rest route' is not a name"),
    (('dialect = "qwen3_coder"', 'dialect = "qwen3_coder"\nin_reasoning = "yes"'),
     "routes[0] ('qwen').in_reasoning: must be true or false, not str"),
    (('dialect = "auto"', 'dialect = "auto"\non_foreign_markup = "drop"'),
     "routes[1] ('rest').on_foreign_markup: must be one of pass, warn, parse, not 'drop'"),
    (('url = "http://127.0.0.1:8000/v1"', 'url = "127.0.0.1:8000"'),
     "upstreams.local.url: must be an http:// or https:// URL"),
    (('url = "http://127.0.0.1:8000/v1"', 'url = "http://127.0.0.1:8000/v1"\ntimeout = 0'),
     "upstreams.local.timeout: must be a number of seconds"),
    (('model = "Qwen/Qwen3-Coder-*"', 'model = "*"'),
     "routes[1] ('rest'): never taken: the route 'qwen' before it takes every model"),
    (('reasoning = "think"', 'reasoning = "none"\nin_reasoning = true'),
     "routes[0] ('qwen'): in_reasoning=True needs a reasoning format"),
    (('dialect = "qwen3_coder"', 'grammar = "missing.lark"'),
     "routes[0] ('qwen').grammar: "),
    (('[upstreams.local]', '[upstream.local]'), "the file: unknown key 'upstream'"),
    (('name = "qwen"', 'name = "qwen"\n[oops'), "not TOML: "),
]


@pytest.mark.parametrize(("change", "error"), BAD, ids=range(len(BAD)))
def test_a_mistake_is_one_line_naming_the_key(tmp_path: Path, change: tuple[str, str],
                                              error: str) -> None:
    assert change[0] in GOOD
    path = write(tmp_path, GOOD.replace(change[0], change[1], 1))
    with pytest.raises(FleetError) as caught:
        load_fleet(path, ServeConfig())
    message = str(caught.value)
    assert message.startswith(f"{path}: {error}"), message
    assert "\n" not in message


def test_check_config_prints_the_routes_and_exits_0(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GOOD)
    assert main(["serve", "--check-config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 upstream(s), 2 route(s)" in out
    assert "qwen: model 'Qwen/Qwen3-Coder-*' -> local (http://127.0.0.1:8000/v1), dialect " \
           "qwen3_coder, reasoning think" in out


def test_check_config_exits_2_with_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('dialect = "auto"', 'dialect = "autoo"'))
    done = subprocess.run([sys.executable, "-m", "toolparse", "serve", "--check-config",
                           str(path)], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "TOOLPARSE_TEST_KEY": "k"})
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"{path}: routes[1] ('rest').dialect: unknown dialect 'autoo'" in done.stderr


def test_route_flags_do_not_mix_with_a_config(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GOOD)
    assert main(["serve", "--config", str(path), "--dialect", "hermes"]) == 2
    assert "--dialect describes the one route of the flags" in capsys.readouterr().err
    assert main(["serve", "--config", str(path), "--upstream", "http://x/v1"]) == 2


def test_the_config_reaches_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import toolparse._serve

    started: list[Any] = []
    monkeypatch.setattr(toolparse._serve, "run", lambda config, **where: started.append(config))
    path = write(tmp_path, GOOD)
    assert main(["serve", "--config", str(path), "--on-foreign-markup", "parse",
                 "--log-format", "json", "--timeout", "7"]) == 0
    config = started[0]
    assert [route.name for route in config.routes] == ["qwen", "rest"]
    assert {route.on_foreign_markup for route in config.routes} == {"parse"}
    assert config.upstreams[0].timeout == 7.0 and config.log_format == "json"


def test_workers_get_the_routes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolparse._serve import server

    grammar = tmp_path / "mine.lark"
    grammar.write_text((grammars_dir() / "dialects" / "hermes.lark")
                       .read_text(encoding="utf-8"), encoding="utf-8")
    text = GOOD.replace('dialect = "qwen3_coder"', 'grammar = "mine.lark"')
    config = load_fleet(write(tmp_path, text), ServeConfig())
    monkeypatch.setenv(server.CONFIG_VARIABLE, server.encode_config(config, "warning"))
    assert callable(server.app_from_environment())
    settings = server.json.loads(server.encode_config(config, "warning"))
    assert settings["routes"][0]["grammar"] == str(grammar) and \
        settings["routes"][1]["dialect"] == "auto"
    assert "sk-test" not in server.encode_config(config, "warning")   # the key stays put


def test_dialects_lists_auto(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dialects"]) == 0
    out = capsys.readouterr().out
    assert "\nauto " in out and "several families" in out


# ---- routing -----------------------------------------------------------------------------------

def test_the_first_matching_route_wins() -> None:
    routes = (Route("exact", "Qwen/Qwen3-Coder-480B", "u", "hermes"),
              Route("coder", "Qwen/Qwen3-Coder-*", "u", "qwen3_coder"),
              Route("qwen", "Qwen/*", "u", "hermes"),
              Route("glm", "zai-org/GLM-4.[56]", "u", "glm45"))
    router = Router(ServeConfig(routes=routes, upstreams=(Upstream("u", "http://x/v1"),)),
                    Metrics())
    taken = {model: (router.match(model) or None) for model in (
        "Qwen/Qwen3-Coder-480B", "Qwen/Qwen3-Coder-30B", "Qwen/Qwen3-8B", "zai-org/GLM-4.6",
        "zai-org/GLM-4.7", "qwen/qwen3-coder-30b", "")}
    assert {model: runtime.name if runtime else None for model, runtime in taken.items()} == {
        "Qwen/Qwen3-Coder-480B": "exact", "Qwen/Qwen3-Coder-30B": "coder",
        "Qwen/Qwen3-8B": "qwen", "zai-org/GLM-4.6": "glm", "zai-org/GLM-4.7": None,
        "qwen/qwen3-coder-30b": None, "": None}
    assert router.match("Qwen/Qwen3-8B") is taken["Qwen/Qwen3-8B"]     # remembered


# ---- foreign markup, alone -----------------------------------------------------------------------

DEEPSEEK_BLOCK = ('<tool_calls>\n<invoke name="read_file">\n<parameter name="path">a.md'
                  '</parameter>\n</invoke>\n</tool_calls>')


def sightings(dialect: str, pieces: list[str]) -> list[tuple[str, int, str]]:
    markup = foreign_markup(dialect)
    assert markup is not None
    found: list[tuple[str, int, str]] = []
    spotter = Spotter(markup, lambda seen, text, line: found.append((seen, line, text[:12])))
    line = 1
    for piece in pieces:
        spotter.text(piece, line)
        line += piece.count("\n")
    return found


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 1000])
def test_an_opener_split_anywhere_is_found_once(size: int) -> None:
    text = "Some prose\nand then\n" + DEEPSEEK_BLOCK + "\nand <minimax:tool_call> too"
    pieces = [text[i:i + size] for i in range(0, len(text), size)]
    assert sightings("hermes", pieces) == [
        ("deepseek", 3, "<tool_calls>"), ("deepseek", 4, '<invoke name'),
        ("minimax_m2", 8, "<minimax:too")]


def test_the_routes_own_openers_are_not_foreign() -> None:
    # <tool_call> is Qwen3-Coder's, GLM's and Hermes's: on a Hermes route it is its own.
    found = sightings("hermes", ["say <tool_call>{x}</tool_call> and <function_calls>"])
    assert [seen for seen, _, _ in found] == ["anthropic"]
    assert foreign_markup("auto") is None


def test_a_long_text_with_no_opener_carries_nothing() -> None:
    markup = foreign_markup("qwen3_coder")
    assert markup is not None
    assert markup.scan("x < y and " * 1000, 1, lambda *_: None) == ""
    assert markup.scan("prose then <tool_ca", 1, lambda *_: None) == "<tool_ca"


def test_parse_reads_with_the_routes_dialect_first() -> None:
    reading = composite("hermes")
    assert reading.name == "hermes"
    assert [g.name for g in reading._grammars][0] == "hermes"
    assert len(reading._grammars) == len(toolparse.dialects())
    result = toolparse.parse("x " + DEEPSEEK_BLOCK, dialect=reading)
    assert [call.name for call in result.calls] == ["read_file"]
    assert composite("auto") is toolparse.Dialect.bundled("auto")


# ---- watched parsers -----------------------------------------------------------------------------

def test_a_watched_parser_gives_the_same_events() -> None:
    install()
    installed = _parsers.make_parser
    install()                                   # once, however often
    assert _parsers.make_parser is installed and getattr(installed, "watched")
    plain = stream_rewriter(dialect="hermes")._spare
    assert not isinstance(plain, WatchedParser)  # no watch current: the adapter's own
    watch = Watch("id", "r", Metrics().route("r", "hermes"), toolparse.Dialect.bundled("hermes"),
                  foreign_markup("hermes"), "warn")
    with watching(watch):
        rewriter = stream_rewriter(dialect="hermes")
    parser = rewriter._spare
    assert isinstance(parser, WatchedParser)
    text = "Hi " + DEEPSEEK_BLOCK + '\n<tool_call>{"name": "f"}</tool_call>'
    reference = toolparse.StreamParser("hermes")
    for i in range(0, len(text), 3):
        piece = text[i:i + 3]
        assert [type(e) for e in parser.feed(piece)] == \
            [type(e) for e in reference.feed(piece)]
    assert parser.close() == reference.close()
    assert watch.foreign_seen == {"deepseek"}


def test_read_times_are_a_prometheus_histogram() -> None:
    from prometheus_client.parser import text_string_to_metric_families

    metrics = Metrics()
    timings = metrics.route("r", "deepseek").chunk
    for seconds in (0.00001, 0.000011, 0.003, 7.0):   # a bound itself is in its bucket
        timings.observe(seconds)
    family = next(f for f in text_string_to_metric_families(metrics.exposition().decode())
                  if f.name == "toolparse_chunk_seconds")
    samples = {(s.name, s.labels.get("le")): s.value for s in family.samples}
    assert samples[("toolparse_chunk_seconds_bucket", "1e-05")] == 1
    assert samples[("toolparse_chunk_seconds_bucket", "2.5e-05")] == 2
    assert samples[("toolparse_chunk_seconds_bucket", "0.005")] == 3
    assert samples[("toolparse_chunk_seconds_bucket", "0.1")] == 3
    assert samples[("toolparse_chunk_seconds_bucket", "+Inf")] == 4
    assert samples[("toolparse_chunk_seconds_count", None)] == 4
    assert abs(samples[("toolparse_chunk_seconds_sum", None)] - 7.003021) < 1e-9


def test_a_port_in_use_exits_3(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "toolparse", "serve", "--config", str(write(tmp_path, GOOD)),
             "--port", str(port)], capture_output=True, text=True, timeout=60,
            env={"PATH": "/usr/bin:/bin", "TOOLPARSE_TEST_KEY": "k"})
    assert done.returncode == 3, done.stderr
    assert "address already in use" in done.stderr.lower()


def test_the_fleet_example_of_the_docs_loads(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "serve.md").read_text(encoding="utf-8")
    example = page[page.index("```toml\n") + len("```toml\n"):]
    example = example[:example.index("```")]
    monkeypatch.setenv("GLM_KEY", "k")
    config = load_fleet(write(tmp_path, example), ServeConfig())
    router = Router(config, Metrics())
    taken = {model: getattr(router.match(model), "name", None) for model in (
        "Qwen/Qwen3-Coder-30B-A3B-Instruct", "zai-org/GLM-4.6", "deepseek-ai/DeepSeek-R1-0528",
        "meta-llama/Llama-4-Scout")}
    assert taken == {"Qwen/Qwen3-Coder-30B-A3B-Instruct": "qwen", "zai-org/GLM-4.6": "glm",
                     "deepseek-ai/DeepSeek-R1-0528": "r1", "meta-llama/Llama-4-Scout": "rest"}
    assert page.index("## A fleet behind one address") < page.index("## Quick start")


def test_the_serve_extra_is_in_the_test_extra() -> None:
    # CI installs exactly '.[test]', which repeats the serve extra.
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml")
                            .read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert "prometheus-client>=0.20" in extras["serve"]
    assert set(extras["serve"]) <= set(extras["test"])


def test_a_dead_workers_open_streams_leave_the_gauge(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # Multiprocess mode (--workers): the files of a worker that died are read by nobody
    # alive; a worker that starts takes its open streams out.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / f"gauge_livesum_{dead}.db").write_bytes(b"")
    (tmp_path / f"counter_{dead}.db").write_bytes(b"")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    Metrics()
    assert sorted(path.name for path in tmp_path.iterdir()) == [f"counter_{dead}.db"]
