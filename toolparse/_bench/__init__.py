"""The benchmark harness: `toolparse bench` and `python -m benchmarks`.

A tool beside the library, not part of the engine: it ships in the wheel so that
`toolparse bench --grammar my.lark` measures an edited grammar on the user's own
machine, and nothing in the engine imports it. One module per concern:

    workloads   the generated texts          timing    the floor, passes, cells, plans
    measures    memory, start-up, repair     targets   the goals and growth
    run         one run, as a report         report    the report as a table
    main        the command line             dialects  the --dialect axis
    incremental SPEC 7's cost: incremental=True over the same parser without
    across      every bundled dialect's own workloads, alone and under dialect="auto"

Theory of operation
-------------------
Every figure is a *ratio measured in the same run*, because the machines this runs on
are shared and noisy: a streaming figure is the engine's speed over the speed of the
**floor** (a loop calling a trivial method per chunk that does two `str.find` calls and
one list append) on the very same pre-sliced chunks, timed alternately with it; a
one-shot `parse()` figure is over one `re.finditer` pass for `<` and backticks over the
whole text. Timed regions use this thread's CPU time (`_cpu`), so that a preemption by
another process is charged to neither side. Each cell runs a few interleaved passes
(`Plan`) and reports the median ratio; a target's figure pools every pass of a
(workload, chunking) over the sizes.

Workloads are generated from a seed, so every run (and every machine) parses the same
text; a larger size of prose, markup and tools starts with the smaller one.

    prose        Markdown answers: paragraphs, inline code, lists, headings; about one
                 fence and one real tool block per 10 KB.
    markup       Dense `<` and `>` in prose, tags in inline code, many fences with tool
                 call examples inside; about 13-15 % of the characters in real blocks.
    tools        Back-to-back blocks, canonical and DSML, many parameters, CDATA values.
    strings      String-heavy tool text: calls of an edit tool whose values are code of
                 a few KB, marked `string="true"` or written as CDATA bodies.
    adv-*        Adversarial shapes (SPEC G6): an unclosed wrapper mention followed by
                 prose, backtick storms, runs of `<`, repeated `<tool_` prefixes, one
                 CDATA value as large as the workload, wrappers of 10,000 tiny invokes,
                 and an unclosed parameter value followed by prose.

`--dialect NAMES` (or `all`) adds the dialect axis: prose, markup and tools content
written in each bundled dialect's markup, timed like every cell, and each dialect's
time per character over deepseek's on the same content (the goal: at most 1.25x).

The incremental figure (SPEC 7): `StreamParser(incremental=True)` over the same parser
with `incremental=False` on the same chunks of tools and strings, at 1- and 4-char
chunks, timed segment by segment in turn (the goal: at most 1.25x).

Each bundled dialect's own prose, markup and tools (the dialect axis's texts, at the
smallest size, in 4-char chunks) are read by the dialect alone and by `dialect="auto"`
(`across.py`; `--target-dialects` picks the dialects, `all` by default, `none` to
skip): the tools target is the slowest tools text of the run, named; the auto target
is auto's time per character over the dialect's, the worst (dialect, shape), named.

Besides throughput: growth (the engine's time per character at the largest size over
the size a quarter of it, 4 MB over 1 MB in the full run, from rounds that run one pass
of each), peak traced memory while
streaming 100 MB of prose in 4-character chunks (as a multiple of `max_capture`;
measured in a child process while the cells are timed), start-up of a fresh
interpreter, and `repair_tool_call` on a valid 10 KB call against `json.loads` plus a
cached jsonschema validation.

Throughput is measured with `max_capture` = `BENCH_MAX_CAPTURE` (8 MiB), larger than
any workload, so that the 4 MB CDATA value streams through one capture as G6 describes;
the memory figure uses the default `max_capture` (1 MiB). Sizes are binary (a workload
of "1 MB" is `MB = 1024 * 1024` characters); speeds are decimal (MB/s is 10^6
characters a second). The workloads are nearly all ASCII, so characters are bytes.

The header names the git commit of the checkout measured (and whether it had
uncommitted changes); for a tree exported with `git archive`, set
TOOLPARSE_BENCH_COMMIT to the commit it came from.

The targets (`targets.py`) are issue 46's, the third round's, with one goal per build:
a run is judged against the goals of the build it runs in (`pure`, or `compiled` when
the engine is the mypyc build), and the target lines say which.

Cost on a 2-core machine: `--smoke` about half a minute (most of it the 31 dialects'
cells), `--quick` a few minutes, the full run about 7-10 minutes (its long poles: the
slowest adversarial cells, the dialects' cells, and the 100 MB memory stream, which
runs about 7x slower under tracing).
"""


from toolparse._bench.main import main
from toolparse._bench.report import render
from toolparse._bench.run import run
from toolparse._bench.targets import TARGETS
from toolparse._bench.timing import PLANS
from toolparse._bench.workloads import WORKLOADS, Workload, generate

__all__ = ["PLANS", "TARGETS", "WORKLOADS", "Workload", "generate", "main", "render", "run"]
