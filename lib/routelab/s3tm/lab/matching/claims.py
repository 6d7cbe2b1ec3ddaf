"""The claims of notebook 04 (S3-TM Sects. 2, 4.2 and 6.3; Figs. 3, 7a-h): rows, rules and texts
in claims.toml, the tolerances and the paper's sizes below. Most claims are directions: holding
in every workload is "holds", in some "partly" (Fig. 5's SALB vs hash sizes belong to notebook
03). Throughputs count trie lookups as the load (Eq. 6, :mod:`routelab.s3tm.matching_load`), so
no row is a timing row. ``synthetic_from`` (the number of real posts) makes a note name the
tweet-based sizes beyond it (synthetic subscriptions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from routelab import claims
from routelab.claims import Declaration, Verdict, not_comparable
from routelab.s3tm.lab.matching import scaling

#: the rows, declared once (claims.toml beside this module)
ROWS = claims.declarations(__file__)

# tolerances and the paper's sizes, declared before measuring
FIG3_MIN_R2 = 0.9  # Fig. 3, "we fit a linear line": the least R² of lookups on unique words
GAIN_TOLERANCE = 0.10  # a sized gain ("15 % better") holds within +- this of T(SALB) / T(m)
SIZE_FACTOR = 1.25  # a multiplicative size ("4.2 times", "3.3x lower") holds within this factor
GAP_STABLE = 0.10  # the SALB / hash gap "stabilises" if its last step is within 1 +- this
PAPER_MAX_SUBS = 10_000_000  # the largest subscription count of Fig. 7
#: Sect. 6.3, tweet-based: SALB 15 % better than gFCL and gNFCL up to 10k subscriptions, 10 %
#: better than gFCL up to 100k: T(SALB) / T(method) over the sizes up to the bound
TWEET_GAINS = {("gFCL", 10_000): 1.15, ("gNFCL", 10_000): 1.15, ("gFCL", 100_000): 1.10}
#: Sect. 6.3, topic-based: SALB 22 %, 18 % and 42 % better than gNFCL, gFCL and hash
TOPIC_GAINS = {"gNFCL": 1.22, "gFCL": 1.18, "hash": 1.42}
#: Sect. 6.3 (Fig. 7b/f): SALB outperforms hash by more than 4.2x (tweet) and 1.42x (topic)
SALB_OVER_HASH = {"tweet": 4.2, "topic": 1.42}
#: Sect. 6.3 (Fig. 7d/h): SALB up to 3.3x (tweet) / 1.7x (topic) lower imbalance than hash
IMBALANCE_OVER_HASH = {"tweet": 3.3, "topic": 1.7}


def synthetic_note(sizes: Sequence[int], synthetic_from: int | None, note: str = "") -> str:
    """``note`` followed by the tweet-based sizes above ``synthetic_from`` (they hold
    synthetic subscriptions); ``note`` alone when there are none."""
    beyond = sorted({int(n) for n in sizes if synthetic_from is not None and n > synthetic_from})
    if not beyond:
        return note
    names = ", ".join(f"{n:,}" for n in beyond)
    text = (
        f"tweet-based {names}: {synthetic_from:,} real posts + synthetic topic-model subscriptions"
    )
    return f"{note}; {text}" if note else text


def _share(row: Declaration, ok: pd.Series) -> Verdict:
    """The share of the workloads where ``ok`` holds (the row's text ``share`` says what)."""
    return claims.share(int(ok.sum()), len(ok), rule=row.text("share"))


def _where(row: Declaration, names: str) -> str:
    """The row's text ``where`` naming the workloads where it does not hold; "" for none."""
    return row.text("where", where=names) if names else ""


def _means(summary: pd.DataFrame, metric: str) -> pd.DataFrame:
    """(kind, n_subs) x method table of mean ``metric``."""
    sel = summary[summary["metric"] == metric]
    return sel.pivot_table(index=["kind", "n_subs"], columns="method", values="mean")


def lasp_cuts_load(
    gain: pd.DataFrame, placement_sizes: Sequence[int], *, synthetic_from: int | None = None
) -> dict:
    """Row ``lasp_cuts_load``; its note names each workload by the columns the frame has."""
    row, ratio = ROWS["lasp_cuts_load"], gain["lasp_over_random"]
    keys = [k for k in ("kind", "n_subs", "method") if k in gain.columns]

    def workload(r: pd.Series) -> str:
        name = " ".join(f"{r[k]:,}" if k == "n_subs" else str(r[k]) for k in keys) or "a workload"
        return row.text("workload", name=name, ratio=r["lasp_over_random"])

    where = ", ".join(workload(r) for _, r in gain[~(ratio < 1)].iterrows())
    note = synthetic_note(placement_sizes, synthetic_from, _where(row, where))
    measured = row.text("measured", low=ratio.min(), high=ratio.max(), sizes=list(placement_sizes))
    return row.row(measured, _share(row, ratio < 1), note)


def topic_falls_slower(
    grid: pd.DataFrame, start: int, end: int, *, synthetic_from: int | None = None
) -> dict:
    """Row ``topic_falls_slower``."""
    row = ROWS["topic_falls_slower"]
    drop = scaling.throughput_drop(grid, start=start).set_index("kind")["drop"]
    measured = row.text("measured", start=start, end=end, tweet=drop["tweet"], topic=drop["topic"])
    verdict = claims.direction(float(drop["tweet"] / drop["topic"]), neutral=1.0, expected="above")
    return row.row(measured, verdict, synthetic_note([start, end], synthetic_from))


def salb_keeps_advantage(summary: pd.DataFrame, *, synthetic_from: int | None = None) -> dict:
    """Row ``salb_keeps_advantage``."""
    row, rank = ROWS["salb_keeps_advantage"], scaling.method_ranking(summary)
    best = ", ".join(row.text("best", m=m, n=n) for m, n in rank["best"].value_counts().items())
    note = synthetic_note(rank["n_subs"], synthetic_from, scaling.advantage_note(summary))
    return row.row(row.text("measured", best=best), _share(row, rank["best"] == "SALB"), note)


def salb_beats_hash(summary: pd.DataFrame, *, synthetic_from: int | None = None) -> dict:
    """Row ``salb_beats_hash``."""
    row, rank = ROWS["salb_beats_hash"], scaling.method_ranking(summary)
    vs_hash = rank["SALB"] / rank["hash"]
    note = synthetic_note(rank["n_subs"], synthetic_from, _where(row, scaling.losses_to(rank)))
    measured = row.text("measured", low=vs_hash.min(), high=vs_hash.max())
    return row.row(measured, _share(row, vs_hash > 1), note)


def dataflow_exact(n_matches: int, n_oracle: int, flow_equal: bool, stream_equal: bool) -> dict:
    """Row ``dataflow_exact``."""
    row = ROWS["dataflow_exact"]
    verdict = Verdict("holds" if flow_equal and stream_equal else "fails", row.rule)
    return row.graded(verdict, n=n_matches, oracle=n_oracle, stream=stream_equal)


def _r2(part: pd.DataFrame) -> float:
    """R² of the linear fit of lookups per publication on unique words (NaN: too few)."""
    if len(part) < 3 or part["unique_words"].nunique() < 2:
        return float("nan")
    return float(np.corrcoef(part["unique_words"], part["ops_per_pub"])[0, 1] ** 2)


def fig3_linear(curve: pd.DataFrame) -> dict:
    """Row ``fig3_linear``; the note gives each kind's R²."""
    row, total = ROWS["fig3_linear"], _r2(curve)
    per_kind = {k: _r2(p) for k, p in curve.groupby("kind")} if "kind" in curve else {}
    verdict = claims.at_least(total, FIG3_MIN_R2, what="R² of the linear fit")
    note = ", ".join(row.text("kind", kind=k, r2=v) for k, v in per_kind.items())
    note += "" if verdict.holds else row.text("poor")
    return row.graded(verdict, note, r2=total, n=len(curve))


def _gains(
    row: Declaration, summary: pd.DataFrame, kind: str, gains: dict, synthetic_from=None
) -> dict:
    """Row ``row``: per ``gains`` entry ((method, largest size or None): the paper's ratio) the
    geometric mean of T(SALB) / T(method) over the ``kind``'s sizes up to that size, within
    :data:`GAIN_TOLERANCE` of the paper's ratio; combined."""
    mean = _means(summary, "throughput")
    cells = mean.loc[kind] if kind in mean.index.get_level_values(0) else None
    parts, text = [], []
    for (m, bound), paper in gains.items():
        sel = cells if cells is None or bound is None else cells[cells.index <= bound]
        if sel is None or m not in sel or "SALB" not in sel or sel.empty:
            parts.append(not_comparable(row.text("missing", m=m, bound=bound)))
            continue
        r = claims.geometric_mean(list(sel["SALB"] / sel[m]), positive_only=True)
        parts.append(claims.within_tolerance(r, paper, GAIN_TOLERANCE, neutral=1.0))
        text.append(row.text("part", m=m, bound=bound, r=r))
    note = synthetic_note([] if cells is None else list(cells.index), synthetic_from, row.note)
    measured = "; ".join(text) or row.text("none", kind=kind)
    return row.row(measured, claims.combine(parts), note)


def tweet_gains(summary: pd.DataFrame, *, synthetic_from: int | None = None) -> dict:
    """Row ``tweet_gains``."""
    return _gains(ROWS["tweet_gains"], summary, "tweet", TWEET_GAINS, synthetic_from)


def topic_gains(summary: pd.DataFrame) -> dict:
    """Row ``topic_gains``."""
    gains = {(m, None): paper for m, paper in TOPIC_GAINS.items()}
    return _gains(ROWS["topic_gains"], summary, "topic", gains)


def _per_kind(
    row: Declaration, mean: pd.DataFrame, kinds: Sequence[str], judge: Callable, min_sizes: int = 1
) -> tuple[list[Verdict], list[str]]:
    """``judge(kind, the kind's cells)`` (a verdict and a text) per kind with hash measured at
    ``min_sizes`` sizes or more; the others not comparable (the row's text ``missing``)."""
    parts, text = [], []
    for kind in kinds:
        has_kind = kind in mean.index.get_level_values(0)
        if not has_kind or "hash" not in mean or len(mean.loc[kind]) < min_sizes:
            parts.append(not_comparable(row.text("missing", kind=kind)))
            continue
        verdict, measured = judge(kind, mean.loc[kind])
        parts.append(verdict)
        text.append(measured)
    return parts, text


def _peak(row: Declaration, kind: str, ratio: pd.Series) -> tuple[float, str, Verdict | None]:
    """The largest ``ratio`` (indexed by n_subs), the row's text ``part`` naming it, and a
    "not comparable" if it is at our largest size, below the paper's (it may still grow)."""
    n_at, peak, n_max = int(ratio.idxmax()), float(ratio.max()), int(ratio.index.max())
    text = row.text("part", kind=kind, peak=peak, n=n_at)
    if n_at == n_max and n_max < PAPER_MAX_SUBS:
        grows = row.text("grows", kind=kind, n=n_max, paper_max=PAPER_MAX_SUBS)
        return peak, text, not_comparable(grows)
    return peak, text, None


def salb_over_hash_size(summary: pd.DataFrame) -> dict:
    """Row ``salb_over_hash_size``: the peak reaches the paper's size within SIZE_FACTOR."""
    row = ROWS["salb_over_hash_size"]

    def judge(kind: str, cells: pd.DataFrame) -> tuple[Verdict, str]:
        paper = SALB_OVER_HASH[kind]
        peak, text, grows = _peak(row, kind, cells["SALB"] / cells["hash"])
        least = paper / SIZE_FACTOR
        rule = row.text("reaches", kind=kind, least=least, paper=paper, factor=SIZE_FACTOR)
        verdict = "holds" if peak >= least else "direction only" if peak > 1 else "fails"
        return grows or Verdict(verdict, rule), text

    parts, text = _per_kind(row, _means(summary, "throughput"), list(SALB_OVER_HASH), judge)
    return row.row("; ".join(text), claims.combine(parts))


def hash_gap_shape(summary: pd.DataFrame) -> dict:
    """Row ``hash_gap_shape``: the change of T(SALB) / T(hash) over our last step of sizes."""
    row = ROWS["hash_gap_shape"]

    def judge(kind: str, cells: pd.DataFrame) -> tuple[Verdict, str]:
        ratio = (cells["SALB"] / cells["hash"]).sort_index()
        step = float(ratio.iloc[-1] / ratio.iloc[-2])
        if kind == "tweet":
            ok, rule = step > 1 + GAP_STABLE, row.text("tweet", gap=GAP_STABLE)
        else:
            ok, rule = abs(step - 1) <= GAP_STABLE, row.text("topic", gap=GAP_STABLE)
        start, end = int(ratio.index[-2]), int(ratio.index[-1])
        return Verdict("holds" if ok else "fails", rule), row.text(
            "part", kind=kind, step=step, start=start, end=end
        )

    mean = _means(summary, "throughput")
    parts, text = _per_kind(row, mean, ["tweet", "topic"], judge, min_sizes=2)
    return row.graded(claims.combine(parts), parts="; ".join(text))


def imbalance_advantage(summary: pd.DataFrame) -> dict:
    """Row ``imbalance_advantage``: the peak lies within SIZE_FACTOR of the paper's."""
    row, mean = ROWS["imbalance_advantage"], _means(summary, "imbalance")

    def judge(kind: str, cells: pd.DataFrame) -> tuple[Verdict, str]:
        peak, text, grows = _peak(row, kind, cells["hash"] / cells["SALB"])
        return grows or claims.within_factor(peak, IMBALANCE_OVER_HASH[kind], SIZE_FACTOR), text

    best = mean.idxmin(axis=1)
    parts, text = _per_kind(row, mean, list(IMBALANCE_OVER_HASH), judge)
    lowest = row.text("lowest", won=int((best == "SALB").sum()), total=len(best))
    lost = ", ".join(
        row.text("lost", kind=k, n=n, m=m) for (k, n), m in best.items() if m != "SALB"
    )
    verdict = claims.combine([_share(row, best == "SALB"), *parts])
    return row.row("; ".join([lowest, *text]), verdict, _where(row, lost))


def graph_spread_below_salb(summary: pd.DataFrame) -> dict:
    """Row ``graph_spread_below_salb``."""
    mean, row = _means(summary, "spread"), ROWS["graph_spread_below_salb"]
    if not {"gFCL", "gNFCL", "SALB"} <= set(mean.columns):
        return row.unmeasured("needs gFCL, gNFCL and SALB spread")
    ok = mean[["gFCL", "gNFCL"]].max(axis=1) < mean["SALB"]
    lost = ", ".join(row.text("cell", kind=k, n=n) for (k, n) in mean.index[~ok.to_numpy()])
    return row.graded(_share(row, ok), _where(row, lost), won=int(ok.sum()), total=len(ok))


def headline_rows(
    summary: pd.DataFrame, curve: pd.DataFrame, *, synthetic_from: int | None = None
) -> list[dict]:
    """The sized headline claims of Sects. 4.2 and 6.3 (Fig. 3, Fig. 7a-h) beyond the rows
    above."""
    first = [fig3_linear(curve), tweet_gains(summary, synthetic_from=synthetic_from)]
    rest = (topic_gains, salb_over_hash_size, hash_gap_shape, imbalance_advantage)
    return first + [row(summary) for row in rest] + [graph_spread_below_salb(summary)]
