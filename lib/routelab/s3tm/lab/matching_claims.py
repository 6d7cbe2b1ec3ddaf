"""The claims of S3-TM Sects. 2, 4.2 and 6.3 (Fig. 7a-h), checked on notebook 04's numbers.

Each function returns one claims-table row (``claim``, ``paper``, ``measured``, ``holds``,
``note``); ``holds`` is computed from the data by the rule in the docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from routelab.s3tm.lab.subscription_scaling import (
    advantage_note,
    losses_to,
    method_ranking,
    throughput_drop,
)


def _row(claim: str, paper: str, measured: str, holds: bool, note: str = "") -> dict[str, Any]:
    return {"claim": claim, "paper": paper, "measured": measured, "holds": holds, "note": note}


def lasp_cuts_load(gain: pd.DataFrame, placement_sizes: Sequence[int]) -> dict[str, Any]:
    """Holds when LASP's total lookups are below random anycast's in every workload of
    :func:`~routelab.s3tm.lab.subscription_scaling.placement_gain`."""
    worst = gain["lasp_over_random"].max()
    return _row(
        "LASP reduces the total matching load vs random anycast",
        "Sect. 4.2, 6.3",
        f"LASP/random total lookups: {gain['lasp_over_random'].min():.2f}-{worst:.2f} "
        f"(SALB, {list(placement_sizes)} subs, both kinds)",
        bool(worst < 1),
        "" if worst < 1 else "random anycast was cheaper for some workload",
    )


def topic_falls_slower(grid: pd.DataFrame, start: int, end: int) -> dict[str, Any]:
    """Holds when SALB's throughput falls by a smaller factor from ``start`` to the largest
    subscription count with topic- than with tweet-based subscriptions."""
    drop = throughput_drop(grid, start=start).set_index("kind")["drop"]
    return _row(
        "Throughput falls slower with topic- than with tweet-based subscriptions",
        "Fig. 7b, f",
        f"SALB throughput {start:,} → {end:,} subs "
        f"falls {drop['tweet']:.2f}x (tweet) vs {drop['topic']:.2f}x (topic)",
        bool(drop["topic"] < drop["tweet"]),
    )


def salb_keeps_advantage(summary: pd.DataFrame) -> dict[str, Any]:
    """Holds when SALB has the best mean relative throughput in every (kind, size)."""
    rank = method_ranking(summary)
    return _row(
        "SALB keeps its advantage across subscription counts",
        "Fig. 7a, e",
        f"best method per (kind, size): {rank['best'].value_counts().to_dict()}",
        bool((rank["best"] == "SALB").all()),
        advantage_note(summary),
    )


def salb_beats_hash(summary: pd.DataFrame) -> dict[str, Any]:
    """Holds when SALB's relative throughput is above hash's in every (kind, size)."""
    rank = method_ranking(summary)
    vs_hash = rank["SALB"] / rank["hash"]
    losses = losses_to(rank, "hash")
    return _row(
        "SALB outperforms hashing at every subscription count",
        "Fig. 7b, f",
        f"SALB/hash throughput: {vs_hash.min():.3f}-{vs_hash.max():.2f}",
        bool((vs_hash > 1).all()),
        losses and "not above hash at: " + losses,
    )


def dataflow_exact(
    n_matches: int, n_oracle: int, flow_equal: bool, stream_equal: bool
) -> dict[str, Any]:
    """Holds when the batch dataflow and the streaming replay both equal the oracle."""
    return _row(
        "The Spark dataflow delivers exactly the oracle's matches, without duplicates",
        "Sect. 2 (architecture)",
        f"{n_matches:,} vs {n_oracle:,} matches; streaming replay equal: {stream_equal}",
        bool(flow_equal and stream_equal),
    )
