"""Notebook 11's worked example: registering keys and one GI2 cell, small enough to check
by hand (the same example as ``tests/test_spatial_core.py::test_gi2_hand_example``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from routelab.spatial.gi2 import GI2Reference, WorkerTuples
from routelab.spatial.model import (
    DEL,
    INS,
    KIND_NAMES,
    OBJ,
    Vocabulary,
    assign_keys,
    format_expression,
    make_objects,
    make_queries,
)


def worked_example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(queries with their registering keys, the replay of six tuples through one cell)."""
    v = Vocabulary()
    objs = make_objects(
        [10, 11, 12], [0.5, 1.5, 1.5], [0.5, 1.5, 1.5], [["flu", "shot"], ["cold"], ["cold"]], v
    )
    dnfs = [[["flu", "shot"]], [["flu"], ["cold"]]]
    qs = make_queries([1, 2], [[0, 0, 1, 1], [0, 0, 2, 2]], dnfs, v)
    freq = np.array([10, 1, 5])  # sample frequencies of flu, shot, cold
    assign_keys(qs, freq)
    queries = pd.DataFrame(
        {
            "query": [1, 2],
            "expression": [format_expression(d) for d in dnfs],
            "rectangle": ["[0,1] x [0,1]", "[0,2] x [0,2]"],
            "registering keys": [", ".join(v.terms[t] for t in qs.keys_of(i)) for i in range(2)],
            "why": [
                "AND: one conjunct, least frequent of flu (10) and shot (1)",
                "OR: two conjuncts, each its own key",
            ],
        }
    )
    flu, shot, cold = (v.index[w] for w in ("flu", "shot", "cold"))
    kinds = np.array([INS, INS, OBJ, OBJ, DEL, OBJ], np.int8)
    refs = np.array([0, 1, 0, 1, 1, 2])
    tuples = WorkerTuples(
        kinds,
        refs,
        np.array([0, 1, 3, 3, 3, 3, 3]),
        np.array([0, 0, 0]),
        np.array([shot, flu, cold], np.int32),
    )
    index = GI2Reference(objs, qs, np.zeros(3, dtype=np.int64), purge_fraction=10.0)
    rows = []
    for i in range(len(tuples)):
        one = WorkerTuples(
            kinds[i : i + 1],
            refs[i : i + 1],
            tuples.post_ptr[i : i + 2] - tuples.post_ptr[i],
            tuples.post_cell[tuples.post_ptr[i] : tuples.post_ptr[i + 1]],
            tuples.post_key[tuples.post_ptr[i] : tuples.post_ptr[i + 1]],
        )
        r = index.replay(one)
        k = int(kinds[i])
        what = (
            f"object {int(objs.ids[refs[i]])} {sorted(v.terms[t] for t in objs.terms_of(refs[i]))}"
            if k == OBJ
            else f"query {int(qs.ids[refs[i]])}"
        )
        rows.append(
            {
                "tuple": i,
                "kind": KIND_NAMES[k],
                "what": what,
                "candidate checks": int(r.checks[0]),
                "matches": ", ".join(f"q{int(qs.ids[q])}" for q in r.match_query) or "-",
                "lists after": "; ".join(
                    f"{v.terms[t]}: {[int(qs.ids[q]) for q in lst]}"
                    for (_, t), lst in sorted(index.lists.items())
                ),
            }
        )
    return queries, pd.DataFrame(rows)
