"""Is hybrid hybrid? What Algorithm 1's threshold sees (PS2Stream Sect. IV-B).

Phase 1 sends a node to ``NS`` (space only) when the cosine of its objects' terms and its
queries' keywords exceeds ``theta``. :func:`similarity_probe` cuts the map like a kd-tree
(median splits, alternating axes) to a fixed depth and reports the similarity of every node
whatever theta says -- the distribution the threshold is applied to -- with the node's
sample objects and queries; :func:`probe_summary` condenses it per set for the claims.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.spatial.cost import SampleStats
from routelab.spatial.hybrid import HybridParams, median_cut
from routelab.spatial.kdt import Node, space_children


def similarity_probe(
    stats: SampleStats, params: HybridParams | None = None, depth: int = 4
) -> pd.DataFrame:
    """Every node of a kd-tree of ``depth`` levels below the root (x first): depth, cell
    rectangle, sample objects, queries overlapping, and the similarity phase 1 computes
    (``params``' query terms and estimator)."""
    p = params or HybridParams()
    g = stats.grid.g
    level = [Node(0, 0, g, g)]
    rows = []
    for d in range(depth + 1):
        nxt = []
        for n in level:
            rows.append(
                {
                    "depth": d,
                    "rect": n.rect,
                    "objects": int(stats.n_objects(*n.rect)),
                    "queries": int(stats.queries_overlapping(*n.rect).sum()),
                    "similarity": stats.similarity(
                        *n.rect, query_terms=p.query_terms, estimator=p.similarity
                    ),
                }
            )
            cut = median_cut(stats, n, d % 2)
            if cut is not None and d < depth:
                nxt += list(space_children(n, d % 2, cut))
        level = nxt
    return pd.DataFrame(rows)


def probe_summary(probe: pd.DataFrame, theta: float) -> dict[str, float]:
    """The root's similarity, the deepest level's quartiles and the share of its nodes
    (weighted by sample objects) below ``theta`` (where phase 1 would consider text)."""
    deep = probe[probe.depth == probe.depth.max()]
    deep = deep[deep.objects > 0]
    w = deep.objects.to_numpy(np.float64)
    s = deep.similarity.to_numpy(np.float64)
    below = float(w[s <= theta].sum() / w.sum()) if w.sum() else float("nan")
    q = np.percentile(s, [25, 50, 75]) if len(s) else [np.nan] * 3
    return {
        "root_similarity": float(probe.loc[probe.depth == 0, "similarity"].iloc[0]),
        "probe_q25": float(q[0]),
        "probe_median": float(q[1]),
        "probe_q75": float(q[2]),
        "probe_below_theta": below,
    }
