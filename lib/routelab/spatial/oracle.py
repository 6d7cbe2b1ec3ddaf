"""Brute-force matching over the stream, by the definition of Sect. III-A (the tests' oracle).

Every object is checked against every query alive at its position: the rectangle test is
shapely's ``intersects_xy`` on the query boxes (a point on the boundary of a closed box
intersects it), the keyword test evaluates the DNF on the object's term set. Nothing of
the partitioners, the gridt or GI2 is used.
"""

from __future__ import annotations

import numpy as np
import shapely

from routelab.spatial.model import DEL, INS, OBJ, Stream, satisfies


def oracle_pairs(stream: Stream) -> set[tuple[int, int]]:
    """All delivered ``(query id, object id)`` pairs of the stream."""
    queries, objects = stream.queries, stream.objects
    boxes = shapely.box(
        queries.rect[:, 0], queries.rect[:, 1], queries.rect[:, 2], queries.rect[:, 3]
    )
    live: dict[int, None] = {}
    out: set[tuple[int, int]] = set()
    for kind, ref in zip(stream.kind.tolist(), stream.ref.tolist(), strict=True):
        if kind == INS:
            live[ref] = None
        elif kind == DEL:
            live.pop(ref, None)
        elif kind == OBJ and live:
            alive = np.fromiter(live, dtype=np.int64, count=len(live))
            inside = alive[shapely.intersects_xy(boxes[alive], objects.lon[ref], objects.lat[ref])]
            if len(inside) == 0:
                continue
            terms = frozenset(objects.terms_of(ref).tolist())
            oid = int(objects.ids[ref])
            for q in inside.tolist():
                if satisfies(queries.dnf(q), terms):
                    out.add((int(queries.ids[q]), oid))
    return out
