"""FISH parameters (every formula the paper text lost, as a documented knob) and run inputs.

FISH (Zhang et al., "Efficient Time-Evolving Stream Processing at Scale") routes a key stream with
three parts: epoch-based recent hot-key identification (Sect. 4.1.1), hot-key classification CHK
(Sect. 4.1.2, Algorithm 2) and heuristic worker assignment (Sect. 4.2), placed on a
consistent-hash ring (Sect. 5). The extracted text lost every formula, symbol value and
default. Each is reconstructed below from the prose: the sentences it comes from, our
formula, and why. Defaults are *provisional*; the parameter study of Sect. 6.3 (RQ2,
Figs. 12-13), re-run in ``08_fish.ipynb``, chooses the final ones.

Notation: ``n`` live workers, ``S`` sources, ``E`` epoch size, ``K`` top-K capacity,
``c_k`` the decayed counter of key ``k``, ``N`` the decayed number of tuples the source has
seen (decayed like the counters, so ``N = sum_k c_k``), ``f_k = c_k / N``.

**Epoch size** ``epoch_size`` (E, default 1000). Sect. 4.1.1: "Epoch is a collection of
sequential tuples"; "we conduct our experiments with the empirical epoch size of [lost] by
default ... can reduce the computational complexity of decaying updates by three orders of
magnitude". Decaying once per epoch instead of once per tuple divides the decay work by E,
so three orders of magnitude means E = 10^3 tuples. Epochs count the tuples *of one source*
(each source is its own router).

**Top-K capacity** ``capacity`` (K, default 1000). Sect. 4.1.1, intra-epoch counting: only
"the most frequent keys" are stored, in a set of bounded "maximum capacity"; Sect. 2.3
fixes "the maximum set of keys" after trying top-100 and top-1000. We keep 1000: a
SpaceSaving-style summary of K counters holds every key of frequency above 1/K, and the
hot threshold below reaches 1/(5n) = 1/640 at n = 128 workers, which K = 100 cannot see.

**Replace-min-plus-one** (no knob). Sect. 4.1.1: when the set is full a new key replaces
"the least counted key" and gets "that of replaced ones plus 1 rather than 1". Ties among
least counters go to the least recently updated one (the Stream-Summary order, the same rule
as :mod:`routelab.grouping.spacesaving`).

**Decay factor** ``decay`` (alpha, default 0.6, chosen by the study below). Sect. 4.1.1: "after tuple statistics in each
epoch is completed, we multiply the counters of all the stored keys by [lost]"; Sect. 6.3:
alpha = 1 "is the special case that does not consider the time-evolving feature" and
alpha = 0 means "all previous data for each update will be abandoned". So at the end of each
epoch ``c_k <- alpha * c_k`` (and ``N <- alpha * N``), alpha in [0, 1]. A tuple seen ``j``
epochs ago weighs ``alpha^j``: the effective memory is about ``E / (1 - alpha)`` tuples.

**Counting ablation** ``counting`` ("epoch" | "lifetime", Fig. 14). "lifetime" counts over
the whole stream like D-C / W-C (no decay: alpha treated as 1); hot keys are still
re-classified at every epoch end.

**Hot threshold** ``hot_threshold`` (theta * n, default 0.5, i.e. theta = 1/(2n)). Sect. 6.3:
the threshold is studied as a fraction of ``1/n`` "from [lost] down to [lost]", following
D-C's analysis [15] that theta must lie below ``1/n``; the paper's final value is lost. We
started from theta = 1/(5n), the D-C / W-C default of their public simulator; the parameter
study chose 1/(2n) (see "Defaults chosen by the parameter study" below). A key is hot when
``f_k > theta``.

**Classification time** (no knob). Sect. 4.1 ends "based on the frequency results, these
keys are finally classified"; decaying is epoch-level "for reducing superfluous
computation". We classify at the end of every epoch (before decaying, so alpha = 0 still
sees the epoch just counted) and route the next epoch with that table. The first epoch has
no hot keys.

**Minimum workers per hot key** ``min_workers`` (default 2) and the d_min formula.
Sect. 4.1.2: "if the value of d obtained is less than the minimum value of d_min, we
directly assign d_min to d. The d_min is related to the sum of the frequency of all hot
keys." Our reading follows the first condition of D-C's rule [15] (hot keys' choices must
reach enough workers to absorb the hot load): ``|H|`` hot keys with ``d`` random workers
each reach a fraction ``1 - (1 - 1/n)^(|H| d)`` of the workers; we ask it to be at least
their load share ``p_H = sum_{k in H} f_k``:

    d_min = clamp(max(min_workers, ceil(ln(1 - p_H) / (|H| ln(1 - 1/n)))), 1, n)

(``d_min = n`` when ``p_H >= 1``). ``min_workers = 2`` keeps a hot key from getting fewer
workers than a non-hot key (two choices).

**Workers per hot key** ``workers_formula`` ("relative" | "share", default "relative").
Sect. 4.1.2: "the higher the frequency is, the more workers assigned ... through the formula
from line 1 to 4 in Algorithm 2"; Table I lists "the highest frequency" f_max among the
symbols. "relative" (our default, the one that uses f_max): ``d_k = ceil(n f_k / f_max)`` --
the hottest key may use every worker, others in proportion. "share":
``d_k = ceil(n f_k)`` -- just enough workers that each gets no more than the average
``1/n`` of the load from this key. Then ``d_k = min(n, max(d_k, d_min, M_k))``.

**Never shrinking while hot** (no knob). Sect. 4.1.2: "M_k saves the number of workers
previously assigned to key k. If d is greater than M_k, M_k is updated to d ... Otherwise,
we assign M_k workers". ``M_k`` lives while ``k`` stays hot and is forgotten when ``k``
drops out of the hot set.

**Hot-key policy ablation** ``hot_policy`` ("chk" | "wc" | "dc", Fig. 15): "chk" as above;
"wc": a hot key may use every worker (W-Choices); "dc": every hot key gets the same ``d``
from the D-Choices rule (:func:`routelab.grouping.dchoices_rule.choose_d`).

**Non-hot keys** ``cold_choices`` (default 2). The text only says how hot keys are placed
(Sect. 4.2: "assign the identified hot keys to d or n workers"); FISH improves on D-C, whose
"other keys continue using PKG" (Sect. 2.2). A non-hot key gets its first 2 ring workers.

**Placement** ``placement`` ("ring" | "mod") and ``vnodes`` (default 100). Sect. 5: workers
and keys are hashed onto one ring, a key goes clockwise to the nearest worker, each worker has
several virtual nodes. The ``d`` workers of a key are the first ``d`` *distinct* workers
clockwise from the key (so the workers of ``d`` are a prefix of those of ``d + 1``, and
adding or removing a worker changes few of them). "mod" is the "without CH" baseline of
Fig. 17: workers ``live[(h(k) + i) mod n]``, ``i < d``, which remaps almost every key when
``n`` changes. 100 virtual nodes per worker keep the ring's load spread within about 10%.

**Unprocessed tuples** ``interval`` (T seconds, default 10). Sect. 4.2.1: "we estimate that
the number of unprocessed tuples of workers is as follow: [lost] where [A_w] is the number
of assigned tuples from sources. [C_w] is the processing capacity of the worker and [T] is
the fixed time interval (10s)"; Table I has "prior and current timestamp". Our reading: a
source refreshes its estimate every T seconds; between refreshes at ``t'`` it counts the
tuples ``A_w`` it sent to ``w`` and estimates

    U_w(t) = max(0, R_w + A_w - C_w (t - t'))

where ``R_w`` is the estimate carried from the last refresh (``R_w <- U_w(t')``, ``A_w <- 0``
at each refresh; the first tuple of a source is a refresh). ``interval = 0`` refreshes at
every tuple: an exact fluid queue. Only information the source has is used -- its own
counts, the capacities (which the paper samples periodically), and the clock. With ``S``
sources, a source assumes it gets ``C_w / S`` of each worker's capacity.

**Waiting time** (no knob). Sect. 4.2.2 and the example of Sect. 4.2.3 (waits 50, 40, 100,
60 for PC 2, 2, 1, 1): ``W_w = U_w / C_w``; the source picks the candidate with the
shortest ``W_w``. We compute it in time units, which is the same model:
``B_w = t' + (R_w + A_w) / C_w`` is when ``w`` would finish what the source sent, so
``W_w(t) = max(0, B_w - t)``; sending a tuple adds ``1 / C_w`` to ``B_w``, a refresh sets
``B_w <- max(B_w, t)``. (No division per candidate, and the kernel can apply refreshes
lazily: ``max`` is exact, so both implementations agree bit for bit.) Ties (e.g. every
candidate idle) go to the smaller capacity-normalized load ``sum 1 / C_w`` of tuples this
source ever sent to ``w``, then to the earlier candidate.

**Assignment ablation** ``assignment`` ("heuristic" | "load_count", Fig. 16). "load_count"
is "the traditional worker assignment in previous studies [14, 15] which assigns the keys
according to the amount of worker's load": the candidate with the fewest tuples this source
sent, ties to the earlier candidate.

**Times and capacities.** Without ``times``, message ``i`` arrives at ``i / sum(C)`` seconds
(arrivals at the total capacity of the initial workers); without ``capacities`` every worker
processes 1 tuple/s. :func:`routelab.grouping.simulator.simulate` always passes the clock and
the capacities of its worker queues (arrival times; ``1 / seconds per tuple``), so the
estimate runs on the clock of the queues it tries to keep short. A worker that (re)joins at
time ``t`` starts idle at ``t`` (``B_w = t``): it is not credited with capacity from before
it existed.

**Defaults chosen by the parameter study** (FISH Sect. 6.3, RQ2; ``08_fish.ipynb``, default
profile). Execution time = the time to process a stream replayed at the workers' total
capacity, relative to SG; memory = (key, worker) pairs per key (see
:mod:`routelab.grouping.lab.fish.experiments`). Cases: time-evolving Zipf z = 0.8, 1.0, 1.2, 1.4
(500k tuples, 100k keys), MovieLens movies, tweet words and the first 1M flight origins,
each with 16 and 128 workers, 5 sources. Rule
(:func:`~routelab.grouping.lab.fish.experiments.choose_setting`): among the settings within
0.5% of the best execution time in every case, the least mean memory.

- alpha in {0, .2, .4, .5, .6, .8, 1} (theta n = 0.5): alpha in [0.4, 0.6] stay within
  0.03% of the best everywhere and 0.6 needs the least memory of them; 0 and 0.2 lag by
  0.24% and cost memory (alpha = 0: up to 1.19x on the real streams); 0.8 falls 1.1% and
  1.0 (lifetime counting, no decay) 28% behind on skewed ZF. Chosen: **0.6** (the
  provisional value was 0.5).
- theta n in {1, .5, .2, .1, .05} (alpha = 0.6): only theta n = 1 loses balance (6.1%
  slower on the flights with 16 workers, where the top airport, 5.5% of the flights, then
  stays on two workers); smaller thresholds cost memory as workers grow (0.05: 2.3x at 128
  workers). Chosen: **0.5**, i.e. theta = 1/(2n) (the provisional value was 1/(5n)).

:func:`prepare_fish_run` validates one call of the routing interface and precomputes what
the readable reference and the numba kernel share (:class:`FishRun`): the filled-in times,
each source's capacity share, and the worker segments between add/remove events with their
hash rings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numba
import numpy as np

from routelab.checks import check_choice, check_int
from routelab.grouping.consistent_hash import HashRing, build_ring
from routelab.grouping.events import WorkerEvent
from routelab.grouping.inputs import route_inputs
from routelab.readings import pick

WORKERS_FORMULAS = ("relative", "share")
COUNTINGS = ("epoch", "lifetime")
HOT_POLICIES = ("chk", "wc", "dc")
ASSIGNMENTS = ("heuristic", "load_count")
PLACEMENTS = ("ring", "mod")


@dataclass(frozen=True)
class FishParams:
    """FISH knobs (see the module docstring for the paper sentences behind each one).

    A whole run can flip a reading's default (``ROUTELAB_READING=<key>``,
    :mod:`routelab.readings`): ``epoch`` (E = 200, i.e. 1000 tuples of the stream over five
    sources), ``topk`` (K = 100), ``decay`` (lifetime counting and alpha = 1), ``hotkey``
    (theta n = 0.2, D-C's 1/(5n)), ``dmin`` (no floor of two workers), ``dk`` (``"share"``),
    ``cold`` (one choice, key grouping), ``ring`` (``"mod"``), ``unprocessed``
    (``interval=0``, an exact queue) and ``waittime`` (``"load_count"``); an explicit argument
    always wins."""

    epoch_size: int = field(default_factory=lambda: pick("epoch", 1000, 200))
    decay: float = field(default_factory=lambda: pick("decay", 0.6, 1.0))
    capacity: int = field(default_factory=lambda: pick("topk", 1000, 100))
    hot_threshold: float = field(default_factory=lambda: pick("hotkey", 0.5, 0.2))
    min_workers: int = field(default_factory=lambda: pick("dmin", 2, 1))
    workers_formula: str = field(default_factory=lambda: pick("dk", "relative", "share"))
    cold_choices: int = field(default_factory=lambda: pick("cold", 2, 1))
    interval: float = field(default_factory=lambda: pick("unprocessed", 10.0, 0.0))
    vnodes: int = 100
    counting: str = field(default_factory=lambda: pick("decay", "epoch", "lifetime"))
    hot_policy: str = "chk"
    assignment: str = field(default_factory=lambda: pick("waittime", "heuristic", "load_count"))
    placement: str = field(default_factory=lambda: pick("ring", "ring", "mod"))

    def __post_init__(self) -> None:
        check_int("FISH epoch_size", self.epoch_size, 1)
        check_int("FISH capacity", self.capacity, 1)
        check_int("FISH min_workers", self.min_workers, 1)
        check_int("FISH cold_choices", self.cold_choices, 1)
        check_int("FISH vnodes", self.vnodes, 1)
        if self.vnodes >= 2**32:
            raise ValueError(f"FISH vnodes must be < 2**32, got {self.vnodes}")
        if not (isinstance(self.decay, int | float) and 0.0 <= self.decay <= 1.0):
            raise ValueError(f"FISH decay must be a number in [0, 1], got {self.decay!r}")
        if not (isinstance(self.hot_threshold, int | float) and self.hot_threshold > 0):
            raise ValueError(
                f"FISH hot_threshold (theta * n) must be > 0, got {self.hot_threshold!r}"
            )
        if not (
            isinstance(self.interval, int | float)
            and math.isfinite(self.interval)
            and self.interval >= 0
        ):
            raise ValueError(f"FISH interval must be a finite number >= 0, got {self.interval!r}")
        check_choice("FISH workers_formula", self.workers_formula, WORKERS_FORMULAS)
        check_choice("FISH counting", self.counting, COUNTINGS)
        check_choice("FISH hot_policy", self.hot_policy, HOT_POLICIES)
        check_choice("FISH assignment", self.assignment, ASSIGNMENTS)
        check_choice("FISH placement", self.placement, PLACEMENTS)

    @classmethod
    def from_params(cls, **params: Any) -> FishParams:
        """Build from keyword parameters; unknown names raise ``ValueError`` listing valid ones."""
        valid = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - valid)
        if unknown:
            raise ValueError(
                f"unknown FISH parameter(s) {', '.join(unknown)}; valid: {', '.join(sorted(valid))}"
            )
        return cls(**params)

    def as_dict(self) -> dict[str, Any]:
        """The parameters as a plain dict (the registry's defaults)."""
        return asdict(self)

    @property
    def effective_decay(self) -> float:
        """The decay actually applied at epoch ends (1.0 under lifetime counting)."""
        return 1.0 if self.counting == "lifetime" else float(self.decay)

    def theta(self, n_workers: int) -> float:
        """The hot threshold theta = hot_threshold / n (a frequency)."""
        return self.hot_threshold / n_workers


# The two CHK formulas are numba functions so the readable reference and the kernel evaluate
# the identical floating-point expressions (a Python twin could round differently at a
# boundary of ``ceil``).


@numba.njit(cache=True)
def hot_min_workers(p_head: float, n_head: int, n_workers: int, min_workers: int) -> int:
    """d_min of CHK (Sect. 4.1.2): the fewest workers per hot key so that ``n_head`` hot keys
    reach a fraction of workers at least their load share ``p_head``; at least
    ``min_workers``, at most ``n_workers`` (formula in the module docstring)."""
    n = n_workers
    if n <= 1:
        return 1
    if p_head >= 1.0:
        d = n
    else:
        d = int(math.ceil(math.log1p(-p_head) / (n_head * math.log1p(-1.0 / n))))
    if d < min_workers:
        d = min_workers
    if d > n:
        d = n
    if d < 1:
        d = 1
    return d


@numba.njit(cache=True)
def hot_key_workers(freq: float, max_freq: float, n_workers: int, relative: bool) -> int:
    """Arithmetic worker count of one hot key (Algorithm 2, lines 1-4, our reading):
    ``ceil(n f / f_max)`` if ``relative`` else ``ceil(n f)``, clamped to ``[1, n]``."""
    x = n_workers * freq / max_freq if relative else n_workers * freq
    d = int(math.ceil(x))
    if d > n_workers:
        d = n_workers
    if d < 1:
        d = 1
    return d


# ----------------------------------------------------------------------------- run inputs


@dataclass(frozen=True)
class FishRun:
    """Validated inputs of one FISH routing call, shared by reference and kernel.

    ``times`` are filled in (see the module docstring) and ``capacity_share[w]`` is the
    capacity of worker ``w`` one source counts on (``C_w / n_sources``) over every worker id
    that ever exists. Segment ``g`` covers messages ``seg_starts[g] <= i < seg_starts[g+1]``
    (events at one index form one boundary); ``seg_workers[g]`` are its live workers (sorted)
    and ``rings[g]`` its hash ring.
    """

    keys: np.ndarray
    sources: np.ndarray
    n_sources: int
    n_ids: int
    times: np.ndarray
    capacity_share: np.ndarray
    seg_starts: np.ndarray
    seg_workers: tuple[np.ndarray, ...]
    rings: tuple[HashRing, ...]
    params: FishParams
    seed: int


def prepare_fish_run(
    keys: np.ndarray,
    sources: np.ndarray | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    **params: Any,
) -> FishRun:
    """Validate a FISH call (the interface of :mod:`routelab.grouping`) and precompute segments."""
    p = FishParams.from_params(**params)
    inp = route_inputs(
        keys,
        sources,
        n_workers,
        times=times,
        capacities=capacities,
        events=events,
        scheme="fish",
        supports_events=True,
    )
    n_ids = max([inp.n_workers] + [ev.worker + 1 for ev in inp.events])
    caps = np.ones(n_ids) if inp.capacities is None else inp.capacities[:n_ids].copy()
    m = inp.keys.size
    if inp.times is None:
        t = np.arange(m, dtype=np.float64) / float(caps[: inp.n_workers].sum())
    else:
        t = inp.times
    starts = [0]
    live = set(range(inp.n_workers))
    seg_workers: list[np.ndarray] = []
    for ev in inp.events:  # sorted by ``at``
        if ev.at != starts[-1]:
            seg_workers.append(np.array(sorted(live), dtype=np.int32))
            starts.append(ev.at)
        if ev.kind == "add":
            live.add(ev.worker)
        else:
            live.discard(ev.worker)
    seg_workers.append(np.array(sorted(live), dtype=np.int32))
    rings = tuple(build_ring(w, p.vnodes, seed) for w in seg_workers)
    return FishRun(
        keys=inp.keys,
        sources=inp.sources,
        n_sources=inp.n_sources,
        n_ids=n_ids,
        times=t,
        capacity_share=caps / inp.n_sources,
        seg_starts=np.array(starts, dtype=np.int64),
        seg_workers=tuple(seg_workers),
        rings=rings,
        params=p,
        seed=int(seed),
    )
