"""Routing quality of a mapping (S3-TM Sect. 3.1, Eqs. 1-7).

Readings of what the paper leaves open (listed in ``routelab/READINGS.md``):

- Eq. 1: K(P, M) = {M(w) : w in P and W^s}; posts without subscribed words go nowhere.
- Eq. 2: spread R = (1/|P|) sum_P |K(P, M)|, the average multicast size over *all*
  measured posts. Because a post with no subscribed word has |K| = 0, R can fall below 1
  with sparse subscriptions; ``spread_routed`` averages over the posts sent somewhere
  (the paper's remark "the minimal spread value that can be achieved is 1", Sect. 6.2).
- Eq. 3: L(i, M) = number of publications routed to i (unit cost per publication).
- Eq. 4: imbalance B = max_i L / avg_i L; ``cv`` = std / mean (population std), the
  imbalance SALB optimizes.
- Eq. 6: throughput T = min_i C |P| / L(i, M) = C |P| / max_i L, in units of one matcher's
  capacity C (``capacity``, default 1: T is then "how many matchers' worth" of publications
  the system sustains).
- Eq. 7: T-hat proportional to 1 / (R B). We use the constant C N, i.e. T-hat = C N / (R B);
  under the readings above T-hat equals T exactly (|P| R = sum L = N avg L), which the
  tests check.

With no load at all (no post holds a subscribed word) imbalance and cv are NaN and both
throughputs are infinite.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from routelab.s3tm.routing import Mapping, Targets
from routelab.s3tm.wordsets import Corpus, as_corpus, subscribed_words


@dataclass(frozen=True, eq=False)
class RouteMetrics:
    """Eqs. 1-7 for one mapping on one set of publications (see module docstring)."""

    targets: Targets
    n_posts: int
    n_routed: int
    spread: float
    spread_routed: float
    loads: np.ndarray
    imbalance: float
    cv: float
    throughput: float
    t_hat: float
    capacity: float

    @property
    def n_matchers(self) -> int:
        """N."""
        return self.targets.n_matchers

    def as_dict(self) -> dict[str, Any]:
        """Scalar metrics as a flat dict (one result row of a sweep)."""
        return {
            "n_matchers": self.n_matchers,
            "n_posts": self.n_posts,
            "n_routed": self.n_routed,
            "spread": self.spread,
            "spread_routed": self.spread_routed,
            "imbalance": self.imbalance,
            "cv": self.cv,
            "throughput": self.throughput,
            "t_hat": self.t_hat,
            "max_load": int(self.loads.max()) if len(self.loads) else 0,
            "total_load": int(self.loads.sum()),
        }


def metrics_from_targets(targets: Targets, capacity: float = 1.0) -> RouteMetrics:
    """Eqs. 2-7 from already computed targets K(P, M)."""
    if capacity <= 0:
        raise ValueError(f"capacity must be positive, got {capacity}")
    sizes = targets.sizes()
    loads = targets.loads()
    n_posts = targets.n_posts
    n_routed = int(np.count_nonzero(sizes))
    total = int(loads.sum())
    spread = total / n_posts if n_posts else float("nan")
    spread_routed = total / n_routed if n_routed else float("nan")
    if total == 0:
        imbalance = cv = float("nan")
        throughput = t_hat = float("inf")
    else:
        mean = total / targets.n_matchers
        imbalance = float(loads.max() / mean)
        cv = float(loads.std() / mean)
        throughput = capacity * n_posts / float(loads.max())
        t_hat = capacity * targets.n_matchers / (spread * imbalance)
    return RouteMetrics(
        targets,
        n_posts,
        n_routed,
        float(spread),
        float(spread_routed),
        loads,
        imbalance,
        cv,
        throughput,
        t_hat,
        capacity,
    )


def route_metrics(
    mapping: Mapping, posts: Any, subscriptions: Any = None, *, capacity: float = 1.0
) -> RouteMetrics:
    """Route ``posts`` with ``mapping`` and measure spread, load, imbalance, throughput.

    Args:
        mapping: the learned mapping.
        posts: the publications (a :class:`~routelab.s3tm.wordsets.Corpus`, a Spark
            DataFrame or word lists), e.g. the held-out fold.
        subscriptions: defines W^s (``None``: every word routes).
        capacity: C of Eq. 6.
    """
    corpus: Corpus = as_corpus(posts)
    targets = mapping.route(corpus, subscribed_words(subscriptions))
    return metrics_from_targets(targets, capacity)
