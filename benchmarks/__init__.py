"""toolparse's benchmark suite: `python -m benchmarks [--quick | --smoke] [--json PATH]`.

The harness lives in the package (`toolparse._bench`) so that `toolparse bench` works
from an installed wheel; this package is the repository's entry point to it, plus the
profiling helper (`python -m benchmarks.profile`). docs/performance.md has the latest
figures and what they mean.
"""
