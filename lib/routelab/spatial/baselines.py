"""The six baseline partitioners of PS2Stream's Sect. VI-B, as kdt-trees.

Space partitioning (all terms; an object goes to the owner of its cell, a query to the
owners of every cell it overlaps):

* :func:`grid_partition` -- SpatialHadoop's uniform grid: ``gb x gb`` blocks of base cells
  assigned to workers by LPT on their load (the paper's granularity is lost; the notebook
  sweeps ``gb`` and keeps the best, as the paper says it did);
* :func:`kd_partition` -- AQWA/Tornado's kd-tree: recursive load-median cuts to ``N`` leaves,
  one per worker, converted to the grid (the dispatcher's gridt);
* :func:`str_partition` -- SpatialHadoop's R-tree: STR bulk tiling of the sample points into
  ``~ r_leaf * N`` tiles, tile bounds extended to cover the space without overlap (an
  R-tree's overlapping/dead-space leaves cannot route every query and object),
  tiles to workers by LPT.

Text partitioning (whole space; a term -> worker map; a query goes to the workers of its
registering keys, an object to every worker owning one of its terms with a live query):

* :func:`frequency_partition` -- terms by load ``l(t)`` (their frequency-driven cost) in
  descending order, each to the least-loaded worker (LPT);
* :func:`hypergraph_partition` -- Cambazoglu et al.: terms are vertices weighted by
  ``l(t)``, distinct sample object term sets are nets (weight = multiplicity); a K-way
  connectivity-1 partition (Mt-KaHyPar) minimizes the extra object copies;
* :func:`metric_partition` -- the metric-based partitioning of Wang et al. [28] = S3-TM's
  SALB, learned on the sample objects with the queries' keywords as subscriptions.
  PS2Stream's query placement (the worker of each registering key) is kept.

Terms absent from the sample are placed by a seeded stable hash.
"""

from __future__ import annotations

import math

import numpy as np

from routelab.spatial.cost import SampleStats
from routelab.spatial.kdt import (
    Node,
    Partition,
    hashed_groups,
    make_space,
    make_text,
    space_children,
    text_children,
)
from routelab.uniques import unique

SPACE_BASELINES = ("grid", "kd-tree", "r-tree")
TEXT_BASELINES = ("frequency", "hypergraph", "metric")


def lpt(weights: np.ndarray, k: int) -> np.ndarray:
    """Longest-processing-time-first: items by weight descending, each to the currently
    least-loaded of ``k`` bins (ties: lower bin). Returns the bin of every item."""
    order = np.argsort(-np.asarray(weights, dtype=np.float64), kind="stable")
    loads = np.zeros(k)
    out = np.zeros(len(weights), dtype=np.int64)
    for i in order:
        b = int(np.argmin(loads))
        out[i] = b
        loads[b] += weights[i]
    return out


# --------------------------------------------------------------------------- space


def load_cut(loads_1d: np.ndarray, lo: int, share: float) -> int:
    """Grid line splitting a marginal load profile (starting at line ``lo``) so that the
    lower part holds ``share`` of the load; at least one line on each side."""
    n = len(loads_1d)
    total = loads_1d.sum()
    if n < 2:
        raise ValueError("cannot cut a region one cell wide")
    if total <= 0:
        return lo + max(1, min(n - 1, round(n * share)))
    cum = np.cumsum(loads_1d)
    i = int(np.searchsorted(cum, share * total)) + 1
    return lo + max(1, min(n - 1, i))


def exact_cut(
    stats: SampleStats, n: Node, dim: int, share: float, margins: tuple[int, int] = (1, 1)
) -> int:
    """The grid line where the lower side's load (Definition 1, exact on the sample) is
    closest to ``share`` of the two sides' sum: a binary search, the lower side's load
    growing with the cut (the load-weighted median of the kd-tree baselines). ``margins``:
    the fewest lines left on the lower and the upper side (one each by default)."""
    lo, hi = (n.x0, n.x1) if dim == 0 else (n.y0, n.y1)
    if hi - lo < 2:
        raise ValueError("cannot cut a region one cell wide")
    if min(margins) < 1 or sum(margins) > hi - lo:
        raise ValueError(f"margins {margins} do not fit a region {hi - lo} cells wide")

    def frac(c: int) -> float:
        a, b = space_children(n, dim, c)
        la, lb = stats.load([a.unit]), stats.load([b.unit])
        return la / (la + lb) if la + lb > 0 else (c - lo) / (hi - lo)

    left, right = lo + margins[0], hi - margins[1]
    while left < right:
        mid = (left + right) // 2
        if frac(mid) < share:
            left = mid + 1
        else:
            right = mid
    if left > lo + margins[0] and abs(frac(left - 1) - share) < abs(frac(left) - share):
        return left - 1
    return left


def _fill_margins(w: int, h: int, dim: int, k_lo: int, k_hi: int) -> tuple[int, int] | None:
    """The fewest lines each side of a cut along ``dim`` needs to hold a cell per leaf
    (``k_lo`` and ``k_hi`` leaves) in a ``w x h`` region; ``None`` where they do not fit."""
    across, extent = (h, w) if dim == 0 else (w, h)
    need = (-(-k_lo // across), -(-k_hi // across))
    return need if extent >= 2 and sum(need) <= extent else None


def space_split(
    stats: SampleStats, n: Node, k: int, dim_rule: str = "longer", *, fill: bool = False
) -> list[Node]:
    """Split leaf ``n`` into ``k`` space leaves by recursive load-median cuts
    (``floor(k/2) : ceil(k/2)`` with proportional load). Returns the new leaves; ``n``
    becomes their subtree. A region one cell wide in both dimensions stays one leaf (fewer
    than ``k`` leaves come back).

    ``fill=True`` (the kd-tree baseline) keeps a cell per leaf on each side: where the
    load median would leave a side fewer cells than the leaves it must hold (load packed
    into a few cells, e.g. small query squares), the cut moves the least toward the middle
    that gives it enough, along the other dimension where the chosen one cannot give both
    sides enough. Where the median leaves enough cells, the cut is the median, so
    ``fill`` changes only splits that would otherwise come back short. PS2Stream's
    PartitionNode (:mod:`routelab.spatial.hybrid`) keeps ``False``: it drops a short space
    split and takes the text split."""
    if k <= 1:
        return [n]
    w, h = n.x1 - n.x0, n.y1 - n.y0
    if w < 2 and h < 2:
        return [n]
    if dim_rule == "longer":
        dim = 0 if (w >= h and w >= 2) or h < 2 else 1
    else:
        raise ValueError(f"unknown dim_rule {dim_rule!r}")
    k_lo = k // 2
    margins = (1, 1)
    if fill:  # the chosen dimension if it can give each side enough cells, else the other
        for d in (dim, 1 - dim):
            need = _fill_margins(w, h, d, k_lo, k - k_lo)
            if need is not None:
                dim, margins = d, need
                break
    cut = exact_cut(stats, n, dim, k_lo / k, margins)
    make_space(n, dim, cut)
    a, b = n.children
    return space_split(stats, a, k_lo, dim_rule, fill=fill) + space_split(
        stats, b, k - k_lo, dim_rule, fill=fill
    )


def _assign_lpt(stats: SampleStats, leaves: list[Node], n_workers: int) -> None:
    loads = np.array([stats.load([leaf.unit]) for leaf in leaves])
    for leaf, w in zip(leaves, lpt(loads, n_workers), strict=True):
        leaf.worker = int(w)


def kd_partition(stats: SampleStats, n_workers: int) -> Partition:
    """kd-tree baseline: ``N`` load-balanced leaves, one per worker (load-median cuts that
    keep a cell per leaf on each side, :func:`space_split` with ``fill=True``)."""
    g = stats.grid.g
    root = Node(0, 0, g, g)
    leaves = space_split(stats, root, n_workers, fill=True)
    if len(leaves) < n_workers:
        raise ValueError(f"grid {g}x{g} too coarse for {n_workers} kd-tree leaves")
    for w, leaf in enumerate(leaves):
        leaf.worker = w
    return Partition(root, n_workers, "kd-tree")


def _chain(n: Node, dim: int, cuts: list[int]) -> list[Node]:
    """Split ``n`` at the sorted ``cuts`` along ``dim`` as a balanced chain of cuts."""
    if not cuts:
        return [n]
    mid = len(cuts) // 2
    make_space(n, dim, cuts[mid])
    a, b = n.children
    return _chain(a, dim, cuts[:mid]) + _chain(b, dim, cuts[mid + 1 :])


def block_loads(stats: SampleStats, gb: int) -> np.ndarray:
    """Load of every block of a ``gb x gb`` grid (exact Definition 1 for one block)."""
    g = stats.grid.g
    if g % gb:
        raise ValueError(f"grid baseline granularity {gb} must divide the base grid {g}")
    f = g // gb
    c = stats.costs
    chk = np.asarray(stats.K.sum(axis=1)).ravel().reshape(gb, f, gb, f).sum(axis=(1, 3))
    obj = (
        np.bincount((stats.ocy // f * gb + stats.ocx // f)[stats.o_matchable], minlength=gb * gb)
        .reshape(gb, gb)
        .astype(float)
    )
    r = stats.qr // f
    diff = np.zeros((gb + 1, gb + 1))
    np.add.at(diff, (r[:, 1], r[:, 0]), 1)
    np.add.at(diff, (r[:, 1], r[:, 2] + 1), -1)
    np.add.at(diff, (r[:, 3] + 1, r[:, 0]), -1)
    np.add.at(diff, (r[:, 3] + 1, r[:, 2] + 1), 1)
    nq = diff.cumsum(0).cumsum(1)[:gb, :gb]
    m = chk if c.model == "gi2_checks" else obj * nq
    return c.c_m * m + c.c_o * obj + c.c_q * nq


def grid_partition(stats: SampleStats, n_workers: int, gb: int = 32) -> Partition:
    """Uniform grid baseline: ``gb x gb`` blocks to workers by LPT on block load."""
    g = stats.grid.g
    f = g // gb
    loads = block_loads(stats, gb)
    root = Node(0, 0, g, g)
    slices = _chain(root, 0, [i * f for i in range(1, gb)])
    assign = lpt(loads.ravel(), n_workers).reshape(gb, gb)
    for sx, s in enumerate(slices):
        for by, cell in enumerate(_chain(s, 1, [i * f for i in range(1, gb)])):
            cell.worker = int(assign[by, sx])
    return Partition(root, n_workers, "grid", {"gb": gb})


def str_partition(stats: SampleStats, n_workers: int, r_leaf: int = 4) -> Partition:
    """STR (sort-tile-recursive) R-tree leaves, extended to tile the space, LPT to workers."""
    g = stats.grid.g
    n_leaves = max(n_workers, r_leaf * n_workers)
    n_slices = max(1, math.ceil(math.sqrt(n_leaves)))
    per_slice = max(1, math.ceil(n_leaves / n_slices))
    xs = np.sort(stats.ocx)
    root = Node(0, 0, g, g)
    x_cuts = sorted({int(xs[int(len(xs) * i / n_slices)]) for i in range(1, n_slices)} - {0})
    slices = _chain(root, 0, [c for c in x_cuts if 0 < c < g])
    leaves: list[Node] = []
    for s in slices:
        ys = np.sort(stats.ocy[(stats.ocx >= s.x0) & (stats.ocx < s.x1)])
        if len(ys) == 0:
            leaves.append(s)
            continue
        y_cuts = sorted({int(ys[int(len(ys) * i / per_slice)]) for i in range(1, per_slice)})
        leaves += _chain(s, 1, [c for c in y_cuts if 0 < c < g])
    _assign_lpt(stats, leaves, n_workers)
    return Partition(root, n_workers, "r-tree", {"r_leaf": r_leaf, "tiles": len(leaves)})


# --------------------------------------------------------------------------- text


def sample_terms(stats: SampleStats) -> np.ndarray:
    """Terms that occur in the sample (in objects or as registering keys)."""
    present = np.zeros(stats.n_terms, dtype=bool)
    present[stats.e_term] = True
    present[stats.k_t] = True
    return present


def text_root(
    stats: SampleStats, groups: np.ndarray, n_workers: int, name: str, info: dict | None = None
) -> Partition:
    """A partition that is one text node at the root; child ``j`` is worker ``j``."""
    g = stats.grid.g
    root = Node(0, 0, g, g)
    children = text_children(root, groups, n_workers)
    make_text(root, groups, children)
    for w, c in enumerate(children):
        c.worker = w
    return Partition(root, n_workers, name, info or {})


def lpt_groups(
    weights: np.ndarray, present: np.ndarray, k: int, term_hash: np.ndarray
) -> np.ndarray:
    """Term -> group: LPT over the present terms, seeded hash for the others."""
    groups = hashed_groups(term_hash, k)
    idx = np.flatnonzero(present)
    groups[idx] = lpt(weights[idx], k)
    return groups


def frequency_partition(stats: SampleStats, n_workers: int, term_hash: np.ndarray) -> Partition:
    """Frequency-based text partitioning (LPT on the terms' loads)."""
    g = stats.grid.g
    weights = stats.term_loads(0, 0, g, g)
    groups = lpt_groups(weights, sample_terms(stats), n_workers, term_hash)
    return text_root(stats, groups, n_workers, "frequency")


def hypergraph_partition(
    stats: SampleStats,
    n_workers: int,
    term_hash: np.ndarray,
    epsilon: float = 0.03,
    seed: int = 0,
    preset: str = "default",
) -> Partition:
    """Hypergraph-based text partitioning (Cambazoglu et al.) with Mt-KaHyPar (KM1).

    ``preset="default"`` runs Mt-KaHyPar's default preset on one thread in a fresh forked
    process (:func:`km1_partition`): given its seed that preset is deterministic only from
    a fresh library state (a second call in one process returns another partition), and a
    fresh child gives it one; about 3.5x faster than ``"deterministic"``, Mt-KaHyPar's
    deterministic preset run in this process (the choice before; about 30 s on a UK-Q1
    build sample)."""
    g = stats.grid.g
    weights = stats.term_loads(0, 0, g, g)
    present = sample_terms(stats)
    vid = np.full(stats.n_terms, -1, dtype=np.int64)
    terms = np.flatnonzero(present)
    vid[terms] = np.arange(len(terms))
    groups = hashed_groups(term_hash, n_workers)
    if n_workers == 1 or len(terms) < n_workers:
        groups[terms] = lpt(weights[terms], n_workers)
        return text_root(stats, groups, n_workers, "hypergraph", {"solver": "lpt (too few terms)"})
    # nets: distinct object term sets (>= 2 terms), weighted by multiplicity
    objs = stats.objects
    nets: dict[tuple[int, ...], int] = {}
    for i in range(len(objs)):
        t = objs.terms_of(i)
        if len(t) >= 2:
            key = tuple(vid[t].tolist())
            nets[key] = nets.get(key, 0) + 1
    scale = 1e6 / max(weights[terms].max(), 1e-12)
    node_w = np.maximum(1, np.round(weights[terms] * scale)).astype(np.int64)
    edges = [list(k) for k in nets]
    blocks, km1 = km1_partition(
        len(terms), edges, node_w.tolist(), list(nets.values()), n_workers, epsilon, seed, preset
    )
    groups[terms] = blocks
    return text_root(
        stats,
        groups,
        n_workers,
        "hypergraph",
        {"solver": f"mtkahypar ({preset})", "km1": km1, "nets": len(edges)},
    )


PRESETS = ("default", "deterministic")


def km1_partition(
    n_vertices: int,
    edges: list[list[int]],
    node_w: list[int],
    net_w: list[int],
    k: int,
    epsilon: float,
    seed: int,
    preset: str = "default",
) -> tuple[np.ndarray, int]:
    """Mt-KaHyPar's KM1 partition of a hypergraph into ``k`` blocks: (block per vertex, km1).
    ``"default"`` runs in a forked child (a fresh library state, so the seed decides the
    result), ``"deterministic"`` in this process."""
    if preset not in PRESETS:
        raise ValueError(f"unknown Mt-KaHyPar preset {preset!r}; choose one of {PRESETS}")
    args = (n_vertices, edges, node_w, net_w, k, epsilon, seed, preset)
    if preset == "deterministic":
        return _mtkahypar_run(*args)
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_mtkahypar_child, args=(send, *args), daemon=True)
    child.start()
    send.close()
    try:
        blocks, km1 = recv.recv()
    except EOFError:
        child.join()
        raise RuntimeError(
            f"the Mt-KaHyPar child process died (exit code {child.exitcode}) partitioning "
            f"{n_vertices} vertices and {len(edges)} nets into {k} blocks"
        ) from None
    child.join()
    return blocks, km1


def _mtkahypar_child(send, *args) -> None:
    send.send(_mtkahypar_run(*args))
    send.close()


def _mtkahypar_run(n_vertices, edges, node_w, net_w, k, epsilon, seed, preset):
    import mtkahypar

    mtkahypar.set_seed(seed)
    init = _mtkahypar_init()
    ctx = init.context_from_preset(getattr(mtkahypar.PresetType, preset.upper()))
    ctx.set_partitioning_parameters(k, epsilon, mtkahypar.Objective.KM1)
    ctx.logging = False
    hg = init.create_hypergraph(ctx, n_vertices, len(edges), edges, node_w, net_w)
    part = hg.partition(ctx)
    blocks = np.array([part.block_id(v) for v in range(n_vertices)], dtype=np.int64)
    return blocks, int(part.km1())


_INIT = None


def _mtkahypar_init():
    """Mt-KaHyPar's library state, one thread, initialized once per process."""
    global _INIT
    if _INIT is None:
        import mtkahypar

        _INIT = mtkahypar.initialize(1)
    return _INIT


def metric_partition(
    stats: SampleStats, n_workers: int, vocab_terms: list[str], seed: int = 0
) -> Partition:
    """Metric-based text partitioning = S3-TM's SALB on the sample objects."""
    from routelab.s3tm import learn_mapping

    objs = stats.objects
    posts = [[vocab_terms[t] for t in objs.terms_of(i).tolist()] for i in range(len(objs))]
    subscribed = {vocab_terms[t] for t in unique(stats.q_terms_t).tolist()}
    mapping = learn_mapping(posts, n_workers, "SALB", subscriptions=subscribed, seed=seed)
    groups = np.array([mapping.matcher_of(t) for t in vocab_terms], dtype=np.int64)
    return text_root(
        stats, groups, n_workers, "metric", {"learn_seconds": mapping.info.get("learn_seconds")}
    )


def node_text_split(stats: SampleStats, n: Node, k: int, term_hash: np.ndarray) -> list[Node]:
    """TEXT_SPLIT (Algorithm 1's PartitionNode, text branch): the node's terms by their
    load in the node's region, LPT into ``k`` groups; makes ``n`` a text node."""
    weights = stats.term_loads(*n.rect, n.terms)
    present = weights > 0
    groups = lpt_groups(weights, present, k, term_hash)
    children = text_children(n, groups, k)
    make_text(n, groups, children)
    return children


__all__ = [
    "SPACE_BASELINES",
    "TEXT_BASELINES",
    "block_loads",
    "frequency_partition",
    "grid_partition",
    "hypergraph_partition",
    "kd_partition",
    "lpt",
    "metric_partition",
    "node_text_split",
    "space_children",
    "space_split",
    "str_partition",
]
