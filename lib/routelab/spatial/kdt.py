"""The kdt-tree (Sect. IV-B, Fig. 3): a kd-tree whose leaves may be split further by text.

Node kinds: ``space`` (a cut at base-grid line ``cut`` along ``dim`` 0 = x/longitude,
1 = y/latitude; child 0 below the cut), ``text`` (``groups[t]`` = the child that owns term
``t``; every term of the vocabulary has a child: sample terms by the partitioner, other
terms by a seeded stable hash) and ``leaf`` (one unit of work, assigned to a
worker). Below a text node there are only text nodes and leaves (a text piece is only
ever split by text again, Algorithm 1's PartitionNode).

Every partitioner of this package returns a :class:`Partition` (a tree + leaf -> worker),
space baselines included (grid cells and STR tiles are trees of cuts) and text baselines
(one text node at the root). :meth:`Partition.route_cell_term` walks the tree -- the
reference the dispatcher's gridt index (:mod:`routelab.spatial.gridt`) is tested against.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from routelab.spatial.cost import SampleStats, Unit


@dataclass(eq=False)
class Node:
    """A kdt-tree node over base cells ``[x0, x1) x [y0, y1)``; ``terms`` is the mask of
    terms routed here (``None`` = all)."""

    x0: int
    y0: int
    x1: int
    y1: int
    terms: np.ndarray | None = None
    kind: str = "leaf"
    dim: int = -1
    cut: int = -1
    groups: np.ndarray | None = None
    children: list[Node] = field(default_factory=list)
    worker: int = -1
    origin: str = "root"  # how it was made: root / space / text
    tag: int = 0

    @property
    def rect(self) -> tuple[int, int, int, int]:
        return (self.x0, self.y0, self.x1, self.y1)

    @property
    def unit(self) -> Unit:
        return Unit(self.x0, self.y0, self.x1, self.y1, self.terms, self.tag)

    def leaves(self) -> Iterator[Node]:
        if self.kind == "leaf":
            yield self
        else:
            for c in self.children:
                yield from c.leaves()

    def nodes(self) -> Iterator[Node]:
        yield self
        for c in self.children:
            yield from c.nodes()

    def depth(self) -> int:
        return 0 if not self.children else 1 + max(c.depth() for c in self.children)


_TAGS = iter(range(1, 1 << 62))


def space_children(n: Node, dim: int, cut: int) -> tuple[Node, Node]:
    """Split ``n`` at base-grid line ``cut`` (exclusive of the lower child) along ``dim``."""
    if dim == 0:
        if not n.x0 < cut < n.x1:
            raise ValueError(f"cut x={cut} outside ({n.x0}, {n.x1})")
        a = Node(n.x0, n.y0, cut, n.y1, n.terms, origin="space", tag=next(_TAGS))
        b = Node(cut, n.y0, n.x1, n.y1, n.terms, origin="space", tag=next(_TAGS))
    else:
        if not n.y0 < cut < n.y1:
            raise ValueError(f"cut y={cut} outside ({n.y0}, {n.y1})")
        a = Node(n.x0, n.y0, n.x1, cut, n.terms, origin="space", tag=next(_TAGS))
        b = Node(n.x0, cut, n.x1, n.y1, n.terms, origin="space", tag=next(_TAGS))
    return a, b


def text_children(n: Node, groups: np.ndarray, k: int) -> list[Node]:
    """Text pieces of ``n``: child ``j`` owns the terms with ``groups == j`` (within n's)."""
    out = []
    for j in range(k):
        mask = groups == j
        if n.terms is not None:
            mask &= n.terms
        out.append(Node(n.x0, n.y0, n.x1, n.y1, mask, origin="text", tag=next(_TAGS)))
    return out


def make_space(n: Node, dim: int, cut: int, children: tuple[Node, Node] | None = None) -> None:
    """Turn leaf ``n`` into a space node (children made if not given)."""
    n.kind, n.dim, n.cut = "space", dim, cut
    n.children = list(children or space_children(n, dim, cut))


def make_text(n: Node, groups: np.ndarray, children: list[Node]) -> None:
    n.kind, n.groups, n.children = "text", groups, children


@dataclass
class Partition:
    """A partitioner's output: the tree and each leaf's worker."""

    root: Node
    n_workers: int
    algorithm: str
    info: dict = field(default_factory=dict)

    def leaves(self) -> list[Node]:
        return list(self.root.leaves())

    def worker_units(self) -> list[list[Unit]]:
        units: list[list[Unit]] = [[] for _ in range(self.n_workers)]
        for leaf in self.leaves():
            units[leaf.worker].append(leaf.unit)
        return units

    def worker_loads(self, stats: SampleStats) -> np.ndarray:
        """``L(w_i)`` of every worker on the sample (Definition 1, sharing within a worker)."""
        return np.array([stats.load(u) for u in self.worker_units()])

    def route_cell_term(self, cx: int, cy: int, term: int) -> int:
        """The worker owning ``term`` in base cell ``(cx, cy)``: walks the tree."""
        n = self.root
        while n.kind != "leaf":
            if n.kind == "space":
                v = cx if n.dim == 0 else cy
                n = n.children[0] if v < n.cut else n.children[1]
            else:
                n = n.children[int(n.groups[term])]
        return n.worker

    def validate(self, g: int, n_terms: int) -> None:
        """Leaves tile the grid x vocabulary exactly once; workers in range."""
        cover = np.zeros((g, g), dtype=np.int64)
        for leaf in self.leaves():
            if not 0 <= leaf.worker < self.n_workers:
                raise ValueError(f"leaf {leaf.rect} has worker {leaf.worker}")
            if leaf.terms is None:
                cover[leaf.y0 : leaf.y1, leaf.x0 : leaf.x1] += n_terms
            else:
                cover[leaf.y0 : leaf.y1, leaf.x0 : leaf.x1] += int(leaf.terms.sum())
        if np.any(cover != n_terms):
            raise ValueError("the partition's leaves do not cover every (cell, term) once")


def hashed_groups(term_hash: np.ndarray, k: int) -> np.ndarray:
    """Seeded stable hash of every term into ``0..k-1`` (unseen terms)."""
    return (term_hash % np.uint64(k)).astype(np.int64)
