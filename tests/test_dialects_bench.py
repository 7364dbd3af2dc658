"""The benchmark's dialect axis (`toolparse bench --dialect`): the same content written in
every bundled dialect, each parsed whole and found whole. Speed is never asserted: the
smoke run only has to produce every figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolparse
from toolparse import _bench
from toolparse._bench.dialects import DIALECT_CHUNKINGS, DIALECT_SHAPES, MARKUP, dialect_workload, slowdowns
from toolparse._dialect.loader import dialects

SIZE = 6 * 1024


def test_the_benchmark_writes_every_bundled_dialect() -> None:
    assert sorted(MARKUP) == sorted(dialects())


@pytest.mark.parametrize("shape", DIALECT_SHAPES)
@pytest.mark.parametrize("dialect", sorted(MARKUP))
def test_each_workload_is_the_same_content_and_parses_whole(shape: str, dialect: str) -> None:
    workload = dialect_workload(shape, dialect, SIZE, 7)
    assert workload == dialect_workload(shape, dialect, SIZE, 7)  # deterministic
    result = toolparse.parse(workload.text, dialect=dialect)
    assert "".join(e.raw for e in result.events) == workload.text
    assert result.failures == ()
    blocks = [e for e in result.events if isinstance(e, toolparse.ToolCallBlock)]
    assert len(blocks) == workload.real_blocks > 0
    reference = toolparse.parse(dialect_workload(shape, "deepseek", SIZE, 7).text)
    # The same calls, in the same order, whatever the markup (values typed by each
    # dialect's own rules, so only the names are compared).
    assert [c.name for c in result.calls] == [c.name for c in reference.calls]


def test_slowdown_is_deepseeks_ratio_over_the_dialects() -> None:
    rows = slowdowns([{"shape": "tools", "dialect": "deepseek", "chunk": 4, "ratio": 0.2},
                      {"shape": "tools", "dialect": "glm45", "chunk": 4, "ratio": 0.16},
                      {"shape": "tools", "dialect": "glm45", "chunk": 1, "ratio": 0.1}])
    assert rows[0]["slowdown"] == 1.0
    assert rows[1]["slowdown"] == pytest.approx(1.25)
    assert "slowdown" not in rows[2]  # no deepseek cell to compare with


def test_the_smoke_run_of_the_dialect_axis_has_every_figure(tmp_path: Path, capsys) -> None:
    out = tmp_path / "bench.json"
    code = _bench.main(["--smoke", "--sizes", "4K", "--workloads", "prose", "--no-memory",
                        "--quiet", "--dialect", "all", "--json", str(out)])
    assert code == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["dialects"]
    found = {(r["shape"], r["dialect"], r["chunk"]) for r in rows}
    assert found == {(s, d, c if c is not None else "parse") for s in DIALECT_SHAPES
                     for d in dialects() for c in DIALECT_CHUNKINGS}
    assert all(r["slowdown"] > 0 and r["engine_mb_s"] > 0 for r in rows)
    assert all(r["lossless"] for r in rows if r["chunk"] == "parse")
    table = capsys.readouterr().out
    assert "dialects vs deepseek, worst:" in table and "qwen3_coder" in table


def test_an_unknown_dialect_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        _bench.main(["--smoke", "--dialect", "deepseek,klingon"])
    assert info.value.code == 2 and "klingon" in capsys.readouterr().err
