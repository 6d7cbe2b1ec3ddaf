"""One page for reviewers: every notebook's claims, figures, data, profile, time and commit.

``routelab figures`` ends by writing ``figures/index.html`` (:func:`write_index`) and printing
one line per notebook (:func:`summary_lines`: status, time, claims that hold / all claims);
``routelab claims`` prints the same claims table in the terminal (:func:`claims_frame`,
:func:`format_claims`). Everything is read back from what the notebooks wrote
(``figures/<notebook>/results.json``) and from the runner's history
(``papermill_runs/history.jsonl``), so the page describes exactly the last run of each
notebook, whichever profile and commit produced it.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from routelab.claims import VERDICTS
from routelab.paths import figures_dir, runs_dir
from routelab.report import CLAIM_KEYS, claims_html

# the rule shown for rows of results.json files written before claims were graded
LEGACY_RULE = "boolean verdict (not graded against the paper's size)"

INDEX_NAME = "index.html"


def load_results(root: Path | None = None) -> list[dict[str, Any]]:
    """Every ``<root>/<notebook>/results.json``, in notebook order."""
    root = root or figures_dir()
    return [read_results(path) for path in sorted(root.glob("*/results.json"))]


def read_results(path: Path) -> dict[str, Any]:
    """One ``results.json``: its claims in the current schema, its notebook (the folder's
    name where the file does not say); a file that is not JSON is an error naming it and
    the line."""
    from routelab.errors import BadInputError

    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path}: line {exc.lineno}: not JSON ({exc.msg})") from exc
    data.setdefault("notebook", Path(path).parent.name)
    data["claims"] = [_normalise(row) for row in data.get("claims", [])]
    return data


def _normalise(row: dict[str, Any]) -> dict[str, Any]:
    """A claims row in the current schema (rows written before it had a boolean ``holds``)."""
    if "verdict" in row:
        return {key: row.get(key, "") for key in CLAIM_KEYS}
    holds = row.get("holds")
    verdict = "not comparable" if holds is None else ("holds" if holds else "fails")
    out = {key: row.get(key, "") for key in CLAIM_KEYS}
    out.update(verdict=verdict, rule=LEGACY_RULE, kind="claim")
    return out


def last_runs(root: Path | None = None) -> dict[str, dict[str, Any]]:
    """The latest run of each notebook (status, seconds, profile) from the run history."""
    path = (root or runs_dir()) / "history.jsonl"
    latest: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return latest
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        log = json.loads(line)
        for run in log.get("runs", []):
            latest[run["notebook"]] = {
                "status": run["status"],
                "seconds": run["seconds"],
                "profile": log.get("profile"),
                "started_at": log.get("started_at"),
            }
    return latest


def claims_frame(results: list[dict[str, Any]]) -> pd.DataFrame:
    """All claims rows, one per row, with the notebook's name first."""
    rows = [{"notebook": r["notebook"], **c} for r in results for c in r["claims"]]
    return pd.DataFrame(rows, columns=["notebook", *CLAIM_KEYS])


#: the paper each notebook reproduces (by its number); notebook 13 is beyond the papers
PAPERS = {"01": "S3-TM", "02": "S3-TM", "03": "S3-TM", "04": "S3-TM", "05": "S3-TM",
          "06": "S3-TM", "07": "PKG", "08": "FISH", "09": "Fabret et al.",
          "10": "Fabret et al.", "11": "PS2Stream", "12": "PS2Stream",
          "13": "beyond the papers"}  # fmt: skip


def results_at(path: Path) -> list[dict[str, Any]]:
    """The claims tables under ``path``: a figures directory (one ``<notebook>/results.json``
    per notebook), one notebook's directory or a ``results.json`` file. A path holding none
    is an error naming it."""
    from routelab.errors import BadInputError

    path = Path(path)
    if path.is_file():
        return [read_results(path)]
    if (path / "results.json").is_file():
        return [read_results(path / "results.json")]
    results = load_results(path) if path.is_dir() else []
    if not results:
        raise BadInputError(
            f"{path}: no results.json there (give a figures directory, a notebook's directory "
            "or a results.json)"
        )
    return results


#: the fields of a claims row two runs are compared on when none are named
COMPARED_FIELDS = ("verdict",)


def claims_diff(
    ours: list[dict[str, Any]],
    other: list[dict[str, Any]],
    fields: tuple[str, ...] = COMPARED_FIELDS,
) -> pd.DataFrame:
    """Two runs' claims tables compared row by row (rows agree by notebook and claim text):
    one line per row whose ``fields`` differ (``field``, ``ours``, ``other``), and one per
    row or notebook found in one run only (``field`` "row" or "notebook", the missing side
    empty). Notebooks are compared where both runs have them; a row is compared on every
    field in ``fields`` (``CLAIM_KEYS``)."""
    unknown = [f for f in fields if f not in CLAIM_KEYS]
    if unknown:
        raise ValueError(f"unknown claims field(s) {unknown}; choose from {', '.join(CLAIM_KEYS)}")
    a = {r["notebook"]: r for r in ours}
    b = {r["notebook"]: r for r in other}
    out: list[dict[str, Any]] = []
    for nb in sorted(set(a) | set(b)):
        if nb not in a or nb not in b:
            out.append({"notebook": nb, "claim": "", "field": "notebook",
                        "ours": "present" if nb in a else "", "other": "present" if nb in b else ""})  # fmt: skip
            continue
        rows_a = {r["claim"]: r for r in a[nb]["claims"]}
        rows_b = {r["claim"]: r for r in b[nb]["claims"]}
        for claim in [*rows_a, *(c for c in rows_b if c not in rows_a)]:
            ra, rb = rows_a.get(claim), rows_b.get(claim)
            if ra is None or rb is None:
                out.append({"notebook": nb, "claim": claim, "field": "row",
                            "ours": "present" if ra is not None else "",
                            "other": "present" if rb is not None else ""})  # fmt: skip
                continue
            out += [
                {
                    "notebook": nb,
                    "claim": claim,
                    "field": f,
                    "ours": ra.get(f, ""),
                    "other": rb.get(f, ""),
                }  # fmt: skip
                for f in fields
                if ra.get(f, "") != rb.get(f, "")
            ]
    return pd.DataFrame(out, columns=["notebook", "claim", "field", "ours", "other"])


def format_diff(diff: pd.DataFrame, compared: int, fmt: str = "text") -> str:
    """:func:`claims_diff` for the terminal (``text``), as ``markdown`` or ``json``; the text
    form ends with a count line."""
    if fmt != "text":
        return format_table(diff, fmt)
    lines = [
        f"{r.notebook}: {r.claim or '(the notebook)'} [{r.field}] {r.ours or '-'} -> "
        f"{r.other or '-'}"
        for r in diff.itertuples()
    ]
    lines.append(f"{len(diff)} difference(s) over {compared} notebook(s) compared")
    return "\n".join(lines)


def paper_of(notebook: str) -> str:
    """The paper a notebook's claims belong to (its two-digit prefix)."""
    return PAPERS.get(notebook[:2], "other")


def paper_table(results: list[dict[str, Any]]) -> pd.DataFrame:
    """Per paper: how many of its claims got each verdict (kind "claim" only), then the rows
    beyond the paper (kind "beyond": our own extensions, never in the paper's tally) and the
    checks of our configuration, each counted apart."""
    rows = []
    for paper in dict.fromkeys(paper_of(r["notebook"]) for r in results):
        claims = [c for r in results if paper_of(r["notebook"]) == paper for c in r["claims"]]
        counts = verdict_counts(claims)
        beyond = verdict_counts(claims, kind="beyond")
        rows.append({"paper": paper, **{v: counts.get(v, 0) for v in VERDICTS},
                     "claims": sum(counts.values()),
                     "beyond": _count_text(beyond) if beyond else "-",
                     "checks": sum(verdict_counts(claims, kind="check").values())})  # fmt: skip
    return pd.DataFrame(rows, columns=["paper", *VERDICTS, "claims", "beyond", "checks"])


def format_table(frame: pd.DataFrame, fmt: str = "text") -> str:
    """A small table (e.g. :func:`paper_table`) as text, GitHub markdown or JSON."""
    if fmt == "json":
        return frame.to_json(orient="records", indent=2)
    if fmt == "markdown":
        cols = [str(c) for c in frame.columns]
        out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        out += [
            "| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |"
            for row in frame.itertuples(index=False)
        ]
        return "\n".join(out)
    if fmt == "text":
        return frame.to_string(index=False)
    raise ValueError(f"unknown format {fmt!r}; use text, markdown or json")


def verdict_counts(claims: list[dict[str, Any]], kind: str = "claim") -> Counter:
    """How many rows of ``kind`` got each verdict."""
    return Counter(c["verdict"] for c in claims if c.get("kind", "claim") == kind)


def _count_text(counts: Counter) -> str:
    total = sum(counts.values())
    others = ", ".join(f"{counts[v]} {v}" for v in VERDICTS[1:] if counts.get(v))
    return f"{counts.get('holds', 0)}/{total} hold" + (f" ({others})" if others else "")


def summary_lines(results: list[dict[str, Any]], runs: dict[str, dict[str, Any]]) -> list[str]:
    """One line per notebook: status, time, claims that hold / all claims."""
    lines = []
    width = max((len(r["notebook"]) for r in results), default=10)
    names = sorted({r["notebook"] for r in results} | set(runs))
    by_name = {r["notebook"]: r for r in results}
    for name in names:
        run = runs.get(name, {})
        status = run.get("status", "not run")
        seconds = f"{run['seconds']:7.1f} s" if "seconds" in run else "      - s"
        result = by_name.get(name)
        claims = _count_text(verdict_counts(result["claims"])) if result else "no results"
        beyond = verdict_counts(result["claims"], kind="beyond") if result else Counter()
        claims += f"; beyond the paper {_count_text(beyond)}" if beyond else ""
        profile = (result or {}).get("profile") or run.get("profile") or "-"
        lines.append(f"{name:<{width}}  {status:<7} {seconds}  {profile:<8} claims {claims}")
    return lines


def compact_rule(rule: str) -> str:
    """A multi-part rule with each distinct part once, in order: a part repeated for k
    series reads "... (k parts)" instead of k times."""
    parts = [p.strip() for p in str(rule).split(";") if p.strip()]
    seen: dict[str, int] = {}
    for p in parts:
        seen[p] = seen.get(p, 0) + 1
    return "; ".join(f"{p} ({k} parts)" if k > 1 else p for p, k in seen.items())


def _repeats_text(row: pd.Series) -> str:
    """How many repeated measurements the verdict rests on (blank for single values)."""
    try:
        n = int(row.get("repeats") or 0)
    except (TypeError, ValueError):
        return ""
    if n <= 0:
        return ""
    return f"{n} repeated measurements" + (" (timings)" if row.get("timing") is True else "")


def claims_text(frame: pd.DataFrame, width: int | None = None) -> str:
    """The claims as blocks that fit a terminal ``width`` (default: the terminal's, which
    honours ``COLUMNS``): one block per claim, left-aligned, every field labelled."""
    import shutil
    import textwrap

    width = max(40, width or shutil.get_terminal_size((100, 24)).columns)
    label_w = 15
    out: list[str] = []
    for notebook, rows in frame.groupby("notebook", sort=False):
        out += [f"== {notebook} " + "=" * max(0, width - len(str(notebook)) - 4), ""]
        for _, row in rows.iterrows():
            head = f"[{row['verdict']}] {row['claim']}"
            out += textwrap.wrap(head, width, subsequent_indent="  ")
            fields = [
                ("paper", row.get("paper", "")),
                ("paper value", row.get("paper_value", "")),
                ("ours", row.get("measured", "")),
                ("rule", compact_rule(row.get("rule", "") or "")),
                ("repeats", _repeats_text(row)),
                ("note", row.get("note", "")),
            ]
            for label, value in fields:
                text = " ".join(str(value or "").split())
                if not text or text == "nan":
                    continue
                first = f"  {label:<{label_w - 2}}"
                out += textwrap.wrap(
                    text,
                    width,
                    initial_indent=first,
                    subsequent_indent=" " * label_w,
                    break_long_words=True,
                    break_on_hyphens=False,
                )
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def format_claims(frame: pd.DataFrame, fmt: str = "text", width: int | None = None) -> str:
    """The claims as terminal blocks (``text``, wrapped to ``width``), GitHub markdown or
    JSON."""
    if fmt == "json":
        return frame.to_json(orient="records", indent=2)
    if fmt == "markdown":
        cols = ["notebook", "claim", "paper", "paper_value", "measured", "verdict", "rule", "note"]
        out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for _, row in frame.iterrows():
            cells = [
                str(compact_rule(row[c]) if c == "rule" else row[c])
                .replace("|", "\\|")
                .replace("\n", " ")
                for c in cols
            ]
            out.append("| " + " | ".join(cells) + " |")
        return "\n".join(out)
    if fmt == "text":
        return claims_text(frame, width)
    raise ValueError(f"unknown format {fmt!r}; use text, markdown or json")


def _figure_cards(result: dict[str, Any]) -> str:
    cards = []
    name = result["notebook"]
    for fig in result.get("figures", []):
        stem = html.escape(f"{name}/{fig['name']}")
        files = fig.get("files", [])
        thumb = (
            f"<img src='{stem}.png' alt='{html.escape(fig['name'])}' loading='lazy'>"
            if f"{fig['name']}.png" in files
            else f"<div class='nothumb'>{html.escape(fig['name'])}</div>"
        )
        caption = html.escape(fig.get("caption") or fig["name"])
        data = html.escape(fig.get("data", ""))
        cards.append(
            f"<figure><a href='{stem}.html'>{thumb}</a><figcaption><b>{caption}</b>"
            f"<br><span class='data'>{data}</span></figcaption></figure>"
        )
    return "<div class='cards'>" + "".join(cards) + "</div>"


def data_kinds(result: dict[str, Any]) -> str:
    """The dashboard's data cell: each distinct dataset a notebook's figures (every series
    of a figure, "; "-separated) and its other sections (``data``) draw on, by the part
    before a ":" or ";", once; a description that only extends an earlier one is dropped."""
    lines = [fig.get("data", "") for fig in result.get("figures", [])] + list(
        result.get("data", [])
    )
    kinds: list[str] = []
    for line in lines:
        for part in str(line).split(";"):
            kind = part.split(":")[0].strip()
            if not kind or any(kind.startswith(k) for k in kinds):
                continue
            kinds = [k for k in kinds if not k.startswith(kind)] + [kind]
    return "; ".join(kinds) or "-"


STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px}
table{border-collapse:collapse;margin:.5em 0 1em}
th,td{border:1px solid #ddd;padding:4px 6px;font-size:13px}
th{background:#f4f4f4}
.cards{display:flex;flex-wrap:wrap;gap:10px}
figure{margin:0;width:250px;border:1px solid #ddd;padding:4px;font-size:12px}
figure img{width:100%}
.nothumb{height:140px;background:#eee;display:flex;align-items:center;justify-content:center}
.data{color:#666}
h2{margin-top:1.6em;border-bottom:1px solid #ccc}
"""


def render_index(results: list[dict[str, Any]], runs: dict[str, dict[str, Any]]) -> str:
    """The reviewers' page as one self-contained HTML document."""
    summary_rows = []
    for r in results:
        run = runs.get(r["notebook"], {})
        counts = verdict_counts(r["claims"])
        checks = verdict_counts(r["claims"], kind="check")
        beyond = verdict_counts(r["claims"], kind="beyond")
        cells = [
            f"<a href='#{html.escape(r['notebook'])}'>{html.escape(r['notebook'])}</a>",
            html.escape(run.get("status", "-")),
            f"{run['seconds']:.0f} s" if "seconds" in run else "-",
            html.escape(str(r.get("profile", "-"))),
            html.escape(data_kinds(r)),
            html.escape(_count_text(counts)),
            html.escape(_count_text(beyond)) if beyond else "-",
            html.escape(_count_text(checks)) if checks else "-",
            html.escape(str(r.get("git_commit", "-"))),
            html.escape(str(r.get("generated_at", "-"))),
        ]
        summary_rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head = [
        "notebook",
        "status",
        "time",
        "profile",
        "data",
        "paper claims",
        "beyond the paper",
        "checks",
        "commit",
        "generated",
    ]
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>routelab: claims and "
        f"figures</title><style>{STYLE}</style></head><body>",
        "<h1>routelab: every notebook's claims and figures</h1>",
        f"<p>Written {datetime.now(UTC).isoformat(timespec='seconds')} from "
        "<code>figures/*/results.json</code>. Verdicts: holds (at the paper's size, within "
        "the declared tolerance), direction only, partly, fails, inconclusive (repeated "
        "measurements cannot decide), not comparable; the rule column says how each was "
        "computed. A paper's tally counts its claims only: rows about our own extensions "
        "(kind <i>beyond</i>) and checks of our configuration are counted apart. Click a "
        "figure for its interactive HTML.</p>",
        "<table><thead><tr>"
        + "".join(f"<th>{h}</th>" for h in head)
        + "</tr></thead><tbody>"
        + "".join(summary_rows)
        + "</tbody></table>",
        "<h2>Per paper</h2>",
        paper_table(results).to_html(index=False, border=0),
    ]
    for r in results:
        name = html.escape(r["notebook"])
        parts.append(f"<h2 id='{name}'>{name}</h2>")
        parts.append(claims_html(pd.DataFrame(r["claims"], columns=list(CLAIM_KEYS))))
        parts.append(_figure_cards(r))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_index(root: Path | None = None, runs_root: Path | None = None) -> Path:
    """Write ``figures/index.html`` from every notebook's results; return its path."""
    root = root or figures_dir()
    root.mkdir(parents=True, exist_ok=True)
    path = root / INDEX_NAME
    path.write_text(render_index(load_results(root), last_runs(runs_root)))
    return path
