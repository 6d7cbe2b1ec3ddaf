"""Stream grouping: every scheme of PKG (Nasir et al., ICDE'15) and FISH, one interface.

Files and the paper sections they implement (each scheme has a readable reference and a numba
kernel with identical output; notebook code is in :mod:`routelab.grouping.lab`):

======================== ===========================================================================
file                     paper
======================== ===========================================================================
``schemes_reference.py`` readable KG, SG, static PoTC, On-/Off-Greedy, PKG global / local / local +
                         probing (PKG Sects. II-III), D-Choices and W-Choices (Nasir et al. ICDE'16)
``schemes_kernel.py``    the same schemes as numba kernels
``spacesaving.py``       the SpaceSaving heavy-hitter summary D-C / W-C use (Metwally et al. 2005)
``dchoices_rule.py``     how many choices D-Choices gives a hot key (ICDE'16 Sect. IV)
``fish_params.py``       FISH's parameters: every formula the text lost, as a documented knob
``fish_reference.py``    FISH, readable: epoch top-K with decay, hot-key classification, worker
                         assignment heuristic (FISH Sects. 4.1-4.2)
``fish_kernel.py``       FISH, numba kernel
``consistent_hash.py``   consistent hashing with virtual nodes (FISH Sect. 5)
``events.py``            workers joining and leaving (FISH Sect. 5)
``inputs.py``            input validation shared by every routing function
``schemes.py``           the registry ``SCHEMES`` / ``get_scheme``: name -> reference, kernel
``simulator.py``         :func:`simulate`: route one stream with one scheme and measure it
                         (PKG Sect. V-A, FISH Sect. 6.1)
``metrics.py``           imbalance I(t), replication memory (PKG Sect. II, V; FISH Sect. 6.1)
``queueing.py``          FIFO worker queues: execution time, latency, throughput
``dataflow.py``          PKG local estimation with every source a Spark partition (Sect. III-B)
======================== ===========================================================================

``from routelab.grouping import simulate`` gives the simulator function. Heavy modules
(numba kernels, Spark) are imported only when used.
"""

from __future__ import annotations

from typing import Any

from routelab.grouping.events import WorkerEvent

__all__ = ["WorkerEvent", "simulate"]


def __getattr__(name: str) -> Any:
    # lazy: importing the simulator compiles nothing but pulls in numba and the kernels
    if name == "simulate":
        from routelab.grouping.simulator import simulate

        return simulate
    raise AttributeError(f"module 'routelab.grouping' has no attribute {name!r}")
