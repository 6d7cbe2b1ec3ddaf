"""Readings flipped for a whole run, and the verdicts they were found to decide.

``READINGS.md`` lists how routelab reads what the papers leave open; each reading's switch
is a parameter, pinned by a test. Whether a reading *decides a claim* of the default profile
is known only by running the notebook under the other reading and comparing the verdicts.
This module makes that run possible without editing code and keeps what it found:

- :data:`FLIPS`: the readings that can be flipped for a whole run, each with its READINGS.md
  title, the alternative in words and the notebooks whose claims it reaches. Setting the
  environment variable :data:`FLIP_ENV` to a key (``ROUTELAB_READING=dmove routelab figures
  --only 10``) makes the reading's parameter default to the alternative in that process and
  in its Spark tasks (:func:`routelab.spark.get_spark` hands it on); the run's
  ``results.json`` records it under ``"reading"``. Several keys separated by commas flip
  several readings in one run: a screen (one run per notebook with every reading that
  reaches it flipped; where no verdict moves, none of them decides a row alone or together,
  and where one moves, halving the set finds the reading).
- :func:`record`: compares a default run and a flipped run of one notebook (two
  ``results.json`` of one profile) and stores, in the ledger :data:`LEDGER`, every claim whose
  verdict differs. ``routelab readings record`` does it from the command line.
- :func:`annotate`: the rows of a default run get, where the ledger says a reading decides
  them, a note naming the reading and the verdict under the other (as
  :func:`routelab.claims.name_deciding_reading` does the same for readings a notebook grades
  both ways within one run).

A flipped run is one run beside one default run: a verdict that differs is the reading's
effect only where two default runs of that commit agree on the row, so record against a run
whose pair agreed (the ledger keeps both runs' commits and clocks).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from routelab.errors import BadInputError

__all__ = [
    "FLIPS",
    "FLIP_ENV",
    "LEDGER",
    "Flip",
    "annotate",
    "flipped",
    "flipped_keys",
    "is_flipped",
    "load_ledger",
    "pick",
    "record",
]

#: the environment variable naming the reading flipped for a run (a key of :data:`FLIPS`)
FLIP_ENV = "ROUTELAB_READING"

#: the verdicts found under flipped readings, committed with the code
LEDGER = Path(__file__).resolve().parent / "conf" / "reading_verdicts.json"


@dataclass(frozen=True)
class Flip:
    """A reading that can be flipped for a whole run: its READINGS.md ``title``, the
    ``parameter`` whose default it flips, the ``alternative`` in words and the ``notebooks``
    whose claims it reaches in the default profile."""

    title: str
    parameter: str
    alternative: str
    notebooks: tuple[str, ...]


#: the readings a run can flip (:data:`FLIP_ENV`), by key
FLIPS: dict[str, Flip] = {
    "dmove": Flip(
        title='Dynamic clustering\'s Dmove (Sect. 4, "Algorithm Metrics").',
        parameter="routelab.filtering.dynamic.Thresholds(dmove_strict=False)",
        alternative="Dmove's printed non-strict test, nu(p_s^H) <= nu(p_c)",
        notebooks=("10_fabret_adaptivity", "09_fabret_matching"),
    ),
    "checking": Flip(
        title="checking(p, s), cost model (Sect. 3.1).",
        parameter='routelab.filtering.costmodel.CostConstants(checking="rows")',
        alternative="checking(p, s) = K_c per remaining predicate",
        notebooks=("09_fabret_matching", "10_fabret_adaptivity"),
    ),
    "load": Flip(
        title="Worker load, Definition 1 (Sect. IV-A).",
        parameter='routelab.spatial.cost.CostParams(model="pairs_unit")',
        alternative="M counted per unit, Definition 3's |O_g| x |Q_g|",
        notebooks=("12_ps2stream_adjustment", "11_ps2stream_partitioning", "13_five_routers"),
    ),
    "merge": Flip(
        title="MERGE's acceptance (Sect. IV-B).",
        parameter='routelab.spatial.hybrid.HybridParams(merge_rule="sigma_avg")',
        alternative="MERGE accepts while max <= sigma x average",
        notebooks=("12_ps2stream_adjustment", "11_ps2stream_partitioning", "13_five_routers"),
    ),
    # --- S3-TM (notebooks 01-06) -----------------------------------------------------------
    # --- PKG and FISH (notebooks 07-08) ----------------------------------------------------
    # --- PS2Stream, partitioning (notebooks 11-13) -----------------------------------------
    # --- PS2Stream, workload, claims and adjustment (notebooks 11-13) ----------------------
    # --- Fabret et al., across the papers, measurement --------------------------------------
}


def flipped_keys() -> tuple[str, ...]:
    """The keys of the readings flipped for this process (:data:`FLIP_ENV`, one key or
    several separated by commas: flipping several at once screens a notebook for every
    reading that reaches it in one run), sorted; empty if none. An unknown key is an error
    naming the keys there are."""
    raw = os.environ.get(FLIP_ENV, "")
    keys = sorted({k.strip() for k in raw.split(",") if k.strip()})
    unknown = [k for k in keys if k not in FLIPS]
    if unknown:
        raise BadInputError(
            f"{FLIP_ENV}={raw.strip()!r}: {', '.join(map(repr, unknown))} names no reading that "
            f"can be flipped; choose among {', '.join(sorted(FLIPS))} (see `routelab readings "
            "list`)"
        )
    return tuple(keys)


def flipped() -> str | None:
    """The reading (or comma-separated readings) flipped for this process, as a run records
    it; None if none (:func:`flipped_keys`)."""
    return ",".join(flipped_keys()) or None


def is_flipped(key: str) -> bool:
    """Whether the reading ``key`` of :data:`FLIPS` is flipped for this process."""
    if key not in FLIPS:
        raise KeyError(f"no flippable reading {key!r}; known: {', '.join(sorted(FLIPS))}")
    return key in flipped_keys()


def pick(key: str, ours: Any, alternative: Any) -> Any:
    """A parameter's default: ``ours`` (the documented reading), or ``alternative`` when the
    reading ``key`` is flipped for this run."""
    return alternative if is_flipped(key) else ours


# --------------------------------------------------------------------------- the ledger


@dataclass
class Entry:
    """What one flipped run found: the reading (``key``), the notebook and profile, the
    commits and clocks of the two runs, how many claim rows were compared and those whose
    verdict differs (``claim``, ``default``, ``alternative``)."""

    key: str
    title: str
    notebook: str
    profile: str
    commit: str
    flipped_commit: str
    clock: str
    compared: int
    differs: list[dict[str, str]] = field(default_factory=list)


def load_ledger(path: Path | None = None) -> list[dict[str, Any]]:
    """The ledger's entries (an empty list without a ledger)."""
    path = path or LEDGER
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path}: line {exc.lineno}: not JSON ({exc.msg})") from exc
    return list(data.get("entries", []))


def _results(path: Path) -> dict[str, Any]:
    if path.is_dir():
        found = sorted(path.glob("*/results.json")) or sorted(path.glob("results.json"))
        if len(found) != 1:
            raise BadInputError(f"{path}: expected one results.json under it, found {len(found)}")
        path = found[0]
    if not path.exists():
        raise BadInputError(f"{path}: no such results.json")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise BadInputError(f"{path}: line {exc.lineno}: not JSON ({exc.msg})") from exc


def record(base: Path, flip: Path, ledger: Path | None = None) -> Entry:
    """Compare a default run (``base``) and a run under a flipped reading (``flip``) of one
    notebook, each a ``results.json`` or a figures directory holding one, and store the
    entry in the ledger (replacing the entry of the same reading, notebook and profile).
    Both runs must be of one notebook and profile, ``base`` unflipped, ``flip`` flipped."""
    a, b = _results(Path(base)), _results(Path(flip))
    if a.get("notebook") != b.get("notebook"):
        raise BadInputError(
            f"{base} is notebook {a.get('notebook')}, {flip} is {b.get('notebook')}"
        )
    if a.get("profile") != b.get("profile"):
        raise BadInputError(f"{base} ran profile {a.get('profile')}, {flip} {b.get('profile')}")
    if a.get("reading"):
        raise BadInputError(
            f"{base}: a run under the flipped reading {a['reading']!r}, not a default run"
        )
    key = b.get("reading")
    if not key:
        raise BadInputError(f"{flip}: no reading flipped in this run (set {FLIP_ENV})")
    keys = str(key).split(",")
    if any(k not in FLIPS for k in keys):
        raise BadInputError(f"{flip}: flipped reading {key!r} is not among {sorted(FLIPS)}")
    ours = {c["claim"]: c["verdict"] for c in a.get("claims", [])}
    other = {c["claim"]: c["verdict"] for c in b.get("claims", [])}
    common = [c for c in ours if c in other]
    entry = Entry(
        key=key,
        title=" + ".join(FLIPS[k].title.rstrip(".") for k in keys) + ".",
        notebook=a["notebook"],
        profile=a["profile"],
        commit=str(a.get("git_commit", ""))[:12],
        flipped_commit=str(b.get("git_commit", ""))[:12],
        clock=f"{a.get('clock', '?')}/{b.get('clock', '?')}",
        compared=len(common),
        differs=[
            {"claim": c, "default": ours[c], "alternative": other[c]}
            for c in common
            if ours[c] != other[c]
        ],  # fmt: skip
    )
    path = ledger or LEDGER
    entries = [
        e for e in load_ledger(path)
        if (e["key"], e["notebook"], e["profile"]) != (key, entry.notebook, entry.profile)
    ]  # fmt: skip
    entries.append(asdict(entry))
    entries.sort(key=lambda e: (e["notebook"], e["key"], e["profile"]))
    path.write_text(json.dumps({"entries": entries}, indent=2) + "\n")
    return entry


def annotate(
    notebook: str, profile: str, rows: list[dict[str, Any]], ledger: Path | None = None
) -> list[dict[str, Any]]:
    """``rows`` (claim dicts with ``claim``, ``verdict`` and ``note``) with a note naming the
    reading wherever the ledger found it deciding the row in this notebook and profile and
    the row's verdict is still the one the ledger's default run read. A run under a flipped
    reading is not annotated."""
    if flipped():
        return rows
    found: dict[str, list[tuple[dict[str, Any], dict[str, str]]]] = {}
    for e in load_ledger(ledger):
        if e["notebook"] == notebook and e["profile"] == profile:
            for d in e["differs"]:
                found.setdefault(d["claim"], []).append((e, d))
    out = []
    for row in rows:
        for e, d in found.get(row["claim"], []):
            if d["default"] != row["verdict"]:
                continue
            what = "; ".join(FLIPS[k].alternative if k in FLIPS else k for k in e["key"].split(","))
            note = row.get("note", "") or ""
            named = f"the reading '{e['title'].rstrip('.')}' decides this row"
            if named in note:  # annotated already (a table finished twice)
                continue
            row = {**row, "note": (note + "; " if note else "") + (
                f"{named}: under the alternative ({what}) it read {d['alternative']} "
                f"(default run at {e['commit'][:7]}, flipped at {e['flipped_commit'][:7]})")}  # fmt: skip
        out.append(row)
    return out
