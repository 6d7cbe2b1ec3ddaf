"""Dynamic clustering (Fabret et al., Sect. 4): the clustering kept good while
subscriptions come and go and event statistics drift.

The structures are static clustering's (:mod:`.clusters`: clusters, access predicates,
multi-attribute hash tables; Fig. 2 matching with prefetching); what is new is *when* a
table exists and *where* a subscription lives.

**Metrics** (Sect. 4, "Algorithm Metrics": the paper's approximations, which we use):

- benefit margin of a cluster c, ``BM(c) = nu(p_c) |c|``: the subscriptions of c checked
  per event (:meth:`DynamicMatcher.benefit_margin`);
- benefit of a table H, ``B(H) = |H|``: the subscriptions whose access predicate is in H
  (``table_size``, kept on every insert, delete and move);
- reparation power of a candidate table H not in the configuration with respect to the
  clusters C' sent to phase 2, ``RP(H, C') = |Dmove(H, C')|``: the subscriptions of C'
  whose equality predicates cover H's schema and for which H's access predicate is more
  selective than their cluster's, ``nu(p_s^H) < nu(p_c)`` (``rp``; the paper writes
  ``>=``; we read strict, as a move without gain is no repair: ``dmove_strict``).

The exact metrics (absolute benefit ``(1 - nu(p_c)) |c|``, benefit margin
``sum_s nu(p_c) - nu(P(s))``) are what these approximate when equality selectivities are
small; :meth:`DynamicMatcher.exact_metrics` reports them for the notebook.

**Maintenance** (Sect. 4.1; :meth:`DynamicMatcher.maintain`, run after each batch of
inserts or deletes and after each re-estimation of the statistics):

1. *Situation 2*: a table with ``B(H) < b_min`` is removed and its subscriptions move to
   their best access predicate among the remaining tables (receiving clusters that become
   hot are redistributed).
2. *Situation 1*: a cluster with ``BM(c) >= bm_max`` is **redistributed**: each of its
   subscriptions moves to the existing table that maximises its absolute benefit (least
   nu; ties: the smaller schema, then the older table), recursively on receiving clusters
   that become hot; a subscription moves at most once per maintenance step. Clusters still
   hot are the candidates of phase 2.
3. *Phase 2 / Situation 3*: every candidate cluster adds its contribution ``|Dmove(H,
   {c})|`` to each candidate table H (schemas of 2..``max_schema_size`` attributes of its
   subscriptions' equalities); while some H has ``RP(H) >= rp_min``, the one of largest RP
   (ties: smaller schema, then lower attributes) is created and the subscriptions of its
   ``candidate_repair(H)`` clusters that gain move into it; metrics are updated (shrunken
   clusters re-contribute; receiving clusters that are hot contribute too). A contribution
   is replaced, not added, when its cluster is sent again, and withdrawn when the cluster
   empties. A cluster already sent is sent again only after growing by ``retrigger``
   (our hysteresis: the paper does not say how often a hot cluster that nothing can repair
   is re-examined; without it every insert into it would rescan it).

**Thresholds** (the paper gives none): :meth:`Thresholds.from_cost_model` derives them from
the cost model of Sect. 3.1 (:class:`~routelab.filtering.costmodel.CostConstants`). A
cluster is worth examining when it costs more checks per event than the fixed per-event
cost of one more table: ``bm_max = K_r / K_c``. (The threshold is per cluster while an event
pays the sum over the clusters it reaches: subscriptions spread over hundreds of
single-equality clusters each cost little, so a threshold of the order of a table probe
would never fire; whether a table pays is decided by ``rp_min``, which weighs the table's
cost.) A new table costs ``K_r + C_h + 2 K_h`` per
event and saves ``nu (1 - nu) K_c`` per subscription moved into it (from a single-equality
cluster of selectivity nu, the median of the subscriptions' equalities, to a conjunction of
two such): it pays with ``rp_min = 2 (K_r + C_h + 2 K_h) / (K_c nu (1 - nu))`` movable
subscriptions (a safety factor 2). ``b_min = rp_min / 2``: hysteresis between creating and
removing a table. With the default constants and W0 (nu = 1/35): bm_max = 5, rp_min =
3,243, b_min = 1,621.5.

**Statistics**: nu comes from :class:`~routelab.filtering.costmodel.EventStats`. With
``stats_every > 0`` the matcher keeps the last ``stats_window`` events it matched and
re-estimates nu every ``stats_every`` events (the paper's "independent tool [that]
periodically provides statistics"), then runs maintenance: a value that becomes frequent
raises BM of the clusters it accesses (Sect. 4.1's second cause).

**Loading** (Sect. 6.2.1, Fig. 3d): built from scratch, the matcher starts from the initial
configuration A0 (single equalities only) and inserts the subscriptions in batches of
``batch`` (the paper's n_Sb = 10,000), maintaining after each: the configuration grows
while it loads. Given ``schemas=`` it starts from that configuration instead (Sect. 6.2.3:
the saturation experiments start from the static clustering optimal for W1); with
``adapt=False`` it never changes it (the *No Change* strategy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from routelab.filtering.cluster_matcher import ClusterMatcher, remaining_predicates
from routelab.filtering.clusters import CATCH_ALL, ClusterIndex
from routelab.filtering.costmodel import CostConstants, EventStats
from routelab.filtering.model import EQ, Events, Subscriptions, ranges
from routelab.filtering.registry import Registry
from routelab.filtering.static import assign_access, equality_matrix, table_nu
from routelab.readings import is_flipped
from routelab.timing import now as clock
from routelab.uniques import unique

Schema = tuple[int, ...]


@dataclass(frozen=True)
class Thresholds:
    """BMmax, Bmin and RPmin of Sect. 4.1 (see the module docstring)."""

    bm_max: float
    b_min: float
    rp_min: float
    retrigger: float = 1.25
    #: our reading (READINGS.md); ``ROUTELAB_READING=dmove`` flips the default for a run
    dmove_strict: bool = field(default_factory=lambda: not is_flipped("dmove"))

    @classmethod
    def from_cost_model(
        cls, consts: CostConstants, nu_ref: float, *, safety: float = 2.0
    ) -> Thresholds:
        """Defaults derived from the cost model (module docstring); ``nu_ref`` is the
        typical selectivity of a single equality access predicate."""
        probe = consts.C_h + 2 * consts.K_h
        saving = max(nu_ref * (1.0 - nu_ref), 1e-9) * consts.K_c
        rp_min = math.ceil(safety * (consts.K_r + probe) / saving)
        return cls(bm_max=consts.K_r / consts.K_c, b_min=rp_min / 2, rp_min=float(rp_min))


@dataclass
class MaintenanceStep:
    """What one call of :meth:`DynamicMatcher.maintain` did."""

    created: list[Schema] = field(default_factory=list)
    dropped: list[Schema] = field(default_factory=list)
    redistributed: int = 0  # clusters redistributed (situation 1)
    moved: int = 0  # subscription moves
    #: moves in the first phase (dropped tables and redistribution) and the distinct
    #: subscriptions among them (Sect. 4.1: "since a subscription is moved at first try
    #: toward its best table, subscriptions cannot be moved more than once", so equal)
    phase1_moved: int = 0
    distinct_moved: int = 0
    seconds: float = 0.0


class DynamicMatcher(ClusterMatcher):
    """Fabret et al.'s dynamic algorithm (Sect. 4) behind the matchers' interface."""

    def __init__(
        self,
        subs: Subscriptions,
        *,
        stats: EventStats,
        consts: CostConstants | None = None,
        thresholds: Thresholds | None = None,
        schemas: Sequence[Schema] | None = None,
        adapt: bool = True,
        max_schema_size: int = 3,
        batch: int = 10_000,
        stats_window: int = 10_000,
        stats_every: int = 0,
        name: str = "dynamic",
    ) -> None:
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}")
        if max_schema_size < 2:
            raise ValueError(f"max_schema_size must be >= 2, got {max_schema_size}")
        self.name = name
        self.prefetch = True
        self.registry = Registry(subs)
        self.stats = stats
        self.consts = consts or CostConstants()
        self.nu = table_nu(subs.table, stats)
        self.index = ClusterIndex(len(subs.table))
        self.schemas: list[Schema] = []
        self.adapt = adapt
        self.max_schema_size = max_schema_size
        self.batch = batch
        self.stats_window, self.stats_every = stats_window, stats_every
        self.thresholds = thresholds or Thresholds.from_cost_model(
            self.consts, _median_equality_nu(subs, self.nu)
        )
        self.table_size: dict[Schema, int] = {}
        self._acc_nu = np.zeros(0)
        self.contrib: dict[int, dict[Schema, int]] = {}
        self.rp: dict[Schema, int] = {}
        self.repair: dict[Schema, set[int]] = {}
        self.sent: dict[int, int] = {}
        self._mask_schema: dict[int, Schema] = {}
        self.moves = 0
        self._step_ids: list[np.ndarray] | None = None  # ids moved in the running step
        self.log: list[MaintenanceStep] = []
        self._window: list[np.ndarray] = []
        self._seen = 0
        self.last_checks = np.zeros(0, dtype=np.int64)
        self.last_lookups = np.zeros(0, dtype=np.int64)
        n = len(subs)
        if schemas is not None:
            for x in schemas:
                self._open(tuple(x))
            self._place(np.arange(n, dtype=np.int64))
        else:
            for lo in range(0, n, batch):
                self._place(np.arange(lo, min(n, lo + batch), dtype=np.int64))
                self.maintain()

    # -- placement ---------------------------------------------------------------------
    def _view(self, rows: np.ndarray) -> Subscriptions:
        """The subscriptions at internal indexes ``rows`` over the registry's table."""
        reg = self.registry
        if len(rows) and rows.max() < reg.n_bulk:
            lengths = reg.bulk_ptr[rows + 1] - reg.bulk_ptr[rows]
            preds = reg.bulk_preds[ranges(reg.bulk_ptr[rows], lengths)]
        else:
            parts = [reg.preds_of(int(i)) for i in rows]
            lengths = np.array([len(p) for p in parts], dtype=np.int64)
            preds = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        return Subscriptions(
            reg.ids.data[rows], ptr, preds.astype(np.int32), reg.table(), reg.n_attrs
        )

    def _grow_nu(self) -> None:
        table = self.registry.table()
        if len(self.nu) < len(table):
            self.nu = np.concatenate([self.nu, table_nu(table, self.stats, len(self.nu))])

    def access_nu(self) -> np.ndarray:
        """nu of every access predicate (single equality, conjunction; catch-all: 1)."""
        keys = self.index.access_keys
        have = len(self._acc_nu)
        if have < len(keys):
            extra = np.ones(len(keys) - have)
            for k, key in enumerate(keys[have:]):
                if key == CATCH_ALL:
                    continue
                if len(key) == 1:
                    extra[k] = self.nu[key[0]]
                else:
                    extra[k] = math.prod(self.stats.nu(a, v) for a, v in zip(*key, strict=True))
            self._acc_nu = np.concatenate([self._acc_nu, extra])
        return self._acc_nu

    def _schema_of_access(self, access: np.ndarray) -> list[Schema | None]:
        keys = self.index.access_keys
        return [
            keys[a][0] if keys[a] != CATCH_ALL and len(keys[a]) == 2 else None
            for a in access.tolist()
        ]

    def _place(self, rows: np.ndarray) -> np.ndarray:
        """Put subscriptions (internal indexes, in no cluster) at their best access
        predicate in the current configuration; returns the receiving clusters."""
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        self._grow_nu()
        sub = self._view(rows)
        kind, used, _ = assign_access(sub, self.schemas, self.nu)
        access = self._register_access(sub, kind, used)
        rem_ptr, rem = remaining_predicates(sub, used)
        received = self.index.add_many(rows, access, rem_ptr, rem)
        tables, counts = np.unique(kind[kind >= 0], return_counts=True)
        for t, k in zip(tables.tolist(), counts.tolist(), strict=True):
            self.table_size[self.schemas[t]] += k
        return received

    def _unplace(self, rows: np.ndarray) -> np.ndarray:
        """Take subscriptions out of their clusters; returns the clusters they left."""
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        c = self.index.loc_cluster.data[rows]
        if np.any(c < 0):
            raise KeyError("a subscription to unplace is in no cluster")
        acc, counts = np.unique(self.index.c_access.data[c], return_counts=True)
        for x, k in zip(self._schema_of_access(acc), counts.tolist(), strict=True):
            if x is not None:
                self.table_size[x] -= k
        return self.index.remove_many(rows)

    def _move(self, rows: np.ndarray) -> np.ndarray:
        self._unplace(rows)
        self.moves += len(rows)
        if self._step_ids is not None:  # ids, not rows: a compaction renumbers rows
            self._step_ids.append(np.asarray(self.registry.ids.data[rows]).copy())
        return self._place(rows)

    def _open(self, x: Schema) -> None:
        self.schemas.append(x)
        self.index.add_schema(x)
        self.table_size[x] = 0

    # -- updates -----------------------------------------------------------------------
    def insert(self, sub_id: int, predicates: Sequence[tuple[int, str | int, int]]) -> None:
        """Insert one subscription at its best table, then maintain (Sect. 4.1)."""
        self.insert_many([(sub_id, predicates)])

    def insert_many(self, subs: Sequence[tuple[int, Sequence[tuple[int, str | int, int]]]]) -> None:
        """Insert a batch (each at its best table), then maintain once."""
        rows = np.array([self.registry.add(i, p) for i, p in subs], dtype=np.int64)
        self._place(rows)
        self.maintain()

    def insert_subscriptions(self, subs: Subscriptions) -> None:
        """Insert a batch given as :class:`Subscriptions` (vectorised), then maintain."""
        self._place(self.registry.add_many(subs))
        self.maintain()

    def delete(self, sub_id: int) -> None:
        """Delete one subscription, then maintain (its table's benefit may fall)."""
        self.delete_many([sub_id])

    def delete_many(self, sub_ids: Sequence[int]) -> None:
        rows = self.registry.indexes_of(np.asarray(sub_ids, dtype=np.int64))
        self._unplace(rows)
        self.registry.remove_many(np.asarray(sub_ids, dtype=np.int64))
        self.maintain()

    # -- metrics -----------------------------------------------------------------------
    def benefit_margin(self) -> np.ndarray:
        """BM(c) = nu(p_c) |c| of every cluster (checks per event it costs)."""
        acc = self.index.c_access.view()
        return self.access_nu()[acc] * self.index.c_count.view()

    def _bm(self, c: int) -> float:
        """BM of one cluster."""
        return float(self.access_nu()[self.index.c_access.data[c]] * self.index.c_count.data[c])

    def _hot(self, c: int, bm: float | None = None) -> bool:
        th = self.thresholds
        bm = self._bm(c) if bm is None else bm
        if bm < th.bm_max:
            return False
        sent = self.sent.get(c)
        return sent is None or self.index.c_count.data[c] >= th.retrigger * sent

    def exact_metrics(self) -> dict[str, float]:
        """The exact metrics of Sect. 4 summed over the clustering: absolute benefit
        sum_c (1 - nu(p_c)) |c| and benefit margin sum_s (nu(p_c) - nu(P(s)))."""
        live = np.flatnonzero(self.registry.alive.view())
        sub = self._view(live)
        eqm = equality_matrix(sub, np.arange(len(live)))
        nu_all = np.where(eqm >= 0, np.append(self.nu, 1.0)[eqm], 1.0).prod(axis=1)
        cur = self.access_nu()[self.index.c_access.data[self.index.loc_cluster.data[live]]]
        return {
            "absolute_benefit": float((1.0 - cur).sum()),
            "benefit_margin": float((cur - nu_all).sum()),
        }

    # -- maintenance (Sect. 4.1) -------------------------------------------------------
    def maintain(self) -> MaintenanceStep:
        """One run of the maintenance algorithm: situation 2, situation 1, phase 2."""
        step = MaintenanceStep()
        if self.index.garbage > self.index.cols.n // 2:
            self.index.compact()  # growth and moves leave garbage behind: keep it dense
        if not self.adapt:
            return step
        t0 = clock()
        moves0 = self.moves
        self._step_ids = []
        th = self.thresholds
        moved: set[int] = set()
        cand: set[int] = set()
        # situation 2: every table below Bmin leaves first, so its subscriptions move once,
        # to their best remaining table (not into another table about to be dropped)
        drops = [(x, self._members_of_schema(x)) for x in self.schemas
                 if self.table_size[x] < th.b_min]  # fmt: skip
        for x, _ in drops:
            self.schemas.remove(x)
        for x, rows in drops:
            received = self._move(rows)
            del self.table_size[x]
            self.index.drop_schema(x)
            step.dropped.append(x)
            moved.update(rows.tolist())
            for c in received.tolist():
                if self._hot(c):
                    cand |= self._redistribute(c, moved, step)
        bm = self.benefit_margin()
        for c in np.flatnonzero(bm >= th.bm_max).tolist():
            if self._hot(c, float(bm[c])):
                cand |= self._redistribute(c, moved, step)
        for c in [c for c in self.contrib if self.index.c_count.data[c] == 0]:
            self._withdraw(c)  # deleted clusters (Phase 2's first loop)
        ids = self._step_ids
        step.phase1_moved = self.moves - moves0
        step.distinct_moved = len(unique(np.concatenate(ids))) if ids else 0
        self._step_ids = None  # phase 2's moves (new tables) are not part of the rule
        for c in cand:
            self._contribute(c)
        while True:
            best = self._best_candidate()
            if best is None:
                break
            self._create(best, step)
        step.moved = self.moves - moves0
        step.seconds = clock() - t0
        if step.created or step.dropped or step.moved:
            self.log.append(step)
        return step

    def _members_of_schema(self, x: Schema) -> np.ndarray:
        acc = self.index.c_access.view()
        schemas = self._schema_of_access(np.arange(len(self.index.access_keys)))
        mine = [a for a, s in enumerate(schemas) if s == x]
        clusters = np.flatnonzero(np.isin(acc, mine))
        parts = [self.index.members(c) for c in clusters.tolist()]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def _redistribute(self, c: int, moved: set[int], step: MaintenanceStep) -> set[int]:
        """Move each subscription of ``c`` to the existing table that maximises its
        absolute benefit; recurse on receiving clusters that become hot; return the
        clusters still hot (the candidates of phase 2)."""
        step.redistributed += 1
        out: set[int] = set()
        rows = self.index.members(c)
        if moved:
            rows = rows[~np.isin(rows, np.fromiter(moved, dtype=np.int64))]
        if len(rows):
            kind, _, best_nu = assign_access(self._view(rows), self.schemas, self.nu)
            cur = self.access_nu()[self.index.c_access.data[c]]
            go = rows[best_nu < cur]
            if len(go):
                received = self._move(go)
                moved.update(go.tolist())
                for r in received.tolist():
                    if r != c and self._hot(r):
                        out |= self._redistribute(r, moved, step)
        if self._bm(c) >= self.thresholds.bm_max:
            out.add(c)
            self.sent[c] = int(self.index.c_count.data[c])
        else:
            self.sent.pop(c, None)
        return out

    def dmove(self, c: int) -> dict[Schema, int]:
        """|Dmove(H, {c})| for every candidate table H (not in the configuration) of
        2..max_schema_size attributes: the subscriptions of ``c`` whose equalities cover
        H's schema with a conjunction more selective than ``c``'s access predicate."""
        rows = self.index.members(c)
        if not len(rows):
            return {}
        sub = self._view(rows)
        eqm = equality_matrix(sub, np.arange(len(rows)))
        present = eqm >= 0
        width = int(present.sum(axis=1).max())
        if width < 2:
            return {}
        order = np.argsort(~present, axis=1, kind="stable")[:, :width]
        attrs = np.where(np.take_along_axis(present, order, axis=1), order, -1)
        pids = np.take_along_axis(eqm, order, axis=1)
        nu = np.append(self.nu, 1.0)
        cur = self.access_nu()[self.index.c_access.data[c]]
        masks = []
        for k in range(2, min(self.max_schema_size, width) + 1):
            for comb in combinations(range(width), k):
                cols = list(comb)
                a = attrs[:, cols]
                ok = (a >= 0).all(axis=1)
                x_nu = nu[pids[:, cols]].prod(axis=1)
                ok &= x_nu < cur if self.thresholds.dmove_strict else x_nu <= cur
                masks.append(np.left_shift(np.int64(1), a[ok]).sum(axis=1))
        if not masks:
            return {}
        uniq, counts = np.unique(np.concatenate(masks), return_counts=True)
        have = set(self.schemas)
        out = {}
        for m, k in zip(uniq.tolist(), counts.tolist(), strict=True):
            x = self._mask_schema.get(m)
            if x is None:
                x = self._mask_schema[m] = tuple(b for b in range(m.bit_length()) if m >> b & 1)
            if x not in have:
                out[x] = k
        return out

    def _withdraw(self, c: int) -> None:
        for x, k in self.contrib.pop(c, {}).items():
            self.rp[x] -= k
            self.repair[x].discard(c)
            if not self.repair[x]:
                del self.rp[x], self.repair[x]

    def _contribute(self, c: int) -> None:
        self._withdraw(c)
        mine = self.dmove(c)
        if not mine:
            return
        self.contrib[c] = mine
        for x, k in mine.items():
            self.rp[x] = self.rp.get(x, 0) + k
            self.repair.setdefault(x, set()).add(c)

    def _best_candidate(self) -> Schema | None:
        ok = [(-k, len(x), x) for x, k in self.rp.items() if k >= self.thresholds.rp_min]
        return min(ok)[2] if ok else None

    def _create(self, x: Schema, step: MaintenanceStep) -> None:
        """Situation 3: open table ``x`` and move into it the subscriptions of its
        candidate_repair clusters that gain; update the metrics."""
        clusters = sorted(self.repair[x])
        self._open(x)
        step.created.append(x)
        received: set[int] = set()
        for c in clusters:
            self._withdraw(c)
            rows = self.index.members(c)
            if not len(rows):
                continue
            _, _, best_nu = assign_access(self._view(rows), self.schemas, self.nu)
            go = rows[best_nu < self.access_nu()[self.index.c_access.data[c]]]
            received.update(self._move(go).tolist())
        for c in clusters:
            if self._bm(c) >= self.thresholds.bm_max:
                self._contribute(c)
                self.sent[c] = int(self.index.c_count.data[c])
        for r in received:
            if self._hot(r):
                self._contribute(r)
                self.sent[r] = int(self.index.c_count.data[r])

    # -- statistics --------------------------------------------------------------------
    def observe(self, events: Events) -> bool:
        """Keep matched events in the statistics window; every ``stats_every`` events
        re-estimate nu and maintain. Returns whether the statistics were refreshed."""
        if self.stats_every <= 0 or not len(events):
            return False
        self._window.append(events.values)
        self._seen += len(events)
        if self._seen < self.stats_every:
            return False
        window = np.concatenate(self._window)[-self.stats_window :]
        self._window = [window]
        self._seen = 0
        self.refresh_stats(EventStats.from_events(Events(window)))
        return True

    def refresh_stats(self, stats: EventStats) -> MaintenanceStep:
        """New statistics: nu of every predicate and access predicate is re-estimated;
        a cluster whose access predicate's nu changed by the ``retrigger`` factor or more
        is examined afresh (its phase-2 contribution withdrawn, its "sent" mark cleared),
        the other contributions are recomputed under the new nu, then maintenance runs."""
        old = self.access_nu()[self.index.c_access.view()]
        self.stats = stats
        self.nu = table_nu(self.registry.table(), stats)
        self._acc_nu = np.zeros(0)
        new = self.access_nu()[self.index.c_access.view()]
        f = self.thresholds.retrigger
        changed = np.flatnonzero((new >= f * old) | (new * f <= old))
        for c in changed.tolist():
            self.sent.pop(c, None)
            self._withdraw(c)
        for c in list(self.contrib):  # the others' contributions under the new nu
            self._contribute(c)
        return self.maintain()

    def match(self, events: Events) -> tuple[np.ndarray, np.ndarray]:
        out = super().match(events)
        self.observe(events)
        return out


def _median_equality_nu(subs: Subscriptions, nu: np.ndarray) -> float:
    eq = subs.table.op[subs.preds] == EQ
    return float(np.median(nu[subs.preds[eq]])) if eq.any() else 0.5
