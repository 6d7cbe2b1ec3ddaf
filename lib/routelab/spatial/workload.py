"""PS2Stream's workload shape (Sect. VI-A, "Workload"): objects interleaved with query
insertions and deletions.

"The ratio of processing a spatio-textual tweet to inserting or deleting an STS query is
approximately 5. The arrival speeds of requests for inserting an STS query and deleting an
STS query are equivalent": objects : (INS + DEL) = ``obj_update_ratio`` (our
reading: 5, i.e. 10 : 1 : 1). A query lives for a number of subsequent query insertions drawn from a
Gaussian(``mu``, ``mu_sd``), so about ``mu`` queries are alive (the paper's
values are lost; ``mu_sd`` = 0.1 mu).
The first ``mu`` queries are registered before the first object so the stream starts in
that steady state (a reading: the paper does not say how its runs started).

:func:`random_workload` is a small uniform workload for the tests (the notebook's
semi-synthetic tweets are in ``lab/workload.py``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from routelab import readings
from routelab.spatial.model import (
    DEL,
    INS,
    OBJ,
    Objects,
    Queries,
    Stream,
    Vocabulary,
    make_objects,
    make_queries,
)


def interleave(
    n_objects: int,
    n_queries: int,
    mu: float,
    *,
    mu_sd: float | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Stream order (kind, ref) of ``n_objects`` objects (in their order) and ``n_queries``
    query lifetimes. Queries whose lifetime ends after the last insertion stay alive. The
    objects : updates ratio is set by ``n_queries`` (:func:`queries_for_ratio`)."""
    rng = np.random.default_rng(seed)
    mu = max(1.0, float(mu))
    sd = 0.1 * mu if mu_sd is None else mu_sd
    life = np.maximum(1.0, rng.normal(mu, sd, n_queries))
    ins_t = np.arange(n_queries, dtype=np.float64)
    del_t = ins_t + life + 0.5
    keep = del_t < n_queries  # deletions inside the insertion horizon
    u_kind = np.concatenate([np.full(n_queries, INS), np.full(int(keep.sum()), DEL)])
    u_ref = np.concatenate([np.arange(n_queries), np.flatnonzero(keep)])
    u_t = np.concatenate([ins_t, del_t[keep]])
    order = np.argsort(u_t, kind="stable")
    u_kind, u_ref, u_t = u_kind[order], u_ref[order], u_t[order]
    warm = int(min(n_queries, mu))
    n_upd = len(u_kind)
    steady = max(1, n_upd - warm)
    # objects spread over the steady part: object k after update warm + k * steady / n_obj
    o_key = warm - 0.5 + (np.arange(n_objects) + 0.5) * steady / max(n_objects, 1)
    keys = np.concatenate([np.arange(n_upd, dtype=np.float64), o_key])
    kinds = np.concatenate([u_kind, np.full(n_objects, OBJ)]).astype(np.int8)
    refs = np.concatenate([u_ref, np.arange(n_objects)]).astype(np.int64)
    order = np.argsort(keys, kind="stable")
    return kinds[order], refs[order]


def queries_for_ratio(n_objects: int, obj_update_ratio: float | None = None) -> int:
    """Query insertions giving objects : (INS + DEL) = ratio (INS = DEL); the ratio
    defaults to 5 (2.5, objects : INS = objects : DEL = 5, under ``ROUTELAB_READING=ratio``)."""
    if obj_update_ratio is None:
        obj_update_ratio = readings.pick("ratio", 5.0, 2.5)
    return max(1, round(n_objects / obj_update_ratio / 2))


def random_workload(
    seed: int = 0,
    n_objects: int = 300,
    n_queries: int = 60,
    n_terms: int = 25,
    mu: float = 20,
    box: float = 10.0,
    max_side: float = 4.0,
) -> Stream:
    """A small uniform workload: Zipf-like terms, 1-3 keyword AND/OR queries, random boxes
    (some touching the box edge, some degenerate to a point), objects on cell edges too."""
    rng = np.random.default_rng(seed)
    vocab = Vocabulary()
    names = [f"t{i}" for i in range(n_terms)]
    p = 1.0 / np.arange(1, n_terms + 1)
    p /= p.sum()
    words = [list(rng.choice(names, size=rng.integers(1, 5), p=p)) for _ in range(n_objects)]
    lon = rng.uniform(0, box, n_objects)
    lat = rng.uniform(0, box, n_objects)
    lon[::17] = np.round(lon[::17])  # points exactly on grid lines
    objects: Objects = make_objects(np.arange(n_objects) + 1000, lon, lat, words, vocab)
    dnfs = []
    rects = []
    for i in range(n_queries):
        kw = list(dict.fromkeys(rng.choice(names, size=rng.integers(1, 4), p=p)))
        dnfs.append([kw] if rng.random() < 0.5 else [[k] for k in kw])
        cx, cy = rng.uniform(0, box, 2)
        side = 0.0 if i % 11 == 0 else rng.uniform(0.2, max_side)
        rects.append([cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2])
    queries: Queries = make_queries(np.arange(n_queries) + 1, rects, dnfs, vocab)
    kind, ref = interleave(n_objects, n_queries, mu, seed=seed + 1)
    return Stream(objects, queries, kind, ref, vocab, {"kind": "random", "seed": seed})


def on_boundaries(stream: Stream, grid_lines: np.ndarray, seed: int = 0) -> Stream:
    """The stream with its objects moved onto boundaries, so a kernel that treats an edge as
    open (or a cell boundary as belonging to the wrong cell) loses or gains a match: a third
    on a random query rectangle's corners, a third on the middles of its four edges, and
    the rest on crossings of ``grid_lines`` (the base grid's cell boundaries, the same
    values in x and y). Query rectangles with a side are snapped outward to the grid lines
    every third query, so rectangle edges also lie on cell boundaries."""
    rng = np.random.default_rng(seed)
    q = stream.queries
    rect = q.rect.copy()
    snap = (np.arange(len(rect)) % 3 == 1) & (rect[:, 2] > rect[:, 0])
    lines = np.sort(np.asarray(grid_lines, dtype=np.float64))
    lo = np.clip(np.searchsorted(lines, rect[snap, :2], side="right") - 1, 0, len(lines) - 1)
    hi = np.clip(np.searchsorted(lines, rect[snap, 2:], side="left"), 0, len(lines) - 1)
    rect[snap, :2], rect[snap, 2:] = lines[lo], lines[hi]
    queries = dataclasses.replace(q, rect=rect)
    obj = stream.objects
    n = len(obj)
    pick = rng.integers(0, len(rect), n)
    r = rect[pick]
    which = rng.integers(0, 4, n)
    third = np.arange(n) % 3
    corner_x = np.where(which % 2 == 0, r[:, 0], r[:, 2])
    corner_y = np.where(which < 2, r[:, 1], r[:, 3])
    mid_x = np.where(which == 0, r[:, 0], np.where(which == 1, r[:, 2], (r[:, 0] + r[:, 2]) / 2))
    mid_y = np.where(which == 2, r[:, 1], np.where(which == 3, r[:, 3], (r[:, 1] + r[:, 3]) / 2))
    grid_x, grid_y = rng.choice(lines, n), rng.choice(lines, n)
    lon = np.select([third == 0, third == 1], [corner_x, mid_x], grid_x)
    lat = np.select([third == 0, third == 1], [corner_y, mid_y], grid_y)
    objects = dataclasses.replace(obj, lon=lon, lat=lat)
    info = {**stream.info, "boundaries": True}
    return Stream(objects, queries, stream.kind, stream.ref, stream.vocab, info)
