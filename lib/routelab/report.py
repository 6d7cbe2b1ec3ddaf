"""What a notebook reports: its figures, headline numbers and claims table.

Every notebook creates one :class:`NotebookReport`, hands it its figures and headline
numbers, records each paper claim with the value we measured, and ends with
:meth:`NotebookReport.finish`, which writes ``figures/<notebook>/results.json``::

    {"notebook": ..., "profile": ..., "parameters": {...}, "git_commit": ...,
     "clock": ..., "reading": ..., "generated_at": ..., "headline": {...}, "figures": [...],
     "claims": [{"claim", "paper", "paper_value", "measured", "verdict", "rule",
                 "note", "kind"}, ...]}

One claims schema everywhere (results.json, the notebook table, ``figures/index.html``):

- ``claim``: what the paper states; ``paper``: where (section / figure / table);
- ``paper_value``: the paper's number; ``measured``: ours, side by side;
- ``verdict``: one of :data:`routelab.claims.VERDICTS`; ``rule``: how the verdict was
  computed, with the tolerance declared in code before the run (see :mod:`routelab.claims`);
- ``note``: why it differs, what is missing; ``kind``: ``claim`` (the paper's) or ``check``
  (a check of our own configuration, e.g. a distribution we drew ourselves).

``clock`` names the clock of the run's timed regions (:mod:`routelab.timing`: "cpu",
the timed thread's CPU time, or "wall"). ``reading`` names the reading flipped for the run
(:mod:`routelab.readings`; null in a default run); a default run's rows that a flipped reading
was found to decide name it in their ``note``.

Every row is graded: :meth:`NotebookReport.claim` takes a verdict with its rule and nothing
else (the older boolean ``holds=`` is gone; results.json files written with it are still
read by :mod:`routelab.dashboard`, labelled as ungraded).
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from routelab.claims import KINDS, MIN_REPEATS, VERDICTS, Verdict
from routelab.paths import figures_dir, git_commit
from routelab.plots import save_figure, show_figure, stamp
from routelab.readings import annotate, flipped
from routelab.timing import clock_name

CLAIM_KEYS = (
    "claim", "paper", "paper_value", "measured", "verdict", "rule", "note", "kind", "timing",
    "repeats",
)  # fmt: skip
VERDICT_COLOURS = {
    "holds": "#d8f0d2",
    "direction only": "#fff1c2",
    "partly": "#ffe0b8",
    "fails": "#f8d0d0",
    "inconclusive": "#e8e0f4",
    "not comparable": "#e6e6e6",
}


@dataclass
class Claim:
    """One row of a claims table (schema: :data:`CLAIM_KEYS`)."""

    claim: str
    paper: str
    paper_value: str
    measured: str
    verdict: str
    rule: str
    note: str = ""
    kind: str = "claim"
    #: judged on measured times (then ``repeats`` must reach :data:`routelab.claims.MIN_REPEATS`)
    timing: bool = False
    #: repeated measurements behind the verdict (0: single values)
    repeats: int = 0

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if not self.rule.strip():
            raise ValueError(f"claim {self.claim!r}: a verdict needs the rule that produced it")
        if self.timing and self.verdict != "not comparable" and self.repeats < MIN_REPEATS:
            raise ValueError(
                f"claim {self.claim!r}: a timing claim needs >= {MIN_REPEATS} repeated "
                f"measurements, its verdict rests on {self.repeats}"
            )

    @property
    def holds(self) -> bool:
        return self.verdict == "holds"


def claim_row(
    claim: str,
    paper: str,
    measured: str,
    *,
    verdict: Verdict | str,
    paper_value: str = "",
    rule: str = "",
    note: str = "",
    kind: str = "claim",
    timing: bool = False,
) -> Claim:
    """One claims-table row from a claims module's row (:meth:`NotebookReport.claim`'s
    arguments): ``verdict`` a :class:`routelab.claims.Verdict` (it carries its rule) or one
    of :data:`routelab.claims.VERDICTS` with ``rule``."""
    if isinstance(verdict, str):
        verdict = Verdict(verdict, rule)
    return Claim(claim=claim, paper=paper, paper_value=str(paper_value), measured=str(measured),
                 verdict=verdict.verdict, rule=verdict.rule, note=note, kind=kind,
                 timing=timing, repeats=verdict.repeats)  # fmt: skip


RULE_CHARS = 200  # a longer rule is cut in the table, in full on hover


def _rule_cell(rule: str) -> str:
    """A rule for an HTML table: in full up to :data:`RULE_CHARS`, else cut at a word with
    "…" and the full text on hover (a ``title``), so a long rule does not fill the row."""
    import html

    if len(rule) <= RULE_CHARS:
        return html.escape(rule)
    cut = rule[:RULE_CHARS].rsplit(" ", 1)[0]
    return (
        f"<span title='{html.escape(rule, quote=True)}' style='cursor:help'>"
        f"{html.escape(cut)} <b>…</b></span>"
    )


def claims_html(table: pd.DataFrame) -> str:
    """The claims table as full-width HTML: verdicts coloured, the paper's value beside
    ours, every cell wrapping inside its column (long words too); a rule longer than
    :data:`RULE_CHARS` is cut, in full on hover. Used by the notebooks and by
    ``figures/index.html``."""
    import html

    cols = [c for c in CLAIM_KEYS if c in table.columns and c != "timing"]
    head = "".join(f"<th style='text-align:left'>{html.escape(c)}</th>" for c in cols)
    rows = []
    for _, r in table.iterrows():
        colour = VERDICT_COLOURS.get(str(r.get("verdict")), "#ffffff")
        cells = []
        for c in cols:
            value = "" if r[c] is None else str(r[c])
            text = _rule_cell(value) if c == "rule" else html.escape(value)
            style = "text-align:left;vertical-align:top;white-space:normal;overflow-wrap:anywhere"
            if c == "rule":
                style += ";max-width:28em"
            if c == "verdict":
                style += f";background:{colour};font-weight:bold;white-space:nowrap"
            cells.append(f"<td style='{style}'>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        "<table class='routelab-claims' style='width:100%;border-collapse:collapse;"
        "table-layout:auto'>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


class ClaimsTable:
    """What :meth:`NotebookReport.finish` returns: shows the full table in a notebook
    (HTML, coloured verdicts) and as plain text elsewhere; ``.frame`` is the DataFrame."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def _repr_html_(self) -> str:
        return claims_html(self.frame)

    def __repr__(self) -> str:
        with pd.option_context("display.max_colwidth", None, "display.width", 200):
            return self.frame.to_string(index=False)

    def __len__(self) -> int:
        return len(self.frame)


def json_key(key: Any) -> str:
    """A results.json key: a tuple key (a ``groupby([...]).to_dict()`` of several columns)
    as its parts joined by spaces ("50000 DP", not "(50000, 'DP')"), anything else as
    ``str``."""
    if isinstance(key, tuple):
        return " ".join(json_key(k) for k in key)
    return str(key.item() if isinstance(key, np.generic) else key)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {json_key(k): _jsonable(v) for k, v in value.items()}
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


def data_line(data: str | Iterable[str]) -> str:
    """A figure's data line: one description, or every distinct description of the series it
    draws (e.g. a frame's ``data`` column), in order and joined by "; ", so a figure over
    UK and US data never names only the first row's."""
    if isinstance(data, str):
        return data
    seen: list[str] = []
    for item in data:
        text = str(item).strip()
        if text and text not in seen:
            seen.append(text)
    if not seen:
        raise ValueError("a figure needs a data line: say what data it draws")
    return "; ".join(seen)


def number_text(value: Any) -> str:
    """One number as a table shows it: whole numbers and magnitudes from 100 up with
    thousands separators and no decimals (1,130,404; 745), smaller ones to three
    significant digits (0.0425, 12.5), a missing value as a dash."""
    if value is None or (isinstance(value, float | np.floating) and not math.isfinite(value)):
        return "–"
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Number):
        return str(value)
    v = float(value)
    if v == int(v) and abs(v) < 1e15 or abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def tidy(frame: pd.DataFrame, percent: Sequence[Any] = ()) -> Any:
    """A table for a notebook cell: every number by :func:`number_text` (no 1.130404e+07,
    no "12.00" points, no nan), the ``percent`` columns as percentages; a pandas Styler."""
    percent = [c for c in percent if c in frame.columns]
    numeric = [
        c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and c not in percent
    ]
    styler = frame.style.format(number_text, subset=numeric) if numeric else frame.style
    if percent:
        styler = styler.format("{:.1%}", subset=percent, na_rep="–")
    index = frame.index
    if pd.api.types.is_numeric_dtype(index) and not isinstance(index, pd.MultiIndex):
        styler = styler.format_index(number_text)
    return styler


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
    data: list[str] = field(default_factory=list)
    measured: list[dict[str, Any]] = field(default_factory=list)

    def figure(self, fig: Any, name: str, *, data: str | Iterable[str], caption: str = "") -> None:
        """Stamp, save (HTML + PNG + SVG) and display a plotly figure once (returns None, so
        a cell ending with this call does not show it a second time). ``data`` describes the
        data drawn: a string, or the descriptions of every series (:func:`data_line`)."""
        data = data_line(data)
        stamp(fig, data=data, profile=self.profile)
        paths = save_figure(fig, self.notebook, name)
        self.figures.append(
            {"name": name, "data": data, "caption": caption, "files": [p.name for p in paths]}
        )
        if self.show:
            show_figure(fig)

    def measurements(self, frame: pd.DataFrame, name: str, *, description: str) -> Path:
        """Save a frame of raw measurements (every run and replay the claims are graded on)
        as ``<figures>/<notebook>/<name>.parquet`` and list it in results.json, so a reader
        can regrade or replot a run without repeating it. Returns the path."""
        if not name.isidentifier():
            raise ValueError(f"a measurements name is one identifier, got {name!r}")
        out = figures_dir() / self.notebook
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{name}.parquet"
        frame.reset_index(drop=True).to_parquet(path, index=False)
        self.measured = [m for m in self.measured if m["name"] != name]
        self.measured.append({"name": name, "file": path.name, "rows": len(frame),
                              "description": description})  # fmt: skip
        return path

    def add_data(self, description: str) -> None:
        """Name a dataset the notebook uses outside its figures (a table, a demo), so the
        dashboard lists it with the figures' data."""
        if description not in self.data:
            self.data.append(description)

    def add_headline(self, **values: Any) -> None:
        """Record headline numbers (shown in results.json under ``headline``)."""
        self.headline.update(values)

    def claim(self, claim: str, paper: str, measured: str, **row: Any) -> Claim:
        """Record one row: the paper's claim, where it is made (``paper``), ours
        (``measured``) and the keywords of :func:`claim_row` (``verdict``, a
        :class:`routelab.claims.Verdict` carrying its rule or one of
        :data:`routelab.claims.VERDICTS` with ``rule``; ``paper_value``, the paper's number;
        ``note``, ``kind``, ``timing``); every row is graded."""
        out = claim_row(claim, paper, measured, **row)
        self.claims.append(out)
        return out

    def claims_table(self) -> pd.DataFrame:
        """The claims as a DataFrame with the columns of :data:`CLAIM_KEYS`."""
        return pd.DataFrame([asdict(c) for c in self.claims], columns=list(CLAIM_KEYS))

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(
            {
                "notebook": self.notebook,
                "profile": self.profile,
                "parameters": self.parameters,
                "git_commit": git_commit(),
                "clock": clock_name(),
                "reading": flipped(),
                "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "headline": self.headline,
                "figures": self.figures,
                "data": self.data,
                "measurements": self.measured,
                "claims": [asdict(c) for c in self.claims],
            }
        )

    def finish(self) -> ClaimsTable:
        """Write ``results.json`` and return the claims table for display (in full, verdicts
        coloured; ``.frame`` is the DataFrame)."""
        if not self.claims:
            raise ValueError(f"{self.notebook}: a notebook must end with a claims table")
        # rows a flipped reading was found to decide name it (routelab.readings)
        self.claims = [Claim(**row) for row in annotate(
            self.notebook, self.profile, [asdict(c) for c in self.claims])]  # fmt: skip
        out = figures_dir() / self.notebook
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(self.to_dict(), indent=2) + "\n")
        return ClaimsTable(self.claims_table())
