"""The cost model of PS2Stream (Defs. 1 and 3, Sect. IV-A / V-A) on a build sample.

Definition 1 lists the sets a worker ``w_i`` receives in a period -- objects ``O_i``,
query insertions ``Q_i^ins`` and deletions ``Q_i^del`` -- and four unit costs: ``c_m``
(checking one object against one query), ``c_o`` (handling one object), ``c_ins``,
``c_del``. The formula itself was lost in the text; ``L = c_m * M + c_o |O| + c_ins |Q^ins|
+ c_del |Q^del|`` with three readings of the match count ``M``, chosen by
``CostParams.model``:

* ``gi2_checks`` (default): ``M = sum over (cell c, term t) owned of n_o(c,t) * n_q(c,t)``,
  the candidate checks a GI2 worker really performs (``n_o``: sample objects in ``c``
  containing ``t``; ``n_q``: queries covering ``c`` registered under ``t``);
* ``pairs_unit``: ``M = sum over units |O_u| * |Q_u|`` (Definition 3's ``|O_g| * |Q_g|``);
* ``pairs_literal``: ``M = |O_i| * |Q_i|`` for the whole worker.

Why ``gi2_checks`` is the default: the paper explains its results by duplication (text
partitioning copies objects, space partitioning copies queries); under ``gi2_checks`` the
match count does not depend on the partition, so the partitioners trade exactly those
copies, whereas the pairs readings reward splitting dense regions for a quadratic term no
GI2 worker pays.

A **unit** is a rectangle of base cells with a term set (``None`` = all terms). It receives
the sample objects in its rectangle that contain a term of the set with a live query
registered in their cell (the dispatcher's ``H_q`` filter, Sect. IV-C), and the queries
overlapping the rectangle with a registering key in the set. A set of units on one worker
counts an object or query that reaches several of them once. :meth:`SampleStats.load` is
the one load function every partitioner (and the notebook's balance numbers) uses.

Unit costs are ratios; :func:`calibrate_costs` measures them on the GI2 kernel.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

import numba
import numpy as np
import scipy.sparse as sp

from routelab.readings import pick
from routelab.spatial.grid import BaseGrid
from routelab.spatial.model import Objects, Queries
from routelab.timing import now as clock
from routelab.uniques import sorted_member, unique

COST_MODELS = ("gi2_checks", "pairs_unit", "pairs_literal")
UPDATE_UNITS = ("query", "posting")


#: an update's cost per GI2 posting in the posting reading: a posting written or purged
#: touches one list entry, as a candidate check (c_m = 1) reads one
POSTING_UPDATE_COST = 1.0


@dataclass(frozen=True)
class CostParams:
    """Definition 1's unit costs (ratios) and the reading of the match count."""

    #: our reading (READINGS.md); ``ROUTELAB_READING=load`` flips it to "pairs_unit" for a run
    model: str = field(default_factory=lambda: pick("load", "gi2_checks", "pairs_unit"))
    c_m: float = 1.0
    c_o: float = 10.0
    #: ``ROUTELAB_READING=posting`` makes ``c_ins`` and ``c_del`` 1 per posting for a run
    c_ins: float = field(default_factory=lambda: pick("posting", 10.0, POSTING_UPDATE_COST))
    c_del: float = field(default_factory=lambda: pick("posting", 10.0, POSTING_UPDATE_COST))
    #: what an update is charged per: ``"query"`` (Definition 1: ``c_ins`` per inserted
    #: query, ``c_del`` per deleted one) or ``"posting"`` (``c_ins + c_del`` per GI2
    #: posting the query makes: every base cell it covers x every registering key), the
    #: reading the clock favours (READINGS.md); ``ROUTELAB_READING=posting`` flips it to
    #: ``"posting"`` (with ``c_ins = c_del = 1``) for a run
    update_unit: str = field(default_factory=lambda: pick("posting", "query", "posting"))

    def __post_init__(self) -> None:
        if self.model not in COST_MODELS:
            raise ValueError(f"cost model must be one of {COST_MODELS}, got {self.model!r}")
        if self.update_unit not in UPDATE_UNITS:
            raise ValueError(f"update_unit must be one of {UPDATE_UNITS}, got {self.update_unit!r}")

    @property
    def per_posting(self) -> bool:
        return self.update_unit == "posting"

    def in_postings(self) -> CostParams:
        """These costs with updates charged per GI2 posting, ``c_ins = c_del =``
        :data:`POSTING_UPDATE_COST`: the alternative of READINGS.md's "Updates per query or
        per posting", the costs
        ``ROUTELAB_READING=posting`` gives a whole run and the ones notebook 11's
        posting-unit builds use beside the paper's units."""
        cost = POSTING_UPDATE_COST
        return replace(self, c_ins=cost, c_del=cost, update_unit="posting")

    @property
    def c_q(self) -> float:
        """A stored query costs one insertion and one deletion in the period."""
        return self.c_ins + self.c_del


@dataclass(frozen=True)
class Unit:
    """Base cells ``[x0, x1) x [y0, y1)`` with a term mask (``None`` = every term)."""

    x0: int
    y0: int
    x1: int
    y1: int
    terms: np.ndarray | None = field(default=None, compare=False, hash=False)
    tag: int = 0  # distinguishes text pieces of one rectangle in caches


@dataclass
class UnitSets:
    checks: float
    objects: np.ndarray  # sample object indices reaching the unit
    queries: np.ndarray  # sample query indices stored for the unit
    postings: float = 0.0  # GI2 postings those queries make in the unit (cells x keys)


def _prefix2d(values: np.ndarray, g: int) -> np.ndarray:
    p = np.zeros((g + 1, g + 1), dtype=np.float64)
    p[1:, 1:] = values.reshape(g, g).cumsum(0).cumsum(1)
    return p


def _rect_sum(p: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> float:
    return float(p[y1, x1] - p[y0, x1] - p[y1, x0] + p[y0, x0])


class SampleStats:
    """The build sample's statistics (see the module docstring)."""

    def __init__(
        self,
        grid: BaseGrid,
        objects: Objects,
        queries: Queries,
        n_terms: int,
        costs: CostParams | None = None,
    ) -> None:
        if queries.keys is None:
            raise ValueError("queries need registering keys (assign_keys) before the stats")
        self.grid, self.objects, self.queries = grid, objects, queries
        self.n_terms = int(n_terms)
        self.costs = costs or CostParams()
        g = grid.g
        self.ocx = grid.cx(objects.lon)
        self.ocy = grid.cy(objects.lat)
        self.ocell = self.ocy * g + self.ocx
        self.qr = grid.cell_ranges(queries.rect)  # inclusive x0, y0, x1, y1
        # object entries
        self.e_obj = objects.entry_owner()
        self.e_term = objects.terms.astype(np.int64)
        e_cell = self.ocell[self.e_obj]
        ones = np.ones(len(self.e_obj))
        self.n_o = sp.csr_matrix((ones, (e_cell, self.e_term)), shape=(g * g, self.n_terms))
        # query key entries expanded over the covered cells
        k_q = queries.key_owner()
        k_t = queries.keys.astype(np.int64)
        qc, qk = self._expand(k_q, k_t)
        self.n_q = sp.csr_matrix((np.ones(len(qc)), (qc, qk)), shape=(g * g, self.n_terms))
        self.n_q.sum_duplicates()
        self.n_o.sum_duplicates()
        self.k_q, self.k_t = k_q, k_t
        # an entry is live if a query is registered under its term in its cell
        live_keys = unique(qc * self.n_terms + qk)  # sorted
        self.e_live = sorted_member(e_cell * self.n_terms + self.e_term, live_keys)
        self.o_matchable = np.zeros(len(objects), dtype=bool)
        self.o_matchable[self.e_obj[self.e_live]] = True
        self.K = self.n_o.multiply(self.n_q).tocsr()
        self._p_checks = _prefix2d(np.asarray(self.K.sum(axis=1)).ravel(), g)
        cell_obj = np.bincount(self.ocell[self.o_matchable], minlength=g * g).astype(np.float64)
        self._p_objects = _prefix2d(cell_obj, g)
        self._p_all_objects = _prefix2d(np.bincount(self.ocell, minlength=g * g).astype(float), g)
        self._p_postings = _prefix2d(np.asarray(self.n_q.sum(axis=1)).ravel(), g)
        self.q_terms_q, self.q_terms_t = queries.all_terms()
        self._cache: dict[tuple, UnitSets] = {}

    def with_costs(self, costs: CostParams) -> SampleStats:
        """The same statistics read with other unit costs (a reading such as updates per
        posting): the sample's counts do not depend on the costs, so they are shared, not
        recomputed; only the unit cache starts empty."""
        out = copy.copy(self)
        out.costs = costs
        out._cache = {}
        return out

    # ------------------------------------------------------------------ helpers
    def _expand(self, q_idx: np.ndarray, payload: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(cell, payload) for every cell covered by query ``q_idx`` (per entry)."""
        g = self.grid.g
        r = self.qr[q_idx]
        w = r[:, 2] - r[:, 0] + 1
        h = r[:, 3] - r[:, 1] + 1
        n = w * h
        rep = np.repeat(np.arange(len(q_idx)), n)
        offs = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
        cx = r[rep, 0] + offs % w[rep]
        cy = r[rep, 1] + offs // w[rep]
        return cy * g + cx, payload[rep]

    def queries_overlapping(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """The sample queries whose inclusive cell range meets the half-open block
        ``[x0, x1) x [y0, y1)`` (a mask; one fused pass, :func:`overlap_mask`)."""
        return overlap_mask(self.qr, x0, y0, x1, y1)

    def objects_in(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        return (self.ocx >= x0) & (self.ocx < x1) & (self.ocy >= y0) & (self.ocy < y1)

    def n_objects(self, x0: int, y0: int, x1: int, y1: int) -> float:
        return _rect_sum(self._p_all_objects, x0, y0, x1, y1)

    def cell_rows(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        g = self.grid.g
        ys = np.arange(y0, y1)
        return (ys[:, None] * g + np.arange(x0, x1)[None, :]).ravel()

    # ------------------------------------------------------------------ units
    def unit_sets(self, u: Unit) -> UnitSets:
        """The sample objects and queries a unit receives and its candidate checks."""
        key = (u.x0, u.y0, u.x1, u.y1, u.tag, None if u.terms is None else id(u.terms))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        rect = (u.x0, u.y0, u.x1, u.y1)
        qmask = self.queries_overlapping(*rect)
        if u.terms is None:
            checks = _rect_sum(self._p_checks, *rect)
            postings = _rect_sum(self._p_postings, *rect)
            objs = np.flatnonzero(self.objects_in(*rect) & self.o_matchable)
        else:
            tm = u.terms
            rows = self.cell_rows(*rect)
            tf = tm.astype(np.float64)
            checks = float((self.K[rows] @ tf).sum()) if len(rows) else 0.0
            postings = float((self.n_q[rows] @ tf).sum()) if len(rows) else 0.0
            inrect = self.objects_in(*rect)
            e = self.e_live & tm[self.e_term] & inrect[self.e_obj]
            objs = unique(self.e_obj[e])
            has_key = np.zeros(len(self.queries), dtype=bool)
            has_key[self.k_q[tm[self.k_t]]] = True
            qmask &= has_key
        out = UnitSets(float(checks), objs, np.flatnonzero(qmask), float(postings))
        self._cache[key] = out
        return out

    def load_of_sets(self, sets: list[UnitSets]) -> float:
        """Definition 1 on a worker holding these units (shared objects/queries once)."""
        c = self.costs
        if not sets:
            return 0.0
        if len(sets) == 1:
            n_o, n_q = len(sets[0].objects), len(sets[0].queries)
        else:
            n_o = len(unique(np.concatenate([s.objects for s in sets])))
            n_q = len(unique(np.concatenate([s.queries for s in sets])))
        if c.model == "gi2_checks":
            m = sum(s.checks for s in sets)
        elif c.model == "pairs_unit":
            m = float(sum(len(s.objects) * len(s.queries) for s in sets))
        else:
            m = float(n_o) * n_q
        if c.per_posting:  # units on one worker hold disjoint (cell, key) postings
            return c.c_m * m + c.c_o * n_o + c.c_q * sum(s.postings for s in sets)
        return c.c_m * m + c.c_o * n_o + c.c_q * n_q

    def load(self, units: list[Unit]) -> float:
        """``L(P)``: the load of a worker holding ``units`` (the one ``unit_load``)."""
        return self.load_of_sets([self.unit_sets(u) for u in units])

    def cell_loads(
        self, x0: int, y0: int, x1: int, y1: int, terms: np.ndarray | None = None
    ) -> np.ndarray:
        """Approximate per-cell load of a region ``(y1-y0, x1-x0)`` for load-median cuts:
        checks + matchable objects + queries covering each cell (queries counted per cell)."""
        c = self.costs
        rows = self.cell_rows(x0, y0, x1, y1)
        if terms is None:
            chk = np.asarray(self.K[rows].sum(axis=1)).ravel()
            nq = np.asarray(self.n_q[rows].sum(axis=1)).ravel()
            e = self.e_live
        else:
            tf = terms.astype(np.float64)
            chk = self.K[rows] @ tf
            nq = self.n_q[rows] @ tf
            e = self.e_live & terms[self.e_term]
        g = self.grid.g
        o = np.zeros(g * g)
        objs = unique(self.e_obj[e])
        np.add.at(o, self.ocell[objs], 1.0)
        m = chk if c.model == "gi2_checks" else o[rows] * nq
        load = c.c_m * m + c.c_o * o[rows] + c.c_q * nq
        return load.reshape(y1 - y0, x1 - x0)

    def term_loads(
        self, x0: int, y0: int, x1: int, y1: int, terms: np.ndarray | None = None
    ) -> np.ndarray:
        """``l_n(t)`` over the vocabulary for a region (text partitioning's term weight):
        ``c_m * checks(t) + c_o * n_o(t) + c_q * n_q(t)`` (our reading: the text says only
        that it "uses the frequency values of the terms")."""
        c = self.costs
        rows = self.cell_rows(x0, y0, x1, y1)
        chk = np.asarray(self.K[rows].sum(axis=0)).ravel()
        no = np.asarray(self.n_o[rows].sum(axis=0)).ravel()
        qm = self.queries_overlapping(x0, y0, x1, y1)
        nq = np.bincount(self.k_t[qm[self.k_q]], minlength=self.n_terms).astype(np.float64)
        # an update's charge: per query, or per posting each term's queries make here
        upd = np.asarray(self.n_q[rows].sum(axis=0)).ravel() if c.per_posting else nq
        m = chk if c.model == "gi2_checks" else no * nq
        load = c.c_m * m + c.c_o * no + c.c_q * upd
        if terms is not None:
            load = np.where(terms, load, 0.0)
        return load

    def similarity(
        self,
        x0: int,
        y0: int,
        x1: int,
        y1: int,
        query_terms: str = "all",
        estimator: str = "plugin",
    ) -> float:
        """Cosine of the region's object term counts and query keyword counts (Alg. 1 l. 5).

        ``estimator="plugin"``: the cosine of the sample's counts. It shrinks with the
        region's size even when objects and queries share one term distribution (few
        counts spread over many terms look dissimilar), so a fixed threshold means "small
        region" more than "different text". ``"debiased"``: each squared norm ``|v|^2`` is
        replaced by ``|v|^2 - sum(v)``, its unbiased estimate for counts drawn from a
        distribution, so two samples of one distribution score ~1 at any size (clipped to
        [0, 1]; 0 where a side has no repeated term)."""
        if estimator not in ("plugin", "debiased"):
            raise ValueError(f"estimator must be 'plugin' or 'debiased', got {estimator!r}")
        rows = self.cell_rows(x0, y0, x1, y1)
        vo = np.asarray(self.n_o[rows].sum(axis=0)).ravel()
        qm = self.queries_overlapping(x0, y0, x1, y1)
        if query_terms == "registering":
            vq = np.bincount(self.k_t[qm[self.k_q]], minlength=self.n_terms).astype(float)
        else:
            vq = np.bincount(self.q_terms_t[qm[self.q_terms_q]], minlength=self.n_terms).astype(
                float
            )
        so, sq = float(vo @ vo), float(vq @ vq)
        if estimator == "debiased":
            so, sq = so - float(vo.sum()), sq - float(vq.sum())
        if so <= 0 or sq <= 0:
            return 0.0
        return float(min(1.0, vo @ vq / np.sqrt(so * sq)))


def calibrate_costs(
    n_queries: int = 20_000, n_objects: int = 20_000, seed: int = 0, model: str = "gi2_checks"
) -> CostParams:
    """Unit costs measured on the GI2 kernel with a synthetic workload (ratios, c_m = 1).

    Times inserting queries, deleting them (lazy + purge) and matching objects, and
    solves for ``c_o`` (per object, beyond its checks) and ``c_ins``/``c_del`` per query
    in units of one candidate check.
    """
    from routelab.spatial.gi2 import GI2Kernel, WorkerTuples
    from routelab.spatial.model import DEL, INS, OBJ

    rng = np.random.default_rng(seed)
    n_terms = 500
    ptr = np.arange(0, 4 * n_objects + 1, 4, dtype=np.int64)
    # four distinct terms per object (an object's terms are a set)
    terms = (
        np.sort(np.argpartition(rng.random((n_objects, n_terms)), 4, axis=1)[:, :4], axis=1)
        .astype(np.int32)
        .ravel()
    )
    objects = Objects(
        np.arange(n_objects), rng.random(n_objects), rng.random(n_objects), ptr, terms
    )
    q_terms = rng.integers(0, n_terms, n_queries).astype(np.int32)
    rect = np.stack(
        [np.zeros(n_queries), np.zeros(n_queries), np.ones(n_queries), np.ones(n_queries)], 1
    )
    rng_ptr = np.arange(n_queries + 1, dtype=np.int64)
    queries = Queries(np.arange(n_queries), rect, rng_ptr, rng_ptr, q_terms, rng_ptr, q_terms)
    cells = rng.integers(0, 16, n_objects)

    def run(kind: int, n: int) -> tuple[float, int]:
        k = GI2Kernel(objects, queries, cells, n_terms)
        ins = WorkerTuples(
            np.full(n_queries, INS, np.int8),
            np.arange(n_queries),
            np.arange(n_queries + 1),
            rng.integers(0, 16, n_queries),
            q_terms,
        )
        t0 = clock()
        k.replay(ins)
        t_ins = clock() - t0
        if kind == INS:
            return t_ins, n_queries
        if kind == DEL:
            d = WorkerTuples.unposted(DEL, np.arange(n_queries))
            t0 = clock()
            r = k.replay(d)
            return clock() - t0, int(r.checks.sum())
        o = WorkerTuples.unposted(OBJ, np.arange(n))
        t0 = clock()
        r = k.replay(o)
        return clock() - t0, int(r.checks.sum())

    run(OBJ, 100)  # compile
    t_ins, _ = run(INS, 0)
    t_del, _ = run(DEL, 0)
    t_obj, checks = run(OBJ, n_objects)
    # t_obj = n_objects * c_o + checks * c_m (one unknown per measurement; split by a
    # second run with ~0 checks: objects in empty cells)
    cells_empty = cells + 1000
    k = GI2Kernel(objects, queries, cells_empty, n_terms)
    o = WorkerTuples.unposted(OBJ, np.arange(n_objects))
    t0 = clock()
    k.replay(o)
    t_obj0 = clock() - t0
    per_obj = t_obj0 / n_objects
    per_check = max(t_obj - t_obj0, 1e-12) / max(checks, 1)
    return CostParams(
        model=model,
        c_m=1.0,
        c_o=round(per_obj / per_check, 3),
        c_ins=round(t_ins / n_queries / per_check, 3),
        c_del=round(t_del / n_queries / per_check, 3),
    )


@numba.njit(cache=True)
def overlap_mask(ranges: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """Rows of ``ranges`` (inclusive cell ranges ``x0, y0, x1, y1``, one per query) that meet
    the half-open cell block ``[x0, x1) x [y0, y1)``: the four comparisons in one pass
    instead of seven array passes (the partitioners ask this thousands of times per build)."""
    out = np.empty(ranges.shape[0], dtype=np.bool_)
    for i in range(ranges.shape[0]):
        out[i] = (
            (ranges[i, 0] < x1)
            and (ranges[i, 2] >= x0)
            and (ranges[i, 1] < y1)
            and (ranges[i, 3] >= y0)
        )
    return out
