"""S3-TM, streaming short-text matching (Gedik et al.): the paper's algorithms.

Files and the paper sections they implement (notebook code is in :mod:`routelab.s3tm.lab`):

======================== ================================================================
file                     paper
======================== ================================================================
``wordsets.py``          posts and subscriptions as word-id sets, CSR (Sect. 3.1)
``wordnet.py``           word network f(w), f(w1, w2) on the driver (Sect. 3.2)
``partition.py``         gC, gFC, gFCL, gNFCL: word-network partitioning with METIS (Sect. 3.2)
``salb_reference.py``    SALB, readable reference of Algorithm 1 (Sect. 3.3)
``salb_kernel.py``       SALB, numba kernel (same mapping as the reference)
``mappings.py``          :func:`learn_mapping`: one entry point for every method (Sect. 3)
``routing.py``           the mapping M and publication routing K(P, M) (Sect. 3.1, Eq. 1)
``metrics.py``           spread, load, imbalance, throughput (Eqs. 1-7)
``skew.py``              hot-word splitting and subscription categories (Sect. 5.1)
``trie_reference.py``    trie matching, readable reference (Sect. 4.1)
``trie_kernel.py``       trie matching, flat-array numba kernel (Sect. 4.1)
``lasp.py``              LASP, load-aware subscription placement (Sect. 4.2, Algorithm 2)
``placement.py``         eligibility, random anycast, placing subscriptions (Sects. 2.1, 4, 5.1)
``matching_load.py``     subscription-aware load and throughput (Sects. 4, 6.3)
``shedding.py``          what load to shed: consensus / subscription shedding (Sect. 5.2.1)
``shedding_controller``  how much to shed: buffer segments, levels, Eq. 8 (Sect. 5.2.2)
``dataflow.py``          Router -> Matchers -> Dispatcher on Spark (Sect. 2, Fig. 1); the word
                         network on Spark (Sect. 3.2)
``streaming.py``         the same dataflow as Spark Structured Streaming (Sect. 2)
======================== ================================================================

The short public API: ``from routelab.s3tm import learn_mapping, route_metrics, Corpus``.
"""

from routelab.s3tm.dataflow import word_network_spark
from routelab.s3tm.mappings import METHODS, learn_mapping
from routelab.s3tm.metrics import RouteMetrics, metrics_from_targets, route_metrics
from routelab.s3tm.routing import Mapping, Targets
from routelab.s3tm.skew import HotPlacement, SplitPlan, apply_split, hot_placement, split_plan
from routelab.s3tm.wordnet import WordNetwork, word_network
from routelab.s3tm.wordsets import Corpus, as_corpus, subscribed_words

__all__ = [
    "METHODS",
    "Corpus",
    "HotPlacement",
    "Mapping",
    "RouteMetrics",
    "SplitPlan",
    "Targets",
    "WordNetwork",
    "apply_split",
    "as_corpus",
    "hot_placement",
    "learn_mapping",
    "metrics_from_targets",
    "route_metrics",
    "split_plan",
    "subscribed_words",
    "word_network",
    "word_network_spark",
]
