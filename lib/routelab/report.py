"""What a notebook reports: its figures, headline numbers and claims table.

Every notebook creates one :class:`NotebookReport`, hands it its figures and headline
numbers, records each paper claim with the value we measured, and ends with
:meth:`NotebookReport.finish`, which writes ``figures/<notebook>/results.json``::

    {"notebook": ..., "profile": ..., "parameters": {...}, "git_commit": ...,
     "generated_at": ..., "headline": {...}, "figures": [...],
     "claims": [{"claim": ..., "paper": ..., "measured": ..., "holds": ..., "note": ...}]}

``holds`` is ``true``, ``false`` or ``null`` (not testable on our data; the note says why).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from routelab.paths import figures_dir, git_commit
from routelab.plots import save_figure, stamp

CLAIM_KEYS = ("claim", "paper", "measured", "holds", "note")


@dataclass
class Claim:
    """One row of a claims table."""

    claim: str
    paper: str
    measured: str
    holds: bool | None
    note: str = ""


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating | float):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, pd.Timestamp | datetime):
        return value.isoformat()
    return value


@dataclass
class NotebookReport:
    """Collects a notebook's figures, headline numbers and claims; writes results.json."""

    notebook: str
    profile: str = "default"
    parameters: dict[str, Any] = field(default_factory=dict)
    show: bool = True
    headline: dict[str, Any] = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)
    figures: list[dict[str, Any]] = field(default_factory=list)

    def figure(self, fig: Any, name: str, *, data: str, caption: str = "") -> Any:
        """Stamp, save (HTML + PNG + SVG) and display a plotly figure."""
        stamp(fig, data=data, profile=self.profile)
        paths = save_figure(fig, self.notebook, name)
        self.figures.append(
            {"name": name, "data": data, "caption": caption, "files": [p.name for p in paths]}
        )
        if self.show:
            fig.show()
        return fig

    def add_headline(self, **values: Any) -> None:
        """Record headline numbers (shown in results.json under ``headline``)."""
        self.headline.update(values)

    def claim(
        self, claim: str, paper: str, measured: str, holds: bool | None, note: str = ""
    ) -> Claim:
        """Record one paper claim, our measured value, and whether it holds."""
        if holds is not None and not isinstance(holds, bool | np.bool_):
            raise TypeError(f"holds must be True, False or None, got {holds!r}")
        row = Claim(claim, paper, measured, None if holds is None else bool(holds), note)
        self.claims.append(row)
        return row

    def claims_table(self) -> pd.DataFrame:
        """The claims as a DataFrame with columns claim, paper, measured, holds, note."""
        return pd.DataFrame([asdict(c) for c in self.claims], columns=list(CLAIM_KEYS))

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(
            {
                "notebook": self.notebook,
                "profile": self.profile,
                "parameters": self.parameters,
                "git_commit": git_commit(),
                "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "headline": self.headline,
                "figures": self.figures,
                "claims": [asdict(c) for c in self.claims],
            }
        )

    def finish(self) -> pd.DataFrame:
        """Write ``results.json`` and return the claims table for display."""
        if not self.claims:
            raise ValueError(f"{self.notebook}: a notebook must end with a claims table")
        out = figures_dir() / self.notebook
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        return self.claims_table()
