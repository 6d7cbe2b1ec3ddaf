"""Notebook 10's saturation experiments (Fabret et al. Sect. 6.2.3, Fig. 4) and the
churn-rate sweep, as Spark sweep tasks.

**Saturation** (:func:`saturation_run`, one task per scenario x strategy x seed): the
system holds ``n_live`` subscriptions, each living ``n_live / rate`` simulated seconds;
every simulated second the ``rate`` oldest are deleted and ``rate`` new ones inserted
(the paper: 3M live, 50 per second, about 16 hours), and events fill the rest of the
second. The experiment runs ``hours`` simulated hours (20); subscriptions follow W1 for the
first ``switch_h`` (2) and W2 after, so after about 16 more hours all live ones are W2.

- ``schema`` (Fig. 4a): W1 = (n_t = 16, n_P = 5, one fixed equality, values 1..35) on
  attributes 0..15; W2 the same on attributes 16..31; events carry all 32 attributes,
  uniform.
- ``skew`` (Fig. 4b): W1 = W0 (n_P = 5, two fixed equalities, 32 attributes, 35 values);
  W2 = W0 with the first fixed attribute's predicates *and* the events' values skewed to
  2 values instead of 35 (a shared new interest).

Strategies: ``dynamic`` (:class:`~routelab.filtering.dynamic.DynamicMatcher` maintaining
its clustering) and ``no_change`` (the same structures with ``adapt=False``: the initial
clustering is kept, new subscriptions still go to their best existing table). Both start
from the static clustering optimal for W1 (the greedy of Sect. 3.2.3 on the initial
subscriptions and W1 events), and both re-estimate nu from the last events every
``stats_h`` simulated hours (the "independent tool").

**Scaling** (say it on every figure): a smaller system is simulated with the same rate and
a lifetime scaled with it (``n_live / rate`` seconds), and the 20 hours are scaled by
``n_live / 3M`` too, so the turnover (how much of the population is replaced per hour of
the figure) is the paper's. Updates are applied in ticks of ``tick_h`` scaled hours (a
tick's deletes, inserts and maintenance are one timed region); each tick then times
``events_per_tick`` events of the current phase. Throughput per tick = events that fit in
the tick's simulated seconds after its update time, at the measured time per event; per
2-hour window it is the sum of those events over the window's seconds (the paper's
"averaged every two hours"). Every tick's timed region is taken under the machine's timing
lock (:func:`routelab.timing.timing_lock`), so two tasks never time at once.

**Churn rate** (:func:`churn_run`): at saturation on W0, ``rate`` changes per second
(half inserts, half deletes), events in the rest of each second: the throughput at each
rate, up to the rate where it halves (Sect. 7: "high rates of subscription changes").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from routelab.claims import t_interval
from routelab.filtering.costmodel import CostConstants, EventStats
from routelab.filtering.dynamic import DynamicMatcher
from routelab.filtering.model import Events, Subscriptions
from routelab.filtering.static import greedy_configuration
from routelab.filtering.workload import W0, Workload, generate_events, generate_subscriptions
from routelab.readings import pick
from routelab.timing import now as clock
from routelab.timing import timing_lock

PAPER_LIVE = 3_000_000  # live subscriptions at saturation (Sect. 6.2.3)
PAPER_RATE = 50  # insertions (and deletions) per second
HOURS = 20.0
SWITCH_H = 2.0
WINDOW_H = 2.0
STRATEGIES = ("dynamic", "no_change")
SCENARIOS = ("schema", "skew")
#: Fig. 4(a)'s W1: 16 attribute names, one fixed equality, values 1..35
W1_SCHEMA = Workload("W1-schema", n_t=16, n_p=5, fix_eq=1, n_a=16)
SKEW_VALUES = 2  # Fig. 4(b): "2 different values instead of 35"
N_ATTRS = 32


def shift_attributes(subs: Subscriptions, offset: int, n_attrs: int) -> Subscriptions:
    """The same subscriptions on attributes ``a + offset`` (Fig. 4a's W2: the other 16)."""
    t = subs.table
    table = replace(t, attr=(t.attr + offset).astype(t.attr.dtype))
    return replace(subs, table=table, n_attrs=n_attrs)


def skew_attribute(subs: Subscriptions, attr: int, k: int, low: int = 1) -> Subscriptions:
    """The same subscriptions with the values of predicates on ``attr`` folded onto ``k``
    values ``low..low+k-1`` (Fig. 4b's subscription skew)."""
    t = subs.table
    pids = subs.preds.astype(np.int64)
    values = t.value[pids].copy()
    on = t.attr[pids] == attr
    values[on] = low + (values[on] - low) % k
    return Subscriptions.from_flat(
        subs.ptr, t.attr[pids], t.op[pids], values, ids=subs.ids, n_attrs=subs.n_attrs
    )


def phase_subscriptions(scenario: str, phase: str, n: int, seed: int) -> Subscriptions:
    """``n`` subscriptions of a scenario's W1 or W2 (ids 0..n-1), seeded."""
    if scenario == "schema":
        subs = generate_subscriptions(W1_SCHEMA, n, seed=seed)
        return shift_attributes(subs, 16 if phase == "W2" else 0, N_ATTRS)
    if scenario == "skew":
        subs = generate_subscriptions(W0, n, seed=seed)
        return skew_attribute(subs, 0, SKEW_VALUES) if phase == "W2" else subs
    raise ValueError(f"unknown scenario {scenario!r}; choose from {', '.join(SCENARIOS)}")


def phase_events(scenario: str, phase: str, n: int, seed: int) -> Events:
    """``n`` events of a scenario's phase: 32 uniform attributes; under ``skew`` after
    the switch, attribute 0 takes 2 values."""
    events = generate_events(W0, n, seed=seed)
    if scenario == "skew" and phase == "W2":
        v = events.values
        v[:, 0] = 1 + (v[:, 0] - 1) % SKEW_VALUES
    return events


def _with_ids(subs: Subscriptions, first: int) -> Subscriptions:
    return replace(subs, ids=np.arange(first, first + len(subs), dtype=np.int64))


def _seeds(seed: int, n: int) -> list[int]:
    """Independent seeds for the independent random choices of one run."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(n)]


def _start(scenario: str, strategy: str, n_live: int, seed: int, params: dict[str, Any]) -> tuple:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
    consts = CostConstants(**params["consts"]) if params.get("consts") else CostConstants()
    s_init, s_w1, s_w2, s_ev, s_stats = _seeds(seed, 5)
    initial = phase_subscriptions(scenario, "W1", n_live, s_init)
    stats = EventStats.from_events(phase_events(scenario, "W1", 2000, s_stats))
    # a seeded sample of 100,000 subscriptions, or every one under ROUTELAB_READING=greedy
    sample = params.get("sample")
    sample = int(sample) if sample is not None else pick("greedy", 100_000, len(initial))
    schemas, _ = greedy_configuration(initial, stats, consts, sample=sample, seed=seed)
    t0 = clock()
    m = DynamicMatcher(
        initial, stats=stats, consts=consts, schemas=schemas, adapt=strategy == "dynamic"
    )
    build_s = clock() - t0
    m.match(phase_events(scenario, "W1", 100, s_stats + 1))  # warm-up: compiled kernels
    return m, schemas, build_s, (s_w1, s_w2, s_ev)


def saturation_run(params: dict[str, Any]) -> list[dict[str, Any]]:
    """One saturation run (a Spark task): rows per tick (see the module docstring).

    ``params``: scenario, strategy, seed, n_live; optional hours (20), switch_h (2),
    tick_h (0.1), events_per_tick (2000), stats_h (1.0), rate (50), sample (greedy's),
    consts (the cost model's constants as a dict, e.g. measured by
    :func:`routelab.filtering.calibration.measure_constants`; default: CostConstants())."""
    scenario, strategy = str(params["scenario"]), str(params["strategy"])
    seed, n_live = int(params.get("seed", 0)), int(params["n_live"])
    hours = float(params.get("hours", HOURS))
    switch_h = float(params.get("switch_h", SWITCH_H))
    tick_h = float(params.get("tick_h", 0.1))
    per_tick_events = int(params.get("events_per_tick", 2000))
    stats_h = float(params.get("stats_h", 1.0))
    rate = float(params.get("rate", PAPER_RATE))
    if n_live < 1 or tick_h <= 0 or per_tick_events < 1:
        raise ValueError("n_live, tick_h and events_per_tick must be positive")
    hour_s = 3600.0 * n_live / PAPER_LIVE  # one scaled hour in simulated seconds
    tick_s = tick_h * hour_s
    per_tick = max(1, round(rate * tick_s))
    n_ticks = round(hours / tick_h)
    switch_tick = round(switch_h / tick_h)
    stats_every = max(1, round(stats_h / tick_h))
    m, schemas, build_s, (s_w1, s_w2, s_ev) = _start(scenario, strategy, n_live, seed, params)
    pools = {
        "W1": phase_subscriptions(scenario, "W1", per_tick * switch_tick, s_w1),
        "W2": phase_subscriptions(scenario, "W2", per_tick * (n_ticks - switch_tick), s_w2),
    }
    used = {"W1": 0, "W2": 0}
    oldest, next_id = 0, n_live
    window: list[np.ndarray] = []
    rows = []
    for k in range(n_ticks):
        phase = "W1" if k < switch_tick else "W2"
        lo = used[phase]
        new = _with_ids(pools[phase].take(np.arange(lo, lo + per_tick)), next_id)
        used[phase] += per_tick
        old = list(range(oldest, oldest + per_tick))
        events = phase_events(scenario, phase, per_tick_events, s_ev + k)
        moves0, log0 = m.moves, len(m.log)
        with timing_lock():
            t0 = clock()
            m.delete_many(old)
            m.insert_subscriptions(new)
            if k and k % stats_every == 0:
                m.refresh_stats(EventStats.from_events(Events(np.concatenate(window))))
            m.prepare()
            t_upd = clock() - t0
            t0 = clock()
            matched = m.match(events)
            t_ev = clock() - t0
        window = (window + [events.values])[-10:]
        oldest += per_tick
        next_id += per_tick
        per_event = t_ev / per_tick_events
        fit = max(0.0, tick_s - t_upd) / per_event
        steps = m.log[log0:]
        rows.append(
            {
                "tick": k,
                "hour": (k + 1) * tick_h,
                "phase": phase,
                "tick_s": tick_s,
                "update_s": t_upd,
                "event_us": per_event * 1e6,
                "events_fit": fit,
                "throughput": fit / tick_s,
                "checks_per_event": float(m.last_checks.mean()),
                "tables": len(m.schemas),
                "created": sum(len(s.created) for s in steps),
                "dropped": sum(len(s.dropped) for s in steps),
                "moved": m.moves - moves0,
                "phase1_moved": sum(s.phase1_moved for s in steps),
                "distinct_moved": sum(s.distinct_moved for s in steps),
                "max_step_moved": max((s.moved for s in steps), default=0),
                "matches_per_event": len(matched[0]) / per_tick_events,
                "us_per_change": t_upd / (2 * per_tick) * 1e6,
                "live": n_live,
                "per_tick": per_tick,
                "hour_s": hour_s,
                "initial_tables": len(schemas),
                "build_s": build_s,
            }
        )
    return rows


def windows(frame: pd.DataFrame, width_h: float = WINDOW_H) -> pd.DataFrame:
    """Throughput per ``width_h``-hour window (Fig. 4's points): the events that fit in the
    window's ticks over its simulated seconds, per (scenario, strategy, seed)."""
    f = frame.assign(window=np.ceil(frame["hour"] / width_h - 1e-9) * width_h)
    keys = [k for k in ("scenario", "strategy", "seed") if k in f.columns]
    out = f.groupby([*keys, "window"], as_index=False).agg(
        events=("events_fit", "sum"),
        seconds=("tick_s", "sum"),
        checks_per_event=("checks_per_event", "mean"),
        update_s=("update_s", "sum"),
        moved=("moved", "sum"),
        created=("created", "sum"),
        dropped=("dropped", "sum"),
        tables=("tables", "last"),
        **{k: (k, "mean") for k in ("matches_per_event", "event_us", "us_per_change")
           if k in f.columns},
    )  # fmt: skip
    return out.assign(throughput=out["events"] / out["seconds"]).drop(columns=["events"])


def churn_run(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Throughput against the rate of subscription changes (a Spark task): W0 at
    saturation (``n_live``), one strategy, each rate of ``rates`` (changes per second, half
    inserts, half deletes of the oldest) for ``seconds`` simulated seconds; per second the
    changes are timed, then ``events`` events. Rows per (rate, second)."""
    strategy, seed, n_live = (
        str(params["strategy"]),
        int(params.get("seed", 0)),
        int(params["n_live"]),
    )
    rates = [int(r) for r in params["rates"]]
    if max(rates) // 2 > n_live:
        raise ValueError(
            f"rate {max(rates):,}/s deletes {max(rates) // 2:,} subscriptions a second, more "
            f"than the {n_live:,} live ones: raise n_live or lower the rate"
        )
    seconds = int(params.get("seconds", 3))
    n_events = int(params.get("events", CHURN_EVENTS))
    m, _, _, (s_new, _, s_ev) = _start("skew", strategy, n_live, seed, params)
    total = sum(r // 2 for r in rates) * seconds
    pool = generate_subscriptions(W0, max(1, total), seed=s_new)
    used, oldest, next_id = 0, 0, n_live
    rows = []
    for r in rates:
        half = max(1, r // 2)
        for s in range(seconds):
            new = _with_ids(pool.take(np.arange(used, used + half)), next_id)
            used, next_id = used + half, next_id + half
            old = list(range(oldest, oldest + half))
            oldest += half
            events = generate_events(W0, n_events, seed=s_ev + len(rows))
            with timing_lock():
                t0 = clock()
                m.delete_many(old)
                m.insert_subscriptions(new)
                m.prepare()
                t_upd = clock() - t0
                t0 = clock()
                m.match(events)
                t_ev = clock() - t0
            per_event = t_ev / n_events
            rows.append(
                {
                    "rate": r,
                    "second": s,
                    "update_s": t_upd,
                    "event_us": per_event * 1e6,
                    "throughput": max(0.0, 1.0 - t_upd) / per_event,
                    "us_per_change": t_upd / (2 * half) * 1e6,
                    "tables": len(m.schemas),
                }
            )
    return rows


def halving_rate(frame: pd.DataFrame) -> float:
    """The change rate (per second) at which throughput falls to half of its value at the
    lowest rate, interpolated log-linearly between the sweep's rates (inf if never)."""
    g = frame.groupby("rate")["throughput"].median().sort_index()
    if g.empty:
        return float("nan")
    half = g.iloc[0] / 2
    below = np.flatnonzero(g.to_numpy() <= half)
    if not len(below):
        return float("inf")
    i = int(below[0])
    if i == 0:
        return float(g.index[0])
    r0, r1 = np.log(g.index[i - 1]), np.log(g.index[i])
    t0, t1 = g.iloc[i - 1], g.iloc[i]
    return float(np.exp(r0 + (t0 - half) / (t0 - t1) * (r1 - r0)))


@dataclass(frozen=True)
class Halving:
    """The change rate at which a strategy's throughput halves, over its seeds: the
    geometric mean (``rate``) with its 95 % t interval (``low``, ``high``; on the logs), a
    seed that never halved counting at the sweep's top rate (so ``rate`` is then a lower
    bound); ``never`` of ``seeds`` seeds never halved."""

    rate: float
    low: float
    high: float
    never: int
    seeds: int

    def text(self, max_rate: float) -> str:
        """A legend's words: "halves at 112,455/s", "never halves up to 200,000/s"."""
        if self.seeds == 0:
            return "halving rate not measured"
        if self.never == self.seeds:
            return f"never halves up to {max_rate:,.0f}/s"
        text = f"halves at {self.rate:,.0f}/s"
        if self.never:
            text += f", {self.never} of {self.seeds} seeds never"
        return text


def typical_halving(per_seed: pd.Series | Any, max_rate: float) -> Halving:
    """One strategy's halving rate over its seeds (:func:`halving_rates`' values for it):
    what the churn figure's legend and the churn claim both state, computed once here."""
    values = np.asarray(per_seed, dtype=np.float64)
    values = values[~np.isnan(values)]
    if not len(values):
        nan = float("nan")
        return Halving(nan, nan, nan, 0, 0)
    rates = np.minimum(values, max_rate)
    never = int(np.sum(~np.isfinite(values)))
    logs = np.log(rates)
    mean, lo, hi = t_interval(logs) if np.ptp(rates) else (float(logs[0]),) * 3
    return Halving(float(np.exp(mean)), float(np.exp(lo)), float(np.exp(hi)), never, len(values))


def saturation_points(
    n_live: int, tick_h: float, events_per_tick: int, seeds: list[int], consts: CostConstants
) -> list[dict[str, Any]]:
    """Fig. 4's grid: every scenario x strategy x seed, with the cost model's constants."""
    return [
        {"scenario": sc, "strategy": st, "seed": s, "n_live": n_live, "tick_h": tick_h,
         "events_per_tick": events_per_tick, "consts": vars(consts)}
        for sc in SCENARIOS for st in STRATEGIES for s in seeds
    ]  # fmt: skip


#: events timed per simulated second of the churn sweep: 200 (about 2 ms of matching) read
#: per-seed throughput ratios spreading fourfold with four notebooks on two cores; 2,000
#: (about 25 ms) read 1.00x [0.93, 1.08] at 1,000 against 100 changes/s over 3 seeds, quiet,
#: where 200 read 1.19x [0.76, 1.87], at the same wall time (the changes dominate it)
CHURN_EVENTS = 2000


def churn_points(
    n_live: int,
    rates: list[int],
    seconds: int,
    seeds: list[int],
    consts: CostConstants,
    events: int = CHURN_EVENTS,
) -> list[dict[str, Any]]:
    """The churn-rate sweep's grid: every strategy x seed over all ``rates``, ``events``
    events timed per simulated second."""
    return [
        {"strategy": st, "seed": s, "n_live": n_live, "rates": list(rates), "seconds": seconds,
         "events": events, "consts": vars(consts)}
        for st in STRATEGIES for s in seeds
    ]  # fmt: skip


def halving_rates(churn: pd.DataFrame) -> pd.Series:
    """:func:`halving_rate` of every (strategy, seed) of a churn sweep."""
    return churn.groupby(["strategy", "seed"]).apply(halving_rate, include_groups=False)


def run_saturation(
    points: list[dict[str, Any]], *, spark: Any = None, local: bool = False
) -> pd.DataFrame:
    """Every saturation run of ``points`` as a Spark task; one row per tick."""
    from routelab.sweep import run_grid

    frame = run_grid(saturation_run, points, spark=spark, local=local, desc="Fig. 4 saturation")
    return frame.drop(columns=[c for c in ("consts",) if c in frame.columns])


def run_churn(
    points: list[dict[str, Any]], *, spark: Any = None, local: bool = False
) -> pd.DataFrame:
    """Every churn-rate run of ``points`` as a Spark task; one row per (rate, second)."""
    from routelab.sweep import run_grid

    frame = run_grid(churn_run, points, spark=spark, local=local, desc="churn rate")
    return frame.drop(columns=[c for c in ("consts", "rates") if c in frame.columns])


def routing_frame(
    n: int,
    n_events: int,
    partitions: list[int],
    *,
    seed: int = 0,
    algorithm: str = "propagation_wp",
    spark: Any = None,
) -> pd.DataFrame:
    """Broadcast vs access-predicate routing (:func:`routelab.filtering.lab.adaptivity.routing.
    routing_sweep`) on W0 and on the real flights, ``n`` subscriptions and ``n_events``
    events each; one row per (workload, routing, partitions). The access predicates are
    static clustering's (single equalities and the greedy's tables, Sect. 3.2.3), and the
    subscriptions without an equality form one group (one partition receives every event)."""
    from routelab.filtering.lab.adaptivity.routing import routing_sweep
    from routelab.filtering.lab.matching.experiments import FLIGHTS, workload_data

    frames = []
    for workload in ("W0", FLIGHTS):
        subs, stats, batches = workload_data(workload, n, seed, max(1, n_events // 100))
        events = Events(np.concatenate([b.values for b in batches]))
        sample = pick("greedy", min(len(subs), 100_000), len(subs))
        schemas, _ = greedy_configuration(subs, stats, sample=sample, seed=seed)
        out = routing_sweep(
            subs,
            events,
            partitions=partitions,
            algorithms=[algorithm],
            stats=stats,
            spark=spark,
            routing_schemas=schemas,
            catch_all="group",
        )
        frames.append(out.assign(workload=workload, tables=len(schemas)))
    return pd.concat(frames, ignore_index=True)


def maintenance_example() -> dict[str, pd.DataFrame]:
    """The worked example of notebook 10 (Sect. 4.1): six subscriptions, values uniform
    over 10, BMmax 0.4, Bmin 2, RPmin 3; the clustering before and after one maintenance
    step, and after three deletions that remove the table again."""
    from routelab.filtering.dynamic import Thresholds

    lists = [[(0, "=", 1), (1, "=", k)] for k in range(4)]
    lists += [[(0, "=", 1), (2, ">", 3)], [(0, "=", 2), (1, "=", 1)]]
    subs = Subscriptions.from_lists(lists, n_attrs=3)
    stats = EventStats.uniform([10, 10, 10])
    th = Thresholds(bm_max=0.4, b_min=2, rp_min=3)
    before = DynamicMatcher(subs, stats=stats, thresholds=th, adapt=False)
    after = DynamicMatcher(subs, stats=stats, thresholds=th)
    states = {"before": _clustering(before), "after": _clustering(after)}
    after.delete_many([0, 1, 2])
    states["after deleting s0..s2"] = _clustering(after)
    steps = pd.DataFrame(
        [
            {
                "step": k,
                "tables created": ", ".join(map(_schema_name, s.created)) or "-",
                "tables removed": ", ".join(map(_schema_name, s.dropped)) or "-",
                "clusters redistributed": s.redistributed,
                "subscriptions moved": s.moved,
            }
            for k, s in enumerate(after.log, start=1)
        ]
    )
    return {"before": states["before"], "after": states["after"],
            "after deleting": states["after deleting s0..s2"], "steps": steps}  # fmt: skip


def _schema_name(schema: tuple[int, ...]) -> str:
    return "(" + ", ".join(f"a{a}" for a in schema) + ")"


def _clustering(m: DynamicMatcher) -> pd.DataFrame:
    """Each live subscription with its access predicate, cluster size and BM."""
    t = m.registry.table()
    bm = m.benefit_margin()
    rows = []
    for c in range(m.index.c_count.n):
        key = m.index.access_keys[m.index.c_access.data[c]]
        if len(key) == 1 and key != ("*",):
            access = f"a{int(t.attr[key[0]])} = {int(t.value[key[0]])}"
        elif len(key) == 2:
            access = " AND ".join(f"a{a} = {v}" for a, v in zip(*key, strict=True))
        else:
            access = "(catch-all)"
        for i in m.index.members(c).tolist():
            rows.append(
                {
                    "subscription": f"s{int(m.registry.ids.data[i])}",
                    "access predicate": access,
                    "cluster size": int(m.index.c_count.data[c]),
                    "cluster BM": round(float(bm[c]), 3),
                }
            )
    return pd.DataFrame(rows).sort_values("subscription", ignore_index=True)
