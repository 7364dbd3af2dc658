"""docs/examples/quickstart.ipynb runs: every cell, in a kernel inside this process.

An in-process kernel runs the cells in the interpreter that runs the tests, so the
notebook uses the toolparse under test (installed or checked out), with no kernelspec or
subprocess. nbclient is written for out-of-process kernels; the two small adapters below
make ipykernel's in-process kernel fit it.
"""

from __future__ import annotations

import ast
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
    rich = [out for cell in executed.cells if cell.cell_type == "code"
            and "scan" not in cell.metadata.get("tags", []) for out in cell.outputs
            if out.output_type == "execute_result" and "text/html" in out.data]
    assert len(rich) >= 2  # the parsed answer and the edited-grammar result
    assert all("&lt;tool_calls&gt;" in out.data["text/html"] or "&lt;｜DSML｜" in out.data["text/html"]
               for out in rich)


def test_the_archive_scan_shows_its_differences(executed: Any) -> None:
    (table, summary) = [out for cell in executed.cells if "scan" in cell.metadata.get("tags", [])
                        for out in cell.outputs if out.output_type == "execute_result"]
    html = table.data["text/html"]
    assert "in_code" in html and "fenced" in html and "not_in_recorded" in html
    assert "in_code" in summary.data.get("text/html", summary.data["text/plain"])


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


def tagged_output(executed: Any, tag: str, kind: str) -> list[Any]:
    (cell,) = [c for c in executed.cells if tag in c.metadata.get("tags", [])]
    return [out for out in cell.outputs if out.output_type == kind]


def test_the_checked_result_shows_statuses_failures_and_folds(executed: Any) -> None:
    (result,) = tagged_output(executed, "tools", "execute_result")
    markup = result.data["text/html"]
    for mark in ('class="tp-block tp-repaired"', 'class="tp-block tp-rejected"',
                 'class="tp-block tp-valid"', 'class="tp-failed"', ">failed: unexpected_token<",
                 'class="tp-legend"', 'class="tp-rules"', '<pre class="tp-code"',
                 '<details class="tp-more"'):
        assert mark in markup, mark


def test_the_safe_loop_runs_only_accepted_blocks(executed: Any) -> None:
    printed = "".join(out.text for out in tagged_output(executed, "loop", "stream")).splitlines()
    assert printed == [
        'execute: read_file {"path":"setup.cfg","limit":20} repaired',
        "ask again: There is no tool named 'delete_repo'; call one of: 'read_file', 'write_file'.",
        printed[2],
        'execute: write_file {"path":"hello.py","content":"def main():\\n    print(\\"hello\\")\\n"} valid']
    assert printed[2].startswith("failed block, nothing ran: unexpected_token at character ")


def test_the_notebook_uses_only_the_public_api() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    used = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("toolparse"):
                used.append(node.module or "")
                used += [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                used += [alias.name for alias in node.names if alias.name.startswith("toolparse")]
            elif isinstance(node, ast.Attribute):
                used.append(node.attr)
    private = [name for name in used if any(part.startswith("_") and not part.startswith("__")
                                             for part in name.split("."))]
    assert not private, f"the notebook uses private names: {private}"
