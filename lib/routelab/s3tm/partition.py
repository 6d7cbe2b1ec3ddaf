"""Word network partitioning with METIS: gC, gFC, gFCL, gNFCL (S3-TM Sect. 3.2, Fig. 2).

The vertices are the learned words (f(w) > 0), the edges the co-occurring pairs
(f(w1, w2) > 0). The four methods differ only in the weights given to METIS:

====== ===================== =================================================
method edge weight (cut)     vertex weight (balanced across partitions)
====== ===================== =================================================
gC     none (unit)           none (unit: METIS balances word counts)
gFC    |P| f(w1, w2)         none (unit)
gFCL   |P| f(w1, w2)         |P| f(w)
gNFCL  |P| f(w1, w2)         |P| l(w), l(w) = f(w) / (1 + f_n(w) / f(w))
====== ===================== =================================================

Integer weights. METIS needs positive integers. Frequencies are used as post counts
(``|P| * f``), which are already positive integers and keep every ratio exact (METIS only
sees relative weights). gNFCL's normalized load is fractional; it is scaled by
``resolution`` (default 100) and rounded, ``max(1, round(resolution * |P| l(w)))``, so each
weight is exact to within 0.5 / resolution of a post, and a word lighter than half a post
per ``resolution`` is raised to 1.

Fewer words than matchers. METIS cannot split k < N vertices into N parts: its recursive
bisection prints "Cannot bisect a graph with 0 vertices!" / "You are trying to partition a
graph into too many parts!" and returns a partition that crowds the words together (on
200 words into 256 parts, gC put 153 words into one part). The balance constraint METIS
works under, part weight <= (1 + ufactor/1000) * total / N, is then below the weight of a
single word, so the assignment closest to it is one word per part; that is what
:func:`partition_words` returns in this case (word ``j`` of the learned words, in id
order, goes to matcher ``j``; the other matchers get no learned word). It happens when W^s
is small against N (topic-based subscriptions without hot-word splitting at 256 nodes).
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp

from routelab.s3tm.wordnet import WordNetwork

GRAPH_METHODS = ("gC", "gFC", "gFCL", "gNFCL")

_log = logging.getLogger(__name__)
_CONSOLE_LOCK = threading.Lock()


@contextlib.contextmanager
def _metis_console(messages: list[str]) -> Iterator[None]:
    """Collect what METIS prints on the C-level stdout into ``messages``.

    METIS writes "***Cannot bisect a graph with 0 vertices!" with ``printf`` whenever a
    vertex is heavier than its part's even share (an unsplit hot word under gFCL/gNFCL at
    many parts); the partition still reaches the balance lower bound (max part weight = the
    heaviest word), so these lines are counted (``info["metis_messages"]`` of
    :func:`~routelab.s3tm.mappings.learn_mapping`) instead of flooding the console of every
    sweep. Anything else printed meanwhile is passed on to stdout.
    """
    libc = ctypes.CDLL(None)
    with _CONSOLE_LOCK, tempfile.TemporaryFile() as sink:
        if sys.stdout is not None:
            sys.stdout.flush()
        try:
            saved = os.dup(1)
        except OSError:  # no file descriptor 1 in this process: nothing to keep clean
            yield
            return
        os.dup2(sink.fileno(), 1)
        try:
            yield
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            sink.seek(0)
            lines = sink.read().decode("utf-8", "replace").splitlines()
    ours = [line.strip() for line in lines if line.strip().startswith("***")]
    messages.extend(ours)
    others = [line for line in lines if line.strip() and not line.strip().startswith("***")]
    if others:
        print("\n".join(others))
    if ours:
        _log.info("METIS printed %d messages, e.g. %r", len(ours), ours[0])


def normalized_vertex_load(freq: np.ndarray, neighbour: np.ndarray) -> np.ndarray:
    """gNFCL's vertex load l(w) = f(w) / (1 + f_n(w) / f(w)) (Sect. 3.2.4), elementwise.

    Works on frequencies or on counts (it is homogeneous of degree 1). Words with
    f(w) = 0 get load 0. For k words that always appear together, f_n(w) = (k - 1) f(w)
    and l(w) = f(w) / k.
    """
    freq = np.asarray(freq, dtype=np.float64)
    neighbour = np.asarray(neighbour, dtype=np.float64)
    out = np.zeros_like(freq)
    pos = freq > 0
    out[pos] = freq[pos] / (1.0 + neighbour[pos] / freq[pos])
    return out


def to_positive_int(weights: np.ndarray, resolution: float = 100.0) -> np.ndarray:
    """``max(1, round(resolution * w))`` as ``int64`` (METIS weights must be positive ints)."""
    return np.maximum(1, np.rint(np.asarray(weights, dtype=np.float64) * resolution)).astype(
        np.int64
    )


def metis_graph(
    net: WordNetwork, words: np.ndarray, method: str, resolution: float = 100.0
) -> tuple[sp.csr_matrix, np.ndarray | None, np.ndarray | None]:
    """The sub-network on ``words`` (CSR adjacency) with ``method``'s vertex and edge weights.

    Vertex ``v`` of the result is word ``words[v]``; edge weights follow the CSR entries.
    """
    if method not in GRAPH_METHODS:
        raise ValueError(f"unknown graph method {method!r}; choose from {GRAPH_METHODS}")
    sub = net.cooc[words][:, words].tocsr()
    sub.sort_indices()
    eweights = None if method == "gC" else sub.data.astype(np.int64)
    if method in ("gC", "gFC"):
        vweights = None
    elif method == "gFCL":
        vweights = net.freq[words].astype(np.int64)
    else:
        # f_n over the whole (W^s-restricted) network, as Sect. 3.2.4 defines it
        load = normalized_vertex_load(net.freq[words], net.neighbour_count()[words])
        vweights = to_positive_int(load, resolution)
    return sub, vweights, eweights


def partition_words(
    net: WordNetwork,
    n_parts: int,
    method: str,
    *,
    seed: int = 0,
    resolution: float = 100.0,
    ufactor: int | None = None,
    messages: list[str] | None = None,
) -> np.ndarray:
    """Partition the learned words of ``net`` into ``n_parts`` with METIS.

    Args:
        net: the word network (restricted to W^s if needed).
        n_parts: N, the number of matchers.
        method: ``gC``, ``gFC``, ``gFCL`` or ``gNFCL``.
        seed: METIS random seed.
        resolution: gNFCL vertex-weight scaling (see module docstring).
        ufactor: METIS load-imbalance tolerance in 1/1000 (default: METIS's own, 30 for
            k-way, 1 for recursive bisection).
        messages: if given, METIS's console lines are appended here (they are kept off
            the console either way; see :func:`_metis_console`).

    Returns:
        ``int32`` partition (``0..n_parts-1``) per word id of ``net.vocab``; ``-1`` for
        words with f(w) = 0. With fewer learned words than ``n_parts`` every word gets its
        own part without calling METIS (see the module docstring).
    """
    import pymetis

    if n_parts < 1:
        raise ValueError(f"n_parts must be >= 1, got {n_parts}")
    if method not in GRAPH_METHODS:
        raise ValueError(f"unknown graph method {method!r}; choose from {GRAPH_METHODS}")
    words = np.flatnonzero(net.freq > 0)
    out = np.full(len(net.vocab), -1, dtype=np.int32)
    if len(words) == 0:
        return out
    if n_parts == 1:
        out[words] = 0
        return out
    if len(words) < n_parts:
        out[words] = np.arange(len(words), dtype=np.int32)
        return out
    sub, vweights, eweights = metis_graph(net, words, method, resolution)
    options = pymetis.Options(seed=int(seed))
    if ufactor is not None:
        options.ufactor = int(ufactor)
    with _metis_console(messages if messages is not None else []):
        result = pymetis.part_graph(
            n_parts,
            pymetis.CSRAdjacency(sub.indptr.astype(np.int64), sub.indices.astype(np.int64)),
            vweights=vweights,
            eweights=eweights,
            options=options,
        )
    parts = np.asarray(result.vertex_part, dtype=np.int32)
    out[words] = parts
    return out
