"""What the kernels of each kind of method already share, as :class:`typing.Protocol` s.

One protocol per kind of :class:`~routelab.methods.Method`, for the ``kernel`` of every entry
of one registry:

- :class:`MappingKernel` (:data:`routelab.s3tm.mappings.MAPPINGS`): corpus -> the matcher
  of each word id;
- :class:`GroupingScheme` (:data:`routelab.grouping.schemes.SCHEMES`): stream -> the worker
  of each message (a scheme's ``reference`` has the same signature);
- :class:`Matcher` (:data:`routelab.filtering.matchers.MATCHERS`): the matcher object a
  kernel builds (the kernel itself is a :class:`MatcherBuilder`, its reference and oracle
  :class:`MatchReference` s);
- :class:`Partitioner` (:data:`routelab.spatial.engine.PARTITIONERS`): setup -> partition;
- :class:`Selector` (:data:`routelab.spatial.migration.SELECTORS`): candidate cells -> the
  selection.

One more for the systems notebook 13 compares side by side
(:data:`routelab.compare.routers.SYSTEMS_BY_NAME`): :class:`RouterSystem`, a system whose
routers are entries of its paper's registry, run on the common stream at N workers.

A protocol lists only what every kernel of its kind takes and returns; a kernel may take more
keyword parameters with defaults (its method's ``defaults``). Parameters marked
positional-only (``/``) are the ones callers pass by position and the kernels name
differently (a partitioner's ``n`` is its caller's ``n_workers``). :class:`Matcher` and
:class:`RouterSystem` are ``runtime_checkable`` (``isinstance`` on a built matcher, on a
system's adapter); the callables are checked by signature with :func:`signature_problems`.
``tests/test_conformance.py`` checks every entry and every adapter.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from routelab.compare.interests import Interests
    from routelab.compare.routers import Routing
    from routelab.filtering.model import Events, Subscriptions
    from routelab.grouping.events import WorkerEvent
    from routelab.methods import MethodRegistry
    from routelab.s3tm.wordsets import Corpus
    from routelab.spatial.engine import Setup
    from routelab.spatial.kdt import Partition
    from routelab.spatial.migration import Selection


class MappingKernel(Protocol):
    """An S3-TM mapping method (Sect. 3): the matcher in ``0..n_matchers-1`` of every word id
    of ``corpus`` that occurs, ``-1`` for the others (int32, length ``corpus.n_vocab``).
    Every mapping takes (and may ignore) the parameters of the others (``resolution``,
    ``ufactor``, ``progress``, ``messages``)."""

    def __call__(
        self, corpus: Corpus, n_matchers: int, seed: int, /, **params: Any
    ) -> np.ndarray: ...


class GroupingScheme(Protocol):
    """A stream grouping scheme (PKG, FISH): the int32 worker of every message of the stream
    ``keys`` (with its ``sources``, ``None``: one source), in stream order."""

    def __call__(
        self,
        keys: Any,
        sources: Any,
        n_workers: int,
        *,
        seed: int = 0,
        times: np.ndarray | None = None,
        capacities: np.ndarray | None = None,
        events: Sequence[WorkerEvent] = (),
    ) -> np.ndarray: ...


@runtime_checkable
class Matcher(Protocol):
    """A built matcher of Fabret et al. (:func:`routelab.filtering.matchers.build_matcher`):
    matches a batch of events, takes subscriptions in and out between batches."""

    name: str

    def match(self, events: Events) -> tuple[np.ndarray, np.ndarray]:
        """Matching subscription ids per event as CSR (``ptr``, ``ids``), ids sorted."""
        ...

    def insert(self, sub_id: int, predicates: Sequence[tuple[int, str | int, int]]) -> None:
        """Register subscription ``sub_id`` (``(attr, op, value)`` predicates)."""
        ...

    def delete(self, sub_id: int) -> None:
        """Remove subscription ``sub_id``."""
        ...


class MatcherBuilder(Protocol):
    """The kernel of a matching algorithm: builds its :class:`Matcher` over ``subs``; every
    builder takes (and may ignore) the build parameters of the others (``stats``, ...)."""

    def __call__(self, subs: Subscriptions, /, **params: Any) -> Matcher: ...


class MatchReference(Protocol):
    """A matching algorithm's readable ``reference`` (and the registry's ``oracle``): each
    event's matching subscription ids, sorted, computed without the built matcher's fast
    path; it takes the builder's parameters too."""

    def __call__(
        self, subs: Subscriptions, events: Events, /, **params: Any
    ) -> list[list[int]]: ...


class Partitioner(Protocol):
    """A PS2Stream partitioner: the partition of the grid x vocabulary among ``n_workers``
    workers, built from the setup's sample; every partitioner takes (and may ignore) the
    parameters of the others (``grid_gb``, ``r_leaf``, ``hybrid``)."""

    def __call__(self, setup: Setup, n_workers: int, /, **params: Any) -> Partition: ...


class Selector(Protocol):
    """A migration selection (PS2Stream Sect. V-A): the cells among ``load``/``size`` (one
    entry per candidate cell) whose load reaches ``need``, by the selector's rule."""

    def __call__(self, load: np.ndarray, size: np.ndarray, need: float, /) -> Selection: ...


@runtime_checkable
class RouterSystem(Protocol):
    """A system notebook 13 compares (S3-TM, key grouping, PS2Stream, Fabret et al.): its
    ``routers`` are entries of its paper's ``registry`` (the methods notebook 13 compares,
    in the registry's order), each run by :meth:`route` on the common stream at N workers
    and measured alike (:class:`~routelab.compare.routers.Routing`).

    What differs between the systems is an attribute, never a test of ``name``:
    ``learns_online`` (the router adapts message by message, as PKG, D-C, W-C and FISH do,
    rather than learning its configuration on the first windows: nothing to re-learn
    before a window), ``replication_unit`` (what the ``copies`` of a
    :class:`~routelab.compare.routers.Routing` count per tuple: copies of the tuple, or
    for key grouping the workers its key lives on), ``drift_router`` (the router whose
    adaptation to the drift notebook 13 measures), ``routes_keys`` (its tuples are
    (post, key) messages: a stream without keys gives it nothing to route) and what
    :meth:`answer` returns (the pairs it delivers, None for a system that only routes)."""

    name: str
    paper: str
    registry: MethodRegistry[Any]
    routers: tuple[str, ...]
    learns_online: bool
    replication_unit: str
    drift_router: str
    routes_keys: bool

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
        """The (interest, post) index pairs the system delivers through ``router``, or None
        for a system that routes without matching."""
        ...

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
        """Run ``router`` at ``n_workers``, its configuration learned on the stream's first
        ``train_windows`` windows; ``ValueError`` naming the system and its routers for a
        router it does not offer."""
        ...


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def signature_problems(
    func: Callable[..., Any], protocol: type, keywords: Iterable[str] = ()
) -> list[str]:
    """Why ``func`` cannot be called the way ``protocol.__call__`` says (empty: it can).

    Checks the parameters only (annotations are not compared): every positional parameter
    of the protocol has a positional slot in ``func`` (of the same name unless the
    protocol's is positional-only), ``func``'s further parameters have defaults, the
    protocol's keyword-only parameters (and its ``**params``) are accepted, and so is every
    name of ``keywords`` (e.g. the method's ``defaults``)."""
    want = list(inspect.signature(protocol.__call__).parameters.values())[1:]  # drop self
    have = list(inspect.signature(func).parameters.values())
    var_pos = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in have)
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in have)
    positional = [p for p in have if p.kind in _POSITIONAL]
    by_name = {p.name: p for p in have if p.kind is not inspect.Parameter.POSITIONAL_ONLY}
    problems: list[str] = []
    want_pos = [p for p in want if p.kind in _POSITIONAL]
    for i, p in enumerate(want_pos):
        if i >= len(positional):
            if not var_pos:
                problems.append(f"no positional parameter for {p.name!r}")
            continue
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and positional[i].name != p.name:
            problems.append(f"positional parameter {i} is {positional[i].name!r}, not {p.name!r}")
    for p in positional[len(want_pos) :]:
        if p.default is inspect.Parameter.empty:
            problems.append(f"extra positional parameter {p.name!r} has no default")
    supplied = {p.name for p in want if p.kind is inspect.Parameter.KEYWORD_ONLY}
    for p in have:
        if (
            p.kind is inspect.Parameter.KEYWORD_ONLY
            and p.default is inspect.Parameter.empty
            and p.name not in supplied
        ):
            problems.append(f"keyword parameter {p.name!r} has no default")
    for p in want:
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            got = by_name.get(p.name)
            if got is None and not var_kw:
                problems.append(f"does not take keyword {p.name!r}")
            elif (
                got is not None
                and p.default is not inspect.Parameter.empty
                and got.default is inspect.Parameter.empty
            ):
                problems.append(f"keyword {p.name!r} has no default")
        elif p.kind is inspect.Parameter.VAR_KEYWORD and not var_kw:
            problems.append("does not take **params")
    for name in keywords:
        if name not in by_name and not var_kw:
            problems.append(f"does not take its parameter {name!r}")
    return problems
