"""The notebooks name the kernel `make setup` installs, exactly as JupyterLab writes it, so
opening a notebook does not modify it; papermill runs use IPC."""

from __future__ import annotations

import nbformat
import pytest

from routelab.jupyter_kernel import (
    KERNEL_NAME,
    IPCKernelManager,
    ensure_kernel,
    kernelspec_metadata,
)
from routelab.paths import notebooks_dir

NOTEBOOKS = sorted(notebooks_dir().glob("[0-9][0-9]_*.ipynb"))


@pytest.fixture(scope="module")
def kernel_language_info():
    """language_info as the installed kernel reports it (what Lab writes on save)."""
    from jupyter_client.manager import start_new_kernel

    ensure_kernel()
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME)
    try:
        return kc.kernel_info(reply=True, timeout=60)["content"]["language_info"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_kernelspec_is_installed_and_runs_this_environment():
    import json
    import sys
    from pathlib import Path

    spec = json.loads((Path(ensure_kernel()) / "kernel.json").read_text())
    assert spec["display_name"] == kernelspec_metadata()["display_name"]
    assert Path(spec["argv"][0]).resolve() == Path(sys.executable).resolve()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_metadata_is_what_lab_writes(path, kernel_language_info):
    nb = nbformat.read(path, as_version=4)
    assert dict(nb.metadata["kernelspec"]) == kernelspec_metadata()
    assert dict(nb.metadata["language_info"]) == kernel_language_info


def test_papermill_kernels_use_ipc():
    assert IPCKernelManager().transport == "ipc"


def test_parallel_kernels_get_socket_paths_of_their_own(tmp_path, monkeypatch):
    """Two kernels started at once (the suite's workers run notebooks in parallel) never
    share IPC sockets: each path is in a private directory, never ``kernel-ipc`` in the
    working directory."""
    import os

    monkeypatch.chdir(tmp_path)
    a, b = IPCKernelManager(), IPCKernelManager()
    assert a.ip != b.ip and os.path.isabs(a.ip) and os.path.isabs(b.ip)
    assert os.path.dirname(a.ip) != os.path.dirname(b.ip)
    assert not os.path.basename(a.ip).startswith("kernel-ipc")
    assert not list(tmp_path.iterdir())
    from routelab.jupyter_kernel import IPCKernelManager as K

    assert K(transport="tcp").ip in ("127.0.0.1", "localhost")
