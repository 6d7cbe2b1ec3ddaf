"""The regime of PS2Stream's timed replays, measured, and the platform's cost per message.

PS2Stream's evaluation (Sect. VI) ran Storm workers; ours replays each worker's sub-stream
through a numba GI2. Two questions decide what our clock can say about the paper's timing
claims, and each is measured instead of gated on a per-tuple time:

1. **Does the clock measure work?** A stream (one seed of a set) is *work-dominated* when,
   on every run of it, the busiest worker's fixed cost (the same timed section against an
   empty index, :func:`routelab.spatial.engine.fixed_cost`) is at most
   :data:`FIXED_SHARE_MAX` of its busy time and the busiest worker is busy at least
   :func:`min_busy_s` (0.2 s on the wall clock, 0.05 s on the CPU clock) on every timed
   replay; a set is work-dominated over its
   work-dominated streams when at least :data:`MIN_SEEDS` of them are (paired across
   algorithms), and grades on those streams (:func:`regime_table`).
   Otherwise per-call overhead or the timer would decide, and the set's timings grade no
   claim. The gate fails closed: a frame without the columns grades nothing.
2. **What does the platform's cost per message change?** A Storm worker receives,
   deserializes and acknowledges every tuple; our batched workers pay only the decode of
   their routed rows (inside the timed section). With a platform cost ``c`` per message,
   ``throughput(c) = tuples / max_w (busy_w + c * messages_w)`` on the same runs
   (:func:`throughput_at`), and latency adds ``c`` to every copy's service time. Every
   timing claim is graded along ``c`` in :data:`C_GRID_US` (:func:`verdict_map`): at
   ``c = 0`` ("on this engine") and at :data:`C_PAPER_US` ("at the paper's per-message
   cost": measured index work plus the modelled platform cost), with the flip point ``c*``
   where the verdict changes (:func:`flip_points`).

**The paper's per-message cost** (our derivation, READINGS.md): with N = 8 workers a system
running T tuples/s hands the busiest worker at least T / N messages per second (every tuple
is at least one message, and the busiest worker has at least the mean), so one message
costs a worker at most N / T seconds, index work included. The highest throughput Fig. 6
reports is STS-US-Q2's metric partitioning, 267,415 tuples/s: ``c_paper = 8 / 267,415 s =
29.9 µs``. It is an upper bound of the platform's part (the paper's index work is inside
it); the issue's "about 50 µs" (8 / 160,659 s, STS-US-Q1 grid) is the looser bound of a
slower run. ``c`` is a parameter of every function here; the map shows 0-100 µs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: the fixed cost may take at most this share of the busiest worker's busy time
FIXED_SHARE_MAX = 0.10
#: the busiest worker must be busy at least this long on every timed replay, by the clock
#: the runs read (:mod:`routelab.timing`; the floor keeps what the clock charges besides the
#: work small). The wall clock charges another process's turn on the core (a scheduler
#: slice, milliseconds, under 5 % of 0.2 s):
MIN_BUSY_S = 0.2
#: ... the CPU clock charges none of it, only its own readings (0.4 µs each, measured) and
#: the kernel's work for the replay's own memory, so a quarter of the wall clock's floor.
#: (A floor in seconds still depends on the machine: this VM's faster day read the UK
#: streams' busiest workers at 151-519 ms on the CPU clock, below 0.2 s on some.)
MIN_BUSY_CPU_S = 0.05
MIN_BUSY_BY_CLOCK = {"wall": MIN_BUSY_S, "cpu": MIN_BUSY_CPU_S}


def min_busy_s(runs: pd.DataFrame | None = None) -> float:
    """The busy-time floor for ``runs``: by their ``clock`` column (the strictest floor if
    they mix clocks), else by this process's clock (:func:`routelab.timing.clock_name`)."""
    from routelab.timing import clock_name

    if runs is not None and "clock" in runs.columns and runs["clock"].notna().any():
        return max(MIN_BUSY_BY_CLOCK[str(c)] for c in runs["clock"].dropna().unique())
    return MIN_BUSY_BY_CLOCK[clock_name()]


#: independent streams (seeds) per set, paired across the algorithms of each stream
MIN_SEEDS = 3
#: the paper's workers and its highest reported throughput with them (Fig. 6, STS-US-Q2,
#: metric-based partitioning)
PAPER_WORKERS = 8
PAPER_BEST_THROUGHPUT = 267_415.0
#: the platform's cost per message in the paper's system, at most (module docstring)
C_PAPER_US = round(1e6 * PAPER_WORKERS / PAPER_BEST_THROUGHPUT, 1)
#: the per-message costs the map grades every timing claim at (µs), ``C_PAPER_US`` among them
C_GRID_US: tuple[float, ...] = tuple(
    sorted({0.0, 1.0, 2.0, 5.0, 10.0, 20.0, C_PAPER_US, 50.0, 75.0, 100.0})
)
#: the columns a frame needs to be judged (:func:`regime_table`)
REGIME_COLUMNS = ("fixed_share", "busy_min_s")


def _sets(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return sorted({(c, q) for c, q in zip(frame.country, frame.query_set, strict=True)})


#: the columns of :func:`regime_table`
REGIME_TABLE_COLUMNS = (
    "country", "query_set", "seeds", "fixed_share_max", "busy_min_s", "work_dominated",
    "reason", "kept_seeds", "left_out",
)  # fmt: skip


def _stream_problems(share: float, busy: float, floor: float) -> list[str]:
    why = []
    if share > FIXED_SHARE_MAX:
        why.append(f"fixed cost up to {share:.0%} of the busy time (at most {FIXED_SHARE_MAX:.0%})")
    if busy < floor:
        why.append(f"busiest worker busy {1e3 * busy:.0f} ms on its shortest replay "
                   f"(at least {1e3 * floor:.0f} ms)")  # fmt: skip
    return why


def regime_table(*frames: pd.DataFrame) -> pd.DataFrame:
    """Per (country, query set) over every run of ``frames``: which streams (seeds) are
    work-dominated and whether the set is.

    A stream is work-dominated when, over every algorithm and worker count run on it, the
    busiest worker's fixed cost is at most :data:`FIXED_SHARE_MAX` of its busy time and it
    is busy at least :func:`min_busy_s` on every replay; a set is work-dominated when at
    least :data:`MIN_SEEDS` of its streams are, and grades the timing claims on those
    streams only (``kept_seeds``; every algorithm of a stream stays or goes together, so
    the pairing holds). One stream whose fixed-cost read caught a transient, or whose
    busiest worker is a little short, leaves the set with its other streams instead of
    taking it out (``left_out`` says which and why). ``fixed_share_max`` and ``busy_min_s``
    are over the kept streams (over all where none is kept). A frame without
    :data:`REGIME_COLUMNS` makes its sets "not measured" (the gate fails closed)."""
    rows = pd.concat([f for f in frames if len(f)], ignore_index=True) if frames else None
    if rows is None or not len(rows):
        return pd.DataFrame(columns=list(REGIME_TABLE_COLUMNS))
    out = []
    has = set(REGIME_COLUMNS) <= set(rows.columns)
    for c, q in _sets(rows):
        g = rows[(rows.country == c) & (rows.query_set == q)]
        by_seed = g.groupby("seed", sort=True) if "seed" in g.columns else [(None, g)]
        streams = [(s, x) for s, x in by_seed]
        seeds = len(streams)
        row = {"country": c, "query_set": q, "seeds": seeds}
        if not has or g[list(REGIME_COLUMNS)].isna().any().any():
            out.append({**row, "fixed_share_max": float("nan"), "busy_min_s": float("nan"),
                        "work_dominated": False, "kept_seeds": (), "left_out": "",
                        "reason": "the runs do not measure the fixed cost and busy time "
                                  "(the gate fails closed)"})  # fmt: skip
            continue
        reads = [(s, float(x.fixed_share.max()), float(x.busy_min_s.min())) for s, x in streams]
        floor = min_busy_s(g)
        ok = [not _stream_problems(sh, b, floor) for _, sh, b in reads]
        kept = [r for r, good in zip(reads, ok, strict=True) if good]
        dropped = [r for r, good in zip(reads, ok, strict=True) if not good]
        on = kept or reads
        share, busy = max(r[1] for r in on), min(r[2] for r in on)
        why = _stream_problems(
            max(r[1] for r in dropped), min(r[2] for r in dropped), floor
        ) if dropped and len(kept) < MIN_SEEDS else []  # fmt: skip
        if seeds < MIN_SEEDS:
            why.append(f"{seeds} seed(s) (at least {MIN_SEEDS})")
        elif len(kept) < MIN_SEEDS:
            why.append(f"{len(kept)} of {seeds} seeds work-dominated (at least {MIN_SEEDS})")
        left = "; ".join(
            f"seed {s} left out: " + ", ".join(_stream_problems(sh, b, floor))
            for s, sh, b in dropped
        ) if len(kept) >= MIN_SEEDS else ""  # fmt: skip
        out.append({**row, "fixed_share_max": share, "busy_min_s": busy,
                    "work_dominated": not why, "reason": "; ".join(why),
                    "kept_seeds": tuple(r[0] for r in kept) if not why else (),
                    "left_out": left})  # fmt: skip
    return pd.DataFrame(out, columns=list(REGIME_TABLE_COLUMNS))


def regime_reason(*frames: pd.DataFrame) -> str:
    """Why the timings of ``frames`` cannot grade a timing claim, per set that is not
    work-dominated, and which streams of the other sets are left out ("" if every stream
    of every set is work-dominated; :func:`regime_table`). Fails closed on frames without
    the columns."""
    t = regime_table(*frames)
    parts = []
    for r in t.itertuples():
        name = f"{'UK' if r.country == 'GB' else r.country}-{r.query_set}"
        if not r.work_dominated:
            parts.append(f"{name}: {r.reason}")
        elif r.left_out:
            parts.append(f"{name}: {r.left_out}")
    return "; ".join(parts)


def in_regime(frame: pd.DataFrame, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """The rows of ``frame`` on the work-dominated streams of the work-dominated sets of
    ``table`` (default: :func:`regime_table` of ``frame`` alone); a frame without seeds
    keeps its work-dominated sets whole."""
    if not len(frame):
        return frame
    t = regime_table(frame) if table is None else table
    keep = {(r.country, r.query_set): set(r.kept_seeds) for r in t.itertuples() if r.work_dominated}
    if "seed" in frame.columns:
        mask = [(c, q) in keep and (s in keep[(c, q)] or keep[(c, q)] == {None})
                for c, q, s in zip(frame.country, frame.query_set, frame.seed, strict=True)]  # fmt: skip
    else:
        mask = [(c, q) in keep for c, q in zip(frame.country, frame.query_set, strict=True)]
    return frame[np.array(mask, dtype=bool)]


def throughput_at(
    busy_runs: np.ndarray, messages: np.ndarray, tuples: float, c_s: float
) -> np.ndarray:
    """Throughput of every replay with ``c_s`` seconds of platform cost per message:
    ``tuples / max_w (busy_runs[w, k] + c_s * messages[w])`` for each replay ``k``
    (``busy_runs``: workers x replays)."""
    busy = np.asarray(busy_runs, dtype=np.float64)
    if busy.ndim == 1:
        busy = busy[:, None]
    load = busy + c_s * np.asarray(messages, dtype=np.float64)[:, None]
    return tuples / np.maximum(load.max(axis=0), 1e-12)


def check_cost(c_us: float) -> int:
    """The index of ``c_us`` in :data:`C_GRID_US` (the costs every run measures latency at);
    a clear error for any other cost."""
    i = _grid_index(c_us)
    if i is None:
        raise ValueError(
            f"c_paper = {c_us:g} µs is not one of the measured costs per message "
            f"{', '.join(f'{c:g}' for c in C_GRID_US)} (routelab.spatial.lab.regime.C_GRID_US)"
        )
    return i


def _grid_index(c_us: float) -> int | None:
    hits = [i for i, c in enumerate(C_GRID_US) if abs(c - c_us) < 1e-9]
    return hits[0] if hits else None


def at_cost(frame: pd.DataFrame, c_us: float) -> pd.DataFrame:
    """``frame`` as it would measure with ``c_us`` µs of platform cost per message: the
    throughput columns recomputed from every worker's replays and messages
    (:func:`throughput_at`), the latency columns taken from the runs' latency at that cost
    (``latency_runs_grid``, measured in the task on :data:`C_GRID_US`). ``c_us = 0`` gives
    the frame as measured. Rows without the per-worker columns are left as they are."""
    if not len(frame) or c_us == 0:
        return frame
    need = {"w_busy_runs", "w_msgs", "tuples"}
    if not need <= set(frame.columns):
        return frame
    out = frame.copy()
    thr_runs, thr = [], []
    for r in out.itertuples():
        busy = np.array(r.w_busy_runs, dtype=np.float64)
        t = throughput_at(busy, np.array(r.w_msgs), float(r.tuples), c_us * 1e-6)
        thr_runs.append([float(x) for x in t])
        best = throughput_at(busy.min(axis=1), np.array(r.w_msgs), float(r.tuples), c_us * 1e-6)
        thr.append(float(best[0]))
    out["throughput_runs"] = thr_runs
    out["throughput"] = thr
    i = _grid_index(c_us)
    if "latency_runs_grid" in out.columns and i is not None:
        out["latency_runs"] = [list(g[i]) for g in out["latency_runs_grid"]]
        out["latency_us"] = [
            float(np.mean(g[i])) if len(g[i]) else float("nan") for g in out["latency_runs_grid"]
        ]
    elif {"latency_runs", "latency_us"} & set(out.columns):
        # no latency at this cost: the latency rows cannot be graded here
        out = out.drop(columns=[c for c in ("latency_runs", "latency_us") if c in out.columns])
    return out


def verdict_map(
    grade: Callable[..., list[dict[str, Any]]],
    frames: Sequence[pd.DataFrame],
    grid: Sequence[float] = C_GRID_US,
) -> pd.DataFrame:
    """Every timing row of ``grade(*frames)`` graded at each platform cost of ``grid``:
    one row per (claim, c_us) with the verdict and what was measured."""
    out = []
    for c in grid:
        for row in grade(*(at_cost(f, c) for f in frames)):
            if row.get("timing"):
                v = row["verdict"]
                out.append({"claim": row["claim"], "c_us": float(c), "verdict": v.verdict,
                            "rule": v.rule, "measured": row.get("measured", "")})  # fmt: skip
    return pd.DataFrame(out, columns=["claim", "c_us", "verdict", "rule", "measured"])


def flip_points(vmap: pd.DataFrame, c_paper: float = C_PAPER_US) -> pd.DataFrame:
    """Per claim of a :func:`verdict_map`: the verdict at ``c = 0`` and at ``c_paper`` and
    the flip point ``c*``, the first grid cost whose verdict differs from the one at 0
    (reported as the interval between that cost and the one before it; "none in 0-100 µs"
    where the verdict never changes on the grid)."""
    rows = []
    for claim, g in vmap.groupby("claim", sort=False):
        g = g.sort_values("c_us")
        v0 = g.verdict.iloc[0]
        at_p = g[np.isclose(g.c_us, c_paper)]
        flip, text = float("nan"), f"none in 0-{g.c_us.max():g} µs"
        changed = np.flatnonzero(g.verdict.to_numpy() != v0)
        if len(changed):
            j = int(changed[0])
            flip = float(g.c_us.iloc[j])
            text = f"{g.c_us.iloc[j - 1]:g}-{flip:g} µs ({v0} -> {g.verdict.iloc[j]})"
        rows.append({"claim": claim, "verdict_engine": v0,
                     "verdict_paper_cost": at_p.verdict.iloc[0] if len(at_p) else "not measured",
                     "c_star_us": flip, "flip": text})  # fmt: skip
    return pd.DataFrame(
        rows, columns=["claim", "verdict_engine", "verdict_paper_cost", "c_star_us", "flip"]
    )


def runs_reason(runs: pd.DataFrame) -> str:
    """Why a frame of seeded runs (one row per run: ``seed``, ``fixed_share``,
    ``busy_min_s``) is not work-dominated ("" if it is); fails closed on missing columns."""
    if not len(runs):
        return "no runs"
    if (
        not set(REGIME_COLUMNS) <= set(runs.columns)
        or runs[list(REGIME_COLUMNS)].isna().any().any()
    ):
        return "the runs do not measure the fixed cost and busy time (the gate fails closed)"
    why = []
    share, busy = float(runs.fixed_share.max()), float(runs.busy_min_s.min())
    seeds = int(runs["seed"].nunique()) if "seed" in runs.columns else 1
    if share > FIXED_SHARE_MAX:
        why.append(f"fixed cost up to {share:.0%} of the busy time (at most {FIXED_SHARE_MAX:.0%})")
    floor = min_busy_s(runs)
    if busy < floor:
        why.append(f"busiest worker busy {1e3 * busy:.0f} ms on its shortest run "
                   f"(at least {1e3 * floor:.0f} ms)")  # fmt: skip
    if seeds < MIN_SEEDS:
        why.append(f"{seeds} seed(s) (at least {MIN_SEEDS})")
    return "; ".join(why)


def paired_map(
    claim: str,
    judge: Callable[[np.ndarray, np.ndarray], Any],
    a_grid: np.ndarray,
    b_grid: np.ndarray,
    grid: Sequence[float] = C_GRID_US,
) -> pd.DataFrame:
    """A :func:`verdict_map` for one claim judged on paired per-seed values measured at every
    cost of ``grid`` (``a_grid``, ``b_grid``: seeds x costs): ``judge(a, b)`` gives the
    :class:`~routelab.claims.Verdict` at each cost."""
    rows = []
    for i, c in enumerate(grid):
        v = judge(np.asarray(a_grid)[:, i], np.asarray(b_grid)[:, i])
        rows.append({"claim": claim, "c_us": float(c), "verdict": v.verdict, "rule": v.rule,
                     "measured": ""})  # fmt: skip
    return pd.DataFrame(rows, columns=["claim", "c_us", "verdict", "rule", "measured"])


#: the alternative reading of the platform's cost per message (READINGS.md: 8 / 160,659 s,
#: STS-US-Q1 grid) and the measured cost of the map that stands for it
C_ALTERNATIVE_US, C_ALTERNATIVE_GRID = 49.8, 50.0


def reading_note(vmap: pd.DataFrame, claim: str, verdict: str) -> str:
    """Names the reading "the platform's cost per message" where it changes a row's verdict:
    the verdict under the alternative (about 50 µs per message), read from the verdict
    map's 50 µs column; "" where both readings agree."""
    alt = vmap[(vmap["claim"] == claim) & np.isclose(vmap["c_us"], C_ALTERNATIVE_GRID)]
    if not len(alt) or alt.verdict.iloc[0] == verdict:
        return ""
    return (f"; the reading 'the platform's cost per message' decides this row: under the "
            f"alternative ({C_ALTERNATIVE_US:g} µs, the map's {C_ALTERNATIVE_GRID:g} µs column) "
            f"it reads {alt.verdict.iloc[0]}")  # fmt: skip
