"""Notebook 10's experiments and claims (Fabret et al. Sect. 6.2.3, Fig. 4): the scenario
generators by hand, the saturation timeline's bookkeeping, the oracle through a
saturation replay, the window and halving arithmetic, and every verdict of every rule."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from routelab.filtering.calibration import measure_constants
from routelab.filtering.costmodel import CostConstants, EventStats
from routelab.filtering.dynamic import DynamicMatcher, Thresholds
from routelab.filtering.lab.adaptivity import claims as ac
from routelab.filtering.lab.adaptivity import experiments as ad
from routelab.filtering.model import Subscriptions, match_pairs
from routelab.filtering.oracle import oracle_match


def test_shift_and_skew_by_hand():
    subs = Subscriptions.from_lists([[(0, "=", 5), (3, ">", 9)], [(1, "=", 35)]], n_attrs=16)
    shifted = ad.shift_attributes(subs, 16, 32)
    assert shifted.n_attrs == 32
    assert shifted.as_lists() == [[(16, "=", 5), (19, ">", 9)], [(17, "=", 35)]]
    skewed = ad.skew_attribute(subs, 0, 2)
    # values 1..35 folded onto 1, 2: 5 -> 1 + (4 % 2) = 1; attribute 1 untouched
    assert skewed.as_lists() == [[(0, "=", 1), (3, ">", 9)], [(1, "=", 35)]]
    w2 = ad.phase_subscriptions("schema", "W2", 200, seed=1)
    attrs = w2.table.attr[w2.preds]
    assert attrs.min() >= 16 and w2.n_attrs == 32
    assert (attrs == 16).sum() == 200  # W1's one fixed equality, shifted
    ev = ad.phase_events("skew", "W2", 500, seed=1)
    assert set(np.unique(ev.values[:, 0])) <= {1, 2}
    assert len(np.unique(ad.phase_events("skew", "W1", 500, seed=1).values[:, 0])) > 2
    with pytest.raises(ValueError, match="unknown scenario"):
        ad.phase_subscriptions("drift", "W1", 10, seed=0)


def test_saturation_timeline_bookkeeping_and_determinism():
    params = {"scenario": "schema", "strategy": "dynamic", "seed": 3, "n_live": 3_000,
              "tick_h": 2.0, "events_per_tick": 50}  # fmt: skip
    rows = pd.DataFrame(ad.saturation_run(params))
    hour_s = 3600 * 3_000 / 3_000_000  # 3.6 simulated seconds per scaled hour
    assert len(rows) == 10 and rows["hour"].tolist() == [2.0 * (k + 1) for k in range(10)]
    assert rows["tick_s"].iloc[0] == pytest.approx(2 * hour_s)
    assert (rows["per_tick"] == round(50 * 2 * hour_s)).all()  # 50 inserts per second
    assert rows["phase"].tolist() == ["W1"] + ["W2"] * 9
    assert (rows["throughput"] > 0).all()
    again = pd.DataFrame(ad.saturation_run(params))
    cols = ["checks_per_event", "tables", "moved", "created", "dropped"]
    assert rows[cols].equals(again[cols])  # everything but the clock is seeded
    with pytest.raises(ValueError, match="unknown strategy"):
        ad.saturation_run({**params, "strategy": "magic"})


def test_a_saturation_replay_keeps_the_oracles_matches():
    """The Fig. 4(a) timeline by hand on a small system: every tick deletes the oldest,
    inserts W2 subscriptions and maintains; dynamic (which creates and removes tables on the
    way) returns exactly the oracle's matches on the live set after every tick."""
    n, per_tick = 1_500, 300
    initial = ad.phase_subscriptions("schema", "W1", n, seed=1)
    stats = EventStats.from_events(ad.phase_events("schema", "W1", 1000, seed=2))
    schemas = [(0, 1), (0, 2), (0, 3)]  # W1's fixed attribute with others
    m = DynamicMatcher(
        initial,
        stats=stats,
        schemas=schemas,
        thresholds=Thresholds(bm_max=0.05, b_min=60, rp_min=80),
    )
    live = dict(zip(initial.ids.tolist(), initial.as_lists(), strict=True))
    pool = ad.phase_subscriptions("schema", "W2", 6 * per_tick, seed=3)
    pool_lists = pool.as_lists()
    events = ad.phase_events("schema", "W2", 300, seed=4)
    tables_seen = set(schemas)
    for k in range(6):
        old = list(range(k * per_tick, (k + 1) * per_tick))
        new_ids = list(range(n + k * per_tick, n + (k + 1) * per_tick))
        new = ad._with_ids(pool.take(np.arange(k * per_tick, (k + 1) * per_tick)), new_ids[0])
        m.delete_many(old)
        m.insert_subscriptions(new)
        for i in old:
            del live[i]
        live.update(zip(new_ids, pool_lists[k * per_tick : (k + 1) * per_tick], strict=True))
        tables_seen |= set(m.schemas)
        ids = sorted(live)
        truth_subs = Subscriptions.from_lists([live[i] for i in ids], ids=ids, n_attrs=32)
        ptr, idx = oracle_match(truth_subs, events)
        got = m.match(events)
        assert match_pairs(*got) == match_pairs(ptr, truth_subs.ids[idx]), k
    assert any(s.created for s in m.log) and any(s.dropped for s in m.log)
    assert tables_seen - set(schemas)  # W2 tables were created


def test_windows_sum_events_over_seconds():
    ticks = pd.DataFrame(
        {"scenario": "schema", "strategy": "dynamic", "seed": 0,
         "hour": [1.0, 2.0, 3.0, 4.0], "events_fit": [100.0, 300.0, 50.0, 50.0],
         "tick_s": [10.0, 10.0, 10.0, 10.0], "checks_per_event": [1, 3, 5, 7],
         "update_s": 0.1, "moved": [0, 2, 3, 0], "created": 0, "dropped": 0,
         "tables": [1, 1, 2, 2]}
    )  # fmt: skip
    w = ad.windows(ticks)
    assert w["window"].tolist() == [2.0, 4.0]
    assert w["throughput"].tolist() == [20.0, 5.0]  # 400 / 20 s, 100 / 20 s
    assert w["moved"].tolist() == [2, 3] and w["tables"].tolist() == [1, 2]


def test_halving_rate_interpolates_on_a_log_scale():
    def frame(values):
        return pd.DataFrame({"rate": [10, 100, 1000], "throughput": values})

    # 100 -> 40 between rate 100 and 1000: half (50) at 10^(2 + 50/60)
    assert ad.halving_rate(frame([100, 100, 40])) == pytest.approx(10 ** (2 + 50 / 60))
    assert ad.halving_rate(frame([100, 90, 80])) == math.inf
    assert ad.halving_rate(frame([100, 50, 10])) == pytest.approx(100)
    assert math.isnan(ad.halving_rate(pd.DataFrame({"rate": [], "throughput": []})))


def test_churn_points_time_enough_events_per_second():
    """200 events a second (about 2 ms of matching) left the churn check's per-seed ratios
    to the scheduler; the sweep's points carry the module's 2,000 unless told."""
    pts = ad.churn_points(1_000, [100, 1_000], 1, [0, 1], CostConstants())
    assert {p["events"] for p in pts} == {ad.CHURN_EVENTS} == {2000}
    assert len(pts) == 2 * len(ad.STRATEGIES)
    assert {p["events"] for p in ad.churn_points(1_000, [100], 1, [0], CostConstants(), 50)} == {50}


def test_churn_run_rows():
    rows = pd.DataFrame(
        ad.churn_run({"strategy": "no_change", "seed": 0, "n_live": 2_000,
                      "rates": [100, 2_000], "seconds": 2, "events": 50})
    )  # fmt: skip
    assert rows["rate"].tolist() == [100, 100, 2_000, 2_000]
    assert (rows["throughput"] > 0).all() and (rows["us_per_change"] > 0).all()
    with pytest.raises(ValueError, match="more than the 2,000 live ones"):
        ad.churn_run({"strategy": "dynamic", "n_live": 2_000, "rates": [10_000]})


def test_maintenance_example_moves_exactly_s0_to_s3():
    ex = ad.maintenance_example()
    before = ex["before"].set_index("subscription")["access predicate"]
    after = ex["after"].set_index("subscription")["access predicate"]
    assert set(before[before == "a0 = 1"].index) == {"s0", "s1", "s2", "s3", "s4"}
    moved = {s for s in after.index if after[s] != before[s]}
    assert moved == {"s0", "s1", "s2", "s3"}
    assert after["s2"] == "a0 = 1 AND a1 = 2"
    back = ex["after deleting"].set_index("subscription")["access predicate"]
    assert back.to_dict() == {"s3": "a0 = 1", "s4": "a0 = 1", "s5": "a0 = 2"}
    assert ex["steps"]["subscriptions moved"].tolist() == [4, 1]


def test_measured_constants_have_the_models_shape():
    consts, fit = measure_constants(n=20_000, events=200, repeats=1)
    assert isinstance(consts, CostConstants)
    assert consts.K_c > 0 and consts.C_h >= 1 and np.isfinite(fit["r2"])
    assert {"fixed_ns", "K_c_ns", "probe_ns"} <= set(fit)


# -- claims --------------------------------------------------------------------------------


def _windows(values: dict[tuple[str, str], list[list[float]]]) -> pd.DataFrame:
    """values[(scenario, strategy)][seed] = throughput per window (2, 4, ..., 20)."""
    rows = []
    for (scenario, strategy), seeds in values.items():
        for seed, series in enumerate(seeds):
            for k, t in enumerate(series):
                rows.append({"scenario": scenario, "strategy": strategy, "seed": seed,
                             "window": 2.0 * (k + 1), "throughput": t})  # fmt: skip
    return pd.DataFrame(rows)


def _series(start: float, end: float, jitter: float, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    return list(np.linspace(start, end, 10) * (1 + jitter * rng.normal(size=10)))


def _scenario(nc_end, dyn_end, jitter=0.01, dyn_start=100.0):
    return {
        ("schema", "no_change"): [_series(100, nc_end[0], jitter, s) for s in range(3)],
        ("schema", "dynamic"): [_series(dyn_start, dyn_end[0], jitter, 10 + s) for s in range(3)],
        ("skew", "no_change"): [_series(100, nc_end[1], jitter, 20 + s) for s in range(3)],
        ("skew", "dynamic"): [_series(dyn_start, dyn_end[1], jitter, 30 + s) for s in range(3)],
    }


def _verdicts(windows: pd.DataFrame) -> list[str]:
    return [r["verdict"].verdict for r in ac.saturation_rows(windows, 100_000)]


#: Fig. 4 as the paper tells it: schema: No Change 100 -> 50, dynamic irregular during the
#: transition (a zigzag above No Change in most windows) ending at 87.5 = 1.75 x 50; skew:
#: No Change 100 -> 80, dynamic dips below it right after the switch (90 against 97.8),
#: then recovers to 100, above No Change after hour 10
PAPER_SCHEMA_DYN = [100, 130, 80, 125, 78, 120, 68, 110, 87.5, 87.5]
PAPER_SKEW_DYN = [100, 90, 94, 97, 99, 100, 101, 100, 100, 100]


def _paper_windows(jitter: float = 0.01) -> pd.DataFrame:
    def jit(xs, seed):
        return list(
            np.asarray(xs, float) * (1 + jitter * np.random.default_rng(seed).normal(size=10))
        )

    return _windows({
        ("schema", "no_change"): [_series(100, 50, jitter, s) for s in range(3)],
        ("schema", "dynamic"): [jit(PAPER_SCHEMA_DYN, 10 + s) for s in range(3)],
        ("skew", "no_change"): [_series(100, 80, jitter, 20 + s) for s in range(3)],
        ("skew", "dynamic"): [jit(PAPER_SKEW_DYN, 30 + s) for s in range(3)],
    })  # fmt: skip


def test_saturation_rules_hold_on_the_papers_numbers():
    w = _paper_windows()
    assert _verdicts(w) == ["holds"] * 6
    rows = ac.saturation_rows(w, 100_000)
    assert all("100,000 live subscriptions" in r["note"] for r in rows)
    assert all(r["verdict"].repeats >= 3 for r in rows)


def test_saturation_rules_fail_on_the_opposite():
    # No Change unchanged; dynamic far below it everywhere after the switch
    w = _windows(_scenario(nc_end=(100, 100), dyn_end=(30, 30), dyn_start=100))
    v = _verdicts(w)
    assert v[0] == "fails"  # 1.0x: the paper's 0.5 excluded and no fall
    assert v[1] == "fails"  # dynamic / No Change = 0.3
    assert v[2] == "partly"  # irregular (a fall against a flat line), but never faster
    assert v[3] == "fails"  # 1.0 against 0.8 in [0.71, 0.9]: outside, not on the paper's side
    assert v[4] == "fails"  # dynamic fell to 0.3 of its start: not the same
    assert v[5] == "partly"  # below No Change at first (as the paper), and after hour 10


def test_saturation_rules_direction_only_and_inconclusive():
    # No Change falls to 0.2 (beyond the 1.5x band of 0.5 but the right way); dynamic ends
    # 3x No Change
    far = _windows(_scenario(nc_end=(20, 80), dyn_end=(60, 100)))
    v = _verdicts(far)
    assert v[0] == "direction only" and v[1] == "direction only"
    # noise wide enough that nothing is decided
    noisy = _windows(_scenario(nc_end=(50, 80), dyn_end=(55, 95), jitter=0.4))
    assert "inconclusive" in _verdicts(noisy)


def test_a_benefit_within_the_margin_does_not_overcome():
    """C15's second half: dynamic level with No Change after hour 10 (within 5 %) fails in
    every run, not "inconclusive" by the noise; the paper's 1.1-1.25x above holds."""
    level = _scenario(nc_end=(50, 80), dyn_end=(87.5, 80), jitter=0.005)
    v = _verdicts(_windows(level))
    assert v[5] == "fails"
    assert "lies above 1.05" in ac.saturation_rows(_windows(level), 100_000)[5]["verdict"].rule
    assert _verdicts(_paper_windows(jitter=0.005))[5] == "holds"


def test_saturation_rules_need_three_seeds():
    w = _paper_windows()
    two = w[w["seed"] < 2]
    # the sign test counts windows, not seeds: it may still decide; every other row cannot
    v = _verdicts(two)
    assert set(v[:2] + v[3:]) == {"not comparable"}


def test_most_of_the_time_is_a_sign_test_over_the_windows():
    w = _paper_windows()
    row = ac.saturation_rows(w, 100_000)[2]
    assert "of 27 windows" in row["measured"] and row["verdict"].verdict == "holds"
    # a coin: dynamic faster in about half of the windows -> inconclusive
    coin = w.copy()
    sch = (coin.scenario == "schema") & (coin.strategy == "dynamic") & (coin.window > 2)
    nc = coin[(coin.scenario == "schema") & (coin.strategy == "no_change")].set_index(
        ["seed", "window"]
    )["throughput"]
    sign = np.where(np.arange(sch.sum()) % 2 == 0, 1.05, 0.95)
    keys = list(zip(coin[sch].seed, coin[sch].window, strict=True))
    coin.loc[sch, "throughput"] = [nc[k] * f for k, f in zip(keys, sign, strict=True)]
    assert ac.saturation_rows(coin, 100_000)[2]["verdict"].verdict in ("inconclusive", "partly")


def _churn(at_high: list[float], rates=(100, 1_000, 10_000), never_halves: bool = False):
    """A churn sweep by hand: dynamic's throughput 1,000/s at 100 changes/s on every seed,
    ``at_high[i]`` x that at 1,000/s on seed i, then a quarter of it at 10,000/s (or flat
    when ``never_halves``); No Change flat."""
    rows = []
    for seed, f in enumerate(at_high):
        for rate in rates:
            k = {100: 1.0, 1_000: f}.get(rate, f if never_halves else 0.25)
            for second in range(2):
                rows += [{"strategy": "dynamic", "seed": seed, "rate": rate, "second": second,
                          "throughput": 1_000.0 * k * (1 + 0.01 * second)},
                         {"strategy": "no_change", "seed": seed, "rate": rate,
                          "second": second, "throughput": 900.0}]  # fmt: skip
    return pd.DataFrame(rows)


def test_churn_rule_gives_each_verdict():
    hold = ac.churn_row(_churn([0.97, 0.95, 0.99]), 10_000)
    assert hold["verdict"].verdict == "holds"
    assert hold["measured"].startswith("throughput at 1,000 changes/s: 0.97x")
    assert "halves at" in hold["measured"]  # the legend's rate, beside the rule's ratio
    timed = _churn([0.97, 0.95, 0.99]).assign(us_per_change=20.0)
    assert "a change cost 20.0 µs" in ac.churn_row(timed, 10_000)["note"]
    assert "2.0% of a second" in ac.churn_row(timed, 10_000)["note"]
    fail = ac.churn_row(_churn([0.2, 0.3, 0.25]), 10_000)
    assert fail["verdict"].verdict == "fails"
    wide = ac.churn_row(_churn([0.2, 0.9, 0.6]), 10_000)
    assert wide["verdict"].verdict == "inconclusive"
    never = ac.churn_row(_churn([0.97, 0.95, 0.99], never_halves=True), 10_000)
    assert never["verdict"].verdict == "holds"
    assert "never halves up to 10,000 changes/s" in never["measured"]
    # the rule reads 100/s and 1,000/s themselves: a sweep without them is not comparable
    no_high = ac.churn_row(_churn([0.97] * 3, rates=(100, 5_000)), 5_000)
    assert no_high["verdict"].verdict == "not comparable"
    assert "1,000" in no_high["verdict"].rule
    assert ac.churn_row(_churn([0.97, 0.95]), 10_000)["verdict"].verdict == "not comparable"


def test_churn_rule_is_not_moved_by_a_seed_that_never_halves():
    """The halving rate mixes values with lower bounds (a seed that never halved counts at
    the sweep's top) and reads inconclusive across three seeds; the rule's ratio does not."""
    churn = _churn([0.98, 0.97, 0.99])
    flat = churn["seed"].eq(1) & churn["rate"].gt(1_000) & churn["strategy"].eq("dynamic")
    churn.loc[flat, "throughput"] = 970.0  # seed 1 never halves
    churn.loc[churn["seed"].eq(2) & churn["rate"].eq(10_000) & churn["strategy"].eq("dynamic"),
              "throughput"] = 10.0  # seed 2 halves early, between 1,000 and 10,000/s  # fmt: skip
    row = ac.churn_row(churn, 10_000)
    assert row["verdict"].verdict == "holds"
    assert "1 of 3 seeds never halved" in row["measured"]


def _real(times: dict[str, float], noise: float = 0.02, seeds: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        [{"workload": "flights", "algorithm": a, "seed": s, "batch": b, "n": 50_000,
          "match_ms": t * (1 + noise * rng.normal())}
         for a, t in times.items() for s in range(seeds) for b in range(3)]
    )  # fmt: skip


def test_real_ordering_rule():
    good = {"dynamic": 1.0, "propagation_wp": 3.0, "propagation": 5.0, "counting": 50.0}
    assert ac.real_ordering_row(_real(good))["verdict"].verdict == "holds"
    flat = {"dynamic": 1.0, "propagation_wp": 1.0, "propagation": 1.0, "counting": 1.0}
    assert ac.real_ordering_row(_real(flat))["verdict"].verdict == "fails"
    missing = {"dynamic": 1.0, "counting": 5.0}
    assert ac.real_ordering_row(_real(missing))["verdict"].verdict == "not comparable"
    # batches are not repeats: two seeds of three batches each cannot decide
    two = ac.real_ordering_row(_real(good, seeds=2))
    assert two["verdict"].verdict == "not comparable" and two["kind"] == "beyond"


def test_routing_rule():
    def frame(access_msgs):
        return pd.DataFrame(
            [{"workload": w, "routing": r, "partitions": p,
              "messages_per_event": (p if r == "broadcast" else access_msgs)}
             for w in ("W0", "flights") for r in ("broadcast", "access") for p in (2, 4)]
        )  # fmt: skip

    assert ac.routing_row(frame(1.0))["verdict"].verdict == "holds"
    assert ac.routing_row(frame(4.0))["verdict"].verdict == "fails"
    # fewer than broadcast but more than P/2 on W0: no real saving
    assert ac.routing_row(frame(3.0))["verdict"].verdict == "fails"
    assert ac.routing_row(frame(1.0))["kind"] == "check"
    empty = pd.DataFrame(columns=["workload", "routing", "partitions", "messages_per_event"])
    assert ac.routing_row(empty)["verdict"].verdict == "not comparable"


def _ticks(
    change_us: float,
    event_us: float,
    moves_distinct: bool = True,
    fits: bool = True,
    corr: float = 1.0,
    seeds: int = 3,
) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for s in range(seeds):
        for k in range(12):
            moved = int(rng.integers(1, 50))
            noise = rng.normal()
            rows.append({"strategy": "dynamic", "scenario": "schema", "seed": s, "hour": k,
                         "us_per_change": change_us * (1 + 0.01 * rng.normal()),
                         "event_us": event_us, "moved": moved,
                         "phase1_moved": moved,
                         "distinct_moved": moved if moves_distinct else moved - 1,
                         "update_s": 0.01 + corr * 1e-3 * moved + (1 - corr) * 0.05 * abs(noise),
                         "tick_s": 1.0 if fits else 0.005, "created": int(k == 5),
                         "dropped": int(k == 7)})  # fmt: skip
    return pd.DataFrame(rows)


def test_insertion_cost_row_gives_each_verdict():
    assert ac.insertion_cost_row(_ticks(5.0, 4.0))["verdict"].verdict == "holds"
    assert ac.insertion_cost_row(_ticks(50.0, 4.0))["verdict"].verdict == "fails"  # 12.5x
    assert ac.insertion_cost_row(_ticks(0.4, 4.0))["verdict"].verdict == "fails"  # 0.1x
    assert ac.insertion_cost_row(_ticks(5.0, 4.0, seeds=2))["verdict"].verdict == "not comparable"


def test_maintenance_rows_give_each_verdict():
    w = _paper_windows().assign(matches_per_event=lambda f: 1.0 + f.window / 10)
    rows = {r["claim"]: r for r in ac.maintenance_rows(_ticks(5.0, 4.0), w)}
    assert all(r["verdict"].verdict == "holds" for r in rows.values()), rows
    assert rows["a subscription moves at most once per redistribution"]["kind"] == "check"
    bad = {r["claim"]: r for r in ac.maintenance_rows(
        _ticks(5.0, 4.0, moves_distinct=False, fits=False, corr=0.0),
        w.assign(matches_per_event=lambda f: 3.0 - f.window / 10))}  # fmt: skip
    assert bad["a subscription moves at most once per redistribution"]["verdict"].verdict == "fails"
    assert (
        bad["the paper's 100 changes per second fit within each second"]["verdict"].verdict
        == "fails"
    )
    assert bad["the maintenance cost is proportional to the number of moves"]["verdict"].verdict in (
        "fails", "inconclusive")  # fmt: skip
    assert (
        bad["skew: more matches per event at the end (footnote 10)"]["verdict"].verdict == "fails"
    )
    none = ac.maintenance_rows(_ticks(5.0, 4.0).assign(created=0), w)
    assert next(r for r in none if "creates and drops" in r["claim"])["verdict"].verdict == "fails"
    # ticks recorded before distinct moves were counted: the row is listed, not dropped
    old = ac.maintenance_rows(_ticks(5.0, 4.0).drop(columns=["distinct_moved"]), w)
    moves = next(r for r in old if r["claim"].startswith("a subscription moves at most once"))
    assert moves["verdict"].verdict == "not comparable" and moves["kind"] == "check"
    assert len(old) == len(ac.maintenance_rows(_ticks(5.0, 4.0), w))
