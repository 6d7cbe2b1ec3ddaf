"""Learning a word-to-matcher mapping M (S3-TM Sect. 3): one entry point for all methods.

``learn_mapping(posts, n_matchers, method, subscriptions=None, seed=0, ...)`` with
``method`` one of :data:`MAPPINGS` (case-insensitive)

- ``hash``: seeded stable hash of the word string (the default policy of Sect. 3.1);
- ``gC``, ``gFC``, ``gFCL``, ``gNFCL``: METIS on the word network (Sect. 3.2,
  :mod:`routelab.s3tm.partition`);
- ``SALB``: Algorithm 1 (Sect. 3.3; fast kernel, or the readable reference with
  ``salb_impl="reference"``).

Learning steps, the same for every method:

1. restrict the learning posts to the subscribed words W^s when subscriptions are given
   (only subscribed words route a publication, Eq. 1);
2. with ``split_hot=True``, split hot words into versions (Sect. 5.1,
   :mod:`routelab.s3tm.skew`) and learn on the versioned posts;
3. learn M for every word that occurs (f(w) > 0); all other words use the hash fallback.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import numpy as np

from routelab.hashing import string_bucket
from routelab.methods import Method, MethodRegistry
from routelab.s3tm.partition import GRAPH_METHODS, partition_words
from routelab.s3tm.routing import Mapping, mapping_from_assignment
from routelab.s3tm.salb_kernel import salb_kernel
from routelab.s3tm.salb_reference import salb_reference
from routelab.s3tm.skew import apply_split, split_plan
from routelab.s3tm.wordnet import word_network
from routelab.s3tm.wordsets import Corpus, as_corpus, subscribed_words


def _hash_matchers(corpus: Corpus, n_matchers: int, seed: int, **_: Any) -> np.ndarray:
    """The hash policy (Sect. 3.1): a seeded stable hash of each occurring word's string."""
    out = np.full(corpus.n_vocab, -1, dtype=np.int32)
    for w in np.flatnonzero(corpus.doc_freq() > 0).tolist():
        out[w] = string_bucket(corpus.vocab[w], n_matchers, seed)
    return out


def _salb(impl: Any) -> Any:
    def learn(corpus: Corpus, n_matchers: int, seed: int, *, progress: bool = False, **_: Any):
        return impl(corpus, n_matchers, progress=progress)

    learn.__name__ = learn.__qualname__ = f"learn_{impl.__name__}"
    learn.__doc__ = f"Algorithm 1 (Sect. 3.3) through :func:`{impl.__module__}.{impl.__name__}`."
    return learn


def _graph_matchers(
    corpus: Corpus,
    n_matchers: int,
    seed: int,
    *,
    method: str,
    resolution: float = 100.0,
    ufactor: int | None = None,
    messages: list[str] | None = None,
    **_: Any,
) -> np.ndarray:
    """METIS on the word network (Sect. 3.2) with the vertex/edge weights of ``method``."""
    return partition_words(
        word_network(corpus),
        n_matchers,
        method,
        seed=seed,
        resolution=resolution,
        ufactor=ufactor,
        messages=messages if messages is not None else [],
    )


def _graph(method: str) -> Any:
    return partial(_graph_matchers, method=method)


_GRAPH_PAPER = {
    "gC": "Sect. 3.2 (co-occurrence edges)",
    "gFC": "Sect. 3.2 (frequency vertices, co-occurrence edges)",
    "gFCL": "Sect. 3.2 (frequency vertices, co-occurrence edges, lowest-load order)",
    "gNFCL": "Sect. 3.2 (normalised frequency vertices)",
}

#: every mapping method: ``kernel(corpus, n_matchers, seed, **params)`` returns the matcher
#: of each word id (``-1`` for words that do not occur); ``reference`` is the readable
#: version (SALB only: ``None`` where a hash or METIS does the work, there is no second one)
MAPPINGS: MethodRegistry[Method] = MethodRegistry(
    "mapping method",
    [
        Method("hash", "hash", "Sect. 3.1", _hash_matchers, None),
        *(
            Method(
                m,
                m,
                _GRAPH_PAPER[m],
                _graph(m),
                None,
                {"resolution": 100.0, "ufactor": None},
            )
            for m in GRAPH_METHODS
        ),
        Method("SALB", "SALB", "Sect. 3.3, Alg. 1", _salb(salb_kernel), _salb(salb_reference)),
    ],
)
METHODS = MAPPINGS.names


def learn_mapping(
    posts: Any,
    n_matchers: int,
    method: str,
    subscriptions: Any = None,
    seed: int = 0,
    *,
    split_hot: bool = False,
    hot_fraction: float = 0.5,
    salb_impl: str = "kernel",
    metis_resolution: float = 100.0,
    metis_ufactor: int | None = None,
    progress: bool = False,
) -> Mapping:
    """Learn M : W -> [0, N) from the learning posts.

    Args:
        posts: learning posts: a :class:`~routelab.s3tm.wordsets.Corpus`, a Spark DataFrame
            (``post_id``, ``words``) or a list of word lists.
        n_matchers: N.
        method: one of :data:`METHODS`.
        subscriptions: defines W^s (see :func:`~routelab.s3tm.wordsets.subscribed_words`);
            ``None`` = every word is subscribed.
        seed: seeds the hash policy (method ``hash`` and the fallback), the METIS run and
            the version choice of split words.
        split_hot: split hot words into versions (Sect. 5.1).
        hot_fraction: a word may carry this fraction of a node's even share (paper: 1/2).
        salb_impl: ``"kernel"`` (fast) or ``"reference"`` (Algorithm 1 literally).
        metis_resolution: gNFCL vertex-weight scale (see :mod:`routelab.s3tm.partition`).
        metis_ufactor: METIS imbalance tolerance (default: METIS's).
        progress: progress bar (SALB).

    Returns:
        The :class:`~routelab.s3tm.routing.Mapping`; ``info`` holds ``learn_seconds`` (the
        method itself, after preparing the posts), ``prepare_seconds``, ``n_posts``,
        ``n_words`` (learned words incl. versions), ``n_hot`` (split words) and
        ``metis_messages`` (lines METIS printed, see :mod:`routelab.s3tm.partition`).
    """
    method = MAPPINGS.canonical(method)
    if n_matchers < 1:
        raise ValueError(f"n_matchers must be >= 1, got {n_matchers}")
    if salb_impl not in ("kernel", "reference"):
        raise ValueError(f"salb_impl must be 'kernel' or 'reference', got {salb_impl!r}")
    t0 = time.perf_counter()
    corpus = as_corpus(posts)
    subscribed = subscribed_words(subscriptions)
    if subscribed is not None:
        corpus = corpus.restrict(corpus.word_mask(subscribed))
    origin: dict[int, tuple[str, int]] = {}
    hot_counts: dict[str, int] = {}
    if split_hot:
        plan = split_plan(corpus, n_matchers, hot_fraction)
        hot_counts = {corpus.vocab[w]: int(c) for w, c in zip(plan.words, plan.counts, strict=True)}
        corpus, origin = apply_split(corpus, plan, seed)
    t1 = time.perf_counter()
    metis_messages: list[str] = []
    matchers = _learn_matchers(
        corpus,
        n_matchers,
        method,
        seed,
        salb_impl=salb_impl,
        resolution=metis_resolution,
        ufactor=metis_ufactor,
        progress=progress,
        messages=metis_messages,
    )
    t2 = time.perf_counter()
    info = {
        "learn_seconds": t2 - t1,
        "prepare_seconds": t1 - t0,
        "n_posts": corpus.n_posts,
        "n_words": int((matchers >= 0).sum()),
        "n_hot": len(hot_counts),
        "split_hot": split_hot,
        "subscribed_words": None if subscribed is None else len(subscribed),
        "metis_messages": len(metis_messages),
    }
    return mapping_from_assignment(
        corpus.vocab,
        matchers,
        n_matchers,
        method,
        seed,
        origin=origin,
        hot_counts=hot_counts,
        info=info,
    )


def _learn_matchers(
    corpus: Corpus,
    n_matchers: int,
    method: str,
    seed: int,
    *,
    salb_impl: str,
    resolution: float,
    ufactor: int | None,
    progress: bool,
    messages: list[str],
) -> np.ndarray:
    """Matcher per word id of ``corpus`` (``-1`` for words that do not occur);
    ``salb_impl`` picks SALB's implementation (the other methods have one)."""
    m = MAPPINGS[method]
    learn = m.implementation(salb_impl if m.has_reference else "kernel")
    return learn(
        corpus,
        n_matchers,
        seed,
        resolution=resolution,
        ufactor=ufactor,
        progress=progress,
        messages=messages,
    )
