"""Five routers on the common stream, the same N workers, measured alike.

Every router is a (system, method) pair of :data:`ROUTERS`; :func:`route` runs one at N
workers and returns a :class:`Routing`: the messages each worker received (in total and
per window of the stream), the copies each tuple became, and the state each worker holds.
From these, every system gets the same columns (:meth:`Routing.row`):

* ``imbalance``: max / mean of the messages per worker (1 = perfect balance);
* ``replication``: copies per tuple (S3-TM's multicast spread, key grouping's workers per
  key, PS2Stream's object copies, Fabret's partitions an event is sent to);
* ``throughput_x``: tuples / messages at the busiest worker, i.e. how many times one
  worker's rate the system sustains if a message costs the same everywhere (N at best);
* ``state_max``: the largest per-worker state, in the system's own unit (``state_unit``);
* ``busiest_s``: the busiest worker's measured seconds, where the system really runs
  (PS2Stream's GI2 replay, Fabret's matchers), else NaN.

The learned configurations (S3-TM's word mapping, PS2Stream's partition, Fabret's access
routing) are learned on the stream's first ``train_windows`` windows and measured on the
whole stream; key grouping learns online. A tuple is a post, except for key grouping,
whose tuples are (post, key) messages: a post sends its author and each hashtag.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from routelab.compare.interests import (
    Interests,
    post_events,
    post_topics,
    predicate_subscriptions,
    s3tm_subscriptions,
    spatial_queries,
)
from routelab.compare.stream import key_stream
from routelab.uniques import unique

#: system -> its routers (registry names of each system's methods)
ROUTERS: dict[str, tuple[str, ...]] = {
    "S3-TM": ("hash", "SALB"),
    "key grouping": ("kg", "pkg_global", "dchoices", "wchoices", "fish"),
    "PS2Stream": ("grid", "kd-tree", "frequency", "metric", "hybrid"),
    "Fabret": ("counting", "propagation", "static"),
}
SYSTEMS = tuple(ROUTERS)


@dataclass
class Routing:
    """One router at N workers on the stream (module docstring)."""

    system: str
    router: str
    n_workers: int
    tuples: int
    window_loads: np.ndarray  # (windows, workers) messages
    copies: np.ndarray  # copies per tuple
    state: np.ndarray  # per worker, in state_unit
    state_unit: str
    busiest_s: float = float("nan")
    learn_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    tuple_window: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def loads(self) -> np.ndarray:
        return self.window_loads.sum(axis=0)

    def window_replication(self, tuple_window: np.ndarray) -> np.ndarray:
        """Copies per tuple, window by window (``tuple_window``: each tuple's window)."""
        windows = self.window_loads.shape[0]
        n = np.bincount(tuple_window, minlength=windows)
        c = np.bincount(tuple_window, weights=self.copies, minlength=windows)
        return np.where(n > 0, c / np.maximum(n, 1), np.nan)

    def window_imbalance(self) -> np.ndarray:
        """max / mean of the messages per worker, window by window."""
        w = self.window_loads.astype(np.float64)
        mean = w.mean(axis=1)
        return np.where(mean > 0, w.max(axis=1) / np.where(mean > 0, mean, 1), np.nan)

    def window_excess(self) -> np.ndarray:
        """max - mean of the messages per worker, window by window (PKG's imbalance I(t),
        Nasir et al. Sect. II: the busiest worker's load above the average)."""
        w = self.window_loads.astype(np.float64)
        return w.max(axis=1) - w.mean(axis=1)

    def row(self) -> dict[str, Any]:
        loads = self.loads.astype(np.float64)
        return {
            "system": self.system, "router": self.router, "n_workers": self.n_workers,
            "tuples": self.tuples,
            "imbalance": float(loads.max() / loads.mean()) if loads.mean() > 0 else float("nan"),
            "replication": float(self.copies.mean()) if len(self.copies) else float("nan"),
            "throughput_x": float(self.tuples / loads.max()) if loads.max() > 0 else float("nan"),
            "state_max": float(self.state.max(initial=0)), "state_unit": self.state_unit,
            "busiest_s": self.busiest_s, "learn_s": self.learn_s,
            "window_imbalance": self.window_imbalance().tolist(),
            "window_excess": self.window_excess().tolist(),
            "window_replication": self.window_replication(self.tuple_window).tolist(), **self.extra,
        }  # fmt: skip


def _window_loads(window: np.ndarray, worker: np.ndarray, windows: int, n: int) -> np.ndarray:
    out = np.zeros((windows, n), dtype=np.int64)
    np.add.at(out, (window, worker), 1)
    return out


def route(
    system: str,
    router: str,
    n_workers: int,
    stream: pd.DataFrame,
    interests: Interests,
    *,
    train_windows: int = 3,
    seed: int = 0,
) -> Routing:
    """Run ``router`` of ``system`` at ``n_workers`` (module docstring)."""
    if system not in ROUTERS or router not in ROUTERS[system]:
        raise ValueError(f"unknown router {system}/{router}; choose from {ROUTERS}")
    if n_workers < 1:
        raise ValueError(f"n_workers must be >= 1, got {n_workers}")
    fn = {"S3-TM": _s3tm, "key grouping": _grouping, "PS2Stream": _spatial, "Fabret": _fabret}[
        system
    ]
    return fn(router, n_workers, stream, interests, train_windows, seed)


# --------------------------------------------------------------------------- S3-TM
def _s3tm_parts(
    router: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int, seed: int
):  # type: ignore[no-untyped-def]
    from routelab.s3tm import learn_mapping
    from routelab.s3tm.matching_load import subscription_corpus
    from routelab.s3tm.wordsets import Corpus

    corpus = Corpus.from_frame(stream[["post_id", "words"]])
    subs_df = s3tm_subscriptions(interests)
    subs = subscription_corpus(subs_df, vocab=corpus.vocab)
    ws = frozenset(w for words in subs_df["words"] for w in words)
    train = corpus.subset(stream["window"].to_numpy() < train_windows).restrict(
        corpus.word_mask(ws)
    )
    t0 = time.perf_counter()
    mapping = learn_mapping(train, n, router, seed=seed)
    return corpus, subs, ws, mapping, time.perf_counter() - t0


def _s3tm(
    router: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int, seed: int
) -> Routing:
    from routelab.s3tm.placement import place_subscriptions

    corpus, subs, ws, mapping, learn_s = _s3tm_parts(
        router, n, stream, interests, train_windows, seed
    )
    targets = mapping.route(corpus, subscribed=ws)
    copies = targets.sizes()
    post = np.repeat(np.arange(len(copies)), copies)
    windows = int(stream["window"].max()) + 1
    loads = _window_loads(stream["window"].to_numpy()[post], targets.indices, windows, n)
    placement = place_subscriptions(subs, mapping, "LASP", seed=seed)
    return Routing("S3-TM", router, n, len(stream), loads, copies, placement.subs_per_matcher(),
                   "subscriptions", learn_s=learn_s,
                   tuple_window=stream["window"].to_numpy())  # fmt: skip


def s3tm_pairs(
    router: str,
    n: int,
    stream: pd.DataFrame,
    interests: Interests,
    train_windows: int = 3,
    seed: int = 0,
) -> set[tuple[int, int]]:
    """S3-TM's answer through its routers: each post routed by the learned mapping to the
    matchers of its subscribed words, matched there against the LASP-placed subscriptions'
    tries; (sub_id, post_id) pairs, duplicates of multicast subscriptions merged."""
    from routelab.s3tm.matching_load import route_subscribed
    from routelab.s3tm.placement import place_subscriptions
    from routelab.s3tm.trie_kernel import queries_from_targets

    corpus, subs, _, mapping, _ = _s3tm_parts(router, n, stream, interests, train_windows, seed)
    placement = place_subscriptions(subs, mapping, "LASP", seed=seed)
    rows, tries = queries_from_targets(route_subscribed(mapping, corpus, subs))
    res = placement.forest(subs).match(corpus, rows, tries, collect=True)
    post_ids = corpus.post_ids[np.repeat(rows, np.diff(res.ptr))]
    return set(zip(res.subs.tolist(), post_ids.tolist(), strict=True))


# --------------------------------------------------------------------------- key grouping
def _grouping(
    scheme: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int, seed: int
) -> Routing:
    from routelab.grouping.simulator import simulate

    keys, row, secs = key_stream(stream)
    t0 = time.perf_counter()
    r = simulate(keys, scheme, n, 1, seed, times=secs)
    route_s = time.perf_counter() - t0
    windows = int(stream["window"].max()) + 1
    loads = _window_loads(stream["window"].to_numpy()[row], r.assignment, windows, n)
    pairs = unique(r.assignment.astype(np.int64) * (int(keys.max()) + 1) + keys)
    state = np.bincount(pairs // (int(keys.max()) + 1), minlength=n)
    per_key = np.bincount(pairs % (int(keys.max()) + 1))
    return Routing("key grouping", scheme, n, len(keys), loads, per_key[keys], state,
                   "keys (distinct per worker)",
                   extra={"route_s": route_s, "workers_per_key": int(per_key.max(initial=0))},
                   tuple_window=stream["window"].to_numpy()[row])  # fmt: skip


# --------------------------------------------------------------------------- PS2Stream
def _spatial_setup(
    stream: pd.DataFrame, interests: Interests, train_windows: int, seed: int, region: bool, g: int
):  # type: ignore[no-untyped-def]
    from routelab.spatial.engine import grid_for, prepare
    from routelab.spatial.model import INS, OBJ, Stream, Vocabulary, make_objects, make_queries

    vocab = Vocabulary()
    objs = make_objects(stream["post_id"].to_numpy(dtype=np.int64), stream["lon"].to_numpy(),
                        stream["lat"].to_numpy(), list(stream["words"]), vocab)  # fmt: skip
    q = spatial_queries(interests, region)
    qs = make_queries(q["id"].to_numpy(dtype=np.int64), np.array(list(q["rect"]), dtype=np.float64),
                      list(q["dnf"]), vocab)  # fmt: skip
    kind = np.r_[np.full(len(qs), INS), np.full(len(objs), OBJ)].astype(np.int8)
    ref = np.r_[np.arange(len(qs)), np.arange(len(objs))].astype(np.int64)
    st = Stream(objs, qs, kind, ref, vocab, {"kind": "common stream"})
    sample = np.flatnonzero(stream["window"].to_numpy() < train_windows)
    return prepare(st, grid_for(st, g), sample, np.arange(len(qs)), seed=seed)


def _spatial(
    algorithm: str,
    n: int,
    stream: pd.DataFrame,
    interests: Interests,
    train_windows: int,
    seed: int,
    g: int = 256,
) -> Routing:
    from routelab.spatial.engine import build_partition, run_pipeline
    from routelab.spatial.model import OBJ

    setup = _spatial_setup(stream, interests, train_windows, seed, True, g)
    part, build_s = build_partition(setup, algorithm, n)
    res = run_pipeline(setup, part, keep_pairs=False)
    st = setup.stream
    obj = st.kind[res.routed.tup] == OBJ
    o_idx = st.ref[res.routed.tup[obj]]
    windows = int(stream["window"].max()) + 1
    loads = _window_loads(stream["window"].to_numpy()[o_idx], res.routed.worker[obj], windows, n)
    copies = np.bincount(o_idx, minlength=len(st.objects))
    return Routing("PS2Stream", algorithm, n, len(st.objects), loads, copies,
                   np.asarray(res.info["worker_bytes"], dtype=np.float64), "bytes",
                   busiest_s=float(np.max(res.worker_busy)), learn_s=build_s,
                   extra={"pairs": res.info.get("distinct_pairs")},
                   tuple_window=stream["window"].to_numpy())  # fmt: skip


def spatial_pairs(
    algorithm: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int = 3,
    seed: int = 0, region: bool = False, g: int | None = None,
) -> set[tuple[int, int]]:  # fmt: skip
    """PS2Stream's answer, (sub_id, post_id) pairs; with ``region=False`` every query covers
    the whole box, so it must equal S3-TM's for the same interests. ``g``: the base grid
    (default 256 cells a side, 16 without regions: a query covering the whole box posts
    in every cell)."""
    g = g or (256 if region else 16)
    from routelab.spatial.engine import build_partition, run_pipeline

    setup = _spatial_setup(stream, interests, train_windows, seed, region, g)
    part, _ = build_partition(setup, algorithm, n)
    return {(int(q), int(o)) for q, o in run_pipeline(setup, part).pairs}


# --------------------------------------------------------------------------- Fabret
def _fabret(
    algorithm: str,
    n: int,
    stream: pd.DataFrame,
    interests: Interests,
    train_windows: int,
    seed: int,
    collect: set[tuple[int, int]] | None = None,
) -> Routing:
    from routelab.filtering.costmodel import EventStats
    from routelab.filtering.dataflow import plan_access_routing
    from routelab.filtering.matchers import build_matcher
    from routelab.filtering.model import Events
    from routelab.filtering.static import predicate_nu

    topics = (
        stream["topic"].to_numpy() if "topic" in stream else post_topics(stream, interests.model)
    )
    events = post_events(stream, topics)
    subs = predicate_subscriptions(interests)
    train = stream["window"].to_numpy() < train_windows
    stats = EventStats.from_events(Events(events.values[train]))
    t0 = time.perf_counter()
    plan = plan_access_routing(subs, predicate_nu(subs, stats), n, catch_all="spread")
    send = plan.route(events)
    learn_s = time.perf_counter() - t0
    ev, worker = np.nonzero(send)
    windows = int(stream["window"].max()) + 1
    loads = _window_loads(stream["window"].to_numpy()[ev], worker, windows, n)
    busiest, matches = 0.0, 0
    for p in range(n):
        rows = np.flatnonzero(plan.owner == p)
        mine = np.flatnonzero(send[:, p])
        if not len(rows) or not len(mine):
            continue
        m = build_matcher(algorithm, subs.take(rows), stats=stats, greedy_sample=len(rows))
        batch = Events(events.values[mine], events.ids[mine])
        m.match(Events(batch.values[:100], batch.ids[:100]))  # warm-up
        t0 = time.perf_counter()
        ptr, hits = m.match(batch)
        busiest = max(busiest, time.perf_counter() - t0)
        matches += int(ptr[-1])
        if collect is not None:
            post = np.repeat(batch.ids, np.diff(ptr))
            collect.update(zip(np.asarray(hits).tolist(), post.tolist(), strict=True))
    return Routing("Fabret", algorithm, n, len(stream), loads, send.sum(axis=1),
                   np.bincount(plan.owner, minlength=n).astype(np.float64), "subscriptions",
                   busiest_s=busiest, learn_s=learn_s, extra={"pairs": matches},
                   tuple_window=stream["window"].to_numpy())  # fmt: skip


def fabret_pairs(
    algorithm: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int = 3,
    seed: int = 0,
) -> set[tuple[int, int]]:  # fmt: skip
    """Fabret's answer through its access routing: each post sent to the partitions
    :func:`~routelab.filtering.dataflow.plan_access_routing` picks, matched there by
    ``algorithm`` against the partition's subscriptions; (sub_id, post_id) pairs."""
    pairs: set[tuple[int, int]] = set()
    _fabret(algorithm, n, stream, interests, train_windows, seed, collect=pairs)
    return pairs


#: the paper section each system's routers come from (``--help`` of ``compare run``)
_SOURCES = {"S3-TM": "S3-TM Sect. 4", "key grouping": "PKG Sect. III, FISH Sect. IV",
            "PS2Stream": "PS2Stream Sect. IV", "Fabret": "Fabret et al. Sect. 5"}  # fmt: skip


def _registry():  # type: ignore[no-untyped-def]
    from functools import partial

    from routelab.methods import Method, MethodRegistry

    # a router has one implementation, the call of route(): no separate reference
    return MethodRegistry(
        "router",
        [
            Method(r, f"{s}: {r}", _SOURCES[s], partial(route, s, r), None)
            for s, routers in ROUTERS.items()
            for r in routers
        ],
    )


#: every router of :data:`ROUTERS` by its (unique) name; ``system_of`` gives its system
ROUTER_REGISTRY = _registry()


def system_of(router: str) -> str:
    """The system of ``router`` (a name of :data:`ROUTER_REGISTRY`)."""
    return next(s for s, routers in ROUTERS.items() if router in routers)
