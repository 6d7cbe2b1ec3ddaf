"""Hybrid partitioning: Algorithm 1 of PS2Stream (Sect. IV-B) and its three functions.

Phase 1 (lines 1-12) splits space like a kd-tree while objects and queries "talk
differently": a node whose text similarity (cosine of object term counts and query keyword
counts) exceeds ``theta`` goes to ``NS`` (not text-friendly); otherwise it is split in the
dimension whose children have the smaller object-weighted mean similarity, unless the
similarity barely drops (``<= delta``: node goes to ``NT``, text-friendly and consistent).
Phase 2 (lines 13-27): if there are fewer nodes than workers, ComputeNumberPartitions
(:func:`compute_number_partitions`, a DP over dry runs of PartitionNode) decides how many
pieces each node becomes; then MergeNodesIntoPartitions (:func:`merge_nodes`) packs the
leaves into ``N`` parts, and while ``max L > sigma * min L`` the most loaded leaf is split in
two, up to ``max_nodes`` leaves.

Readings (the paper's values are lost): ``theta`` = 0.5 and ``delta`` = 0.05, phase-1 stop
at ``min_objects`` sample objects or ``max_depth``, ``max_nodes`` = 8N, text split by LPT
on term load. MERGE's acceptance "does not increase the load balancing factor"
reads the factor as max / average, i.e. the cheapest part is taken only if it does not raise
the current maximum (the other reading, ``max <= sigma * average``, is the parameter
``merge_rule="sigma_avg"``; see :func:`merge_nodes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from routelab.readings import pick
from routelab.spatial.baselines import node_text_split, space_split
from routelab.spatial.cost import SampleStats, UnitSets
from routelab.spatial.kdt import Node, Partition, make_space, space_children


@dataclass(frozen=True)
class HybridParams:
    """Algorithm 1's parameters (the paper's values are lost; see the module docstring)."""

    theta: float = 0.5
    delta: float = 0.05
    sigma: float = 1.2
    min_objects: int = 500
    max_depth: int = 12
    max_nodes_per_worker: int = 8
    # similarity over all query keywords or registering keys only; ROUTELAB_READING=simkeys
    # makes it "registering" for a run
    query_terms: str = field(default_factory=lambda: pick("simkeys", "all", "registering"))
    # the cosine's estimator: "plugin" or "debiased" (SampleStats); ROUTELAB_READING=debiased
    # makes it "debiased" for a run
    similarity: str = field(default_factory=lambda: pick("debiased", "plugin", "debiased"))
    # MERGE acceptance: "max" (default) or "sigma_avg"; ROUTELAB_READING=merge flips it for a run
    merge_rule: str = field(default_factory=lambda: pick("merge", "max", "sigma_avg"))


# --------------------------------------------------------------------------- phase 1


def median_cut(stats: SampleStats, n: Node, dim: int) -> int | None:
    """The kd-tree cut of ``n`` in ``dim``: the median sample object's cell (inside the
    node), ``None`` if the node is one cell wide."""
    lo, hi = (n.x0, n.x1) if dim == 0 else (n.y0, n.y1)
    if hi - lo < 2:
        return None
    inside = stats.objects_in(*n.rect)
    coords = (stats.ocx if dim == 0 else stats.ocy)[inside]
    if len(coords) == 0:
        return (lo + hi) // 2
    return int(np.clip(np.median(coords), lo + 1, hi - 1))


def phase_one(stats: SampleStats, root: Node, p: HybridParams) -> tuple[list[Node], list[Node]]:
    """Lines 1-12: the text-unfriendly (NS) and text-friendly (NT) subspaces."""
    queue: list[tuple[Node, int]] = [(root, 0)]
    ns: list[Node] = []
    nt: list[Node] = []
    while queue:
        n, depth = queue.pop(0)
        s = stats.similarity(*n.rect, query_terms=p.query_terms, estimator=p.similarity)
        if s > p.theta:
            ns.append(n)
            continue
        if depth >= p.max_depth or stats.n_objects(*n.rect) < p.min_objects:
            nt.append(n)
            continue
        best = None
        for dim in (0, 1):
            cut = median_cut(stats, n, dim)
            if cut is None:
                continue
            a, b = space_children(n, dim, cut)
            sa = stats.similarity(*a.rect, query_terms=p.query_terms, estimator=p.similarity)
            sb = stats.similarity(*b.rect, query_terms=p.query_terms, estimator=p.similarity)
            wa, wb = stats.n_objects(*a.rect), stats.n_objects(*b.rect)
            mean = (wa * sa + wb * sb) / max(wa + wb, 1.0)
            if best is None or mean < best[0]:
                best = (mean, dim, cut, a, b, min(sa, sb))
        if best is None or s - best[5] <= p.delta:
            nt.append(n)
            continue
        _, dim, cut, a, b, _ = best
        make_space(n, dim, cut, (a, b))
        queue += [(a, depth + 1), (b, depth + 1)]
    return ns, nt


# --------------------------------------------------------------------------- PartitionNode


def _copy_leaf(n: Node) -> Node:
    return Node(n.x0, n.y0, n.x1, n.y1, n.terms, origin=n.origin, tag=n.tag)


def _graft(n: Node, plan: Node) -> None:
    n.kind, n.dim, n.cut, n.groups, n.children = (
        plan.kind,
        plan.dim,
        plan.cut,
        plan.groups,
        plan.children,
    )


def partition_node(
    stats: SampleStats, n: Node, k: int, text_only: bool, term_hash: np.ndarray, apply: bool = True
) -> tuple[float, list[Node]]:
    """PartitionNode(n, k): text split for text-friendly nodes and text pieces, otherwise
    the cheaper of a text split and a space split (``sum L(children)``). With
    ``apply=False`` (ComputeNumberPartitions' dry run) ``n`` is left unchanged."""
    if k <= 1:
        return stats.load([n.unit]), [n]
    options = []
    t_plan = _copy_leaf(n)
    t_leaves = node_text_split(stats, t_plan, k, term_hash)
    options.append((sum(stats.load([c.unit]) for c in t_leaves), t_plan, t_leaves))
    if not (text_only or n.origin == "text"):
        s_plan = _copy_leaf(n)
        s_leaves = space_split(stats, s_plan, k)
        if len(s_leaves) == k:
            options.append((sum(stats.load([c.unit]) for c in s_leaves), s_plan, s_leaves))
    total, plan, leaves = min(options, key=lambda o: o[0])
    if apply:
        _graft(n, plan)
    return total, leaves


def compute_number_partitions(costs: np.ndarray, n_workers: int) -> tuple[float, list[int]]:
    """ComputeNumberPartitions' DP: ``costs[i, k-1]`` = total load of node ``i`` split into
    ``k`` pieces; minimize the sum with ``sum k_i = N``, every ``k_i >= 1``.
    ``F[i][j] = min_k F[i-1][j-k] + C[i][k]``. Returns (optimum, k per node)."""
    m = costs.shape[0]
    if m > n_workers:
        raise ValueError(f"{m} nodes cannot share {n_workers} workers with >= 1 each")
    inf = float("inf")
    F = np.full((m + 1, n_workers + 1), inf)
    arg = np.zeros((m + 1, n_workers + 1), dtype=np.int64)
    F[0, 0] = 0.0
    for i in range(1, m + 1):
        for j in range(i, n_workers + 1):
            for k in range(1, min(j - i + 1, costs.shape[1]) + 1):
                v = F[i - 1, j - k] + costs[i - 1, k - 1]
                if v < F[i, j]:
                    F[i, j], arg[i, j] = v, k
    ks = []
    j = n_workers
    for i in range(m, 0, -1):
        ks.append(int(arg[i, j]))
        j -= ks[-1]
    return float(F[m, n_workers]), ks[::-1]


# --------------------------------------------------------------------------- MERGE


class _Part:
    """A part's load kept incrementally (objects/queries shared within a part once)."""

    def __init__(self, stats: SampleStats) -> None:
        self.stats = stats
        self.o = np.zeros(len(stats.objects), dtype=bool)
        self.q = np.zeros(len(stats.queries), dtype=bool)
        self.n_o = self.n_q = 0
        self.checks = 0.0
        self.pairs = 0.0
        self.nodes: list[Node] = []

    def _load(self, n_o: int, n_q: int, checks: float, pairs: float) -> float:
        c = self.stats.costs
        m = {"gi2_checks": checks, "pairs_unit": pairs, "pairs_literal": float(n_o) * n_q}[c.model]
        return c.c_m * m + c.c_o * n_o + c.c_q * n_q

    @property
    def load(self) -> float:
        return self._load(self.n_o, self.n_q, self.checks, self.pairs)

    def delta(self, s: UnitSets) -> float:
        d_o = int((~self.o[s.objects]).sum())
        d_q = int((~self.q[s.queries]).sum())
        new = self._load(
            self.n_o + d_o,
            self.n_q + d_q,
            self.checks + s.checks,
            self.pairs + len(s.objects) * len(s.queries),
        )
        return new - self.load

    def add(self, n: Node, s: UnitSets) -> None:
        self.n_o += int((~self.o[s.objects]).sum())
        self.n_q += int((~self.q[s.queries]).sum())
        self.o[s.objects] = True
        self.q[s.queries] = True
        self.checks += s.checks
        self.pairs += len(s.objects) * len(s.queries)
        self.nodes.append(n)


def merge_nodes(
    stats: SampleStats, leaves: list[Node], n_workers: int, sigma: float, rule: str = "max"
) -> list[_Part]:
    """MergeNodesIntoPartitions: leaves by load descending; each to the part whose load grows
    least if that "does not increase the load balancing factor", else to the least-loaded
    part.

    The factor is read as ``max_p L(P_p) / avg`` (the minimum is 0 while parts are empty and
    the average ``sum L(n) / N`` is fixed), so ``rule="max"`` (default) accepts the cheapest
    part only if it does not raise the current maximum -- LPT with a bonus for sharing.
    ``rule="sigma_avg"`` (the other reading) accepts while ``max <= sigma * avg``: it fills the
    cheapest parts up to sigma * avg and leaves the last ones short (measured on TWEETS-US'
    Q1, 100k objects, N = 8: max/min 1.93 at 64 leaves, so the balance test never passes).
    """
    sets = [stats.unit_sets(n.unit) for n in leaves]
    loads = np.array([stats.load_of_sets([s]) for s in sets])
    avg = loads.sum() / n_workers
    parts = [_Part(stats) for _ in range(n_workers)]
    for i in np.argsort(-loads, kind="stable"):
        deltas = np.array([p.delta(sets[i]) for p in parts])
        j = int(np.argmin(deltas))
        cur_max = max(p.load for p in parts)
        new = parts[j].load + deltas[j]
        if rule == "max":
            ok = new <= cur_max
        elif rule == "sigma_avg":
            ok = max(cur_max, new) <= sigma * avg
        else:
            raise ValueError(f"merge rule must be 'max' or 'sigma_avg', got {rule!r}")
        if not ok:
            j = int(np.argmin([p.load for p in parts]))
        parts[j].add(leaves[i], sets[i])
    return parts


# --------------------------------------------------------------------------- Algorithm 1


def hybrid_partition(
    stats: SampleStats, n_workers: int, term_hash: np.ndarray, params: HybridParams | None = None
) -> Partition:
    """Algorithm 1: the kdt-tree and its leaves' workers."""
    p = params or HybridParams()
    g = stats.grid.g
    root = Node(0, 0, g, g)
    ns, nt = phase_one(stats, root, p)
    text_friendly = {id(n) for n in nt}
    leaves = ns + nt
    info = {
        "NS": len(ns),
        "NT": len(nt),
        "dp": None,
        "balance_splits": 0,
        "root_similarity": stats.similarity(
            0, 0, g, g, query_terms=p.query_terms, estimator=p.similarity
        ),
    }
    if len(leaves) < n_workers:
        m = len(leaves)
        kmax = n_workers - m + 1
        costs = np.full((m, kmax), np.inf)
        for i, n in enumerate(leaves):
            for k in range(1, kmax + 1):
                costs[i, k - 1], _ = partition_node(
                    stats, n, k, id(n) in text_friendly, term_hash, apply=False
                )
        best, ks = compute_number_partitions(costs, n_workers)
        info["dp"] = {"optimum": best, "k": ks}
        for n, k in zip(leaves, ks, strict=True):
            if k > 1:
                partition_node(stats, n, k, id(n) in text_friendly, term_hash)
    max_nodes = p.max_nodes_per_worker * n_workers
    while True:
        leaves = list(root.leaves())
        if len(leaves) > n_workers:
            parts = merge_nodes(stats, leaves, n_workers, p.sigma, p.merge_rule)
            groups = [pt.nodes for pt in parts]
        else:
            groups = [[n] for n in leaves] + [[] for _ in range(n_workers - len(leaves))]
        loads = np.array([stats.load([n.unit for n in grp]) for grp in groups])
        if loads.max() <= p.sigma * loads.min() or len(leaves) >= max_nodes:
            break
        leaf_loads = [stats.load([n.unit]) for n in leaves]
        order = np.argsort(leaf_loads)[::-1]
        for i in order:
            before = len(list(root.leaves()))
            partition_node(stats, leaves[i], 2, id(leaves[i]) in text_friendly, term_hash)
            if len(list(root.leaves())) > before:
                break
        else:
            break  # nothing can be split further
        info["balance_splits"] += 1
    for w, grp in enumerate(groups):
        for n in grp:
            n.worker = w
    info["leaves"] = len(leaves)
    info["text_leaves"] = sum(1 for n in leaves if n.terms is not None)
    info["balance"] = float(loads.max() / max(loads.min(), 1e-12))
    return Partition(root, n_workers, "hybrid", info)
