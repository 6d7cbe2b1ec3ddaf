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
  reaches it flipped). A screen that moves no verdict says no row is decided by that
  combination; it does not prove each reading alone harmless, since readings interact
  (in notebooks 05 and 06, single flips moved rows their screen left alone). A row is
  attributed to a reading only by a run with that reading alone flipped, or to a group for
  rows only the group moves; :mod:`routelab.reading_screen` bisects a screen down to them.
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
from collections.abc import Collection, Sequence
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
    "load_run",
    "moved_rows",
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
    whose claims it reaches in the default profile. ``graded_only``: the reading changes a
    claim's rule and nothing a run measures (it is picked only inside a notebook's claims
    module, a test checks), so its verdicts are exact from a default run's saved
    measurements, regraded under it (:data:`routelab.reading_screen.REGRADERS`), with no
    second run of the notebook and none of a second run's noise."""

    title: str
    parameter: str
    alternative: str
    notebooks: tuple[str, ...]
    graded_only: bool = False


_FISH_AND_13 = ("08_fish", "13_five_routers")
_PS2STREAM = ("11_ps2stream_partitioning", "12_ps2stream_adjustment", "13_five_routers")

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
    "alg2": Flip(
        title="Imbalance, Eq. 4 and Alg. 2 (Sects. 3.1, 4.2).",
        parameter='routelab.s3tm.lasp.LASP(imbalance="alg2")',
        alternative="LASP's imbalance as Alg. 2 prints it, b = sqrt(var(L) / avg(L))",
        notebooks=("04_matching", "06_shedding", "13_five_routers"),
    ),
    "intercept": Flip(
        title="LASP's delta load l, Alg. 2 (Sect. 4.2).",
        parameter='routelab.s3tm.lasp.CostFunction(reading="literal")',
        alternative="LASP's delta load as Alg. 2 prints it, f(|S \\ H(i)|) with the intercept",
        notebooks=("04_matching", "06_shedding", "13_five_routers"),
    ),
    "eq8": Flip(
        title="Segment ratio, Eqs. 8-9 (Sect. 5.2.2).",
        parameter='routelab.s3tm.shedding_controller.buffer_segments(reading="literal")',
        alternative="the literal Eq. 8, r > max rho - 1 (r = that bound / margin)",
        notebooks=("06_shedding",),
    ),
    "stoplist": Flip(
        title="Stop-word list (Sect. 6.1).",
        parameter='routelab.corpus.text.load_stopwords(stop_list="spark")',
        alternative="Spark's English stop-word list (plus tweet tokens) alone",
        notebooks=(
            "01_corpus",
            "02_subscriptions",
            "03_routing",
            "04_matching",
            "05_drift",
            "06_shedding",
            "07_pkg",
            "08_fish",
            "11_ps2stream_partitioning",
            "12_ps2stream_adjustment",
            "13_five_routers",
        ),
    ),
    "stemmer": Flip(
        title="Stemmer (Sect. 6.1).",
        parameter='routelab.corpus.text.clean_words(stem_mode="nltk")',
        alternative="NLTK's extended Porter stemmer (mode NLTK_EXTENSIONS)",
        notebooks=(
            "01_corpus",
            "02_subscriptions",
            "03_routing",
            "04_matching",
            "05_drift",
            "06_shedding",
            "11_ps2stream_partitioning",
            "12_ps2stream_adjustment",
            "13_five_routers",
        ),
    ),
    "topicweight": Flip(
        title="LDA and topic choice (Sect. 6.1).",
        parameter='routelab.corpus.subscriptions.topic_subscriptions(topic_choice="weight")',
        alternative="each topic-based subscription picks its topic in proportion to its weight",
        notebooks=(
            "02_subscriptions",
            "03_routing",
            "04_matching",
            "05_drift",
            "06_shedding",
            "13_five_routers",
        ),
    ),
    "tweetrepeat": Flip(
        title="Tweet-based subscriptions beyond the corpus (Sect. 6.3).",
        parameter='routelab.s3tm.lab.matching.scaling.real_scaling_data(tweet_beyond="repeat")',
        alternative="tweet-based subscriptions beyond the corpus register the real posts again",
        notebooks=("04_matching",),
    ),
    "fig8a": Flip(
        title="Fig. 8a's subscriptions (Sect. 6.5).",
        parameter='routelab.s3tm.lab.shedding.experiments.build_workload(workload="all_words")',
        alternative="Fig. 8a's subscriptions drawn from all posts, held-out ones included",
        notebooks=("06_shedding",),
    ),
    "drift": Flip(
        title='Concept drift\'s "weeks" and learning set (Sect. 6.4).',
        parameter="routelab.s3tm.lab.drift.experiments.run_drift(learn_on=...)",
        alternative="the week-0 mapping graded as learned on window 0's subscribed words only",
        notebooks=("05_drift",),
    ),
    # --- PKG and FISH (notebooks 07-08) ----------------------------------------------------
    "probe": Flip(
        title="Probing, LP (Sect. V-B).",
        parameter='routelab.grouping.schemes_reference.pkg_probe_reference(probe_reset="share")',
        alternative="a probe resets each source's estimate to true load / S, its share",
        notebooks=("07_pkg",),
    ),
    "lognormal": Flip(
        title="Log-normal streams LN1/LN2 (Sect. V-A, Table I).",
        parameter='routelab.datasets.synthetic.lognormal_spec(model="frequencies")',
        alternative="LN1/LN2 as log-normal weights over a fixed key set (16k / 1.1k keys)",
        notebooks=("07_pkg",),
    ),
    "epoch": Flip(
        title="Epoch size (Sect. 4.1.1).",
        parameter="routelab.grouping.fish_params.FishParams(epoch_size=1000)",
        alternative="E = 200 tuples per source (1000 tuples of the stream over five sources)",
        notebooks=_FISH_AND_13,
    ),
    "topk": Flip(
        title="Top-K capacity (Sects. 2.3, 4.1.1).",
        parameter="routelab.grouping.fish_params.FishParams(capacity=1000)",
        alternative="top-K capacity K = 100",
        notebooks=_FISH_AND_13,
    ),
    "decay": Flip(
        title="Decay factor (Sects. 4.1.1, 6.3).",
        parameter='routelab.grouping.fish_params.FishParams(counting="lifetime")',
        alternative="lifetime counting (no decay, alpha = 1), also as the study's choice",
        notebooks=_FISH_AND_13,
    ),
    "hotkey": Flip(
        title="Hot threshold (Sect. 6.3).",
        parameter="routelab.grouping.fish_params.FishParams(hot_threshold=0.5)",
        alternative="theta = 1/(5n) (theta n = 0.2, D-C's), also as the study's choice",
        notebooks=_FISH_AND_13,
    ),
    "dmin": Flip(
        title="Minimum workers d_min (Sect. 4.1.2).",
        parameter="routelab.grouping.fish_params.FishParams(min_workers=2)",
        alternative="d_min from the hot keys' load share alone (min_workers = 1)",
        notebooks=_FISH_AND_13,
    ),
    "dk": Flip(
        title="Workers per hot key, Alg. 2 lines 1-4 (Sect. 4.1.2).",
        parameter='routelab.grouping.fish_params.FishParams(workers_formula="share")',
        alternative="d_k = ceil(n f_k), also as the study's choice",
        notebooks=_FISH_AND_13,
    ),
    "cold": Flip(
        title="Non-hot keys (Sects. 2.2, 4.2).",
        parameter="routelab.grouping.fish_params.FishParams(cold_choices=2)",
        alternative="a non-hot key goes to one worker, its first on the ring (key grouping)",
        notebooks=_FISH_AND_13,
    ),
    "ring": Flip(
        title="Placement on the ring (Sect. 5).",
        parameter='routelab.grouping.fish_params.FishParams(placement="mod")',
        alternative='modulo placement, Fig. 17\'s "without CH"',
        notebooks=_FISH_AND_13,
    ),
    "unprocessed": Flip(
        title="Unprocessed tuples (Sect. 4.2.1).",
        parameter="routelab.grouping.fish_params.FishParams(interval=0)",
        alternative="an exact queue estimate (refresh at every tuple, interval = 0)",
        notebooks=_FISH_AND_13,
    ),
    "waittime": Flip(
        title="Waiting time and ties (Sects. 4.2.2-4.2.3).",
        parameter='routelab.grouping.fish_params.FishParams(assignment="load_count")',
        alternative="the load-count assignment of earlier work (fewest tuples sent)",
        notebooks=_FISH_AND_13,
    ),
    "zfshift": Flip(
        title="Time-evolving Zipf, ZF (Sect. 6.1).",
        parameter="routelab.datasets.synthetic.TimeEvolvingZipfSpec(offset=None)",
        alternative="ZF's ranks shifted cyclically by half the keys (offset = n_keys // 2)",
        notebooks=("08_fish", "07_pkg"),
    ),
    "dchoices": Flip(
        title="D-Choices / W-Choices baselines (Sect. 2.2; Nasir et al. ICDE'16).",
        parameter="routelab.grouping.schemes_reference.dchoices_reference(distinct=False)",
        alternative="D-C's d choices as d hash functions that may collide (public simulator)",
        notebooks=_FISH_AND_13,
    ),
    # --- PS2Stream, partitioning (notebooks 11-13) -----------------------------------------
    "units": Flip(
        title="Unit costs (Sect. IV-A).",
        parameter="routelab.spatial.cost.CostParams(c_m=1.0)",
        alternative="unit costs measured on the GI2 kernel (calibrate_costs; notebook 11's "
        'cost_units="calibrated")',
        notebooks=("11_ps2stream_partitioning",),
    ),
    "basegrid": Flip(
        title="Grid granularities (Sects. IV-C, IV-D).",
        parameter="routelab.spatial.grid.BaseGrid(g=256)",
        alternative="256 base-grid cells a side in both countries (Great Britain's too)",
        notebooks=("11_ps2stream_partitioning",),
    ),
    "gridt": Flip(
        title="gridt's two maps (Sect. IV-C).",
        parameter="routelab.spatial.engine.run_pipeline(use_filter=False)",
        alternative="objects routed with H_o (no H_q filter, none discarded)",
        notebooks=_PS2STREAM,
    ),
    "simkeys": Flip(
        title="Text similarity (Sect. IV-B).",
        parameter='routelab.spatial.hybrid.HybridParams(query_terms="registering")',
        alternative="the cosine over the queries' registering keys only",
        notebooks=_PS2STREAM,
    ),
    "debiased": Flip(
        title="Text similarity (Sect. IV-B).",
        parameter='routelab.spatial.hybrid.HybridParams(similarity="debiased")',
        alternative="the debiased cosine (each squared norm minus the counts' sum)",
        notebooks=_PS2STREAM,
    ),
    "gridgb": Flip(
        title="Grid and R-tree baselines (Sect. VI-B).",
        parameter="routelab.spatial.engine.build_partition(grid_gb=32)",
        alternative="the grid baseline at a fixed 32 cells a side (no choice on the model)",
        notebooks=("11_ps2stream_partitioning",),
    ),
    "purge": Flip(
        title="Never-scanned GI2 lists.",
        parameter="routelab.spatial.gi2.make_index(purge_fraction=0.1)",
        alternative="no sweep (purge_fraction infinite): the paper's lazy deletion alone",
        notebooks=_PS2STREAM,
    ),
    "posting": Flip(
        title="Updates per query or per posting (Sect. IV-A, Definition 1).",
        parameter='routelab.spatial.cost.CostParams(update_unit="query")',
        alternative="updates charged per GI2 posting, c_ins = c_del = 1 per posting",
        notebooks=_PS2STREAM,
    ),
    # --- PS2Stream, workload, claims and adjustment (notebooks 11-13) ----------------------
    "ratio": Flip(
        title="Workload shape (Sect. VI-A).",
        parameter="routelab.spatial.lab.workload.WorkloadParams(obj_update_ratio=5.0)",
        alternative="objects : INS = objects : DEL = 5 (10 : 2 : 2, objects : updates 2.5)",
        notebooks=("11_ps2stream_partitioning", "12_ps2stream_adjustment"),
    ),
    "q2rare": Flip(
        title="Q2 and Q3 queries (Sect. VI-A).",
        parameter='routelab.spatial.lab.workload.WorkloadParams(q2_rare="all")',
        alternative="only one Q2 keyword outside the top 1 %, the others drawn as Q1's",
        notebooks=("11_ps2stream_partitioning", "12_ps2stream_adjustment"),
    ),
    "speed": Flip(
        title='"Moderate input speed" for latency (Sect. VI-A).',
        parameter="latency_load=0.6",
        alternative="latency at 0.5 x the hybrid's measured capacity",
        notebooks=("11_ps2stream_partitioning",),
    ),
    "fig11": Flip(
        title="Fig. 11's panels (Sect. VI-C).",
        parameter="routelab.spatial.lab.partitioning.claims.fig11_worst_rows(panels=...)",
        alternative="Fig. 11(b) is UK-Q3 and (c) UK-Q2",
        notebooks=("11_ps2stream_partitioning",),
        graded_only=True,
    ),
    "similar": Flip(
        title="\"Metric's latency is similar to hybrid's, with the exception of UK-Q1, 407 ms\" "
        "(Sect. VI-C).",
        parameter="routelab.spatial.lab.partitioning.claims.c9_metric_latency(tol=1.25)",
        alternative="similar within 1.5x (the exception above 1.5x)",
        notebooks=("11_ps2stream_partitioning",),
        graded_only=True,
    ),
    "phase1": Flip(
        title="Phase I of the local adjustment (Sect. V-A).",
        parameter="routelab.spatial.adjustment.AdjustParams(k_hot=5)",
        alternative="no Phase I (k_hot = 0): Phase II alone",
        notebooks=("12_ps2stream_adjustment",),
    ),
    "gamma": Flip(
        title="Global adjustment (Sect. V-B).",
        parameter="routelab.spatial.global_adjust.GlobalParams(gamma=0.1)",
        alternative="re-partition on any improvement of the sample's load (gamma = 0)",
        notebooks=("12_ps2stream_adjustment",),
    ),
    "cpaper": Flip(
        title="The platform's cost per message (Sect. VI-A, Fig. 6).",
        parameter="routelab.spatial.lab.partitioning.claims.all_rows(c_paper=29.9)",
        alternative="50 µs per message (8 / 160,659 s = 49.8 µs, the regime map's 50)",
        notebooks=("11_ps2stream_partitioning", "12_ps2stream_adjustment"),
    ),
    # --- Fabret et al., across the papers, measurement --------------------------------------
    "smoothing": Flip(
        title='nu and mu, "an independent tool" (Sect. 3.1).',
        parameter="routelab.filtering.costmodel.EventStats.from_events(alpha=1.0)",
        alternative="unsmoothed value frequencies (alpha = 0: an unseen value has nu 0)",
        notebooks=("09_fabret_matching", "10_fabret_adaptivity", "13_five_routers"),
    ),
    "greedy": Flip(
        title="Greedy at 6M subscriptions (Sect. 3.2.3).",
        parameter="routelab.filtering.static.greedy_configuration(sample=200_000)",
        alternative="the greedy's benefits computed on every subscription, not a sample",
        notebooks=("09_fabret_matching", "10_fabret_adaptivity"),
    ),
    "interests": Flip(
        title="One stream, one set of interests.",
        parameter="routelab.compare.interests.make_interests(side_km=400, hour_span=8)",
        alternative="PS2Stream's interest a 50 km square (the largest of its paper's Q1 queries)",
        notebooks=("13_five_routers",),
    ),
    "weeks": Flip(
        title='"Week by week".',
        parameter="routelab.compare.stream.common_stream(windows=12)",
        alternative="440 equal windows, one per calendar week of the tweets (a week's posts each)",
        notebooks=("13_five_routers",),
    ),
    "clock": Flip(
        title="The clock of a timed region.",
        parameter='routelab.timing.use_clock(name="wall")',
        alternative="the wall clock everywhere",
        notebooks=(
            "09_fabret_matching",
            "10_fabret_adaptivity",
            "11_ps2stream_partitioning",
            "12_ps2stream_adjustment",
        ),
    ),
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
    #: the rows are an interaction: the readings moved them together, no half of them alone
    #: (a bisected screen, :mod:`routelab.reading_screen`)
    together: bool = False
    #: ``differs`` keeps only the rows no run of fewer of these readings moved
    #: (``record(only=...)``), not every row that differs
    filtered: bool = False
    #: rows that differ but also differ between the default run and a control default run
    #: (``record(controls=...)``): the machine's noise moves them, so no reading is named
    noisy: list[str] = field(default_factory=list)
    #: how many flipped runs agree on every row of ``differs``: 2 when a second run under the
    #: same readings (``record(confirm=...)``) moved each row to the same verdict
    runs: int = 1
    #: rows the flipped run moved that the second run under the same readings did not (or
    #: moved elsewhere): one run's noise, left out of ``differs``
    unconfirmed: list[str] = field(default_factory=list)
    #: the flipped verdicts are the default run's own saved measurements regraded under the
    #: readings (a :attr:`Flip.graded_only` reading): exact, no second run of the notebook
    regraded: bool = False


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


def load_run(path: Path) -> dict[str, Any]:
    """One run's ``results.json`` (or the directory holding one notebook's), as written;
    a missing file, several under a directory or a file that is not JSON is an error
    naming the path."""
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


def moved_rows(base: dict[str, str], other: dict[str, str]) -> dict[str, tuple[str, str]]:
    """The rows (claim -> verdict) both runs have whose verdicts differ: claim -> (base's,
    other's), in ``base``'s order."""
    return {c: (v, other[c]) for c, v in base.items() if c in other and other[c] != v}


def run_verdicts(run: dict[str, Any]) -> dict[str, str]:
    """claim -> verdict of one loaded run (:func:`load_run`), in its table's order."""
    return {c["claim"]: c["verdict"] for c in run.get("claims", [])}


def noisy_rows(base: Path, controls: Sequence[Path]) -> dict[str, list[str]]:
    """The rows whose verdict a run's noise decides: claim -> [base's verdict, then each
    control's that differs], for every claim whose verdict differs between the default run
    ``base`` and any of the default runs ``controls`` of the same code's notebook and profile
    (same notebook, profile, none flipped; each a ``results.json`` or a directory holding
    one). A flipped run cannot tell such a row's move from the machine's load, so
    :func:`record` and :func:`routelab.reading_screen.screen` leave it out."""
    a = load_run(Path(base))
    ours = run_verdicts(a)
    noisy: dict[str, list[str]] = {}
    for control in controls:
        b = load_run(Path(control))
        if (b.get("notebook"), b.get("profile")) != (a.get("notebook"), a.get("profile")):
            raise BadInputError(
                f"{control}: a run of {b.get('notebook')} ({b.get('profile')}), not of "
                f"{a.get('notebook')} ({a.get('profile')}) like {base}"
            )
        if b.get("reading"):
            raise BadInputError(
                f"{control}: a run under the flipped reading {b['reading']!r}, not a default run"
            )
        other = run_verdicts(b)
        for claim, (v, w) in moved_rows(ours, other).items():
            noisy.setdefault(claim, [v]).append(w)
    return noisy


def record(
    base: Path,
    flip: Path,
    ledger: Path | None = None,
    only: Collection[str] | None = None,
    together: bool = False,
    controls: Sequence[Path] = (),
    confirm: Path | None = None,
) -> Entry:
    """Compare a default run (``base``) and a run under a flipped reading (``flip``) of one
    notebook, each a ``results.json`` or a figures directory holding one, and store the
    entry in the ledger (replacing the entry of the same reading, notebook and profile).
    Both runs must be of one notebook and profile, ``base`` unflipped, ``flip`` flipped.
    ``only``: keep only these claims among those that differ; ``together``: they are an
    interaction (a bisected screen's group keeps the rows neither half of its readings
    moves, :mod:`routelab.reading_screen`); ``controls``: more default runs, whose
    differences from ``base`` (:func:`noisy_rows`) are left out of ``differs`` and listed
    in the entry's ``noisy`` instead; ``confirm``: a second run under the same readings
    (same notebook and profile): only the rows it moves to the same verdict are kept, the
    rest listed in the entry's ``unconfirmed``. A run regraded from the default run's saved
    measurements (its ``results.json`` names them under ``regraded_from``) is exact and
    needs no second run."""
    a, b = load_run(Path(base)), load_run(Path(flip))
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
    ours, other = run_verdicts(a), run_verdicts(b)
    common = [c for c in ours if c in other]
    noisy = noisy_rows(Path(base), controls)
    moved = {c: v for c, v in moved_rows(ours, other).items()
             if (only is None or c in only) and c not in noisy}  # fmt: skip
    unconfirmed: list[str] = []
    if confirm is not None:
        again = load_run(Path(confirm))
        if (again.get("notebook"), again.get("profile"), again.get("reading")) != (
            b.get("notebook"),
            b.get("profile"),
            key,
        ):
            raise BadInputError(
                f"{confirm}: not a second run of {b.get('notebook')} ({b.get('profile')}) "
                f"under {key!r} like {flip}"
            )
        twice = moved_rows(ours, run_verdicts(again))
        unconfirmed = [c for c, v in moved.items() if twice.get(c) != v]
        moved = {c: v for c, v in moved.items() if c not in unconfirmed}
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
            {"claim": c, "default": a_v, "alternative": b_v} for c, (a_v, b_v) in moved.items()
        ],  # fmt: skip
        together=together,
        filtered=only is not None,
        noisy=sorted(c for c in noisy if c in common and ours[c] != other[c]),
        runs=2 if confirm is not None else 1,
        unconfirmed=unconfirmed,
        regraded=bool(b.get("regraded_from")),
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


def rests_on_one_run(entry: dict[str, Any]) -> bool:
    """A ledger entry whose moved rows rest on a single flipped run: rows moved, not
    regraded from saved measurements, fewer than two flipped runs (a second run should
    confirm it)."""
    return bool(entry["differs"]) and not entry.get("regraded") and entry.get("runs", 1) < 2


def _how_flipped(entry: dict[str, Any]) -> str:
    """How a ledger entry's flipped verdicts were found, for a row's note."""
    if entry.get("regraded"):
        return "regraded from that run's saved measurements"
    runs = int(entry.get("runs", 1))
    again = f", {runs} flipped runs agree" if runs > 1 else ", one flipped run"
    return f"flipped at {entry['flipped_commit'][:7]}{again}"


def annotate(
    notebook: str, profile: str, rows: list[dict[str, Any]], ledger: Path | None = None
) -> list[dict[str, Any]]:
    """``rows`` (claim dicts with ``claim``, ``verdict`` and ``note``) with a note naming the
    reading wherever the ledger found it deciding the row in this notebook and profile and
    the row's verdict is still the one the ledger's default run read (several readings
    recorded together are named as such: deciding together where a bisected screen found
    no half of them moving the row, moving it together otherwise). A run under a flipped
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
            title = e["title"].rstrip(".")
            if "," not in e["key"]:
                named = f"the reading '{title}' decides this row"
            elif e.get("together"):
                named = f"the readings '{title}' decide this row together (no half of them alone)"
            else:
                named = f"flipping the readings '{title}' together moves this row"
            if named in note:  # annotated already (a table finished twice)
                continue
            row = {**row, "note": (note + "; " if note else "") + (
                f"{named}: under the alternative ({what}) it read {d['alternative']} "
                f"(default run at {e['commit'][:7]}, {_how_flipped(e)})")}  # fmt: skip
        out.append(row)
    return out
