"""S3-TM Fig. 4 (notebook 01_corpus): word frequency vs rank on log-log axes, with the
Zipf fit of :func:`routelab.corpus.stats.fit_zipf` drawn over the ranks it was fitted on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from routelab.uniques import unique


def fig4_word_frequencies(
    freqs: pd.DataFrame, label: str, fig: go.Figure | None = None
) -> go.Figure:
    """S3-TM Fig. 4: word frequency vs rank, log-log. Pass ``fig`` to add another corpus."""
    import plotly.graph_objects as go

    from routelab.plots import log_axis

    if fig is None:
        fig = go.Figure()
        fig.update_layout(
            title="Word frequencies (S3-TM Fig. 4)",
            xaxis_title="rank of word",
            yaxis_title="frequency (posts)",
        )
        log_axis(fig, "x")
        log_axis(fig, "y")
    ranks, counts = _thin_log(freqs["rank"].to_numpy(), freqs["freq"].to_numpy())
    fig.add_trace(go.Scatter(x=ranks, y=counts, mode="lines", name=label))
    return fig


def fig4_zipf_fit(fig: go.Figure, zipf: Mapping[str, Any], label: str = "Zipf fit") -> go.Figure:
    """Draw the fitted line ``freq = 10^c * rank^-s`` of :func:`fit_zipf` over the rank
    range it was fitted on (dashed), so the reader sees which part of the curve the exponent
    describes."""
    import plotly.graph_objects as go

    ranks = np.geomspace(zipf["min_rank"], zipf["max_rank"], 50)
    fitted = 10 ** zipf["intercept"] * ranks ** -zipf["exponent"]
    name = f"{label}: s = {zipf['exponent']:.2f}, R² = {zipf['r2']:.3f}"
    fig.add_trace(
        go.Scatter(x=ranks, y=fitted, mode="lines", name=name, line={"dash": "dash", "width": 3})
    )
    return fig


def zipf_table(zipf: Mapping[str, Any]) -> pd.DataFrame:
    """The fit of :func:`fit_zipf` as a one-row table (for display, instead of a dict)."""
    return pd.DataFrame(
        [
            {
                "Zipf exponent s": round(zipf["exponent"], 3),
                "R² (log-log)": round(zipf["r2"], 4),
                "ranks fitted": f"{zipf['min_rank']:,}–{zipf['max_rank']:,}",
                "words fitted": f"{zipf['points']:,}",
            }
        ],
        index=["fit"],
    )


def _thin_log(x: np.ndarray, y: np.ndarray, points: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """Keep about ``points`` log-spaced points (a 200k-word curve needs no 200k points)."""
    if len(x) <= points:
        return x, y
    idx = unique(np.geomspace(1, len(x), points).astype(np.int64) - 1)
    return x[idx], y[idx]
