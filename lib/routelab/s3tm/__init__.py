"""S3-TM publication routing (Gedik et al., "Streaming short-text matching"; Sects. 3, 5.1).

- :mod:`~routelab.s3tm.corpus`: posts and subscriptions as word-id sets (CSR);
- :mod:`~routelab.s3tm.wordnet`: word network f(w), f(w1, w2) on the driver and on Spark;
- :mod:`~routelab.s3tm.mappings`: :func:`learn_mapping` for ``hash``, ``gC``, ``gFC``,
  ``gFCL``, ``gNFCL`` (:mod:`~routelab.s3tm.partition`, METIS) and ``SALB``
  (:mod:`~routelab.s3tm.salb_reference`, :mod:`~routelab.s3tm.salb_kernel`);
- :mod:`~routelab.s3tm.routing`: the :class:`Mapping` and K(P, M);
- :mod:`~routelab.s3tm.skew`: hot-word splitting and subscription categories (Sect. 5.1);
- :mod:`~routelab.s3tm.metrics`: spread, load, imbalance, throughput (Eqs. 1-7);
- :mod:`~routelab.s3tm.bench`: SALB learning-time benchmark.
"""

from routelab.s3tm.corpus import Corpus, as_corpus, subscribed_words
from routelab.s3tm.mappings import METHODS, learn_mapping
from routelab.s3tm.metrics import RouteMetrics, metrics_from_targets, route_metrics
from routelab.s3tm.routing import Mapping, Targets
from routelab.s3tm.skew import HotPlacement, SplitPlan, apply_split, hot_placement, split_plan
from routelab.s3tm.wordnet import WordNetwork, word_network, word_network_spark

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
