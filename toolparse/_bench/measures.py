"""The figures besides throughput: memory, start-up and repair."""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

from toolparse._bench.timing import clock, cpu
from toolparse._bench.workloads import CODE_LINES, KB, MB, WORDS, code, generate

# ---- memory, start-up, repair ------------------------------------------------------------

def measure_memory(total: int, dialect: Any, seed: int) -> dict[str, Any]:
    """Peak traced memory while `total` characters of prose stream through one parser
    with the default `max_capture`, 4 characters at a time.

    The stream is made lazily: a 1 MiB prose text (built before tracing starts) is cut
    into fresh chunks on the fly, over and over, so nothing near `total` is ever held.
    What a process allocates once for all its parsers (grammars, compiled automata,
    caches) is measured first, on a short warm-up stream, and reported apart: the
    figure is the stream's own peak above what was allocated before it started."""
    import toolparse

    text = generate("prose", MB, seed).text
    warm = generate("markup", 8 * KB, seed).text
    length = len(text)
    rounds = -(-total // length)
    max_capture = toolparse.DEFAULT_MAX_CAPTURE
    gc.collect()
    tracemalloc.start()
    first = toolparse.StreamParser(dialect)
    for i in range(0, len(warm), 4):
        first.feed(warm[i:i + 4])
    first.close()
    del first
    gc.collect()
    retained, first_use_peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    parser = toolparse.StreamParser(dialect)   # the default max_capture
    feed = parser.feed
    t0 = clock()
    for _ in range(rounds):
        for i in range(0, length, 4):
            feed(text[i:i + 4])
    parser.close()
    elapsed = clock() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"stream_chars": rounds * length, "chunk": 4, "max_capture": max_capture,
            "peak_bytes": peak - retained, "multiple": (peak - retained) / max_capture,
            "process_peak_bytes": peak, "first_use_peak_bytes": first_use_peak,
            "first_use_retained_bytes": retained, "seconds": elapsed}


_STARTUP_TEXT = ('Reading it now.\n\n<tool_calls>\n<invoke name="read_file">\n'
                 '<parameter name="path"><![CDATA[README.md]]></parameter>\n'
                 '</invoke>\n</tool_calls>\n')


def _children_cpu() -> float | None:
    """CPU seconds used so far by this process's finished children (None: not known)."""
    try:
        import resource
    except ImportError:  # not on Unix
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure_startup(runs: int) -> dict[str, Any]:
    """A fresh interpreter's `import toolparse` plus a first `parse()`, minus a bare
    interpreter; runs alternate, medians of each.

    The figure is the children's CPU time (user + system), which a busy machine does
    not inflate: start-up is CPU-bound once the files are cached (one warm-up run
    first). Wall times are reported beside it; where CPU time is not available, the
    figure is the wall time.

    The children cache their bytecode, as Python does by default (and as a wheel's
    install does): in a directory of their own (`PYTHONPYCACHEPREFIX`), which the
    warm-up run fills, with `PYTHONDONTWRITEBYTECODE` unset. Where that variable is set
    (some sandboxes and CI images), every start compiled each module from its source:
    about 185 ms of the 200 the pure build read at a9c206a."""
    import tempfile

    import toolparse

    package_parent = str(Path(toolparse.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = package_parent + (os.pathsep + env["PYTHONPATH"]
                                          if env.get("PYTHONPATH") else "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="toolparse-bench-pyc-") as pycache:
        env["PYTHONPYCACHEPREFIX"] = pycache
        return _startup_runs(runs, env)


def _startup_runs(runs: int, env: dict[str, str]) -> dict[str, Any]:
    """`measure_startup`'s runs, in the environment `env`."""
    bare = [sys.executable, "-c", "pass"]
    full = [sys.executable, "-c",
            f"import toolparse; assert toolparse.parse({_STARTUP_TEXT!r}).calls"]

    def run(argv: list[str]) -> tuple[float, float | None]:
        cpu0 = _children_cpu()
        t0 = clock()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
        wall = clock() - t0
        cpu1 = _children_cpu()
        return wall, (cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None)
    run(full)  # warm the OS file cache, the bytecode cache and Lark's grammar cache
    bare_runs = []
    full_runs = []
    for _ in range(runs):
        bare_runs.append(run(bare))
        full_runs.append(run(full))
    bare_wall = statistics.median(w for w, _ in bare_runs)
    full_wall = statistics.median(w for w, _ in full_runs)
    out = {"runs": runs, "clock": "wall", "bare_ms": bare_wall * 1e3,
           "import_and_parse_ms": full_wall * 1e3, "startup_ms": (full_wall - bare_wall) * 1e3,
           "wall_bare_ms": bare_wall * 1e3, "wall_import_and_parse_ms": full_wall * 1e3,
           "wall_startup_ms": (full_wall - bare_wall) * 1e3}
    if all(c is not None for _, c in bare_runs + full_runs):
        bare_cpu = statistics.median(c for _, c in bare_runs if c is not None)
        full_cpu = statistics.median(c for _, c in full_runs if c is not None)
        out.update(clock="cpu", bare_ms=bare_cpu * 1e3, import_and_parse_ms=full_cpu * 1e3,
                   startup_ms=(full_cpu - bare_cpu) * 1e3)
    return out


def _repair_case() -> tuple[str, dict[str, Any], str]:
    """A valid call of about 10 KB: (tool name, schema, arguments JSON text)."""
    rnd = random.Random("toolparse-bench:repair")
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"},
            "line_start": {"type": "integer", "minimum": 1},
            "line_end": {"type": "integer", "minimum": 1},
            "create_dirs": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "edits": {"type": "array", "items": {
                "type": "object",
                "properties": {"old": {"type": "string"}, "new": {"type": "string"},
                               "count": {"type": "integer"}},
                "required": ["old", "new"], "additionalProperties": False}},
            "mode": {"enum": ["overwrite", "append", "patch"]},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    arguments: dict[str, Any] = {
        "path": "src/toolparse/_stream.py",
        "content": "",
        "line_start": 10, "line_end": 400, "create_dirs": False,
        "tags": [rnd.choice(WORDS) for _ in range(20)],
        "edits": [{"old": code(rnd, 2), "new": code(rnd, 3), "count": 1} for _ in range(12)],
        "mode": "patch",
    }
    lines: list[str] = []
    text = json.dumps(arguments)
    while len(text) < 10_000:
        lines.append(rnd.choice(CODE_LINES))
        arguments["content"] = "\n".join(lines)
        text = json.dumps(arguments)
    return "write_file", schema, text


def measure_repair(passes: int, loops: int) -> dict[str, Any]:
    import jsonschema

    import toolparse

    name, schema, text = _repair_case()
    try:
        outcome = toolparse.repair_tool_call(name, text, schema)
    except NotImplementedError:
        return {"status": "n/a (repair not built)"}
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(json.loads(text))
    repair = toolparse.repair_tool_call
    loads = json.loads
    is_valid = validator.is_valid

    def time_repair() -> float:
        t0 = cpu()
        for _ in range(loops):
            repair(name, text, schema)
        return (cpu() - t0) / loops

    def time_base() -> float:
        t0 = cpu()
        for _ in range(loops):
            is_valid(loads(text))
        return (cpu() - t0) / loops
    repair_s: list[float] = []
    base_s: list[float] = []
    for n in range(passes):
        if n % 2:
            repair_s.append(time_repair())
            base_s.append(time_base())
        else:
            base_s.append(time_base())
            repair_s.append(time_repair())
    ratios = [r / b for r, b in zip(repair_s, base_s)]
    return {"status": outcome.status, "chars": len(text), "passes": passes, "loops": loops,
            "repair_us": statistics.median(repair_s) * 1e6,
            "baseline_us": statistics.median(base_s) * 1e6,
            "ratio": statistics.median(ratios), "ratios": ratios}


class MemoryChild:
    """The memory figure, measured in a child process while the parent times the
    throughput cells (it counts bytes, not seconds, and would otherwise add minutes)."""

    def __init__(self, total: int, grammar: str | None, seed: int) -> None:
        import toolparse

        package_parent = str(Path(toolparse.__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = package_parent + (os.pathsep + env["PYTHONPATH"]
                                              if env.get("PYTHONPATH") else "")
        # Not niced: on a machine shared with other busy processes a niced child gets
        # a sliver of a core and becomes the run's long pole. Running alongside does not
        # bias the timed figures: each is a ratio to a baseline interleaved with it.
        code = ("import json, sys; from toolparse._bench import measures; "
                "print(json.dumps(measures.memory_in_child(*json.loads(sys.argv[1]))))")
        self._process = subprocess.Popen(
            [sys.executable, "-c", code, json.dumps([total, grammar, seed])],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def result(self) -> dict[str, Any]:
        out, err = self._process.communicate()
        if self._process.returncode != 0:
            return {"error": err.strip().splitlines()[-1] if err.strip() else "failed"}
        return json.loads(out)  # type: ignore[no-any-return]


def memory_in_child(total: int, grammar: str | None, seed: int) -> dict[str, Any]:
    return measure_memory(total, load_dialect(grammar), seed)


def load_dialect(grammar: str | None) -> Any:
    import toolparse

    if grammar is None:
        return toolparse.Dialect.bundled("deepseek")
    return toolparse.Dialect.from_file(grammar)
