"""docs/examples/quickstart.ipynb runs: every cell, in a kernel inside this process.

An in-process kernel runs the cells in the interpreter that runs the tests, so the
notebook uses the toolparse under test (installed or checked out), with no kernelspec or
subprocess. nbclient is written for out-of-process kernels; the two small adapters below
make ipykernel's in-process kernel fit it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat (test extra)")
nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient (test extra)")
pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel (test extra)")

from ipykernel.inprocess.blocking import BlockingInProcessKernelClient  # noqa: E402
from ipykernel.inprocess.manager import InProcessKernelManager  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "examples" / "quickstart.ipynb"


class _InProcessClient(BlockingInProcessKernelClient):
    """nbclient waits for the kernel with a timeout; an in-process kernel is ready at once."""

    def wait_for_ready(self, timeout: float | None = None) -> None:
        return None


class _InProcessManager(InProcessKernelManager):
    """An in-process kernel manager with the signatures nbclient calls, and printed
    output routed to the cell that printed it."""

    def start_kernel(self, **kwargs: Any) -> None:
        super().start_kernel(**kwargs)
        kernel = self.kernel
        set_parent = kernel.set_parent

        # The kernel tells the output streams which request they belong to before it
        # redirects sys.stdout to them, so they never learn it and nbclient drops what
        # the cell printed. Tell them directly.
        def set_parent_and_streams(ident: Any, parent: Any, channel: str = "shell") -> None:
            set_parent(ident, parent, channel)
            if channel == "shell":
                kernel.stdout.set_parent(parent)
                kernel.stderr.set_parent(parent)

        kernel.set_parent = set_parent_and_streams

    def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
        super().shutdown_kernel()

    def client(self, **kwargs: Any) -> _InProcessClient:
        kwargs.update(kernel=self.kernel, session=self.session, parent=self)
        return _InProcessClient(**kwargs)


@pytest.fixture(scope="module")
def executed() -> Any:
    """The quickstart notebook after running every cell (raises if a cell fails)."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, kernel_manager_class=_InProcessManager, timeout=120,
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return notebook


def test_every_cell_runs(executed: Any) -> None:
    code = [cell for cell in executed.cells if cell.cell_type == "code"]
    assert code, "the notebook has no code cells"
    for cell in code:
        errors = [out for out in cell.outputs if out.output_type == "error"]
        assert not errors, f"cell failed:\n{cell.source}\n{errors}"
        assert cell.execution_count is not None


def test_results_render_as_html(executed: Any) -> None:
    rich = [out for cell in executed.cells if cell.cell_type == "code" for out in cell.outputs
            if out.output_type == "execute_result" and "text/html" in out.data]
    assert len(rich) >= 2  # the parsed answer and the edited-grammar result
    assert all("&lt;tool_calls&gt;" in out.data["text/html"] or "&lt;｜DSML｜" in out.data["text/html"]
               for out in rich)


def test_the_grammar_edit_accepts_the_alias(executed: Any) -> None:
    printed = "".join(out.get("text", "") for cell in executed.cells if cell.cell_type == "code"
                      for out in cell.outputs if out.output_type == "stream")
    assert "edited grammar:  ['ping']" in printed
    assert "bundled grammar: []" in printed


def test_only_the_real_call_is_found(executed: Any) -> None:
    # The example in the fence is text (SPEC G3): needs the CommonMark tracker.
    (cell,) = [c for c in executed.cells if "calls" in c.metadata.get("tags", [])]
    (result,) = [out for out in cell.outputs if out.output_type == "execute_result"]
    assert result.data["text/plain"] == "[('read_file', {'path': 'README.md', 'limit': 200})]"
