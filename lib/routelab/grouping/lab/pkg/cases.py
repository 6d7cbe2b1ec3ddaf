"""PKG notebook 07: the stand-in streams as :class:`StreamCase` (their ``p1`` and the balance
boundary of Sect. IV-A, Table I), the paper's datasets and Table II's schemes."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from routelab.uniques import unique

if TYPE_CHECKING:
    from routelab.grouping.lab.streams import KeyStream


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
        n_keys=int(unique(ks.keys).size),
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
