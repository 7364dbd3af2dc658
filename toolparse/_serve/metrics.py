"""What the proxy counts, for `GET /metrics` in Prometheus's text format (SPEC 9), through
`prometheus-client`.

The names and labels are an interface (dashboards rely on them; docs/serve.md lists
them). Label values are bounded: route names and dialect names from the configuration,
reason and status codes from toolparse, error kinds from `UPSTREAM_ERRORS`; never a
string a client sent (a request's `model` picks a route and is never a label).

Each app has its own registry, so that several apps in one process (tests, an embedder)
count apart. With `toolparse serve --workers N`, the workers count in shared files
(prometheus-client's multiprocess mode, `PROMETHEUS_MULTIPROC_DIR`): any worker's
`/metrics` then answers for all of them.

Cost: the counters a request touches are looked up once per request (`RouteMetrics`).
Per upstream read, one observation of `toolparse_chunk_seconds`, which is the hot path:
it is kept without a lock (`Timings`: the event loop is the only writer, and a scrape
runs on it too), at about a fifth of the cost of prometheus-client's own histogram;
in multiprocess mode it is prometheus-client's.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.metrics_core import HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

__all__ = ["CONTENT_TYPE", "MULTIPROCESS_VARIABLE", "UPSTREAM_ERRORS", "Metrics", "RouteMetrics"]

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
MULTIPROCESS_VARIABLE: Final = "PROMETHEUS_MULTIPROC_DIR"

UPSTREAM_ERRORS: Final = ("unreachable", "timeout", "dropped", "status_4xx", "status_5xx")
"""`toolparse_upstream_errors_total`'s kinds: not reached (502), no answer in time (504,
or a read time-out mid-stream), an answer that broke off, an error status."""

_LATENCY_BUCKETS: Final = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                           0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_CHUNK_BUCKETS: Final = (0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
                         0.0025, 0.005, 0.01, 0.025, 0.1)
_REQUEST_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                           30.0, 60.0, 120.0, 300.0, 600.0)


class Metrics:
    """The proxy's metrics, in a registry of their own."""

    def __init__(self) -> None:
        shared = os.environ.get(MULTIPROCESS_VARIABLE)
        if shared:
            _forget_dead_workers(shared)
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.requests = Counter(
            "toolparse_requests", "Requests answered, by route and HTTP status",
            ("route", "code"), registry=registry)
        self.calls = Counter(
            "toolparse_calls", "Tool calls read, by route, dialect and status "
            "(unchecked, valid, repaired, rejected)", ("route", "dialect", "status"),
            registry=registry)
        self.rejected = Counter(
            "toolparse_rejected_calls", "Rejected tool calls, by reason",
            ("route", "dialect", "reason"), registry=registry)
        self.failed_blocks = Counter(
            "toolparse_failed_blocks", "Tool-call blocks that did not parse, by reason",
            ("route", "dialect", "reason"), registry=registry)
        self.foreign = Counter(
            "toolparse_foreign_markup", "Markup of a bundled dialect the route does not read, "
            "by the dialect seen", ("route", "dialect", "seen"), registry=registry)
        self.reasoning = Counter(
            "toolparse_reasoning_chars", "Characters of reasoning sent apart from the content",
            ("route",), registry=registry)
        self.upstream_errors = Counter(
            "toolparse_upstream_errors", "Upstream failures, by kind", ("route", "kind"),
            registry=registry)
        self.open_streams = Gauge(
            "toolparse_open_streams", "Streams being sent", ("route",), registry=registry,
            multiprocess_mode="livesum")
        self.first_byte = Histogram(
            "toolparse_first_byte_seconds", "Latency the proxy adds before the client's "
            "first byte: its work before the upstream request, and from the upstream's "
            "first byte to its own", ("route",), buckets=_LATENCY_BUCKETS, registry=registry)
        chunk_help = "Time to rewrite one read of an upstream stream"
        self.chunk: Histogram | TimingsCollector
        if os.environ.get(MULTIPROCESS_VARIABLE):
            self.chunk = Histogram("toolparse_chunk_seconds", chunk_help, ("route",),
                                   buckets=_CHUNK_BUCKETS, registry=registry)
        else:
            self.chunk = TimingsCollector("toolparse_chunk_seconds", chunk_help,
                                          _CHUNK_BUCKETS)
            registry.register(self.chunk)
        self.request_time = Histogram(
            "toolparse_request_seconds", "Whole requests, from arrival to the last byte",
            ("route",), buckets=_REQUEST_BUCKETS, registry=registry)

    def route(self, name: str, dialect: str) -> RouteMetrics:
        return RouteMetrics(self, name, dialect)

    def exposition(self) -> bytes:
        """The text format, for `GET /metrics`: this app's registry, or every worker's
        in multiprocess mode."""
        if os.environ.get(MULTIPROCESS_VARIABLE):
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return generate_latest(registry)
        return generate_latest(self.registry)


def _forget_dead_workers(shared: str) -> None:
    """In multiprocess mode, a worker that starts (uvicorn restarts one that died) takes
    the open-stream counts of dead workers out of the gauge (their counters stay)."""
    from prometheus_client import multiprocess

    for path in Path(shared).glob("gauge_live*_*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            multiprocess.mark_process_dead(int(pid), shared)  # type: ignore[no-untyped-call]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Timings:
    """One route's histogram of read times: bucket counts and their sum, no lock."""

    __slots__ = ("counts", "total")

    def __init__(self, buckets: int) -> None:
        self.counts = [0] * (buckets + 1)
        """Observations per bucket (not cumulative); the last: past every bound."""
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(_CHUNK_BUCKETS, seconds)] += 1
        self.total += seconds


class TimingsCollector(Collector):
    """A histogram family of `Timings` by route, in the registry's exposition."""

    def __init__(self, name: str, documentation: str, bounds: tuple[float, ...]) -> None:
        self._name = name
        self._documentation = documentation
        self._bounds = [*(floatToGoString(bound) for bound in bounds),  # type: ignore[no-untyped-call]
                        "+Inf"]
        self._routes: dict[str, Timings] = {}

    def labels(self, route: str) -> Timings:
        timings = self._routes.get(route)
        if timings is None:
            timings = self._routes[route] = Timings(len(self._bounds) - 1)
        return timings

    def describe(self) -> Iterator[Metric]:
        yield HistogramMetricFamily(self._name, self._documentation, labels=["route"])

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self._name, self._documentation, labels=["route"])
        for route, timings in list(self._routes.items()):
            running, buckets = 0, []
            for bound, count in zip(self._bounds, list(timings.counts)):
                running += count
                buckets.append((bound, float(running)))
            family.add_metric([route], buckets, timings.total)
        yield family


class RouteMetrics:
    """One route's children of the metrics, looked up once (the labels never change)."""

    __slots__ = ("_metrics", "name", "dialect", "chunk", "first_byte", "request_time",
                 "open_streams", "reasoning", "_children")

    def __init__(self, metrics: Metrics, name: str, dialect: str) -> None:
        self._metrics = metrics
        self.name = name
        self.dialect = dialect
        self.chunk = metrics.chunk.labels(name)
        self.first_byte = metrics.first_byte.labels(name)
        self.request_time = metrics.request_time.labels(name)
        self.open_streams = metrics.open_streams.labels(name)
        self.reasoning = metrics.reasoning.labels(name)
        self._children: dict[tuple[str, ...], MetricWrapperBase] = {}

    def _child(self, metric: MetricWrapperBase, *labels: str) -> Counter:
        key = (metric._name, *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(self.name, *labels)
        return child  # type: ignore[return-value]

    def request(self, code: int) -> None:
        self._child(self._metrics.requests, str(code)).inc()

    def call(self, status: str, dialect: str | None = None) -> None:
        self._child(self._metrics.calls, dialect or self.dialect, status).inc()

    def rejected(self, reason: str, dialect: str | None = None) -> None:
        self._child(self._metrics.rejected, dialect or self.dialect, reason).inc()

    def failed_block(self, reason: str, dialect: str | None = None) -> None:
        self._child(self._metrics.failed_blocks, dialect or self.dialect, reason).inc()

    def foreign(self, seen: str) -> None:
        self._child(self._metrics.foreign, self.dialect, seen).inc()

    def upstream_error(self, kind: str) -> None:
        self._child(self._metrics.upstream_errors, kind).inc()
