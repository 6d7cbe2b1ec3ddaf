"""Experiments of PKG (Nasir et al., ICDE'15, Sect. V) on the lab's stand-in streams.

Notebook ``07_pkg`` narrates; this package builds the sweep grids (one
:func:`~routelab.grouping.lab.tasks.simulate_task` point per configuration, run as Spark
tasks by :func:`routelab.sweep.run_grid`), reduces the result rows to the paper's tables
and figures, and computes each claim's measured value and verdict from the data:

- :func:`stream_cases` -- the stand-in streams, their ``p1`` and the balance boundary of
  Sect. IV-A (Table I);
- Table II and Fig. 2: :func:`imbalance_points`, :func:`table2`, :func:`splitting_gain`,
  :func:`local_global_frame`;
- Fig. 3: :func:`timeline_points`, :func:`drift_summary` (how much a stream drifts);
  Fig. 4: :func:`source_skew_points`, :func:`source_shares`;
- Fig. 5: :func:`saturation_rate`, :func:`throughput_points`, :func:`aggregation_tradeoff`;
- Sect. IV-A "used bins": :func:`used_bins_task`;
- Sect. V-B Q2 agreement of G and L: :func:`routing_overlap`;
- the worked example of Sect. III-A (10 messages, 3 workers, by hand):
  :func:`two_choice_example`, :func:`example_loads`; the interactive demo's stream and loads:
  :func:`skewed_demo_stream`, :func:`demo_loads`.

The claims rows are graded in :mod:`routelab.grouping.lab.pkg.claims`.

Naming of the variants follows the paper: ``H`` hashing (key grouping), ``G`` PKG with
global load, ``L5`` PKG with local estimation at 5 sources, ``L5P`` the same with periodic
probing (the paper's ``L5P1``).

================== ============================================================================
module             what it holds
================== ============================================================================
``cases.py``       the stand-in streams (``StreamCase``), the paper's datasets, Table II's schemes
``grids.py``       the sweep grids of Table II / Fig. 2, Fig. 3 (drift), Fig. 4 (source skew)
``reductions.py``  rows -> Table II, Fig. 2, the splitting gain, variant labels, G/L agreement
``throughput.py``  Fig. 5: saturation rate, throughput points, aggregation trade-off
``used_bins.py``   Sect. IV-A "used bins" (a Spark task)
``example.py``     the worked example of Sect. III-A and the interactive demo
``figures.py``     Table II, Figs. 2-5, the two-choice demo and used bins as figures
``claims.py``      the claims table of notebook 07, graded on the frames above
================== ============================================================================

The package re-exports the public names of every module but ``figures`` and ``claims``
(``from routelab.grouping.lab import pkg`` then ``pkg.table2``, as notebook 07 does; it
imports ``pkg.figures`` and ``pkg.claims`` as modules).
"""

from __future__ import annotations

from routelab.grouping.lab.pkg.cases import (
    PAPER_DATASETS,
    TABLE2_SCHEMES,
    USED_BINS,
    StreamCase,
    cases_table,
    data_kinds,
    load_case,
    max_key_probability,
    stream_case,
    stream_cases,
    stream_params,
)
from routelab.grouping.lab.pkg.example import (
    EXAMPLE_SEED,
    EXAMPLE_STREAM,
    EXAMPLE_WORKERS,
    demo_loads,
    example_loads,
    skewed_demo_stream,
    two_choice_example,
)
from routelab.grouping.lab.pkg.grids import (
    SOURCE_SPLITS,
    drift_summary,
    imbalance_points,
    skew_frame,
    source_shares,
    source_skew_points,
    timeline_points,
)
from routelab.grouping.lab.pkg.reductions import (
    gain_summary,
    imbalance_lower_bound,
    local_global_frame,
    local_global_summary,
    routing_overlap,
    safe_ratio,
    splitting_gain,
    table2,
    variant,
    with_labels,
)
from routelab.grouping.lab.pkg.throughput import (
    aggregation_tradeoff,
    flushed_counters,
    saturation_rate,
    throughput_frame,
    throughput_points,
)
from routelab.grouping.lab.pkg.used_bins import used_bins_task

__all__ = [
    "EXAMPLE_SEED",
    "EXAMPLE_STREAM",
    "EXAMPLE_WORKERS",
    "PAPER_DATASETS",
    "SOURCE_SPLITS",
    "StreamCase",
    "TABLE2_SCHEMES",
    "USED_BINS",
    "aggregation_tradeoff",
    "cases_table",
    "data_kinds",
    "demo_loads",
    "drift_summary",
    "example_loads",
    "flushed_counters",
    "gain_summary",
    "imbalance_lower_bound",
    "imbalance_points",
    "load_case",
    "local_global_frame",
    "local_global_summary",
    "max_key_probability",
    "routing_overlap",
    "safe_ratio",
    "saturation_rate",
    "skew_frame",
    "skewed_demo_stream",
    "source_shares",
    "source_skew_points",
    "splitting_gain",
    "stream_case",
    "stream_cases",
    "stream_params",
    "table2",
    "throughput_frame",
    "throughput_points",
    "timeline_points",
    "two_choice_example",
    "used_bins_task",
    "variant",
    "with_labels",
]
