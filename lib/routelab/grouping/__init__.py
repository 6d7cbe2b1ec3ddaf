"""Stream grouping lab: every scheme of PKG (Nasir et al., ICDE'15) and FISH, one interface.

Modules (each scheme has a readable reference and a numba kernel with identical output):

- :mod:`~routelab.grouping.events` -- worker add/remove events (:class:`WorkerEvent`).
- :mod:`~routelab.grouping.inputs` -- validation shared by all routing functions.
- :mod:`~routelab.grouping.reference` / :mod:`~routelab.grouping.kernels` -- key grouping,
  shuffle grouping, static PoTC, On-/Off-Greedy, PKG (global, local, local + probing),
  D-Choices and W-Choices.
- :mod:`~routelab.grouping.spacesaving` -- the SpaceSaving heavy-hitter summary.
- :mod:`~routelab.grouping.dchoices_rule` -- how many choices D-Choices gives a hot key.
- ``fish_*`` and :mod:`~routelab.grouping.consistent_hash` -- FISH and its hash ring.
- :mod:`~routelab.grouping.schemes` -- the registry ``SCHEMES`` / :func:`get_scheme`.
- :mod:`~routelab.grouping.simulate` -- :func:`simulate` one run; sweep task; Spark dataflow.
- :mod:`~routelab.grouping.queueing` / :mod:`~routelab.grouping.metrics` -- worker queues,
  latency, throughput; imbalance through time, replication memory.
- :mod:`~routelab.grouping.streams` -- named real and synthetic key streams.
- :mod:`~routelab.grouping.bench` -- messages/s of every kernel and reference.

Heavy modules (numba kernels, Spark) are imported only when used.
"""

from routelab.grouping.events import WorkerEvent

__all__ = ["WorkerEvent"]
