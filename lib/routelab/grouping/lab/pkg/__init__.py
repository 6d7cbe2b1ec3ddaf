"""Experiments of PKG (Nasir et al., ICDE'15, Sect. V) on the lab's stand-in streams.

Notebook ``07_pkg`` narrates; this module builds the sweep grids (one
:func:`~routelab.grouping.simulator.simulate_task` point per configuration, run as Spark
tasks by :func:`routelab.sweep.run_grid`), reduces the result rows to the paper's tables
and figures, and computes each claim's measured value and verdict from the data:

- :func:`stream_cases` -- the stand-in streams, their ``p1`` and the balance boundary of
  Sect. IV-A (Table I);
- Table II and Fig. 2: :func:`imbalance_points`, :func:`table2`, :func:`splitting_gain`,
  :func:`local_global_frame`;
- Fig. 3: :func:`timeline_points`, :func:`drift_summary` (how much a stream drifts);
  Fig. 4: :func:`source_skew_points`, :func:`source_shares`;
- Fig. 5: :func:`saturation_rate`, :func:`throughput_points`, :func:`aggregation_tradeoff`;
- Sect. IV-A "used bins": :func:`used_bins_task`;
- Sect. V-B Q2 agreement of G and L: :func:`routing_overlap`;
- the worked example of Sect. III-A (10 messages, 3 workers, by hand):
  :func:`two_choice_example`, :func:`example_loads`; the interactive demo's stream and loads:
  :func:`skewed_demo_stream`, :func:`demo_loads`.

The claims rows are graded in :mod:`routelab.grouping.lab.pkg_claims`.

Naming of the variants follows the paper: ``H`` hashing (key grouping), ``G`` PKG with
global load, ``L5`` PKG with local estimation at 5 sources, ``L5P`` the same with periodic
probing (the paper's ``L5P1``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.claims import geometric_mean

if TYPE_CHECKING:
    from routelab.grouping.lab.streams import KeyStream

# ----------------------------------------------------------------------------- streams

PAPER_DATASETS: dict[str, tuple[str, float]] = {
    # stream -> (paper dataset symbol it stands in for, that dataset's p1 from Table I)
    "tweet_words": ("TW", 0.0267),
    "unigram_sample": ("WP", 0.0932),
    "flights_origins": ("CT", 0.0329),
    "movielens_movies": ("LJ", 0.0029),
    "movielens_edges": ("LJ", 0.0029),
    "ln1": ("LN1", 0.1471),
    "ln2": ("LN2", 0.0701),
    "time_evolving_zipf": ("drift", float("nan")),
}
"""Which PKG dataset (Table I) each stand-in replaces, and the paper's ``p1`` for it."""

TABLE2_SCHEMES: dict[str, str] = {
    "pkg_global": "PKG",
    "off_greedy": "Off-Greedy",
    "on_greedy": "On-Greedy",
    "potc": "PoTC",
    "kg": "Hashing",
}
"""The rows of Table II (scheme -> the paper's name), all with one source and global load."""

USED_BINS = 1.0 - np.exp(-2.0)
"""Limit of the fraction of bins that are a hash choice of ``n`` uniform keys (Sect. IV-A)."""


@dataclass(frozen=True)
class StreamCase:
    """One stand-in stream: its sweep parameters and the statistics Sect. IV-A needs."""

    name: str
    params: dict[str, Any] = field(hash=False)
    n_messages: int
    n_keys: int
    p1: float
    span: float
    data: str
    stands_in_for: str

    @property
    def symbol(self) -> str:
        """The paper dataset this stream stands in for (``TW``, ``WP``, ...)."""
        return PAPER_DATASETS.get(self.name, ("-", float("nan")))[0]

    @property
    def label(self) -> str:
        """Figure label: ``"tweet_words (TW)"``."""
        return f"{self.name} ({self.symbol})"

    @property
    def boundary(self) -> float:
        """``2 / p1``: beyond this many workers the two choices of the most frequent key
        cannot keep up with the average load and imbalance grows linearly (Sect. IV-A)."""
        return 2.0 / self.p1 if self.p1 > 0 else float("inf")

    def probe_interval(self, n_probes: int) -> float:
        """Stream seconds between probes so the run probes ``n_probes`` times (L-P variant)."""
        if n_probes < 1:
            raise ValueError(f"n_probes must be >= 1, got {n_probes}")
        return max(self.span / n_probes, 1e-9)

    def row(self) -> dict[str, Any]:
        """One row of the stream table (Table I of the paper, for our stand-ins)."""
        symbol, paper_p1 = PAPER_DATASETS.get(self.name, ("-", float("nan")))
        return {
            "stream": self.name,
            "data": self.data,
            "stands in for": symbol,
            "messages": self.n_messages,
            "keys": self.n_keys,
            "p1": self.p1,
            "paper p1": paper_p1,
            "1/p1": 1.0 / self.p1 if self.p1 > 0 else float("inf"),
            "2/p1": self.boundary,
        }


def max_key_probability(keys: np.ndarray | Sequence[int]) -> float:
    """``p1``: the empirical probability of the most frequent key (Table I, Sect. IV)."""
    k = np.asarray(keys, dtype=np.int64)
    if k.size == 0:
        raise ValueError("an empty stream has no most frequent key")
    _, counts = np.unique(k, return_counts=True)
    return float(counts.max() / k.size)


def stream_params(name: str, n_messages: int | None, limit: int | None) -> dict[str, Any]:
    """The ``stream_``-prefixed parameters of ``name`` for a sweep point: synthetic streams
    get ``n_messages``, real ones ``limit`` (first records; ``None`` = all)."""
    from routelab.grouping.lab.streams import stream_function

    accepted = inspect.signature(stream_function(name)).parameters
    if "n_messages" in accepted and n_messages is not None:
        return {"stream_n_messages": int(n_messages)}
    if "limit" in accepted and limit is not None:
        return {"stream_limit": int(limit)}
    return {}


def load_case(name: str, params: Mapping[str, Any]) -> KeyStream:
    """The stream ``name`` built from ``stream_``-prefixed sweep parameters ``params``."""
    from routelab.grouping.lab.streams import load_stream

    return load_stream(name, **{k.removeprefix("stream_"): v for k, v in params.items()})


def stream_case(name: str, params: Mapping[str, Any]) -> StreamCase:
    """Load stream ``name`` with sweep parameters ``params`` and measure it."""
    ks = load_case(name, params)
    return StreamCase(
        name=name,
        params=dict(params),
        n_messages=int(ks.keys.size),
        n_keys=int(np.unique(ks.keys).size),
        p1=max_key_probability(ks.keys),
        span=float(ks.times[-1] - ks.times[0]) if ks.keys.size else 0.0,
        data=str(ks.meta["data"]),
        stands_in_for=str(ks.meta["stands_in_for"]),
    )


def stream_cases(
    names: Iterable[str],
    n_messages: int | None = None,
    limit: int | None = None,
    known: Iterable[StreamCase] = (),
) -> list[StreamCase]:
    """:func:`stream_case` for each name (see :func:`stream_params`), reusing ``known``
    cases of the same name and parameters."""
    have = {(c.name, tuple(sorted(c.params.items()))): c for c in known}
    out = []
    for name in names:
        params = stream_params(name, n_messages, limit)
        found = have.get((name, tuple(sorted(params.items()))))
        out.append(found or stream_case(name, params))
    return out


def data_kinds(cases: Sequence[StreamCase], *, short: bool = False) -> str:
    """A figure's data note: the streams grouped by kind, e.g. ``"real: a, b; synthetic: c"``;
    ``short`` names them by the paper dataset they stand in for (``"real: TW, CT"``), so a
    many-stream footer fits under the figure."""
    kinds: dict[str, list[str]] = {}
    for c in cases:
        kinds.setdefault(c.data, []).append(c.symbol if short else c.name)
    text = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in kinds.items())
    return text + " stand-ins" if short else text


def cases_table(cases: Sequence[StreamCase]) -> pd.DataFrame:
    """The stand-in streams as a table indexed by stream name."""
    return pd.DataFrame([c.row() for c in cases]).set_index("stream")


# ----------------------------------------------------------------------------- grids


def _point(
    case: StreamCase, scheme: str, n_workers: int, n_sources: int = 1, seed: int = 0, **extra
) -> dict[str, Any]:
    return {
        "stream": case.name,
        **case.params,
        "scheme": scheme,
        "n_workers": int(n_workers),
        "n_sources": int(n_sources),
        "seed": int(seed),
        **extra,
    }


def imbalance_points(
    cases: Sequence[StreamCase],
    workers: Sequence[int],
    sources: Sequence[int],
    *,
    n_probes: int = 1000,
    n_checkpoints: int = 100,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Grid of Table II (the :data:`TABLE2_SCHEMES` with one source) and Fig. 2 (PKG with
    local estimation, without and with probing, at each number of sources), per stream.

    Points of one stream are adjacent so each Spark worker builds a stream once.
    """
    points = []
    for case in cases:
        interval = case.probe_interval(n_probes)
        for w in workers:
            for scheme in TABLE2_SCHEMES:
                points.append(_point(case, scheme, w, 1, seed, n_checkpoints=n_checkpoints))
            for s in sources:
                points.append(_point(case, "pkg_local", w, s, seed, n_checkpoints=n_checkpoints))
                points.append(
                    _point(
                        case,
                        "pkg_probe",
                        w,
                        s,
                        seed,
                        n_checkpoints=n_checkpoints,
                        probe_interval=interval,
                    )
                )
    return points


def timeline_points(
    cases: Sequence[StreamCase],
    workers: Sequence[int],
    n_sources: int = 5,
    *,
    n_probes: int = 1000,
    n_checkpoints: int = 200,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Grid of Fig. 3: ``I(t)`` through time for H, G, L and L-P at ``n_sources`` sources;
    L-P both as the paper says (a probe sets the estimates to the actual loads, ``L5P``) and
    with the estimates set to actual // S (``L5P/S``, a variant)."""
    points = []
    for case in cases:
        for w in workers:
            common = {"output": "timeline", "n_checkpoints": n_checkpoints}
            points.append(_point(case, "kg", w, 1, seed, **common))
            points.append(_point(case, "pkg_global", w, 1, seed, **common))
            points.append(_point(case, "pkg_local", w, n_sources, seed, **common))
            for reset in ("actual", "share"):  # the paper's reading and the /S variant
                points.append(
                    _point(
                        case,
                        "pkg_probe",
                        w,
                        n_sources,
                        seed,
                        probe_interval=case.probe_interval(n_probes),
                        probe_reset=reset,
                        **common,
                    )
                )
    return points


SOURCE_SPLITS = {"skewed": "movielens_edges", "uniform": "movielens_movies"}
"""Fig. 4's two ways to split MovieLens edges on sources: by user, or round robin."""


def source_skew_points(
    workers: Sequence[int],
    sources: Sequence[int],
    *,
    limit: int | None = None,
    n_checkpoints: int = 100,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Grid of Fig. 4 (Sect. V-B Q3): PKG with local estimation on MovieLens edges whose
    sources are key grouped by user (``skewed``) or round robin (``uniform``); the key sent
    to the workers is the movie in both cases."""
    params = {} if limit is None else {"stream_limit": int(limit)}
    return [
        {
            "stream": stream,
            **params,
            "scheme": "pkg_local",
            "n_workers": int(w),
            "n_sources": int(s),
            "seed": int(seed),
            "n_checkpoints": n_checkpoints,
        }
        for stream in SOURCE_SPLITS.values()
        for s in sources
        for w in workers
    ]


def skew_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4 rows with a ``split`` column (``skewed`` / ``uniform``) from the stream name."""
    by_stream = {stream: split for split, stream in SOURCE_SPLITS.items()}
    return rows.assign(split=rows["stream"].map(by_stream))


def source_shares(
    sources: Sequence[int], *, limit: int | None = None, seed: int = 0
) -> pd.DataFrame:
    """How uneven the user-keyed split of Fig. 4 is: the busiest source's share of the
    messages against the ``1/S`` of a uniform split."""
    from routelab.grouping.lab.streams import movielens_edges

    rows = []
    for s in sources:
        ks = movielens_edges(int(s), seed=seed, limit=limit)
        share = float(np.bincount(ks.sources, minlength=int(s)).max() / ks.sources.size)
        rows.append({"n_sources": int(s), "max_source_share": share, "uniform_share": 1.0 / s})
    return pd.DataFrame(rows)


def drift_summary(keys: np.ndarray, times: np.ndarray, period: float) -> dict[str, float]:
    """How much the key distribution moves between consecutive ``period``-second slices
    (Sect. V-A: CT's "popular cashtags change from week to week"): number of slices, how
    many different keys are the slice's most frequent, the range of the slice's ``p1``, and
    the median and max total-variation distance between consecutive slices (0 = same
    distribution, 1 = disjoint keys)."""
    if not period > 0:
        raise ValueError(f"period must be > 0, got {period!r}")
    t = np.asarray(times, dtype=np.float64)
    slices = np.floor((t - t[0]) / period).astype(np.int64)
    shares = pd.crosstab(slices, np.asarray(keys, dtype=np.int64), normalize="index")
    tv = 0.5 * shares.diff().abs().sum(axis=1).iloc[1:]
    top = shares.max(axis=1)
    return {
        "period_s": float(period),
        "slices": int(len(shares)),
        "distinct_top_keys": int(shares.idxmax(axis=1).nunique()),
        "p1_min": float(top.min()),
        "p1_max": float(top.max()),
        "tv_median": float(tv.median()) if len(tv) else 0.0,
        "tv_max": float(tv.max()) if len(tv) else 0.0,
    }


# ----------------------------------------------------------------------------- reductions


def variant(scheme: str, n_sources: int, probe_reset: Any = None) -> str:
    """The paper's name of a run: ``H``, ``G``, ``L5``, ``L5P`` (``L5P/S`` for the
    ``probe_reset="share"`` variant); Table II names otherwise."""
    if scheme == "kg":
        return "H"
    if scheme == "pkg_global":
        return "G"
    if scheme == "pkg_local":
        return f"L{int(n_sources)}"
    if scheme == "pkg_probe":
        return f"L{int(n_sources)}P" + ("/S" if probe_reset == "share" else "")
    return TABLE2_SCHEMES.get(scheme, scheme)


def with_labels(rows: pd.DataFrame, cases: Sequence[StreamCase] = ()) -> pd.DataFrame:
    """``rows`` plus ``variant`` and ``stream_label`` columns."""
    out = rows.copy()
    resets = out["probe_reset"] if "probe_reset" in out.columns else [None] * len(out)
    out["variant"] = [
        variant(s, n, r) for s, n, r in zip(out["scheme"], out["n_sources"], resets, strict=True)
    ]
    labels = {c.name: c.label for c in cases}
    out["stream_label"] = out["stream"].map(lambda n: labels.get(n, n))
    return out


def table2(
    rows: pd.DataFrame, value: str = "avg_imbalance", streams: Sequence[str] | None = None
) -> pd.DataFrame:
    """Table II: average imbalance (messages) per stream and scheme (rows) and number of
    workers (columns), one source, global load; only ``streams`` if given (the paper's
    Table II shows WP and TW)."""
    sel = rows[rows["scheme"].isin(list(TABLE2_SCHEMES)) & (rows["n_sources"] == 1)].copy()
    if streams is not None:
        sel = sel[sel["stream"].isin(list(streams))]
    sel["method"] = pd.Categorical(
        sel["scheme"].map(TABLE2_SCHEMES), categories=list(TABLE2_SCHEMES.values()), ordered=True
    )
    return sel.pivot_table(
        index=["stream", "method"], columns="n_workers", values=value, observed=True
    )


def safe_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b`` with ``0 / 0 = 1`` and ``x / 0 = inf``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = a / b
    out[(a == 0) & (b == 0)] = 1.0
    return out


def imbalance_lower_bound(p1: float, n_workers: int) -> float:
    """Sect. IV-A: the two bins of the most frequent key receive a ``p1`` fraction of the
    messages, so ``I(m) / m >= p1/2 - 1/W`` for every scheme with at most two choices."""
    return max(0.0, p1 / 2.0 - 1.0 / n_workers)


def splitting_gain(rows: pd.DataFrame, cases: Sequence[StreamCase]) -> pd.DataFrame:
    """Per stream and ``W``: hashing's and PKG's average imbalance fraction, their ratio
    (the gain of key splitting, Q1), Off-Greedy's, PKG's final imbalance fraction against
    the lower bound of :func:`imbalance_lower_bound`, and where ``W`` sits relative to
    ``1/p1`` and ``2/p1``."""
    by_case = {c.name: c for c in cases}
    sel = rows[rows["n_sources"] == 1]
    frac = sel.pivot_table(
        index=["stream", "n_workers"], columns="scheme", values="avg_imbalance_fraction"
    )
    final = sel[sel["scheme"] == "pkg_global"].set_index(["stream", "n_workers"])
    out = pd.DataFrame(index=frac.index)
    out["hashing"] = frac["kg"]
    out["pkg"] = frac["pkg_global"]
    out["off_greedy"] = frac["off_greedy"]
    out["gain"] = safe_ratio(frac["kg"].to_numpy(), frac["pkg_global"].to_numpy())
    out["pkg_final"] = final["final_imbalance_fraction"]
    streams = out.index.get_level_values("stream")
    workers = out.index.get_level_values("n_workers")
    out["p1"] = [by_case[s].p1 for s in streams]
    out["lower_bound_final"] = [
        imbalance_lower_bound(p, w) for p, w in zip(out["p1"], workers, strict=True)
    ]
    out["below_1/p1"] = workers < 1.0 / out["p1"].to_numpy()
    out["above_2/p1"] = workers > 2.0 / out["p1"].to_numpy()
    return out


def gain_summary(gain: pd.DataFrame) -> pd.DataFrame:
    """:func:`splitting_gain` in one row per stream: ``p1``, the hashing/PKG gain below
    ``1/p1`` (smallest and median) and beyond ``2/p1`` (median), and how far PKG's final
    imbalance sits above the ``p1/2 - 1/W`` bound there (largest excess)."""
    rows = []
    for stream, g in gain.groupby(level="stream", sort=False):
        below, above = g[g["below_1/p1"]], g[g["above_2/p1"]]
        rows.append(
            {
                "stream": stream,
                "p1": g["p1"].iloc[0],
                "W < 1/p1": len(below),
                "min gain": below["gain"].min(),
                "median gain": below["gain"].median(),
                "W > 2/p1": len(above),
                "gain beyond 2/p1": above["gain"].median(),
                "PKG above bound": (above["pkg_final"] - above["lower_bound_final"]).max(),
            }
        )
    return pd.DataFrame(rows).set_index("stream")


def local_global_summary(ratios: pd.DataFrame) -> pd.DataFrame:
    """:func:`local_global_frame` in one row per stream: median and largest L/G, the
    geometric mean and range of LP/L, over every ``S`` and ``W``."""
    rows = []
    for stream, r in ratios.groupby("stream", sort=False):
        rows.append(
            {
                "stream": stream,
                "points": len(r),
                "median L/G": r["L_over_G"].median(),
                "max L/G": r["L_over_G"].max(),
                "geo. mean LP/L": geometric_mean(r["LP_over_L"].to_numpy(), positive_only=True),
                "min LP/L": r["LP_over_L"].min(),
                "max LP/L": r["LP_over_L"].max(),
            }
        )
    return pd.DataFrame(rows).set_index("stream")


def local_global_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Fig. 2 as ratios: per stream, ``S`` and ``W``, the imbalance of L over G and of L-P
    over L (Sect. V-B Q2)."""
    g = rows[rows["scheme"] == "pkg_global"].set_index(["stream", "n_workers"])[
        "avg_imbalance_fraction"
    ]
    local = rows[rows["scheme"].isin(["pkg_local", "pkg_probe"])]
    wide = local.pivot_table(
        index=["stream", "n_sources", "n_workers"],
        columns="scheme",
        values="avg_imbalance_fraction",
    ).reset_index()
    wide["G"] = [g.loc[(s, w)] for s, w in zip(wide["stream"], wide["n_workers"], strict=True)]
    wide["L_over_G"] = safe_ratio(wide["pkg_local"], wide["G"])
    wide["LP_over_L"] = safe_ratio(wide["pkg_probe"], wide["pkg_local"])
    return wide.rename(columns={"pkg_local": "L", "pkg_probe": "LP"})


def routing_overlap(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """How often two routings agree: the fraction of messages sent to the same worker, and
    the Jaccard overlap of their (message, worker) sets, ``a / (2 - a)`` (Sect. V-B Q2)."""
    x = np.asarray(a)
    y = np.asarray(b)
    if x.shape != y.shape or x.size == 0:
        raise ValueError(f"routings must be non-empty and equally long: {x.shape} vs {y.shape}")
    agree = float(np.mean(x == y))
    return {"agreement": agree, "jaccard": agree / (2.0 - agree)}


# ----------------------------------------------------------------------------- Fig. 5


def saturation_rate(
    keys: np.ndarray, scheme: str, n_workers: int, cpu_delay: float, seed: int = 0
) -> float:
    """Messages/s at which ``scheme``'s busiest worker saturates: ``1 / (share * delay)``.

    With one source and every worker spending ``cpu_delay`` s per tuple, the busiest worker
    (``share`` of the messages) caps the throughput of the whole operator (PKG Sect. V-B Q4).
    """
    from routelab.grouping.schemes import get_scheme

    if not cpu_delay > 0:
        raise ValueError(f"cpu_delay must be > 0 seconds, got {cpu_delay!r}")
    assignment = get_scheme(scheme).kernel(keys, None, n_workers, seed=seed)
    share = np.bincount(assignment, minlength=n_workers).max() / assignment.size
    return float(1.0 / (share * cpu_delay))


def throughput_points(
    case: StreamCase,
    delays_ms: Sequence[float],
    n_workers: int,
    source_rate: float,
    *,
    schemes: Sequence[str] = ("kg", "sg", "pkg_local"),
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Grid of Fig. 5a: one source emitting ``source_rate`` messages/s to ``n_workers``
    workers, each spending ``delay`` ms of CPU per tuple (nothing else)."""
    return [
        _point(
            case,
            scheme,
            n_workers,
            1,
            seed,
            cpu_delay=float(d) / 1000.0,
            service_time=0.0,
            arrival_rate=float(source_rate),
            n_checkpoints=10,
        )
        for scheme in schemes
        for d in delays_ms
    ]


def throughput_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5a rows with the CPU delay (``delay_ms``) and the mean latency (``latency_ms``)
    in milliseconds, the one latency unit of the notebook."""
    return rows.assign(
        delay_ms=(rows["cpu_delay"] * 1000.0).round(9), latency_ms=rows["latency_mean"] * 1000.0
    )


def flushed_counters(
    keys: np.ndarray, assignment: np.ndarray, times: np.ndarray, period: float, n_workers: int
) -> tuple[np.ndarray, float]:
    """Partial counters flushed by each worker when counters are sent to the aggregator
    every ``period`` seconds (Sect. V-B Q4, Fig. 5b): per worker, the sum over periods of
    the distinct keys it saw in the period; and the mean over periods of all counters held
    (the memory)."""
    if not period > 0:
        raise ValueError(f"period must be > 0, got {period!r}")
    t = np.asarray(times, dtype=np.float64)
    frame = pd.DataFrame(
        {
            "window": np.floor((t - t[0]) / period).astype(np.int64),
            "worker": np.asarray(assignment, dtype=np.int64),
            "key": np.asarray(keys, dtype=np.int64),
        }
    ).drop_duplicates()
    per_worker = np.bincount(frame["worker"], minlength=n_workers)
    memory = float(frame.groupby("window").size().mean())
    return per_worker, memory


def aggregation_tradeoff(
    keys: np.ndarray,
    times: np.ndarray,
    n_workers: int,
    periods: Sequence[float],
    cpu_delay: float,
    flush_cost: float,
    *,
    seed: int = 0,
) -> pd.DataFrame:
    """Fig. 5b: memory and saturated throughput of PKG and SG when partial counters are
    flushed every period, and of KG (one full counter per key, nothing to flush).

    Model (ours; the paper measures a Storm cluster): all messages are available at once,
    a worker spends ``cpu_delay`` s per tuple and ``flush_cost`` s per flushed counter, and
    throughput = messages / the busiest worker's total time. Memory = mean counters held
    per period (KG: distinct keys).
    """
    from routelab.grouping.schemes import get_scheme

    k = np.asarray(keys, dtype=np.int64)
    rows = []
    for scheme in ("kg", "pkg_local", "sg"):
        assignment = get_scheme(scheme).kernel(k, None, n_workers, seed=seed)
        loads = np.bincount(assignment, minlength=n_workers)
        if scheme == "kg":
            busiest = loads.max() * cpu_delay
            rows.append(
                {
                    "scheme": scheme,
                    "period": float("nan"),
                    "memory": float(np.unique(k).size),
                    "throughput": k.size / busiest,
                }
            )
            continue
        for period in periods:
            flushed, memory = flushed_counters(k, assignment, times, period, n_workers)
            busiest = float(np.max(loads * cpu_delay + flushed * flush_cost))
            rows.append(
                {
                    "scheme": scheme,
                    "period": float(period),
                    "memory": memory,
                    "throughput": k.size / busiest,
                }
            )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- used bins


def used_bins_task(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Sect. IV-A: ``n`` uniform keys on ``n`` workers, over ``n_seeds`` seeds (one sweep
    point per ``n_workers``). Per seed: the fraction of workers that are a hash choice of
    some key (expected ``1 - (1 - 1/n)^(2n) ~ 1 - 1/e^2``), and PKG's final imbalance
    against the bound ``m/|B| - m/n`` that follows from all messages landing in ``B``."""
    from routelab.grouping.kernels import pkg_global_route
    from routelab.grouping.metrics import choice_coverage

    n = int(params["n_workers"])
    per_key = int(params.get("messages_per_key", 20))
    rows = []
    for seed in range(int(params.get("n_seeds", 10))):
        keys = np.random.default_rng([seed, n]).integers(0, n, size=n * per_key)
        used = choice_coverage(keys, n, 2, seed)
        loads = np.bincount(pkg_global_route(keys, None, n, seed=seed), minlength=n)
        m = keys.size
        rows.append(
            {
                "seed": seed,
                "used_fraction": used,
                "expected": 1.0 - (1.0 - 1.0 / n) ** (2 * n),
                "scaled_imbalance": (loads.max() - loads.mean()) * n / m,
                "scaled_bound": 1.0 / used - 1.0,
                "loaded_fraction": float(np.mean(loads > 0)),
            }
        )
    return rows


# ----------------------------------------------------------------------------- worked example

EXAMPLE_STREAM = "AABACABADA"
"""The worked example's 10 messages: key A is hot (p1 = 0.6), B, C, D are rare."""
EXAMPLE_WORKERS = 3
EXAMPLE_SEED = 0


def _key_id(label: str) -> int:
    """Key ``"A"`` is 1, ``"B"`` 2, ...: small stable integer keys for the hash choices."""
    return ord(label) - ord("A") + 1


def two_choice_example(
    stream: str = EXAMPLE_STREAM, n_workers: int = EXAMPLE_WORKERS, seed: int = EXAMPLE_SEED
) -> pd.DataFrame:
    """Hashing (KG) vs PKG message by message (Sect. III-A), small enough to check by hand.

    One row per message: its key, the key's two hash choices ``H1``, ``H2`` (KG always takes
    ``H1``), PKG's loads before routing it, PKG's choice (the less loaded of ``H1``, ``H2``;
    ties to ``H1``, as :func:`routelab.grouping.reference.least_loaded`) and hashing's.
    """
    from routelab.grouping.reference import hash_choice, least_loaded

    loads = [0] * n_workers
    rows = []
    for i, label in enumerate(stream, start=1):
        key = _key_id(label)
        h1, h2 = (hash_choice(key, j, n_workers, seed) for j in (0, 1))
        before = "/".join(str(x) for x in loads)
        chosen = least_loaded([h1, h2], loads)
        loads[chosen] += 1
        rows.append(
            {
                "msg": i,
                "key": label,
                "H1": h1,
                "H2": h2,
                "PKG loads before": before,
                "PKG sends to": chosen,
                "hashing sends to": h1,
            }
        )
    return pd.DataFrame(rows).set_index("msg")


def example_loads(example: pd.DataFrame, n_workers: int = EXAMPLE_WORKERS) -> pd.DataFrame:
    """Final load per worker under hashing and PKG for :func:`two_choice_example`, with the
    imbalance ``max - mean`` (Sect. II) in the last column."""
    out = {}
    for name, col in (("hashing", "hashing sends to"), ("PKG", "PKG sends to")):
        loads = np.bincount(example[col].to_numpy(), minlength=n_workers)
        out[name] = {f"worker {w}": int(x) for w, x in enumerate(loads)}
        out[name]["imbalance"] = round(float(loads.max() - loads.mean()), 2)
    return pd.DataFrame.from_dict(out, orient="index")


def skewed_demo_stream(
    n_messages: int = 20_000, n_keys: int = 1000, exponent: float = 0.9, seed: int = 0
) -> np.ndarray:
    """A small Zipf(``exponent``) key stream for the interactive demo (key 0 the hottest;
    with the defaults p1 ~ 0.095, so 1/p1 ~ 10.5)."""
    p = np.arange(1, n_keys + 1, dtype=np.float64) ** -exponent
    rng = np.random.default_rng([seed, n_keys, n_messages])
    return rng.choice(n_keys, size=n_messages, p=p / p.sum()).astype(np.int64)


def demo_loads(keys: np.ndarray, n_workers: int, seed: int = 0) -> pd.DataFrame:
    """Worker loads of hashing and PKG (global load, one source) on ``keys``: columns
    ``worker``, ``scheme``, ``load``."""
    from routelab.grouping.kernels import kg_route, pkg_global_route

    rows = []
    for name, route in (("hashing", kg_route), ("PKG", pkg_global_route)):
        loads = np.bincount(route(keys, None, n_workers, seed=seed), minlength=n_workers)
        rows += [{"worker": w, "scheme": name, "load": int(x)} for w, x in enumerate(loads)]
    return pd.DataFrame(rows)
