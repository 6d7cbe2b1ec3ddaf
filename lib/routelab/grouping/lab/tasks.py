"""Spark sweep tasks shared by notebooks 07_pkg and 08_fish: one grid point of the grouping
simulator -> result rows, with the named key streams cached per Python worker.
"""

from __future__ import annotations

import inspect
from functools import lru_cache
from typing import Any

from routelab.grouping.simulator import simulate
from routelab.readings import flipped

STREAM_PREFIX = "stream_"


@lru_cache(maxsize=4)
def _cached_stream(
    name: str, frozen_params: tuple[tuple[str, Any], ...], reading: str | None = None
):
    from routelab.grouping.lab.streams import load_stream

    return load_stream(name, **dict(frozen_params))


def cached_stream(name: str, **params: Any):
    """:func:`~routelab.grouping.lab.streams.load_stream` with a per-process cache of the last
    four streams, so sweep points sharing a stream build it once per Python worker.
    Parameter values must be hashable. The readings flipped for the run
    (:func:`routelab.readings.flipped`) are part of the key: a reused Python worker never
    hands a stream built under other readings (e.g. LN1's or ZF's) to a flipped run."""
    return _cached_stream(name, tuple(sorted(params.items())), flipped())


def simulate_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One sweep grid point -> result rows (picklable; for :func:`routelab.sweep.run_grid`).

    Keys of ``params``:

    - ``stream`` (a name of :data:`routelab.grouping.lab.streams.STREAMS`) and its parameters
      prefixed with ``stream_`` (e.g. ``stream_n_messages``, ``stream_z``); streams with an
      ``n_sources`` parameter (skewed sources) receive the point's ``n_sources``. Streams
      are cached per Python worker, so points sharing a stream build it once;
    - ``scheme``, ``n_workers``, optional ``n_sources`` (default 1), ``seed`` (default 0);
    - ``output``: ``"summary"`` (default, one row) or ``"timeline"`` (one row per ``I(t)``
      checkpoint);
    - anything else goes to :func:`simulate` (e.g. ``cpu_delay``, ``d``, ``probe_interval``).

    Rows carry the stream's ``data`` and ``stands_in_for`` so figures can say what they show.
    """
    from routelab.grouping.lab.streams import stream_function

    p = dict(params)
    stream = p.pop("stream")
    stream_params = {
        name[len(STREAM_PREFIX) :]: p.pop(name)
        for name in list(p)
        if name.startswith(STREAM_PREFIX)
    }
    scheme = p.pop("scheme")
    n_workers = int(p.pop("n_workers"))
    n_sources = int(p.pop("n_sources", 1))
    seed = int(p.pop("seed", 0))
    output = p.pop("output", "summary")
    if output not in ("summary", "timeline"):
        raise ValueError(f"output must be 'summary' or 'timeline', got {output!r}")
    if "n_sources" in inspect.signature(stream_function(stream)).parameters:
        stream_params.setdefault("n_sources", n_sources)
    ks = cached_stream(stream, **stream_params)
    result = simulate(
        ks.keys, scheme, n_workers, n_sources, seed, times=ks.times, sources=ks.sources, **p
    )
    tags = {"data": ks.meta["data"], "stands_in_for": ks.meta["stands_in_for"]}
    if output == "timeline":
        return [{**row, **tags} for row in result.timeline_rows()]
    return [{**result.summary(), **tags}]
