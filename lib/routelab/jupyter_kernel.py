"""The Jupyter kernel the notebooks run on, and how papermill starts it.

The committed notebooks name the kernelspec ``routelab`` ("Python 3 (routelab)"), which
``make setup`` installs into the project's environment (``python -m routelab.jupyter_kernel``), so
JupyterLab opens a notebook without rewriting its metadata, and
``routelab figures`` uses the same kernel. :func:`ensure_kernel` installs it on first use.

Kernels started by ``routelab figures`` talk to papermill over IPC (Unix sockets) rather than
unencrypted TCP on loopback: private to the machine, and ipykernel has nothing to warn about.
"""

from __future__ import annotations

import sys
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from traitlets import CaselessStrEnum

KERNEL_NAME = "routelab"
DISPLAY_NAME = "Python 3 (routelab)"


def kernelspec_metadata() -> dict[str, str]:
    """The ``kernelspec`` block of a notebook's metadata, as JupyterLab writes it."""
    return {"display_name": DISPLAY_NAME, "language": "python", "name": KERNEL_NAME}


def ensure_kernel(prefix: str | None = None) -> str:
    """Install the ``routelab`` kernelspec into ``prefix`` (default: this environment) if no
    kernelspec of that name is found; return the kernelspec's directory."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        return KernelSpecManager().get_kernel_spec(KERNEL_NAME).resource_dir
    except NoSuchKernel:
        return install_kernel(prefix)


class IPCKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels listen on Unix sockets instead of TCP.

    Each kernel's sockets live in a private directory of their own. jupyter_client's
    default path is ``kernel-ipc-<n>`` in the working directory whenever it is read before
    a connection file is set, so two kernels started at the same moment (two notebooks
    run in parallel, e.g. the test suite's workers) picked the same free ``<n>`` and
    talked to each other's sockets ("Invalid Signature", "Kernel didn't respond").
    """

    transport: Any = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

    def _ip_default(self) -> str:
        if self.transport != "ipc":
            return super()._ip_default()
        import os
        import tempfile

        return os.path.join(tempfile.mkdtemp(prefix="routelab-kernel-"), "kernel")


def install_kernel(prefix: str | None = None) -> str:
    """(Re)install the ``routelab`` kernelspec into ``prefix`` (default: this environment),
    pointing at this interpreter; what ``make setup`` runs."""
    from ipykernel.kernelspec import install

    return install(kernel_name=KERNEL_NAME, display_name=DISPLAY_NAME, prefix=prefix or sys.prefix)


if __name__ == "__main__":
    print(f"kernelspec {KERNEL_NAME!r}: {install_kernel()}")
