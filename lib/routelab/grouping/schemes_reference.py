"""Readable reference implementations of the PKG-side grouping schemes.

Each function mirrors the paper's description message by message in plain Python (slow; used
by tests and for reading). :mod:`routelab.grouping.schemes_kernel` holds the numba twins with the
same signature and identical output. Signature (see :mod:`routelab.grouping`):

    route(keys, sources, n_workers, *, seed=0, times=None, capacities=None, events=(), **params)
    -> int32 worker id per message

Conventions shared with the kernels:

- the ``i``-th hash choice of key ``k`` is ``py_mix64(k, choice_seed(seed, i)) % n_workers``
  (so key grouping is choice 0 and PKG's two choices are choices 0 and 1; every choice of
  every run seed has its own, independent seed);
- "least loaded" ties go to the earliest candidate (the first hash choice, or the lowest
  worker id when candidates are all workers), as the Storm implementation of PKG does;
- routing uses only what the router knows: its own counts (local estimation) or the
  global counts sent so far (the global variants) -- never simulated queue state.
None of these schemes supports worker add/remove events; ``capacities`` are accepted and
ignored (only FISH uses them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from routelab.grouping.dchoices_rule import choose_d
from routelab.grouping.events import WorkerEvent
from routelab.grouping.inputs import RouteInputs, route_inputs
from routelab.grouping.spacesaving import SpaceSaving
from routelab.hashing import choice_seed, py_mix64
from routelab.readings import pick

ArrayLike = np.ndarray | Sequence[int]


def hash_choice(key: int, i: int, n_workers: int, seed: int) -> int:
    """The ``i``-th hash choice of ``key`` among ``n_workers`` (seed ``choice_seed(seed, i)``)."""
    return py_mix64(int(key), choice_seed(seed, i)) % n_workers


def least_loaded(candidates: Sequence[int], load: Sequence[int]) -> int:
    """Candidate with the smallest load; ties to the earliest candidate."""
    return min(candidates, key=lambda w: load[w])


def _inputs(name, keys, sources, n_workers, times, capacities, events) -> RouteInputs:
    return route_inputs(
        keys, sources, n_workers, times=times, capacities=capacities, events=events, scheme=name
    )


def check_d(d: int) -> None:
    """Validate a number of hash choices (a positive integer)."""
    if int(d) != d or d < 1:
        raise ValueError(f"number of choices d must be a positive integer, got {d!r}")


def kg_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
) -> np.ndarray:
    """Key grouping (PKG Sect. III, "single choice"): ``P(k) = H_1(k) mod W``."""
    inp = _inputs("kg", keys, sources, n_workers, times, capacities, events)
    out = [hash_choice(k, 0, inp.n_workers, seed) for k in inp.keys.tolist()]
    return np.array(out, dtype=np.int32)


def shuffle_offsets(n_sources: int, n_workers: int, seed: int) -> list[int]:
    """Round-robin start of each source: ``py_mix64(source, seed) % n_workers``."""
    return [py_mix64(s, seed) % n_workers for s in range(n_sources)]


def sg_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
) -> np.ndarray:
    """Shuffle grouping (PKG Sect. II-A): each source sends round robin over the workers.

    Each source keeps its own counter and starts at a seeded offset, so ``S`` sources do not
    all hit worker 0 first.
    """
    inp = _inputs("sg", keys, sources, n_workers, times, capacities, events)
    n = inp.n_workers
    next_worker = shuffle_offsets(inp.n_sources, n, seed)
    out = []
    for s in inp.sources.tolist():
        out.append(next_worker[s])
        next_worker[s] = (next_worker[s] + 1) % n
    return np.array(out, dtype=np.int32)


def potc_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    d: int = 2,
) -> np.ndarray:
    """Static PoTC (PKG Sect. III-A and V-B Q1): the first time a key is seen it is bound to
    the less loaded of its ``d`` hash choices (global load) and a routing table keeps it
    there -- power of two choices *without* key splitting."""
    inp = _inputs("potc", keys, sources, n_workers, times, capacities, events)
    check_d(d)
    load = [0] * inp.n_workers
    table: dict[int, int] = {}
    out = []
    for k in inp.keys.tolist():
        if k not in table:
            choices = [hash_choice(k, i, inp.n_workers, seed) for i in range(d)]
            table[k] = least_loaded(choices, load)
        w = table[k]
        load[w] += 1
        out.append(w)
    return np.array(out, dtype=np.int32)


def on_greedy_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
) -> np.ndarray:
    """On-Greedy (PKG Sect. V-B Q1): a new key goes to the currently least loaded worker
    (global load, ties to the lowest id) and stays there (routing table)."""
    inp = _inputs("on_greedy", keys, sources, n_workers, times, capacities, events)
    workers = range(inp.n_workers)
    load = [0] * inp.n_workers
    table: dict[int, int] = {}
    out = []
    for k in inp.keys.tolist():
        if k not in table:
            table[k] = least_loaded(workers, load)
        w = table[k]
        load[w] += 1
        out.append(w)
    return np.array(out, dtype=np.int32)


def off_greedy_table(keys: np.ndarray, n_workers: int) -> dict[int, int]:
    """Off-Greedy's routing table: keys by decreasing frequency (ties: smaller key first),
    each to the worker with the least total frequency assigned so far (ties: lowest id)."""
    freq = Counter(keys.tolist())
    order = sorted(freq, key=lambda k: (-freq[k], k))
    assigned = [0] * n_workers
    table = {}
    for k in order:
        w = least_loaded(range(n_workers), assigned)
        table[k] = w
        assigned[w] += freq[k]
    return table


def off_greedy_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
) -> np.ndarray:
    """Off-Greedy (PKG Sect. V-B Q1): knows the whole key distribution in advance, sorts
    the keys by decreasing frequency and runs On-Greedy on them (an unfair, offline
    baseline)."""
    inp = _inputs("off_greedy", keys, sources, n_workers, times, capacities, events)
    table = off_greedy_table(inp.keys, inp.n_workers)
    return np.array([table[k] for k in inp.keys.tolist()], dtype=np.int32)


def _message_times(inp: RouteInputs) -> list[float]:
    """Stream time of each message; without times, one message per time unit (PKG IV)."""
    if inp.times is None:
        return [float(i) for i in range(inp.keys.size)]
    return inp.times.tolist()


PROBE_RESETS = ("actual", "share")


def probe_reset_default() -> str:
    """The default ``probe_reset``: ``"actual"``, or ``"share"`` when the reading ``probe``
    is flipped for the run (``ROUTELAB_READING=probe``, :mod:`routelab.readings`)."""
    return pick("probe", "actual", "share")


def distinct_default() -> bool:
    """The default ``distinct`` of D-Choices: True (``d`` distinct workers), or False (``d``
    hash functions that may collide, as the public simulator) when the reading ``dchoices``
    is flipped for the run (``ROUTELAB_READING=dchoices``, :mod:`routelab.readings`)."""
    return pick("dchoices", True, False)


def probe_divisor(probe_reset: str | None, n_sources: int) -> int:
    """What a probe divides the true loads by: 1 for ``"actual"`` (the paper, Sect. V-B:
    "the local estimate vector is set to the actual load of the workers"), ``S`` for
    ``"share"`` (each source's estimate kept on the scale of its own counts, a variant);
    None: the run's default (:func:`probe_reset_default`)."""
    if probe_reset is None:
        probe_reset = probe_reset_default()
    if probe_reset == "actual":
        return 1
    if probe_reset == "share":
        return max(1, int(n_sources))
    raise ValueError(f"probe_reset must be one of {PROBE_RESETS}, got {probe_reset!r}")


def _pkg(
    inp: RouteInputs,
    seed: int,
    d: int,
    mode: str,
    probe_interval: float,
    probe_reset: str | None = "actual",
) -> np.ndarray:
    """Greedy-d with key splitting (PKG Sects. III-IV), with the load view of ``mode``:

    - ``"global"``: every decision sees the true load of all workers (G);
    - ``"local"``: source ``s`` sees only the counts of the messages it sent itself (L);
    - ``"probe"``: local, plus every ``probe_interval`` of stream time each source's
      estimate is reset from the true loads (LP): to the actual loads, as the paper says
      (``probe_reset="actual"``), or to ``true_load // S`` (``"share"``, a labelled
      variant; the public PKG simulator has no probing). A probe happens before message
      ``i`` when ``t_i > t_last_probe + probe_interval``.
    """
    check_d(d)
    divisor = probe_divisor(probe_reset, inp.n_sources if mode != "global" else 1)
    n = inp.n_workers
    n_views = 1 if mode == "global" else inp.n_sources
    estimate = [[0] * n for _ in range(n_views)]
    actual = [0] * n
    times = _message_times(inp) if mode == "probe" else None
    last_probe = times[0] if times else 0.0
    out = []
    for i, (k, s) in enumerate(zip(inp.keys.tolist(), inp.sources.tolist(), strict=True)):
        if times is not None and times[i] > last_probe + probe_interval:
            for view in estimate:
                view[:] = [load // divisor for load in actual]
            last_probe = times[i]
        view = estimate[0 if mode == "global" else s]
        choices = [hash_choice(k, j, n, seed) for j in range(d)]
        w = least_loaded(choices, view)
        view[w] += 1
        actual[w] += 1
        out.append(w)
    return np.array(out, dtype=np.int32)


def pkg_global_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    d: int = 2,
) -> np.ndarray:
    """PKG with global load information (G, PKG Sect. V-B Q2): each message goes to the
    least loaded of its key's ``d`` hash choices (key splitting, Sect. III-A)."""
    inp = _inputs("pkg_global", keys, sources, n_workers, times, capacities, events)
    return _pkg(inp, seed, d, "global", 0.0)


def pkg_local_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    d: int = 2,
) -> np.ndarray:
    """PKG with local load estimation (L, PKG Sect. III-B): each source balances the load
    it generates itself, using only its own counts per worker."""
    inp = _inputs("pkg_local", keys, sources, n_workers, times, capacities, events)
    return _pkg(inp, seed, d, "local", 0.0)


def pkg_probe_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    d: int = 2,
    probe_interval: float = 60.0,
    probe_reset: str | None = None,
) -> np.ndarray:
    """PKG with local estimation and periodic probing (LP, PKG Sect. V-B Q2): every
    ``probe_interval`` seconds of stream time the local estimates are set to the actual
    worker loads (``probe_reset="actual"``, the paper and the default) or to ``actual // S``
    (``"share"``, a variant); None takes the run's default (:func:`probe_reset_default`)."""
    inp = _inputs("pkg_probe", keys, sources, n_workers, times, capacities, events)
    if not probe_interval > 0:
        raise ValueError(f"probe_interval must be > 0, got {probe_interval!r}")
    return _pkg(inp, seed, d, "probe", float(probe_interval), probe_reset)


def hot_threshold(theta: float | None, n_workers: int) -> float:
    """D-C/W-C hot-key threshold: ``theta`` or the default ``1 / (5 n)`` (their simulator's)."""
    value = 1.0 / (5.0 * n_workers) if theta is None else float(theta)
    if not 0.0 < value < 1.0:
        raise ValueError(f"theta must be in (0, 1), got {value!r}")
    return value


def check_hot_params(capacity: int, epsilon: float, d_refresh: int) -> None:
    """Validate the SpaceSaving capacity, the d-rule slack and the d refresh period."""
    if int(capacity) != capacity or capacity < 1:
        raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
    if not epsilon >= 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
    if int(d_refresh) != d_refresh or d_refresh < 1:
        raise ValueError(f"d_refresh must be a positive integer, got {d_refresh!r}")


def distinct_choices(key: int, d: int, n_workers: int, seed: int) -> list[int]:
    """``d`` distinct workers for a hot key: hash choice ``j`` for ``j = 0..d-1``, moved to
    the next worker id (mod ``n``) while it repeats an earlier one (so the key gets the ``d``
    workers the d-rule asked for; ``d`` hash functions alone can collide)."""
    out: list[int] = []
    for j in range(min(d, n_workers)):
        c = hash_choice(key, j, n_workers, seed)
        while c in out:
            c = (c + 1) % n_workers
        out.append(c)
    return out


def _hot_keys(
    inp: RouteInputs,
    seed: int,
    all_workers: bool,
    capacity: int,
    theta: float | None,
    epsilon: float,
    d_refresh: int,
    distinct: bool | None = True,
) -> np.ndarray:
    """D-Choices / W-Choices (Nasir et al., ICDE'16; FISH Sect. 2.2), per source:

    1. offer the key to the source's SpaceSaving summary and count the message;
    2. the key is hot if its estimated count exceeds ``theta * m`` (``m``: messages this
       source has seen);
    3. a hot key goes to the least loaded of all workers (W-C) or of its first ``d`` hash
       choices (D-C; ``d >= n`` means all workers); any other key to the less loaded of
       its two choices (PKG);
    4. loads are the source's local counts.

    D-C's ``d`` comes from :func:`choose_d` on the summary's head (``p_1``, ``p_H``,
    ``|H|``). The public simulator recomputes it at every hot message (``d_refresh=1``).
    We recompute it at the first hot message after the source's message count ``m`` has
    grown by ``min(d_refresh, m_last)`` since the last computation at ``m_last`` (roughly
    at ``m = 1, 2, 4, 8, ...`` while the estimates are young, then every ``d_refresh``
    messages). With the default 1000 the imbalance and memory agree with ``d_refresh=1``
    to about three digits while the kernel runs 1.5 to 4 times faster (measured on Zipf
    1.1, tweet words and time-evolving Zipf 1.4 with 20 and 100 workers, 5 sources).

    Note that once a summary is full its counts sum to ``m``, and on heavy-tailed streams
    its smallest count approaches ``m / capacity``; with ``theta = 1/(5n) < 1/capacity``
    (``n > 20`` at capacity 100) nearly every monitored key, even a tail key that just
    took over a counter, then counts as hot (measured: all 100 counters above
    ``theta m`` for Zipf 1.1 over 100k keys and ``n = 50``). That is the behaviour of the
    public simulator, and the over-detection FISH Sect. 2.3 reports for D-C and W-C.

    The hot test uses SpaceSaving's estimate (an upper bound of the true count); the public
    simulator adds the counter's error to it once more (``count + error``), which we do not.

    So routelab's D-C is a *stronger* baseline than the public simulator's in three ways:
    fewer keys pass the hot test (no second error term), ``d >= 2`` (:mod:`.dchoices_rule`)
    and a hot key's ``d`` choices are ``d`` distinct workers (``distinct=True``). Claims
    that compare FISH with D-C say so in their notes.
    """
    n = inp.n_workers
    threshold = hot_threshold(theta, n)
    check_hot_params(capacity, epsilon, d_refresh)
    distinct = distinct_default() if distinct is None else distinct
    summaries = [SpaceSaving(capacity) for _ in range(inp.n_sources)]
    local = [[0] * n for _ in range(inp.n_sources)]
    cached_d = [0] * inp.n_sources
    computed_at = [0] * inp.n_sources
    out = []
    for k, s in zip(inp.keys.tolist(), inp.sources.tolist(), strict=True):
        summary = summaries[s]
        estimate = summary.offer(k)
        m = summary.total
        if estimate > threshold * m:
            if all_workers:
                candidates = range(n)
            else:
                if cached_d[s] == 0 or m - computed_at[s] >= min(d_refresh, computed_at[s]):
                    head_total, n_head = summary.head(threshold * m)
                    p1 = summary.max_count() / m
                    cached_d[s] = choose_d(p1, head_total / m, n_head, n, epsilon, 2)
                    computed_at[s] = m
                d = cached_d[s]
                if d >= n:
                    candidates = range(n)
                elif distinct:
                    candidates = distinct_choices(k, d, n, seed)
                else:
                    candidates = [hash_choice(k, j, n, seed) for j in range(d)]
        else:
            candidates = [hash_choice(k, j, n, seed) for j in range(2)]
        w = least_loaded(candidates, local[s])
        local[s][w] += 1
        out.append(w)
    return np.array(out, dtype=np.int32)


def dchoices_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    capacity: int = 100,
    theta: float | None = None,
    epsilon: float = 1e-3,
    d_refresh: int = 1000,
    distinct: bool | None = None,
) -> np.ndarray:
    """D-Choices (FISH Sect. 2.2 baseline; Nasir et al. ICDE'16): hot keys get ``d``
    choices from the d-rule, others two. Parameters: SpaceSaving ``capacity``, hot
    threshold ``theta`` (default ``1/(5n)``), d-rule slack ``epsilon``, ``d_refresh``
    (messages of a source between two evaluations of the d-rule; see :func:`_hot_keys`),
    ``distinct``: a hot key's ``d`` choices are ``d`` distinct workers
    (:func:`distinct_choices`, the default; None: :func:`distinct_default`) or ``d`` hash
    functions that may collide (the
    public simulator's reading; a collision gives the key fewer workers than asked)."""
    inp = _inputs("dchoices", keys, sources, n_workers, times, capacities, events)
    return _hot_keys(inp, seed, False, capacity, theta, epsilon, d_refresh, distinct)


def wchoices_reference(
    keys: ArrayLike,
    sources: ArrayLike | None,
    n_workers: int,
    *,
    seed: int = 0,
    times: np.ndarray | None = None,
    capacities: np.ndarray | None = None,
    events: Sequence[WorkerEvent] = (),
    capacity: int = 100,
    theta: float | None = None,
) -> np.ndarray:
    """W-Choices (FISH Sect. 2.2 baseline; Nasir et al. ICDE'16): hot keys may go to any
    worker, others to two choices. Parameters: SpaceSaving ``capacity``, ``theta``."""
    inp = _inputs("wchoices", keys, sources, n_workers, times, capacities, events)
    return _hot_keys(inp, seed, True, capacity, theta, 0.0, 1)
