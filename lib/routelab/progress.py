"""Progress bars: ``tqdm.auto`` in JupyterLab and terminals, none in batch notebook runs.

Long work shows a progress bar (a widget in Lab, text in a terminal). A notebook executed
by ``routelab figures`` / papermill has nobody watching it, and a stale progress widget in
the executed notebook renders as "0%" in exported HTML: the runner sets
``ROUTELAB_BATCH=1`` for its kernels and :func:`tqdm` then draws nothing.
"""

from __future__ import annotations

import os
from typing import Any

BATCH_ENV = "ROUTELAB_BATCH"


def batch_mode() -> bool:
    """True inside a notebook run by ``routelab figures`` (no progress bars)."""
    return os.environ.get(BATCH_ENV) == "1"


def tqdm(*args: Any, disable: bool = False, **kwargs: Any) -> Any:
    """``tqdm.auto.tqdm``, disabled in batch runs (see the module docstring)."""
    from tqdm.auto import tqdm as auto_tqdm

    return auto_tqdm(*args, disable=disable or batch_mode(), **kwargs)
