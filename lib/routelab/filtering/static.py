"""Schema-based clustering, static (Sect. 3.2): which multi-attribute hash tables to build,
and which access predicate each subscription gets.

- ``best(S, A)`` (Sect. 3.2.1): for each subscription the access predicate of least
  matching cost among those whose schema is in the configuration A: its single equality
  predicates (the initial configuration A0, the phase-1 indexes) and the conjunctions of its
  equalities on a configured schema X subset of A(s); with unit checking cost that is the
  one of least nu (ties: the smaller schema, then the lower attribute).
- The greedy choice of a hashing configuration (Sect. 3.2.3): start from A0 and repeatedly add
  the schema of largest **benefit per unit of space** B / DS (the text garbles the arguments;
  we read B(S, A, X) = bestcost(S, A) - bestcost(S, A + {X}) and
  DS(S, A, X) = Space(S, A + {X}) - Space(S, A)), B the decrease of the expected matching
  cost, DS the added space, until no schema has a positive benefit or the space budget is
  spent. For 6M subscriptions the benefit is computed on a seeded sample (our scalable form):
  only subscriptions with X subset of A(s) change,
  B(X) = N/n_sample * sum_s max(0, nu(cur_s) - nu(X_s)) K_c - mu(X)(C_h + K_h|X|) - K_r.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from routelab.filtering.costmodel import CostConstants, EventStats
from routelab.filtering.model import EQ, PredicateTable, Subscriptions, ranges
from routelab.readings import pick

MAX_ATTRS = 62  # schemas are bit masks of attribute ids


@dataclass
class GreedyStep:
    schema: tuple[int, ...]
    benefit: float  # ns per event saved (expected)
    space: float  # bytes added
    support: int  # sampled subscriptions covering the schema


def equality_matrix(subs: Subscriptions, rows: np.ndarray) -> np.ndarray:
    """(len(rows), n_attrs) predicate id of each subscription's equality predicate on each
    attribute (-1 if none; the first if a subscription contradicts itself)."""
    t = subs.table
    starts, ends = subs.ptr[rows], subs.ptr[rows + 1]
    lengths = ends - starts
    local = np.repeat(np.arange(len(rows)), lengths)
    entries = ranges(starts, lengths)
    pids = subs.preds[entries].astype(np.int64)
    eq = t.op[pids] == EQ
    out = np.full((len(rows), subs.n_attrs), -1, dtype=np.int64)
    # the first (lowest id) equality predicate of an attribute wins: the entries are in
    # order, so keep the first occurrence of each (row, attribute) cell
    # (ids ascend within a subscription). A 1-d assignment in reverse lets the last write,
    # the first entry, win; numpy does not promise that order, so it is verified and
    # redone by sorting if it ever fails.
    flat = local[eq] * subs.n_attrs + t.attr[pids[eq]]
    eq_pids = pids[eq]
    flat_out = out.ravel()
    flat_out[flat[::-1]] = eq_pids[::-1]
    if np.any(flat_out[flat] > eq_pids):
        order = np.argsort(flat, kind="stable")
        first = np.ones(len(flat), dtype=bool)
        first[order[1:][flat[order][1:] == flat[order][:-1]]] = False
        flat_out[flat[first]] = eq_pids[first]
    return out


def predicate_nu(subs: Subscriptions, stats: EventStats) -> np.ndarray:
    """nu of every equality predicate of the table (1.0 for other operators)."""
    return table_nu(subs.table, stats)


def table_nu(t: PredicateTable, stats: EventStats, start: int = 0) -> np.ndarray:
    """nu of predicates ``start..`` of a predicate table (1.0 for non-equalities)."""
    nu = np.ones(len(t) - start)
    for p in np.flatnonzero(t.op[start:] == EQ):
        nu[p] = stats.nu(int(t.attr[start + p]), int(t.value[start + p]))
    return nu


def candidate_schemas(eqm: np.ndarray, max_size: int) -> dict[tuple[int, ...], np.ndarray]:
    """Schemas of 2..max_size attributes occurring in the subscriptions' equality
    attributes, each with the rows that cover it."""
    present = eqm >= 0
    attrs_used = np.flatnonzero(present.any(axis=0))
    out: dict[tuple[int, ...], np.ndarray] = {}
    for k in range(2, max_size + 1):
        for x in combinations(attrs_used.tolist(), k):
            rows = np.flatnonzero(present[:, list(x)].all(axis=1))
            if len(rows):
                out[x] = rows
    return out


def schema_nu(eqm: np.ndarray, rows: np.ndarray, x: tuple[int, ...], nu: np.ndarray) -> np.ndarray:
    """nu of the conjunction of ``rows``' equalities on schema ``x`` (independence)."""
    return np.prod(nu[eqm[np.ix_(rows, list(x))]], axis=1)


def table_space(
    eqm: np.ndarray, rows: np.ndarray, x: tuple[int, ...], scale: float, consts: CostConstants
) -> float:
    """Space a table of schema ``x`` adds: one entry per distinct access predicate (the
    sample's distinct keys, scaled up while the sample sees each key about once)."""
    keys = len(np.unique(eqm[np.ix_(rows, list(x))], axis=0))
    estimated = keys * min(scale, len(rows) * scale / keys)
    return consts.init_space + consts.hash_space * estimated


def greedy_configuration(
    subs: Subscriptions,
    stats: EventStats,
    consts: CostConstants | None = None,
    *,
    max_schema_size: int = 3,
    sample: int | None = None,
    min_support: int = 2,
    max_space: float = float("inf"),
    seed: int = 0,
) -> tuple[list[tuple[int, ...]], list[GreedyStep]]:
    """The greedy static configuration (Sect. 3.2.3): multi-attribute schemas to add to A0,
    and the steps taken (benefit, space, support), in order. The benefits are estimated on
    a seeded ``sample`` of the subscriptions: 200,000 unless given (our reading), every
    subscription under ``ROUTELAB_READING=greedy``."""
    consts = consts or CostConstants()
    if subs.n_attrs > MAX_ATTRS:
        raise ValueError(f"at most {MAX_ATTRS} attributes for multi-attribute tables")
    n = len(subs)
    sample = pick("greedy", 200_000, n) if sample is None else sample
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(n, size=min(n, sample), replace=False)) if n else np.zeros(0, int)
    scale = n / max(1, len(rows))
    eqm = equality_matrix(subs, rows)
    nu = predicate_nu(subs, stats)
    cur = np.append(nu, np.inf)[eqm].min(axis=1) if eqm.shape[1] else np.ones(len(rows))
    cur[~np.isfinite(cur)] = 1.0  # no equality: the catch-all list, always scanned
    candidates = {
        x: r for x, r in candidate_schemas(eqm, max_schema_size).items() if len(r) >= min_support
    }
    cand_nu = {x: schema_nu(eqm, r, x, nu) for x, r in candidates.items()}
    cand_space = {x: table_space(eqm, r, x, scale, consts) for x, r in candidates.items()}
    chosen: list[tuple[int, ...]] = []
    steps: list[GreedyStep] = []
    space = 0.0
    while candidates:
        best, best_ratio = None, 0.0
        for x, r in candidates.items():
            gain = np.maximum(0.0, cur[r] - cand_nu[x]).sum() * scale * consts.K_c
            benefit = gain - stats.mu(x) * (consts.C_h + consts.K_h * len(x)) - consts.K_r
            if benefit <= 0:
                continue
            ds = cand_space[x]
            ratio = benefit / ds
            if ratio > best_ratio:
                best, best_ratio = x, ratio
                best_step = GreedyStep(x, benefit, ds, len(r))
        if best is None or space + best_step.space > max_space:
            break
        chosen.append(best)
        steps.append(best_step)
        space += best_step.space
        r = candidates.pop(best)
        cur[r] = np.minimum(cur[r], cand_nu.pop(best))
    return chosen, steps


def assign_access(
    subs: Subscriptions,
    schemas: list[tuple[int, ...]],
    nu: np.ndarray,
    chunk: int = 1_000_000,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """best(S, A0 + schemas): per subscription, the chosen schema (index into ``schemas``,
    -1 for a single equality, -2 for none), the access predicate ids it consumes
    ((n, max width) -1 padded) and its nu."""
    n = len(subs)
    width = max([1] + [len(x) for x in schemas])
    kind = np.full(n, -2, dtype=np.int64)
    used = np.full((n, width), -1, dtype=np.int64)
    best_nu = np.ones(n)
    for lo in range(0, n, chunk):
        rows = np.arange(lo, min(n, lo + chunk))
        eqm = equality_matrix(subs, rows)
        has = eqm >= 0
        cand = np.append(nu, np.inf)[eqm]  # -1 (no equality on the attribute) -> inf
        if cand.shape[1] == 0:
            continue
        # ties: lowest attribute (argmin takes the first)
        col = np.argmin(cand, axis=1)
        single_nu = cand[np.arange(len(rows)), col]
        ok = np.isfinite(single_nu)
        kind[rows[ok]] = -1
        used[rows[ok], 0] = eqm[np.flatnonzero(ok), col[ok]]
        best_nu[rows[ok]] = single_nu[ok]
        for t, x in enumerate(schemas):
            cover = np.flatnonzero(has[:, list(x)].all(axis=1))
            if not len(cover):
                continue
            x_nu = schema_nu(eqm, cover, x, nu)
            better = x_nu < best_nu[rows[cover]]
            win = cover[better]
            kind[rows[win]] = t
            used[rows[win]] = -1
            used[rows[win], : len(x)] = eqm[np.ix_(win, list(x))]
            best_nu[rows[win]] = x_nu[better]
    return kind, used, best_nu
