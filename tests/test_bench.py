"""The benchmark harness keeps working (issue 5). Speed is never asserted here: the
smoke run only has to produce every figure, and the workloads must be deterministic and
have the shapes the benchmark promises."""

from __future__ import annotations

import json
import os
import re
import statistics
from pathlib import Path

import pytest

import toolparse
from toolparse import _bench
from toolparse._bench import targets, timing, workloads

SMALL = 8 * 1024
ACROSS = ("deepseek", "hermes", "glm45")


@pytest.fixture(scope="module")
def smoke_report(tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    code = _bench.main(["--smoke", "--sizes", "4K,16K", "--quiet", "--json", str(out),
                        "--target-dialects", ",".join(ACROSS)])
    assert code == 0
    return json.loads(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_smoke_report_has_every_figure(smoke_report: dict) -> None:  # type: ignore[type-arg]
    report = smoke_report
    assert report["mode"] == "smoke"
    assert report["sizes"] == [4 * 1024, 16 * 1024]
    cells = {(c["workload"], c["size"], c["chunk"]) for c in report["cells"]}
    for workload in _bench.WORKLOADS:
        for chunk in (1, 4, 64, "parse"):
            assert (workload, 4 * 1024, chunk) in cells
        for chunk in (4, "parse"):
            assert (workload, 16 * 1024, chunk) in cells
    for cell in report["cells"]:
        assert cell["passes"] >= 1
        assert cell["engine_mb_s"] > 0 and cell["baseline_mb_s"] > 0 and cell["ratio"] > 0
        assert cell["baseline"] == ("regex" if cell["chunk"] == "parse" else "floor")
    assert set(report["floor"]) == {"1-char", "4-char", "64-char", "parse"}
    growth = {(g["workload"], g["chunk"]) for g in report["growth"]}
    assert growth == {(w, c) for w in _bench.WORKLOADS for c in (4, "parse")}
    assert all(g["growth"] > 0 and g["relative_growth"] > 0 for g in report["growth"])
    assert report["memory"]["multiple"] > 0
    assert report["memory"]["stream_chars"] >= 1_000_000
    assert report["memory"]["max_capture"] == toolparse.DEFAULT_MAX_CAPTURE
    assert report["memory"]["first_use_peak_bytes"] >= report["memory"]["first_use_retained_bytes"]
    assert report["startup"]["startup_ms"] == pytest.approx(
        report["startup"]["import_and_parse_ms"] - report["startup"]["bare_ms"])
    repair = report["repair"]
    assert "ratio" in repair or repair["status"] == "n/a (repair not built)"
    targets = {t["target"]: t for t in report["targets"]}
    assert list(targets) == [t.name for t in _bench.TARGETS]
    for name, target in targets.items():
        if name.startswith("repair") and "ratio" not in repair:
            continue
        assert target["measured"] is not None, name
        assert isinstance(target["met"], bool), name
    assert all(c["lossless"] for c in report["checks"])
    assert report["environment"]["python"]
    # Which build ran: the same answer test_compiled.py checks.
    assert report["environment"]["build"] in ("pure", "compiled")
    if os.environ.get("TOOLPARSE_BUILD"):
        assert report["environment"]["build"] == os.environ["TOOLPARSE_BUILD"]
    assert "--smoke --sizes 4K,16K" in report["command"]
    # Each named dialect's own prose, markup and tools, alone and under auto.
    from toolparse._bench.dialects import DIALECT_SHAPES
    assert {(r["dialect"], r["shape"]) for r in report["across"]} == {
        (d, s) for d in ACROSS for s in DIALECT_SHAPES}
    for row in report["across"]:
        assert row["chars"] > 2 * 1024 and row["alone_ratio"] > 0 and row["auto_ratio"] > 0
        assert row["auto_cost"] == pytest.approx(row["alone_ratio"] / row["auto_ratio"])
    # The tools figure is the slowest tools text of the run, and names it.
    tools = targets["tools 4-char, worst dialect"]
    pooled = statistics.median(r for c in report["cells"] if c["workload"] == "tools"
                               and c["chunk"] == 4 for r in c["ratios"])
    slowest = min([(r["alone_ratio"], r["dialect"]) for r in report["across"]
                   if r["shape"] == "tools"] + [(pooled, "deepseek, the tools workload")])
    assert tools["measured"] == slowest[0] and slowest[1] in tools["note"]
    assert tools["note"].endswith(f"of {len(ACROSS)} dialects")
    auto = targets["auto vs dialect, worst"]
    assert auto["measured"] == max(r["auto_cost"] for r in report["across"])
    # The goals are the running build's.
    build = report["environment"]["build"]
    assert {t["build"] for t in report["targets"]} == {build}
    assert [t["goal"] for t in report["targets"]] == [t.goal(build) for t in _bench.TARGETS]
    # SPEC 7's cost: incremental=True over the same parser without, on the same chunks.
    from toolparse._bench.incremental import INCREMENTAL_CELLS
    rows = {(r["workload"], r["chunk"]): r for r in report["incremental"]}
    assert set(rows) == set(INCREMENTAL_CELLS)
    for row in rows.values():
        assert row["size"] == 4 * 1024 and row["passes"] >= 1 and row["ratio"] > 0
        assert row["plain_s"] > 0 and row["incremental_s"] > 0


def test_smoke_table_renders(smoke_report: dict) -> None:  # type: ignore[type-arg]
    table = _bench.render(smoke_report)
    for workload in _bench.WORKLOADS:
        assert workload in table
    for target in _bench.TARGETS:
        assert target.name in table
    assert "memory:" in table and "start-up:" in table and "repair:" in table
    assert "incremental events (SPEC 7)" in table
    build = smoke_report["environment"]["build"]
    assert f"the goals of the {build} build" in table
    assert "each dialect's own workloads" in table
    for name in ACROSS:
        assert re.search(rf"^{name} +\d", table, re.MULTILINE), name


def test_user_grammar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grammar = tmp_path / "mine.lark"
    source = Path(toolparse.Dialect.bundled("deepseek").path).read_text(encoding="utf-8")
    grammar.write_text(source, encoding="utf-8")
    out = tmp_path / "bench.json"
    code = _bench.main(["--smoke", "--sizes", "2K", "--workloads", "prose,tools", "--no-memory",
                        "--quiet", "--grammar", str(grammar), "--json", str(out)])
    assert code == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["dialect"]["name"] == "mine"
    assert {c["workload"] for c in report["cells"]} == {"prose", "tools"}
    assert "mine" in capsys.readouterr().out


def test_broken_grammar_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grammar = tmp_path / "broken.lark"
    grammar.write_text("block: NOPE\n", encoding="utf-8")
    assert _bench.main(["--smoke", "--quiet", "--no-memory", "--grammar", str(grammar)]) == 2
    assert "broken.lark" in capsys.readouterr().err


def test_bad_arguments_exit() -> None:
    with pytest.raises(SystemExit):
        _bench.main(["--workloads", "nonsense"])
    with pytest.raises(SystemExit):
        _bench.main(["--sizes", "lots"])


# ---- the workloads -----------------------------------------------------------------------

@pytest.mark.parametrize("name", list(_bench.WORKLOADS))
def test_workloads_are_deterministic(name: str) -> None:
    a = _bench.generate(name, SMALL)
    b = _bench.generate(name, SMALL)
    assert a == b
    assert len(a.text) >= SMALL
    assert _bench.generate(name, SMALL, seed=1).text != a.text


@pytest.mark.parametrize("name", ["prose", "markup", "tools"])
def test_larger_sizes_extend_smaller_ones(name: str) -> None:
    small = _bench.generate(name, SMALL).text
    large = _bench.generate(name, 4 * SMALL).text
    assert large.startswith(small)


def _found(text: str) -> list[toolparse.ToolCallBlock]:
    result = toolparse.parse(text, max_capture=workloads.BENCH_MAX_CAPTURE)
    return [e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]


def test_prose_shape() -> None:
    w = _bench.generate("prose", 100 * 1024)
    # About one fence and one real block per 10 KB.
    assert 8 <= w.real_blocks <= 12
    assert 8 <= len(re.findall(r"^(?:```|~~~)\w*$", w.text, re.MULTILINE)) // 2 <= 12
    assert w.text.count("`") > 200  # inline code
    assert re.search(r"^[-*] ", w.text, re.MULTILINE) and re.search(r"^\d+\. ", w.text, re.MULTILINE)
    assert len(_found(w.text)) == w.real_blocks


def test_markup_shape() -> None:
    w = _bench.generate("markup", 100 * 1024)
    assert w.text.count("<") > len(w.text) / 100
    assert w.text.count("```") + w.text.count("~~~") > 2 * 30
    assert 0.08 < w.real_chars / len(w.text) < 0.25  # about 15 % real blocks
    # Examples inside fences are code, so at least the real blocks are found (the
    # Markdown tracker decides the rest).
    assert len(_found(w.text)) >= w.real_blocks


def test_tools_shape() -> None:
    w = _bench.generate("tools", 100 * 1024)
    assert w.real_chars / len(w.text) > 0.95
    assert w.text.count("<![CDATA[") > 100
    blocks = _found(w.text)
    assert len(blocks) == w.real_blocks
    assert max(len(call.arguments) for b in blocks for call in b.calls) >= 6


def test_strings_shape() -> None:
    # String-heavy tool text: nearly all of it is the values of an edit tool's calls,
    # code of a few KB, marked string="true" or in CDATA.
    w = _bench.generate("strings", 100 * 1024)
    blocks = _found(w.text)
    assert len(blocks) == w.real_blocks and w.real_chars / len(w.text) > 0.95
    values = [value for b in blocks for call in b.calls for key, value in call.arguments.items()
              if key != "path"]
    assert all(isinstance(value, str) for value in values)
    assert sum(map(len, values)) > 0.85 * len(w.text)
    assert 1000 < sum(map(len, values)) / len(values) < 8000
    assert w.text.count("<![CDATA[") > 5 and w.text.count('string="true">') > len(blocks) + 5


def test_adversarial_unclosed_mention() -> None:
    text = _bench.generate("adv-unclosed", 100 * 1024).text
    assert text.count("<tool_calls>") == 1 and "</tool_calls>" not in text
    assert text.index("<tool_calls>") < 100
    assert text.count("<") == 1  # then only prose
    assert _found(text) == []


def test_adversarial_backtick_storm() -> None:
    text = _bench.generate("adv-backticks", 100 * 1024).text
    runs = [len(r) for r in re.findall(r"`+", text)]
    assert len(runs) > 5000 and max(runs) >= 10 and min(runs) == 1
    assert sum(runs) > len(text) / 4


def test_adversarial_lt_runs() -> None:
    text = _bench.generate("adv-lt-runs", 100 * 1024).text
    assert max(len(r) for r in re.findall(r"<+", text)) >= 1000
    assert text.count("<") > 0.9 * len(text)
    assert _found(text) == []


def test_adversarial_tool_prefixes() -> None:
    text = _bench.generate("adv-prefixes", 100 * 1024).text
    assert text.count("<tool_") > 1000
    assert "<｜DSML｜tool_" in text and "<invok" in text
    assert _found(text) == []


def test_adversarial_4mb_cdata_value() -> None:
    text = _bench.generate("adv-cdata", 4 * 1024 * 1024).text
    start = text.index("<![CDATA[") + len("<![CDATA[")
    end = text.rindex("]]></parameter>")
    assert end - start >= 4 * 1000 * 1000
    assert "]]> " in text[start:end]  # a `]]>` that does not end the section
    small = _bench.generate("adv-cdata", 64 * 1024).text
    (block,) = _found(small)
    (call,) = block.calls
    (value,) = call.arguments.values()
    assert len(value) > 0.99 * (len(small) - 120)


def test_adversarial_tiny_invokes() -> None:
    w = _bench.generate("adv-tiny-invokes", 1024 * 1024)
    first = w.text[:w.text.index("</tool_calls>")]
    assert first.count("<tool_calls>") == 1 and first.count("<invoke") == 10_000
    assert len(first) < 500 * 1024
    small = _bench.generate("adv-tiny-invokes", 32 * 1024).text
    (block,) = _found(small)
    assert len(block.calls) == small.count("<invoke")


def test_adversarial_open_value() -> None:
    text = _bench.generate("adv-open-value", 64 * 1024).text
    assert text.count("<parameter") == 1 and "</parameter>" not in text
    assert _found(text) == []


def test_floor_does_what_the_issue_says() -> None:
    floor = timing.Floor()
    assert floor.feed("a<b") == 1 + -1
    floor.close()


def _joined(result: toolparse.ParseResult) -> str:
    return "".join(e.raw for e in result.events)


def test_growth_pair_runs_its_rounds_past_the_budget() -> None:
    # A zero budget stops a cell after one pass; the two cells a growth figure divides
    # still run `passes` rounds together, and say so.
    plan = timing.Plan("t", (2 * workloads.KB, 4 * workloads.KB), 1, 1,
                       3, 0.0, 15, 0.0, 0, 1, 1, 1)
    dialect = toolparse.Dialect.bundled("deepseek")
    for chunk in (4, None):
        texts = [workloads.generate("tools", s).text for s in plan.sizes]
        pair = [timing.Cell("tools", s, chunk, len(t)) for s, t in zip(plan.sizes, texts)]
        keeps = (lambda r: ("small", _joined(r) == texts[0]),
                 lambda r: ("large", _joined(r) == texts[1]))
        results = timing.measure_pair((pair[0], texts[0]), (pair[1], texts[1]), dialect, plan,
                                      keeps)
        assert [len(c.engine_s) for c in pair] == [3, 3] == [c.paired for c in pair]
        # Each side's `keep` of its own last result, not the result (streaming: None).
        assert results == ((None, None) if chunk else (("small", True), ("large", True)))
        alone = timing.Cell("tools", plan.sizes[0], chunk, len(texts[0]))
        timing.measure(alone, texts[0], dialect, plan)
        assert (len(alone.engine_s), alone.paired) == (1, 0)


def test_growth_reads_only_the_paired_rounds() -> None:
    # Round by round the large cell takes 4x the time on 2x the text: growth 2. The
    # passes the small cell ran after the rounds (paired = 3) are slower and the more
    # numerous, so a figure from all its passes would read 4 / 9 / 2.
    small = timing.Cell("w", 10, 4, 10, [1.0] * 3 + [9.0] * 4, [1.0] * 7, paired=3)
    large = timing.Cell("w", 20, 4, 20, [4.0, 4.0, 4.0], [2.0] * 3, paired=3)
    (row,) = targets.growth_rows([small, large], (10, 20))
    assert (row["growth"], row["relative_growth"], row["baseline_growth"]) == (2.0, 2.0, 1.0)
    assert row["rounds"] == 3


# ---- the targets -------------------------------------------------------------------------

def _cells(ratio: float) -> list[timing.Cell]:
    """A run's cells, every one `ratio` times the floor's speed."""
    return [timing.Cell(w, 1000, chunk, 1000, [1.0], [ratio])
            for w in _bench.WORKLOADS for chunk in timing.CHUNKINGS]


def _across(ratios: dict[str, float], auto: dict[str, float]) -> list[dict[str, object]]:
    return [{"dialect": d, "shape": shape, "chunk": 4, "chars": 1000,
             "alone_ratio": ratios[d], "auto_ratio": ratios[d] / auto[d],
             "auto_cost": auto[d] if shape == "markup" else 1.0}
            for d in ratios for shape in ("prose", "markup", "tools")]


def _evaluate(build: str, ratio: float, across: list[dict[str, object]] | None = None
              ) -> dict[str, dict]:  # type: ignore[type-arg]
    found = targets.evaluate(_cells(ratio), [], {}, {"startup_ms": 100.0}, {}, [],
                             across=across or [], build=build)
    return {t["target"]: t for t in found}


def test_the_goals_are_the_builds() -> None:
    # Issue 46: one set of goals per build; the same figure meets the pure build's
    # prose goal and misses the compiled build's.
    pure, compiled = _evaluate("pure", 0.7), _evaluate("compiled", 0.7)
    assert pure["prose 4-char"]["goal"] == 0.5 and pure["prose 4-char"]["met"] is True
    assert compiled["prose 4-char"]["goal"] == 1.0 and compiled["prose 4-char"]["met"] is False
    assert compiled["prose 4-char"]["margin"] == pytest.approx(0.7)
    assert (pure["markup 4-char"]["goal"], compiled["markup 4-char"]["goal"]) == (0.25, 0.6)
    assert pure["start-up"]["goal"] == compiled["start-up"]["goal"] == 150.0
    assert {t["build"] for t in pure.values()} == {"pure"}
    # What neither build measured here is not judged.
    assert pure["memory, 100 MB stream"]["met"] is None
    assert pure["auto vs dialect, worst"]["met"] is None


def test_a_missed_target_is_reported_as_missed() -> None:
    found = _evaluate("compiled", 0.08)
    adversarial = found["adversarial 1/4-char, worst"]
    assert adversarial["met"] is False and adversarial["goal"] == 0.1
    # Every adversarial cell reads 0.08: the first in the table's order is named, at
    # 1- or 4-char chunks only (64-char and parse() are not the target's).
    assert adversarial["note"] == "adv-unclosed 1-char"
    report = {"targets": list(found.values())}
    line = next(x for x in report_lines(report) if x.startswith("adversarial"))
    assert "compiled >= 0.10 x floor" in line and "MISSED (0.80 of goal)" in line
    met = next(x for x in report_lines({"targets": list(_evaluate("pure", 0.08).values())})
               if x.startswith("adversarial"))
    assert met.rstrip().endswith("met  [adv-unclosed 1-char]")


def report_lines(report: dict) -> list[str]:  # type: ignore[type-arg]
    from toolparse._bench import report as table
    return table._targets(report)


def test_the_worst_dialect_is_the_figure_and_named() -> None:
    across = _across({"deepseek": 0.3, "hermes": 0.12, "glm45": 0.2},
                     {"deepseek": 1.2, "hermes": 1.1, "glm45": 1.7})
    found = _evaluate("pure", 0.3, across)
    tools = found["tools 4-char, worst dialect"]
    assert tools["measured"] == 0.12 and tools["met"] is False
    assert tools["note"] == "hermes, its tools shape; of 3 dialects"
    auto = found["auto vs dialect, worst"]
    assert auto["measured"] == 1.7 and auto["met"] is False
    assert auto["note"] == "glm45, markup 4-char"
    # The main axis's tools workload (deepseek's) is the figure when it is the slowest.
    slow_main = _evaluate("pure", 0.1, across)["tools 4-char, worst dialect"]
    assert slow_main["measured"] == 0.1
    assert slow_main["note"].startswith("deepseek, the tools workload")


def test_growth_divides_by_a_quarter_of_the_largest_size() -> None:
    kb, mb = workloads.KB, workloads.MB
    assert targets.growth_pair(timing.PLANS["full"].sizes) == (mb, 4 * mb)
    for plan in timing.PLANS.values():
        small, large = targets.growth_pair(plan.sizes)
        assert large == 4 * small, plan.mode
    assert targets.growth_pair((100 * kb, mb)) == (100 * kb, mb)
    assert targets.growth_pair((kb,)) == (kb, kb)


def test_startup_children_cache_their_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up is measured as a default Python starts: with its bytecode cached, in a
    directory of the harness's own, even where the environment says not to write it
    (which made every child compile every module, twice the figure)."""
    import subprocess

    from toolparse._bench import measures

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    seen: list[dict[str, str]] = []

    def fake_run(argv: list[str], **kw: object) -> None:
        env = kw["env"]
        assert isinstance(env, dict)
        seen.append(env)
        assert os.path.isdir(env["PYTHONPYCACHEPREFIX"])

    monkeypatch.setattr(subprocess, "run", fake_run)
    out = measures.measure_startup(2)
    assert len(seen) == 5 and out["runs"] == 2
    assert all("PYTHONDONTWRITEBYTECODE" not in env for env in seen)
    assert len({env["PYTHONPYCACHEPREFIX"] for env in seen}) == 1
    assert not os.path.exists(seen[0]["PYTHONPYCACHEPREFIX"])   # (removed at the end)
