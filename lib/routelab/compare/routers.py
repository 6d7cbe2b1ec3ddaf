"""Five routers on the common stream, the same N workers, measured alike.

Every system is one adapter of :data:`SYSTEMS_BY_NAME` (a
:class:`~routelab.protocols.RouterSystem`): its routers are entries of its paper's own
registry (S3-TM's :data:`~routelab.s3tm.mappings.MAPPINGS`, the grouping schemes'
:data:`~routelab.grouping.schemes.SCHEMES`, PS2Stream's
:data:`~routelab.spatial.engine.PARTITIONERS`, Fabret et al.'s
:data:`~routelab.filtering.matchers.MATCHERS`), the ones notebook 13 compares; what
differs between the systems is an adapter's attribute, never a test of its name.
:func:`route` runs one (system, router) at N workers and returns a :class:`Routing`: the
messages each worker received (in total and per window of the stream), the copies each
tuple became, and the state each worker holds.
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
whole stream; key grouping learns online (its adapter's ``learns_online``). A tuple is a
post, except for key grouping, whose tuples are (post, key) messages: a post sends its
author and each hashtag.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

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
from routelab.filtering.matchers import MATCHERS
from routelab.grouping.schemes import SCHEMES
from routelab.methods import Method, MethodRegistry
from routelab.s3tm.mappings import MAPPINGS
from routelab.spatial.engine import PARTITIONERS
from routelab.uniques import unique

if TYPE_CHECKING:
    from routelab.protocols import RouterSystem

#: what :attr:`Routing.copies` counts for every system but key grouping
COPIES = "copies per tuple"


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


def _compared(registry: MethodRegistry[Any], *names: str) -> tuple[str, ...]:
    """The entries of ``registry`` notebook 13 compares (``names``), in the registry's
    order; ``ValueError`` if one of ``names`` is not an entry."""
    missing = [n for n in names if n not in registry]
    if missing:
        raise ValueError(f"not {registry.kind}s of their registry: {missing}")
    return tuple(n for n in registry if n in names)


class _System:
    """What the adapters share (:class:`~routelab.protocols.RouterSystem`): the check of a
    router's name and :meth:`route`'s arguments; each adapter's ``_route`` does the work."""

    name: str
    paper: str
    registry: MethodRegistry[Any]
    routers: tuple[str, ...]
    drift_router: str
    learns_online = False
    replication_unit = COPIES

    def __repr__(self) -> str:
        return f"<{self.name} routers {', '.join(self.routers)}>"

    def check(self, router: str) -> None:
        """``ValueError`` naming the system and its routers if it does not offer ``router``."""
        if router not in self.routers:
            raise ValueError(
                f"unknown router {router!r} of {self.name}; choose from {', '.join(self.routers)}"
            )

    def route(
        self,
        router: str,
        n_workers: int,
        stream: pd.DataFrame,
        interests: Interests,
        *,
        train_windows: int = 3,
        seed: int = 0,
    ) -> Routing:
        """Run ``router`` at ``n_workers`` (module docstring)."""
        self.check(router)
        if n_workers < 1:
            raise ValueError(f"n_workers must be >= 1, got {n_workers}")
        return self._route(router, n_workers, stream, interests, train_windows, seed)

    def _route(
        self, router: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int,
        seed: int,
    ) -> Routing:  # fmt: skip
        raise NotImplementedError  # pragma: no cover

    #: its tuples are (post, key) messages: a stream without keys gives it nothing to route
    routes_keys = False

    def answer(
        self,
        router: str,
        n_workers: int,
        stream: pd.DataFrame,
        interests: Interests,
        *,
        train_windows: int = 3,
        seed: int = 0,
    ) -> set[tuple[int, int]] | None:
        """The (interest index, post index) pairs the system delivers through ``router`` at
        ``n_workers``, or None for a system that routes without matching (key grouping)."""
        self.check(router)
        return self._answer(router, n_workers, stream, interests, train_windows, seed)

    def _answer(
        self, router: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int,
        seed: int,
    ) -> set[tuple[int, int]] | None:  # fmt: skip
        return None


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


class S3TMSystem(_System):
    """S3-TM (Sect. 4): a word mapping (:data:`~routelab.s3tm.mappings.MAPPINGS`) learned on
    the training windows sends each post to the matchers of its subscribed words; the
    subscriptions are placed by LASP. A tuple is a post, its copies the matchers it reaches;
    a matcher's state is its subscriptions."""

    name = "S3-TM"
    paper = "S3-TM Sect. 4"
    registry = MAPPINGS
    routers = _compared(MAPPINGS, "hash", "SALB")
    drift_router = "SALB"

    def _answer(self, router, n, stream, interests, train_windows, seed):  # type: ignore[no-untyped-def]
        return s3tm_pairs(router, n, stream, interests, train_windows, seed)

    def _route(
        self, router: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int,
        seed: int,
    ) -> Routing:  # fmt: skip
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
        return Routing(self.name, router, n, len(stream), loads, copies,
                       placement.subs_per_matcher(), "subscriptions", learn_s=learn_s,
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
class KeyGroupingSystem(_System):
    """Key grouping and its successors (PKG Sect. III, FISH Sect. IV): a grouping scheme
    (:data:`~routelab.grouping.schemes.SCHEMES`) sends each (post, key) message -- a post's
    author and each hashtag -- to a worker, adapting message by message (no training
    windows). A tuple is a message; its "copies" are the workers its key lives on; a
    worker's state is its distinct keys."""

    name = "key grouping"
    paper = "PKG Sect. III, FISH Sect. IV"
    registry = SCHEMES
    routers = _compared(SCHEMES, "kg", "pkg_global", "dchoices", "wchoices", "fish")
    drift_router = "pkg_global"
    learns_online = True
    routes_keys = True
    replication_unit = "workers per key"

    def _route(
        self, scheme: str, n: int, stream: pd.DataFrame, interests: Interests, train_windows: int,
        seed: int,
    ) -> Routing:  # fmt: skip
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
        return Routing(self.name, scheme, n, len(keys), loads, per_key[keys], state,
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


class PS2StreamSystem(_System):
    """PS2Stream (Sect. IV): a partition of the grid x vocabulary
    (:data:`~routelab.spatial.engine.PARTITIONERS`) built on the training windows; the
    dispatcher sends each post (object) to the workers owning its terms in its cell, where
    GI2 matches it against the interests' regions. A tuple is a post, its copies the
    workers it reaches; a worker's state is its index bytes, its busy seconds measured."""

    name = "PS2Stream"
    paper = "PS2Stream Sect. IV"
    registry = PARTITIONERS
    routers = _compared(PARTITIONERS, "grid", "kd-tree", "frequency", "metric", "hybrid")
    drift_router = "hybrid"

    def _answer(self, router, n, stream, interests, train_windows, seed):  # type: ignore[no-untyped-def]
        # the interests' own regions on a 256-cell grid (``routelab compare run``'s answer)
        return spatial_pairs(router, n, stream, interests, train_windows, seed, region=True, g=256)

    def _route(
        self, algorithm: str, n: int, stream: pd.DataFrame, interests: Interests,
        train_windows: int, seed: int, g: int = 256,
    ) -> Routing:  # fmt: skip
        from routelab.spatial.engine import build_partition, run_pipeline
        from routelab.spatial.model import OBJ

        setup = _spatial_setup(stream, interests, train_windows, seed, True, g)
        part, build_s = build_partition(setup, algorithm, n)
        res = run_pipeline(setup, part, keep_pairs=False)
        st = setup.stream
        obj = st.kind[res.routed.tup] == OBJ
        o_idx = st.ref[res.routed.tup[obj]]
        windows = int(stream["window"].max()) + 1
        loads = _window_loads(stream["window"].to_numpy()[o_idx], res.routed.worker[obj],
                              windows, n)  # fmt: skip
        copies = np.bincount(o_idx, minlength=len(st.objects))
        return Routing(self.name, algorithm, n, len(st.objects), loads, copies,
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
class FabretSystem(_System):
    """Fabret et al. (Sect. 5): the access routing
    (:func:`~routelab.filtering.dataflow.plan_access_routing`), planned on the training
    windows' event statistics, sends each post (event) to the partitions whose
    subscriptions it may match; each partition's matcher
    (:data:`~routelab.filtering.matchers.MATCHERS`) matches it there. A tuple is a post, its
    copies the partitions it is sent to; a partition's state is its subscriptions."""

    name = "Fabret"
    paper = "Fabret et al. Sect. 5"
    registry = MATCHERS
    routers = _compared(MATCHERS, "counting", "propagation", "static")
    drift_router = "propagation"

    def _answer(self, router, n, stream, interests, train_windows, seed):  # type: ignore[no-untyped-def]
        return fabret_pairs(router, n, stream, interests, train_windows, seed)

    def _route(
        self, algorithm: str, n: int, stream: pd.DataFrame, interests: Interests,
        train_windows: int, seed: int, collect: set[tuple[int, int]] | None = None,
    ) -> Routing:  # fmt: skip
        from routelab.filtering.costmodel import EventStats
        from routelab.filtering.dataflow import plan_access_routing
        from routelab.filtering.matchers import build_matcher
        from routelab.filtering.model import Events
        from routelab.filtering.static import predicate_nu

        topics = (
            stream["topic"].to_numpy()
            if "topic" in stream
            else post_topics(stream, interests.model)
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
        return Routing(self.name, algorithm, n, len(stream), loads, send.sum(axis=1),
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
    FABRET._route(algorithm, n, stream, interests, train_windows, seed, collect=pairs)
    return pairs


S3TM, KEY_GROUPING, PS2STREAM, FABRET = (
    S3TMSystem(), KeyGroupingSystem(), PS2StreamSystem(), FabretSystem()
)  # fmt: skip
#: every compared system's adapter by its name, in notebook 13's order
SYSTEMS_BY_NAME: dict[str, RouterSystem] = {
    s.name: s for s in (S3TM, KEY_GROUPING, PS2STREAM, FABRET)
}
#: system -> its routers (a view of :data:`SYSTEMS_BY_NAME`)
ROUTERS: dict[str, tuple[str, ...]] = {name: s.routers for name, s in SYSTEMS_BY_NAME.items()}
SYSTEMS = tuple(SYSTEMS_BY_NAME)


def system_named(name: str) -> RouterSystem:
    """The adapter of the system called ``name``; ``ValueError`` listing the systems."""
    try:
        return SYSTEMS_BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"unknown router system {name!r}; choose from {', '.join(SYSTEMS_BY_NAME)}"
        ) from None


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
    """Run ``router`` of ``system`` at ``n_workers`` (module docstring): the system's
    adapter's :meth:`~routelab.protocols.RouterSystem.route`."""
    return system_named(system).route(
        router, n_workers, stream, interests, train_windows=train_windows, seed=seed
    )


def _registry() -> MethodRegistry[Method]:
    # a router has one implementation, the call of route(): no separate reference
    return MethodRegistry(
        "router",
        [
            Method(r, f"{s.name}: {r}", s.paper, partial(route, s.name, r), None)
            for s in SYSTEMS_BY_NAME.values()
            for r in s.routers
        ],
    )


#: every router of :data:`SYSTEMS_BY_NAME` by its (unique) name; ``system_of`` gives its
#: system
ROUTER_REGISTRY = _registry()


def system_of(router: str) -> str:
    """The system of ``router`` (a name of :data:`ROUTER_REGISTRY`)."""
    ROUTER_REGISTRY.canonical(router)  # ValueError listing the routers for an unknown one
    return next(s.name for s in SYSTEMS_BY_NAME.values() if router in s.routers)
