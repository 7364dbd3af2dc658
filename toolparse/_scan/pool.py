"""Batches through worker processes, results in input order, memory bounded.

`scan_batches` keeps at most `IN_FLIGHT_PER_JOB` batches per worker submitted and not
yet written: the next batch is read only when the oldest result has been taken. So the
input is read as fast as the workers go and never ahead of them, and results come back
in input order (a later batch that finishes first waits in its future).

Workers are forked when this process has no thread but the main one (the command's
case: they start at once, with toolparse imported and the dialect loaded, and there is
no other thread whose locks a fork could copy held). Otherwise (a notebook, a test
runner with threads) they come from a fork server (a clean process that has imported
toolparse), or are spawned where there is none. Each worker builds its Scanner once.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Final

from toolparse._scan import work
from toolparse._scan.inputs import Batch
from toolparse._scan.options import ScanOptions

__all__ = ["IN_FLIGHT_PER_JOB", "scan_batches"]

IN_FLIGHT_PER_JOB: Final = 2
"""Batches per worker submitted ahead: one being scanned, one waiting."""


def scan_batches(batches: Iterable[Batch], options: ScanOptions, output: work.OutputFormat,
                 jobs: int) -> Iterator[work.BatchResult]:
    """Each batch scanned, in order; `jobs` 1 runs in this process."""
    if jobs == 1:
        work.start(options, output)
        yield from map(work.run, batches)
        return
    with ProcessPoolExecutor(jobs, mp_context=_context(), initializer=work.start,
                             initargs=(options, output)) as pool:
        waiting: deque[Future[work.BatchResult]] = deque()
        try:
            for batch in batches:
                waiting.append(pool.submit(work.run, batch))
                if len(waiting) >= jobs * IN_FLIGHT_PER_JOB:
                    yield waiting.popleft().result()
            while waiting:
                yield waiting.popleft().result()
        finally:
            for future in waiting:
                future.cancel()


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["toolparse._scan.work"])
        return context
    return multiprocessing.get_context("spawn")
