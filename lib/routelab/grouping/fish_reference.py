"""FISH, readable reference: one class or function per step of the paper's algorithms.

Mirrors Zhang et al., "Efficient Time-Evolving Stream Processing at Scale",
with the lost formulas read as documented in :mod:`routelab.grouping.fish_params`:

- :class:`EpochTopK` -- Sect. 4.1.1 / Algorithm 1: intra-epoch top-K counting with the
  replace-min-plus-one rule, inter-epoch decay of every counter.
- :func:`classify_hot_keys` -- Sect. 4.1.2 / Algorithm 2 (CHK): hot keys and how many
  workers each may use (more for hotter keys, at least d_min, never shrinking while hot);
  the W-C and D-C policies of the Fig. 15 ablation.
- :class:`WorkerStateEstimator` -- Sect. 4.2.1 / 4.2.2 / Algorithm 3: unprocessed tuples and
  waiting time of each worker inferred at the source; the shortest estimated wait wins.
- :class:`FishRouter` -- one source instance running the three steps on its own sub-stream.
- :func:`fish_reference` -- the routing interface of :mod:`routelab.grouping`: every
  message goes to its source's router; worker add/remove events change the consistent-hash
  ring (Sect. 5) for all routers.

Slow on purpose (dicts, linear minimum search); :func:`routelab.grouping.fish_kernel.fish_kernel`
gives the identical assignment fast, which the tests check.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from routelab.grouping.consistent_hash import (
    modulo_candidates_reference,
    ring_candidates_reference,
)
from routelab.grouping.dchoices_rule import choose_d
from routelab.grouping.events import WorkerEvent
from routelab.grouping.fish_params import (
    FishParams,
    hot_key_workers,
    hot_min_workers,
    prepare_fish_run,
)

ALL_WORKERS = 1 << 30
"""Worker count stored for a hot key that may use every live worker (W-C policy)."""


class EpochTopK:
    """Decayed top-K key counters of one source (Sect. 4.1.1, Algorithm 1).

    ``count[k]`` is the decayed counter of a stored key; ``total`` the decayed number of
    tuples offered (equal to the sum of the counters). ``stamp[k]`` is the index of the offer
    that last touched ``k``; ties among least counters evict the smallest stamp.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.count: dict[int, float] = {}
        self.stamp: dict[int, int] = {}
        self.total = 0.0
        self.offers = 0

    def offer(self, key: int) -> None:
        """Intra-epoch counting (Algorithm 1, lines 8-17)."""
        now = self.offers
        self.offers += 1
        self.total += 1.0
        if key in self.count:  # a stored key: its occurrence number is incremented
            self.count[key] += 1.0
        elif len(self.count) < self.capacity:  # room left: the key is merged into K
            self.count[key] = 1.0
        else:  # K is full: ReplaceMin, the new key gets the replaced count plus 1
            victim = min(self.count, key=lambda k: (self.count[k], self.stamp[k]))
            floor = self.count.pop(victim)
            del self.stamp[victim]
            self.count[key] = floor + 1.0
        self.stamp[key] = now

    def decay(self, alpha: float) -> None:
        """Inter-epoch hotness decaying: every stored counter (and the total) times alpha."""
        for k in self.count:
            self.count[k] *= alpha
        self.total *= alpha

    def frequencies(self) -> dict[int, float]:
        """Recent frequency ``f_k = c_k / N`` of each stored key."""
        return {k: c / self.total for k, c in self.count.items()}


def classify_hot_keys(
    freqs: dict[int, float], n_workers: int, params: FishParams, previous: dict[int, int]
) -> dict[int, int]:
    """CHK (Sect. 4.1.2, Algorithm 2): the number of workers ``M_k`` of every hot key.

    ``freqs`` are the recent frequencies, ``n_workers`` the live workers, ``previous`` the
    table of the last epoch. Under "chk" a key gets ``max(d_k, d_min, previous M_k)`` workers
    (at most ``n``); "wc" gives hot keys every worker; "dc" gives every hot key the D-Choices
    ``d``. Keys are visited in increasing key order (so sums round the same everywhere).
    """
    n = n_workers
    theta = params.theta(n)
    hot = sorted(k for k, f in freqs.items() if f > theta)
    if not hot:
        return {}
    f_max = max(freqs[k] for k in hot)
    p_head = 0.0
    for k in hot:
        p_head += freqs[k]
    if params.hot_policy == "wc":
        return dict.fromkeys(hot, ALL_WORKERS)
    if params.hot_policy == "dc":
        return dict.fromkeys(hot, int(choose_d(f_max, p_head, len(hot), n)))
    d_min = hot_min_workers(p_head, len(hot), n, params.min_workers)
    relative = params.workers_formula == "relative"
    table: dict[int, int] = {}
    for k in hot:
        d = max(hot_key_workers(freqs[k], f_max, n, relative), d_min)  # lines 1-4, then d_min
        if previous.get(k, 0) > d:  # never shrink while hot: keep M_k
            d = previous[k]
        table[k] = min(d, n)
    return table


class WorkerStateEstimator:
    """What one source infers about every worker (Sect. 4.2.1), without asking it.

    The paper's estimate ``U_w(t) = max(0, R_w + A_w - C_w (t - t'))`` is kept in time units
    (see :mod:`~routelab.grouping.fish_params`): ``drain[w]`` is
    ``B_w = t' + (R_w + A_w) / C_w``, the time the worker would have finished what this source
    sent, so ``W_w(t) = U_w(t) / C_w = max(0, B_w - t)``. Sending a tuple adds ``1 / C_w``;
    a refresh every ``interval`` seconds clamps ``B_w`` to the clock (``R_w <- U_w``).
    ``capacity[w]`` is the share of worker ``w``'s capacity this source counts on, ``load[w]``
    the capacity-normalized count ``sum 1 / C_w`` of tuples sent, ``sent[w]`` their number.
    """

    def __init__(self, capacity: np.ndarray, interval: float) -> None:
        self.capacity = [float(c) for c in capacity]
        self.step = [1.0 / c for c in self.capacity]
        self.interval = interval
        n = len(self.capacity)
        self.drain = [-math.inf] * n
        self.load = [0.0] * n
        self.sent = [0] * n
        self.t_ref: float | None = None

    def waiting_time(self, w: int, t: float) -> float:
        """Estimated waiting time ``W_w = U_w / C_w`` (Sect. 4.2.2)."""
        return max(self.drain[w] - t, 0.0)

    def unprocessed(self, w: int, t: float) -> float:
        """Estimated unprocessed tuples ``U_w`` (Sect. 4.2.1)."""
        return self.waiting_time(w, t) * self.capacity[w]

    def observe_clock(self, t: float) -> None:
        """At the first tuple and then every ``interval`` seconds: fold the estimate, i.e.
        ``R_w <- U_w(t)`` and ``A_w <- 0``, which clamps ``B_w`` to ``t``."""
        if self.t_ref is None or t - self.t_ref >= self.interval:
            for w in range(len(self.drain)):
                self.drain[w] = max(self.drain[w], t)
            self.t_ref = t

    def select(self, candidates: Sequence[int], t: float, heuristic: bool) -> int:
        """Candidate worker selection (Sect. 4.2.2; Algorithm 3, lines 12-18).

        Heuristic: shortest estimated wait, then smallest ``load``, then earliest candidate.
        Otherwise (load-count ablation): fewest tuples sent, then earliest candidate.
        """
        if heuristic:
            rank: Callable[[int], tuple[Any, ...]] = lambda i: (  # noqa: E731
                self.waiting_time(candidates[i], t),
                self.load[candidates[i]],
                i,
            )
        else:
            rank = lambda i: (self.sent[candidates[i]], i)  # noqa: E731
        return candidates[min(range(len(candidates)), key=rank)]

    def record(self, w: int) -> None:
        """The source sent one tuple to ``w``: one more unprocessed tuple."""
        self.drain[w] += self.step[w]
        self.load[w] += self.step[w]
        self.sent[w] += 1

    def reset_worker(self, w: int, t: float) -> None:
        """A worker (re)joins at time ``t``: idle from now on (its own last refresh is ``t``,
        so it is not credited with capacity from before it existed), nothing counted."""
        self.drain[w] = -math.inf if self.t_ref is None else t
        self.load[w] = 0.0
        self.sent[w] = 0


class FishRouter:
    """One source instance of FISH: counts its keys, classifies, picks workers."""

    def __init__(self, params: FishParams, capacity: np.ndarray) -> None:
        self.params = params
        self.topk = EpochTopK(params.capacity)
        self.hot: dict[int, int] = {}
        self.estimator = WorkerStateEstimator(capacity, params.interval)
        self.in_epoch = 0

    def route(
        self, key: int, t: float, n_live: int, candidates_of: Callable[[int, int], list[int]]
    ) -> int:
        """Route one tuple; ``candidates_of(key, d)`` gives a key's first ``d`` workers."""
        p = self.params
        self.topk.offer(key)  # Sect. 4.1.1 intra-epoch counting
        d = min(self.hot.get(key, p.cold_choices), n_live)  # CHK table of the last epoch
        candidates = candidates_of(key, d)
        self.estimator.observe_clock(t)
        w = self.estimator.select(candidates, t, p.assignment == "heuristic")
        self.estimator.record(w)
        self.in_epoch += 1
        if self.in_epoch == p.epoch_size:
            self.end_epoch(n_live)
        return w

    def end_epoch(self, n_live: int) -> None:
        """Epoch end: classify hot keys (Sect. 4.1.2), then decay the counters (Sect. 4.1.1)."""
        self.hot = classify_hot_keys(self.topk.frequencies(), n_live, self.params, self.hot)
        self.topk.decay(self.params.effective_decay)
        self.in_epoch = 0


def fish_reference(
    keys: np.ndarray,
    sources: np.ndarray | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    **params: Any,
) -> np.ndarray:
    """FISH routing, readable version (parameters: :class:`~.fish_params.FishParams`).

    Each source runs its own :class:`FishRouter` on its messages in stream order. Before
    message ``i`` the events at ``i`` change the live workers; their hash ring gives every
    key its candidate workers (Sect. 5), and a (re)joining worker starts with a clean
    estimate at every source. Returns the int32 worker of each message.
    """
    run = prepare_fish_run(
        keys,
        sources,
        n_workers,
        seed=seed,
        times=times,
        capacities=capacities,
        events=events,
        **params,
    )
    p = run.params
    routers = [FishRouter(p, run.capacity_share) for _ in range(run.n_sources)]
    out = np.empty(run.keys.size, dtype=np.int32)
    seg = 0
    for i in range(run.keys.size):
        while seg + 1 < run.seg_starts.size and run.seg_starts[seg + 1] <= i:
            seg += 1
            joined = set(run.seg_workers[seg].tolist()) - set(run.seg_workers[seg - 1].tolist())
            for w in sorted(joined):
                for router in routers:
                    router.estimator.reset_worker(w, float(run.times[i]))
        live = run.seg_workers[seg]
        if p.placement == "ring":
            ring = run.rings[seg]

            def candidates_of(k: int, d: int, ring=ring) -> list[int]:
                return ring_candidates_reference(ring, k, d)
        else:

            def candidates_of(k: int, d: int, live=live) -> list[int]:
                return modulo_candidates_reference(live, k, d, run.seed)

        router = routers[int(run.sources[i])]
        out[i] = router.route(int(run.keys[i]), float(run.times[i]), live.size, candidates_of)
    return out
