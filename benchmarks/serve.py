"""`python -m benchmarks.serve`: what the OpenAI adapter and `toolparse serve` cost.

1. Adapter (SPEC 8): `rewrite_stream` over OpenAI chunk dicts against the bare
   `StreamParser` fed the same content pieces, as a ratio within one run (target:
   at most 1.5x). Workloads: prose, a realistic corpus answer, tool-call heavy.
   Then `stream_arguments=True` on the generated `tools` workload: the engine's
   `incremental=True` against the plain parser (SPEC 7, target: at most 1.25x), and
   the adapter with `stream_arguments=True` against the bare incremental parser it
   drives (target: at most 1.5x), each pair timed in one run.
2. Server (SPEC 9): requests per second and added latency per request, through the
   proxy against the same upstream directly, at 1, 50 and 200 concurrent streams, one
   worker (target: added median latency under 5 ms for a typical answer).
3. Keeping up: 200 streams from an upstream pacing 1,000 tokens/s each, over 3 s and
   over 10 s. The proxy keeps up when its clients end no further behind the upstream
   than they began: each stream's lag (when its client read an event less when the
   upstream wrote it) at its last event is about its lag at its first, however long
   the stream. The durations, direct and through the proxy, are reported too; through
   the proxy they also hold the time it takes one worker to admit 200 requests that
   arrive at once (the first event's delay).

Everything runs on 127.0.0.1: the upstream and the load generator are raw asyncio code
in this process, on uvloop when it is installed (light, so that the proxy is what is
measured), the proxy is a real `toolparse serve` subprocess. Loops are bounded in count and time.

    python -m benchmarks.serve [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import toolparse
from toolparse._bench.workloads import generate
from toolparse.openai import rewrite_stream

REPO = Path(__file__).resolve().parents[1]
CALL = ('<tool_calls>\n<invoke name="read_file">\n<parameter name="path">src/app/main.py'
        '</parameter>\n<parameter name="limit">200</parameter>\n</invoke>\n</tool_calls>')
TYPICAL = ("I'll look at the entry point first to see how the app is configured, then "
           "check the settings module. " * 3 + "\n\n" + CALL + "\n")
"""A typical answer: about 90 tokens of prose and one call (about 130 chunks)."""


# ---- 1. the adapter ------------------------------------------------------------------------

def tokens(text: str, size: int = 4) -> list[str]:
    return [text[start:start + size] for start in range(0, len(text), size)]


def chunk_dicts(pieces: list[str]) -> list[dict[str, Any]]:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "m", "system_fingerprint": "fp"}
    out = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                 "finish_reason": None, "logprobs": None}]}]
    out += [{**head, "choices": [{"index": 0, "delta": {"content": piece},
                                  "finish_reason": None, "logprobs": None}]} for piece in pieces]
    out.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop",
                                     "logprobs": None}]})
    return out


def _best(run: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def _feeder(pieces: list[str], **options: Any) -> Callable[[], None]:
    def feed_all() -> None:
        parser = toolparse.StreamParser(**options)
        for piece in pieces:
            parser.feed(piece)
        parser.close()
    return feed_all


def _pair(first: Callable[[], object], second: Callable[[], object],
          repeats: int) -> tuple[float, float]:
    """The best seconds of each, timed interleaved (so that both see the same machine)."""
    first_s = second_s = float("inf")
    for _ in range(repeats):
        first_s = min(first_s, _best(first, 1))
        second_s = min(second_s, _best(second, 1))
    return first_s, second_s


def adapter_ratio(text: str, repeats: int = 21, stream_arguments: bool = False) -> dict[str, float]:
    """Seconds for the bare parser and for rewrite_stream over the same 4-character
    pieces, and their ratio (best of `repeats`, interleaved). With `stream_arguments`
    the bare parser is `StreamParser(incremental=True)`, the one the adapter drives."""
    pieces = tokens(text)
    chunks = chunk_dicts(pieces)

    def adapted() -> None:
        for _ in rewrite_stream(chunks, stream_arguments=stream_arguments):
            pass

    bare_s, adapted_s = _pair(_feeder(pieces, incremental=stream_arguments), adapted, repeats)
    return {"chars": len(text), "chunks": len(chunks), "bare_s": bare_s,
            "adapter_s": adapted_s, "ratio": adapted_s / bare_s}


def incremental_ratio(text: str, repeats: int = 21) -> dict[str, float]:
    """Seconds for `StreamParser()` and `StreamParser(incremental=True)` over the same
    4-character pieces, and their ratio (SPEC 7's cost)."""
    pieces = tokens(text)
    plain_s, incremental_s = _pair(_feeder(pieces), _feeder(pieces, incremental=True), repeats)
    return {"chars": len(text), "chunks": len(pieces), "plain_s": plain_s,
            "incremental_s": incremental_s, "ratio": incremental_s / plain_s}


def stream_arguments_figures(scale: int, repeats: int = 21) -> dict[str, dict[str, float]]:
    """SPEC 7 and 8's costs of streaming arguments, on the generated `tools` workload."""
    text = generate("tools", 50_000 * scale).text
    return {"engine": incremental_ratio(text, repeats),
            "adapter": adapter_ratio(text, repeats, stream_arguments=True)}


def adapter_workloads(scale: int) -> dict[str, str]:
    realistic = (REPO / "corpus" / "realistic" / "deepseek-multi-invoke.txt").read_text()
    prose = ("The quick brown fox jumps over the lazy dog; `code` and *emphasis* too.\n"
             * 40)
    return {"prose": prose * scale, "realistic": realistic * 4 * scale,
            "typical answer": TYPICAL * 4 * scale, "tool calls only": (CALL + "\n") * 20 * scale}


# ---- 2. a raw upstream and a raw load generator -----------------------------------------------

def sse_chunk(content: str | None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    data = {"id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1,
            "model": "raw", "choices": [{"index": 0, "delta": delta,
                                         "finish_reason": finish, "logprobs": None}]}
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


class Upstream:
    """A chat-completions endpoint that streams `answer` as SSE, one chunk per token,
    over keep-alive HTTP/1.1 with chunked encoding. The request's JSON body may set
    `rate` (tokens per second per stream; 0: as fast as it can) and `repeat`.

    Paced streams share one clock, as an inference server's continuous batching does
    (each decoding step gives every running sequence its next tokens): every 10 ms, one
    task writes each paced stream the events due by then. One timer per stream instead
    cost this process a core at 200 streams x 1,000 tokens/s, so that even the direct
    path fell behind and the figure measured the fake, not the proxy."""

    TICK = 0.01
    """Seconds between two steps of the shared clock."""

    def __init__(self, answer: str) -> None:
        self.answer_events = [sse_chunk(piece) for piece in tokens(answer)]
        self.server: asyncio.Server | None = None
        self.port = 0
        self.paced: list[_Paced] = []
        self.written: dict[str, tuple[float, float]] = {}
        """A paced stream's `user` -> when its first and its last events were written."""
        self.clock: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = _content_length(head)
                body = json.loads(await reader.readexactly(length)) if length else {}
                await self._answer(writer, float(body.get("rate", 0)), int(body.get("repeat", 1)),
                                   str(body.get("user", "")))
                if b"connection: close" in head.lower():
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.CancelledError:  # the benchmark is over: the loop is closing
            return
        finally:
            writer.close()

    async def _answer(self, writer: asyncio.StreamWriter, rate: float, repeat: int,
                      user: str) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                     b"transfer-encoding: chunked\r\n\r\n")
        events = [sse_chunk("", None)] + self.answer_events * repeat + \
                 [sse_chunk(None, "stop"), b"data: [DONE]\n\n"]
        if rate:
            paced = _Paced(writer, events, rate, time.perf_counter(),
                           asyncio.get_running_loop().create_future(), user)
            self.paced.append(paced)
            if self.clock is None or self.clock.done():
                self.clock = asyncio.create_task(self._tick())
            await paced.done
        else:
            for n in range(0, len(events), 16):
                _write_chunk(writer, b"".join(events[n:n + 16]))
                await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def _tick(self) -> None:
        """Every TICK, each paced stream's events due by now; ends when none is left."""
        while self.paced:
            now = time.perf_counter()
            running = []
            for paced in self.paced:
                due = min(len(paced.events), int((now - paced.started) * paced.rate) + 1)
                if due > paced.sent:
                    _write_chunk(paced.writer, b"".join(paced.events[paced.sent:due]))
                    if not paced.sent:
                        paced.first = now
                    paced.sent = due
                if paced.sent < len(paced.events) and not paced.writer.is_closing():
                    running.append(paced)
                elif not paced.done.done():
                    self.written[paced.user] = (paced.first, now)
                    paced.done.set_result(None)
            self.paced = running
            await asyncio.sleep(self.TICK - (time.perf_counter() - now) % self.TICK)


@dataclass
class _Paced:
    """One paced stream: its events, how many are written, when it started."""

    writer: asyncio.StreamWriter
    events: list[bytes]
    rate: float
    started: float
    done: asyncio.Future[None]
    user: str
    sent: int = 0
    first: float = 0.0


def _write_chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(b"%x\r\n%s\r\n" % (len(data), data))


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 0


CHAT = b"/v1/chat/completions"
RELAYED = b"/v1/relay/chat/completions"
"""A path the proxy passes through without rewriting (the upstream answers any path):
the cost of the HTTP stack alone."""


@dataclass
class Result:
    seconds: float
    events: int
    ok: bool
    first_s: float = 0.0
    """Seconds from the start to the first event's bytes (the stream's start lag)."""
    started: float = 0.0
    """When it started (`time.perf_counter()`)."""
    last_s: float = 0.0
    """Seconds from the start to the last event's bytes (`[DONE]`)."""


async def request(port: int, body: dict[str, Any], path: bytes = CHAT) -> Result:
    """One streaming request over a fresh connection; read to the end."""
    payload = json.dumps(body).encode()
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST %s HTTP/1.1\r\nhost: bench\r\n"
                 b"content-type: application/json\r\nauthorization: Bearer k\r\n"
                 b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
                 % (path, len(payload), payload))
    parts = [await reader.read(65536)]
    while b"data: " not in parts[-1] and parts[-1]:   # the head, then the first event
        parts.append(await reader.read(65536))
    first_s = last_s = time.perf_counter() - started
    done = False
    while parts[-1]:
        parts.append(await reader.read(65536))
        if not done and b"[DONE]" in parts[-2][-8:] + parts[-1]:   # the last event
            last_s, done = time.perf_counter() - started, True
    writer.close()
    seconds = time.perf_counter() - started
    data = b"".join(parts)
    return Result(seconds, data.count(b"data: "),
                  data.startswith(b"HTTP/1.1 200") and b"[DONE]" in data, first_s, started,
                  last_s)


async def load(port: int, concurrency: int, count: int, body: dict[str, Any],
               limit_s: float, path: bytes = CHAT, pid: int | None = None) -> dict[str, Any]:
    """`count` requests, `concurrency` at a time; stops early after `limit_s`. With
    `pid`, also that process's CPU time per request (the proxy's own cost, less
    sensitive than wall time to other work on the machine)."""
    results: list[Result] = []
    deadline = time.perf_counter() + limit_s

    async def worker() -> None:
        while len(results) < count and time.perf_counter() < deadline:
            results.append(await request(port, body, path))

    cpu_before = cpu_seconds(pid)
    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - started
    latencies = sorted(r.seconds for r in results)
    return {"requests": len(results), "ok": sum(r.ok for r in results),
            "rps": len(results) / wall, "median_ms": statistics.median(latencies) * 1000,
            "p90_ms": latencies[int(len(latencies) * 0.9)] * 1000,
            "events_per_request": statistics.median(r.events for r in results),
            "cpu_ms_per_request": (cpu_seconds(pid) - cpu_before) / len(results) * 1000}


def cpu_seconds(pid: int | None) -> float:
    """User and system CPU time so far of process `pid` and its live children (the
    workers of `--workers N`; Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (OSError, IndexError):
        return 0.0
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_seconds(int(child)) for child in children)


# ---- 3. the proxy ------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_proxy(upstream_port: int, workers: int = 1) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolparse", "serve", "--upstream",
         f"http://127.0.0.1:{upstream_port}/v1", "--port", str(port), "--log-level", "warning",
         "--workers", str(workers)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process, port
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("toolparse serve did not start")


async def server_figures(quick: bool, workers: int = 1) -> dict[str, Any]:
    upstream = Upstream(TYPICAL)
    await upstream.start()
    process, proxy_port = start_proxy(upstream.port, workers)
    figures: dict[str, Any] = {"typical_answer_events": len(upstream.answer_events) + 3,
                               "workers": workers}
    try:
        body = {"model": "raw", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        await load(proxy_port, 10, 50, body, 10)               # warm-up
        for concurrency in (1, 50, 200):
            count = {1: 100, 50: 500, 200: 1000}[concurrency] // (5 if quick else 1)
            direct = await load(upstream.port, concurrency, count, body, 60)
            relayed = await load(proxy_port, concurrency, count, body, 60, RELAYED, process.pid)
            proxied = await load(proxy_port, concurrency, count, body, 60, CHAT, process.pid)
            figures[f"c{concurrency}"] = {
                "direct": direct, "relayed": relayed, "proxy": proxied,
                "added_median_ms": proxied["median_ms"] - direct["median_ms"]}
        figures["keep_up"] = [await keep_up(upstream, proxy_port, streams, quick, rate, seconds)
                              for streams, rate, seconds in KEEP_UP]
    finally:
        process.terminate()
        process.wait(timeout=10)
        assert upstream.server is not None
        upstream.server.close()
    return figures


KEEP_UP = ((20, 1000, 3), (50, 1000, 3), (200, 1000, 3), (200, 1000, 10), (200, 250, 3),
           (200, 500, 3))
"""(streams, tokens/s per stream, seconds per stream) of the keep-up runs: the issue's
target (200 x 1,000), over 3 s and over 10 s (a proxy that falls behind ends further
behind on longer streams), and below it."""


async def keep_up(upstream: Upstream, proxy_port: int, streams: int,
                  quick: bool, rate: int = 1000, seconds: int = 3) -> dict[str, Any]:
    """`streams` streams at once, each paced at `rate` tokens/s by the upstream for about
    `seconds` (0.5 s with `quick`), direct and through the proxy: their durations and the
    tokens/s each stream got, and how far behind the upstream each client is.

    The lag of a stream is when its client read an event less when the upstream wrote
    it (one clock: the upstream and the clients are this process), at its first event
    and at its last. A proxy that keeps up ends as far behind as it began; one that
    does not falls further behind as the stream goes on. The first event's lag through
    the proxy leaves out the burst of `streams` requests arriving at once (the
    upstream's clock starts when the proxy's request reaches it), which the durations
    and the time to the first event hold."""
    tokens_per_stream = rate // 2 if quick else rate * seconds
    repeat = max(1, tokens_per_stream // len(tokens(TYPICAL)))
    body = {"model": "raw", "stream": True, "rate": rate, "repeat": repeat,
            "messages": [{"role": "user", "content": "hi"}]}
    events = repeat * len(tokens(TYPICAL)) + 3
    out: dict[str, Any] = {"streams": streams, "rate": rate, "events_per_stream": events,
                           "ideal_s": events / rate}
    for name, port in (("direct", upstream.port), ("proxy", proxy_port)):
        users = [f"{name}-{n}" for n in range(streams)]
        results = await asyncio.wait_for(asyncio.gather(
            *(request(port, {**body, "user": user}) for user in users)), timeout=120)
        seconds = sorted(r.seconds for r in results)
        written = [upstream.written.pop(user, (0.0, 0.0)) for user in users]
        out[name] = {
            "ok": sum(r.ok for r in results), "median_s": statistics.median(seconds),
            "max_s": seconds[-1],
            "first_event_median_s": statistics.median(r.first_s for r in results),
            "tokens_per_s_per_stream": events / statistics.median(seconds),
            "lag_first_ms": statistics.median(
                (r.started + r.first_s - first) * 1e3 for r, (first, _) in zip(results, written)),
            "lag_last_ms": statistics.median(
                (r.started + r.last_s - last) * 1e3 for r, (_, last) in zip(results, written)),
            "lag_last_max_ms": max(
                (r.started + r.last_s - last) * 1e3 for r, (_, last) in zip(results, written))}
    return out


# ---- report -------------------------------------------------------------------------------------

def adapter_report(adapter: dict[str, Any]) -> Iterator[str]:
    yield "adapter (rewrite_stream over dict chunks vs bare StreamParser, 4-char chunks):"
    for name, row in adapter.items():
        yield (f"  {name:<17} {row['chunks']:>6} chunks  bare {row['bare_s'] * 1e3:7.2f} ms"
               f"  adapter {row['adapter_s'] * 1e3:7.2f} ms  ratio {row['ratio']:.2f}x")


def stream_arguments_report(figures: dict[str, dict[str, float]]) -> Iterator[str]:
    engine, adapter = figures["engine"], figures["adapter"]
    yield (f"stream_arguments (generated tools workload, {engine['chars']} chars, "
           f"{engine['chunks']} 4-char chunks):")
    yield (f"  engine   StreamParser() {engine['plain_s'] * 1e3:7.2f} ms  incremental=True "
           f"{engine['incremental_s'] * 1e3:7.2f} ms  ratio {engine['ratio']:.2f}x (target 1.25x)")
    yield (f"  adapter  bare incremental {adapter['bare_s'] * 1e3:7.2f} ms  stream_arguments=True "
           f"{adapter['adapter_s'] * 1e3:7.2f} ms  ratio {adapter['ratio']:.2f}x (target 1.5x)")


def server_report(server: dict[str, Any]) -> Iterator[str]:
    workers = server.get("workers", 1)
    yield (f"server (typical answer: {server['typical_answer_events']} SSE events; "
           f"{workers} worker{'s' if workers > 1 else ''}; "
           "relay = the proxy passing the same stream through unrewritten):")
    for concurrency in (1, 50, 200):
        row = server[f"c{concurrency}"]
        d, r, p = row["direct"], row["relayed"], row["proxy"]
        yield (f"  {concurrency:>3} streams: direct {d['rps']:6.1f} rps {d['median_ms']:7.1f} ms"
               f" | relay {r['rps']:6.1f} rps {r['median_ms']:7.1f} ms"
               f" | proxy {p['rps']:6.1f} rps {p['median_ms']:7.1f} ms (p90 {p['p90_ms']:.1f},"
               f" {p['ok']}/{p['requests']} ok) | added median {row['added_median_ms']:.1f} ms"
               f" | proxy CPU/request relay {r['cpu_ms_per_request']:.1f} ms,"
               f" rewrite {p['cpu_ms_per_request']:.1f} ms")
    for k in server["keep_up"]:
        d, p = k["direct"], k["proxy"]
        yield (f"  keep-up, {k['streams']:>3} streams x {k['rate']:,} tokens/s"
               f" ({k['events_per_stream']} events, ideal {k['ideal_s']:.2f} s): direct median"
               f" {d['median_s']:.2f} s | proxy median {p['median_s']:.2f} s max {p['max_s']:.2f} s"
               f" = {p['tokens_per_s_per_stream']:.0f} tokens/s per stream (direct"
               f" {d['tokens_per_s_per_stream']:.0f}), first event after"
               f" {p['first_event_median_s'] * 1e3:.0f} ms (direct"
               f" {d['first_event_median_s'] * 1e3:.0f}) | behind the upstream at the first"
               f" event {p['lag_first_ms']:.1f} ms, at the last {p['lag_last_ms']:.1f} ms"
               f" (max {p['lag_last_max_ms']:.0f}; direct {d['lag_first_ms']:.1f} /"
               f" {d['lag_last_ms']:.1f}) ({p['ok']}/{k['streams']} ok)")


def _run(main: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """Run the upstream and the load generator on uvloop when it is installed (it is
    with the serve extra): on asyncio's own loop they are slow enough that, at 200
    streams x 1,000 tokens/s, this process falls behind even without the proxy."""
    try:
        import uvloop  # noqa: PLC0415
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer requests (a smoke run)")
    parser.add_argument("--adapter-only", action="store_true", help="skip the server figures")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="start the proxy with --workers N (default 1, the target's)")
    args = parser.parse_args(argv)
    scale = 1 if args.quick else 4
    adapter = {name: adapter_ratio(text) for name, text in adapter_workloads(scale).items()}
    for line in adapter_report(adapter):
        print(line, flush=True)
    streaming = stream_arguments_figures(scale)
    for line in stream_arguments_report(streaming):
        print(line, flush=True)
    server = {} if args.adapter_only else _run(server_figures(args.quick, args.workers))
    for line in server_report(server) if server else ():
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"adapter": adapter, "stream_arguments": streaming, "server": server}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["adapter_ratio", "adapter_workloads", "incremental_ratio", "main", "server_figures",
           "stream_arguments_figures"]
