"""Notebook 09's claims table: the claims of Sect. 6 (C1-C13, C16-C17) against ours.

Every tolerance is a module constant, declared before any measurement. Machines differ by
20 years (the paper's 500 MHz Pentium III vs this one), so absolute times are stated but
ratios and shapes are what is judged; "dynamic" (Sect. 4) is not implemented, so where the
paper measures dynamic we compare *static*, the configuration dynamic starts from and which
the paper says it matches within a few ms (C8).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from routelab.claims import (
    Verdict,
    at_least,
    combine,
    direction,
    equivalent,
    not_comparable,
    ordering,
    unmeasured_rows,
    within_factor,
    within_tolerance,
)

PAPER_MS_6M = {
    "counting": 90_377.0,
    "propagation": 804.0,
    "propagation_wp": 509.0,
    "dynamic": 166.0,
}
FACTOR_TOL = 2.0  # a ratio the paper sizes holds within 2x either way
PREFETCH_TOL = 1.25  # prefetching's 1.58x: within 1.25x
#: "independent of N": over the paper's range (100k to 6M subscriptions, 60x) the time may
#: grow by at most 1.25x, so the log-log slope's interval must lie inside +-ln 1.25 / ln 60
PAPER_N_RANGE = 6_000_000 / 100_000
FLAT_GROWTH = 1.25
SLOPE_MARGIN = float(np.log(FLAT_GROWTH) / np.log(PAPER_N_RANGE))
SPACE_SLOPE_TOL = 0.15  # "space linear": log-log slope of bytes vs N within 1 +- 0.15
PROP_WP_SLOPE = float(np.log(353 / 10) / np.log(6_000_000 / 100_000))  # C5: 10 -> 353 ms
PROP_WP_SLOPE_TOL = 0.15
PHASE1_SHARE_PAPER = 130 / 140  # C4: 130 ms predicate discovery of dynamic's 140 ms (no IPC)
PAPER_HARDWARE = "a 500 MHz Pentium III, one process (the paper)"


def phase_split_row(frame: pd.DataFrame, fixed_ns: float) -> dict:
    """C4: in the paper's dynamic run at 6M, predicate discovery (phase 1) takes 130 ms of
    140 ms (the rest is IPC). The paper's phase 1 includes parsing the events, which our
    kernels never do, and it does not give phase 1 without parsing: the row shows our share
    (the calibrated fixed part per event against static's time per event at the largest N,
    uncapped) and is not comparable."""
    claim = "predicate discovery (phase 1) dominates the clustered algorithm's time"
    reason = (
        "the paper's 130 ms include parsing the events, which our kernels do not do, and "
        "the paper gives no phase 1 without parsing"
    )
    rows = frame[frame["algorithm"] == "static"]
    if rows.empty or not np.isfinite(fixed_ns):
        return {
            "claim": claim,
            "paper": "Sect. 6.2.1",
            "paper_value": "130 of 140 ms",
            "measured": "not measured",
            "verdict": not_comparable(reason),
        }
    big = rows[rows["n"] == rows["n"].max()]
    total_ns = float(big["ms_per_100"].median()) * 1e6 / 100
    share = fixed_ns / total_ns
    note = (
        "the fitted fixed part exceeds static's whole time per event: the cost-model fit "
        "does not separate phase 1 at this N"
        if share > 1
        else "our phase 1 (the cost model's fixed part) beside the paper's, for reading only"
    )
    return {
        "claim": claim,
        "paper": "Sect. 6.2.1 (dynamic at 6M)",
        "paper_value": f"{PHASE1_SHARE_PAPER:.0%} (130 of 140 ms, IPC excluded, parsing included)",
        "measured": f"{share:.0%} ({fixed_ns / 1e3:.1f} of {total_ns / 1e3:.1f} µs per event, "
        f"static, N={int(big['n'].iloc[0]):,})",
        "verdict": not_comparable(reason),
        "note": note,
    }


def _rate_check(events_per_s: float, paper: float) -> Verdict:
    """Our events/s against the paper's rate, the rule worded like the paper's value."""
    v = at_least(events_per_s, paper, what="events/s")
    return Verdict(v.verdict, f"holds if events/s >= {paper:,.0f} (the paper's rate)")


def throughput_row(frame: pd.DataFrame) -> dict:
    """C16, "up to a thousand events per second": a check, not a claim. Our kernel-only rate
    on one core of a machine 20 years newer than the paper's cannot fail against it; the row
    shows our rate beside the paper's, with the hardware said."""
    best = frame.groupby("algorithm")["ms_per_100"].median().min() if len(frame) else np.nan
    eps = 1e5 / best if best == best else float("nan")
    return {
        "claim": "up to a thousand events per second",
        "paper": "Sect. 6 (introduction)",
        "paper_value": f"1,000 events/s on {PAPER_HARDWARE}",
        "measured": f"{eps:,.0f} events/s (fastest algorithm, kernel only, one core of this "
        "machine)",
        "verdict": _rate_check(eps, 1000),
        "kind": "check",
        "note": "absolute rates on different hardware: a check of our configuration, not a "
        "test of the paper",
    }


def _at_largest(frame: pd.DataFrame, column: str, algorithms: list[str]) -> tuple[int, dict]:
    """Values of ``column`` at the largest N every algorithm in ``algorithms`` ran."""
    sub = frame[frame["algorithm"].isin(algorithms)]
    common = sub.groupby("n")["algorithm"].nunique()
    common = common[common == len(algorithms)]
    if common.empty:
        return 0, {}
    n = int(common.index.max())
    rows = sub[sub["n"] == n].groupby("algorithm")[column].median()
    return n, rows.to_dict()


def _slope(frame: pd.DataFrame, algorithm: str, column: str) -> tuple[float, float, float]:
    """Log-log slope of ``column`` vs N with a 95 % interval (estimate, low, high): the t
    quantile for the fit's ``points - 2`` degrees of freedom (3 points: 12.7, not 1.96)."""
    sub = frame[frame["algorithm"] == algorithm].groupby("n")[column].median()
    if len(sub) < 3:
        return float("nan"), float("nan"), float("nan")
    x, y = np.log(sub.index.to_numpy(float)), np.log(sub.to_numpy(float))
    coef, cov = np.polyfit(x, y, 1, cov=True)
    half = float(stats.t.ppf(0.975, df=len(sub) - 2)) * float(np.sqrt(cov[0, 0]))
    return float(coef[0]), float(coef[0] - half), float(coef[0] + half)


def ratio_row(
    frame: pd.DataFrame,
    slow: str,
    fast: str,
    paper: float,
    claim: str,
    where: str,
    tol: float = FACTOR_TOL,
) -> dict:
    n, t = _at_largest(frame, "ms_per_100", [slow, fast])
    if not t:
        v: Verdict = not_comparable(f"{slow} and {fast} not measured at a common N")
        measured = "not measured"
    else:
        ratio = t[slow] / t[fast]
        v = within_factor(ratio, paper, tol)
        measured = f"{ratio:.2f}x at N={n:,} ({t[slow]:.3g} vs {t[fast]:.3g} ms per 100 events)"
    return {
        "claim": claim,
        "paper": where,
        "paper_value": f"{paper:.3g}x",
        "measured": measured,
        "verdict": v,
    }


def scalability_rows(frame: pd.DataFrame) -> list[dict]:
    """C1-C3, C5-C7, C10, C11, C16, C17 from the Fig. 3(a, c, d) rows."""
    rows = [
        ratio_row(
            frame,
            "counting",
            "propagation",
            PAPER_MS_6M["counting"] / 804,
            "counting is two orders of magnitude slower than propagation",
            "Sect. 6.2.1, Fig. 3a (90,377 vs 804 ms at 6M)",
        ),
        ratio_row(
            frame,
            "propagation",
            "propagation_wp",
            804 / 509,
            "prefetching improves propagation by a factor of 1.5 for large N",
            "Sect. 6.2.1, Fig. 3a (804 vs 509 ms)",
            PREFETCH_TOL,
        ),
        ratio_row(
            frame,
            "propagation_wp",
            "static",
            509 / 166,
            "schema-based clustering (dynamic; here static) beats propagation_wp",
            "Sect. 6.2.1, Fig. 3a (509 vs 166 ms)",
        ),
    ]
    n, t = _at_largest(frame, "ms_per_100", ["counting", "propagation", "propagation_wp", "static"])
    rows.append(
        {
            "claim": "ordering: dynamic (static) < propagation_wp < propagation < counting",
            "paper": "Sect. 6.2.1, Fig. 3a",
            "paper_value": "166 < 509 < 804 < 90,377 ms",
            "measured": ", ".join(
                f"{k} {v:.3g} ms" for k, v in sorted(t.items(), key=lambda kv: kv[1])
            )
            + f" at N={n:,}",
            "verdict": ordering(t, ["static", "propagation_wp", "propagation", "counting"]),
        }
    )
    est, lo, hi = _slope(frame, "static", "ms_per_100")
    rows.append(
        {
            "claim": "the clustered algorithm's matching time is independent of N",
            "paper": "Sect. 6.2.1, Fig. 3a (dynamic; here static)",
            "paper_value": "flat",
            "measured": f"log-log slope {est:.2f} [{lo:.2f}, {hi:.2f}]",
            "verdict": equivalent(est, lo, hi, SLOPE_MARGIN),
        }
    )
    est, lo, hi = _slope(frame, "propagation_wp", "ms_per_100")
    rows.append(
        {
            "claim": "propagation_wp's matching grows from 10 ms at 100k to 353 ms at 6M",
            "paper": "Sect. 6.2.1",
            "paper_value": f"log-log slope {PROP_WP_SLOPE:.2f}",
            "measured": f"log-log slope {est:.2f} [{lo:.2f}, {hi:.2f}]",
            "verdict": within_tolerance(est, PROP_WP_SLOPE, PROP_WP_SLOPE_TOL, neutral=0.0),
        }
    )
    big = frame[frame["n"] == frame["n"].max()]
    fastest = big.groupby("algorithm")["ms_per_100"].median().min() if len(big) else float("nan")
    eps = 1e5 / fastest if fastest == fastest else float("nan")
    rows.append(
        {
            "claim": "600 events per second on 6 million subscriptions",
            "paper": "abstract, Sect. 7",
            "paper_value": f"600 events/s at 6M on {PAPER_HARDWARE}",
            "measured": f"{eps:,.0f} events/s at N={int(frame['n'].max()):,} (kernel only, one core)",
            "verdict": _rate_check(eps, 600)
            if int(frame["n"].max()) >= 6_000_000
            else not_comparable("no 6M point in this profile"),
            "kind": "check",
            "note": "an absolute rate on a machine 20 years newer, without IPC or event parsing: "
            "a check of our configuration, not a test of the paper",
        }
    )
    n, mem = _at_largest(frame, "index_mb", ["counting", "propagation", "static"])
    rows.append(
        {
            "claim": "memory: propagation least, counting close, dynamic (static) most",
            "paper": "Sect. 6.2.1, Fig. 3c",
            "paper_value": "propagation < counting < dynamic",
            "measured": ", ".join(f"{k} {v:.0f} MB" for k, v in mem.items()) + f" at N={n:,}",
            "verdict": ordering(mem, ["propagation", "counting", "static"]),
            "note": "our sizes are the index structures' bytes, not the process's resident set",
        }
    )
    n, load = _at_largest(frame, "build_s", ["counting", "propagation", "static"])
    rows.append(
        {
            "claim": "loading time: counting smallest, static highest",
            "paper": "Sect. 6.2.1, Fig. 3d",
            "paper_value": "counting < propagation < static",
            "measured": ", ".join(f"{k} {v:.2f} s" for k, v in load.items()) + f" at N={n:,}",
            "verdict": ordering(load, ["counting", "propagation", "static"]),
        }
    )
    est, lo, hi = _slope(frame, "propagation", "index_mb")
    rows.append(
        {
            "claim": "space is linear in the number of predicates (subscriptions)",
            "paper": "Sect. 2.3",
            "paper_value": "log-log slope 1",
            "measured": f"log-log slope {est:.2f} [{lo:.2f}, {hi:.2f}] (propagation)",
            "verdict": within_tolerance(est, 1.0, SPACE_SLOPE_TOL),
            "kind": "check",
            "note": "our arrays are proportional to the predicates stored: this checks the "
            "implementation (the paper's argument, Sect. 2.3), it does not test the paper",
        }
    )
    rows.append(
        {
            "claim": "static does not significantly beat dynamic (a few ms per 100 events)",
            "paper": "Sect. 6.2.1",
            "paper_value": "few ms",
            "measured": "dynamic (Sect. 4) not implemented",
            "verdict": not_comparable("the dynamic maintenance algorithm is not implemented yet"),
        }
    )
    return rows


def operator_row(frame: pd.DataFrame) -> dict:
    """C9: both algorithms slower on W2op than on W1op, by the same factor."""
    n = int(frame["n"].max())
    t = frame[frame["n"] == n].pivot_table(
        index="algorithm", columns="workload", values="ms_per_100"
    )
    if not {"W1op", "W2op"} <= set(t.columns) or len(t) < 2:
        return {
            "claim": "W2op slower than W1op by a constant factor for both algorithms",
            "paper": "Sect. 6.2.1, Fig. 3b",
            "paper_value": "same factor",
            "measured": "not measured",
            "verdict": not_comparable("missing workloads"),
        }
    ratios = (t["W2op"] / t["W1op"]).to_dict()
    a, b = sorted(ratios)
    v = combine(
        [
            direction(min(ratios.values()), neutral=1.0, expected="above"),
            within_factor(ratios[a] / ratios[b], 1.0, 1.5),
        ]
    )
    return {
        "claim": "both algorithms are slower on W2op than on W1op, by the same factor",
        "paper": "Sect. 6.2.1, Fig. 3b",
        "paper_value": "W2op/W1op equal for both",
        "measured": ", ".join(f"{k} {v:.2f}x" for k, v in ratios.items()) + f" at N={n:,}",
        "verdict": v,
    }


def sweep_rows(frame: pd.DataFrame) -> list[dict]:
    """C12, C13 from the Sect. 6.2.2 sweeps (frame with ``sweep`` and ``x`` columns)."""
    rows = []
    dom = frame[frame["sweep"] == "value domain"]
    per = dom.pivot_table(index="x", columns="algorithm", values="ms_per_100")
    if len(per) >= 2:
        drop = (per.iloc[0] / per.iloc[-1]).to_dict()  # small domain / large domain
        v = combine(
            [
                direction(min(drop.values()), neutral=1.0, expected="above"),
                direction(
                    drop.get("static", np.nan) / drop.get("propagation", np.nan),
                    neutral=1.0,
                    expected="below",
                ),
            ]
        )
        measured = ", ".join(f"{k} {v:.2f}x faster" for k, v in drop.items())
        measured += f" from domain {per.index[0]} to {per.index[-1]}"
    else:
        v, measured = not_comparable("fewer than two domain sizes"), "not measured"
    rows.append(
        {
            "claim": "a larger value domain makes matching faster; dynamic (static) is "
            "less sensitive than propagation",
            "paper": "Sect. 6.2.2",
            "paper_value": "faster with larger domain",
            "measured": measured,
            "verdict": v,
        }
    )
    pred = frame[frame["sweep"] == "predicates"]
    st = pred[pred["algorithm"] == "static"].groupby("x")["ms_per_100"].median()
    if len(st) >= 2:
        v = direction(st.iloc[-1] / st.iloc[0], neutral=1.0, expected="below")
        measured = (
            f"static {st.iloc[0]:.3g} ms at {st.index[0]} predicates, "
            f"{st.iloc[-1]:.3g} ms at {st.index[-1]}"
        )
    else:
        v, measured = not_comparable("fewer than two predicate counts"), "not measured"
    rows.append(
        {
            "claim": "more predicates per subscription make dynamic (static) faster",
            "paper": "Sect. 6.2.2",
            "paper_value": "faster with more predicates",
            "measured": measured,
            "verdict": v,
        }
    )
    return rows


#: Sect. 6.2.3's headline claims (Fig. 4, the saturation experiments): not measured until
#: dynamic clustering (Sect. 4) exists, so the table's denominator is the paper
SATURATION_CLAIMS = (
    ("without maintenance ('No Change') throughput halves when the subscription schema "
     "changes; dynamic adapts", "Sect. 6.2.3, Fig. 4(a)",
     "No Change: throughput / 2 at the end; dynamic recovers"),
    ("under combined subscription and event skew, dynamic keeps throughput where No Change "
     "degrades", "Sect. 6.2.3, Fig. 4(b)", "dynamic above No Change after the skew"),
)  # fmt: skip


def saturation_rows() -> list[dict]:
    """Sect. 6.2.3's claims, listed as not comparable with the reason."""
    return unmeasured_rows(
        SATURATION_CLAIMS,
        "dynamic clustering (Sect. 4) and the saturation runs (Fig. 4) are not implemented",
    )
