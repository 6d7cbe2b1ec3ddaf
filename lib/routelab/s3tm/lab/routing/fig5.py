"""Notebook 03's Fig. 5 runs over several datasets (S3-TM Sect. 6.2).

The paper runs Fig. 5 on two datasets and shows "the geometric mean of the relative
throughputs from both datasets" (Sect. 6.2). Our real tweets are two sources (health-news
tweets and one account), so :func:`run_fig5` runs the grid of
:func:`routelab.s3tm.lab.routing.experiments.run_cv`

- on the **main** datasets (the union of the sources, plus a synthetic one on request), all
  folds: their rows feed the claims and the throughput / spread / imbalance panels;
- on each **per-source** dataset, possibly with fewer folds: the relative-throughput panels
  show the geometric mean over them (:func:`routelab.s3tm.lab.routing.summary.geomean_of_means`,
  fold counts may differ, so folds are not paired);
- with hash under the other hot-word splitting setting on all of them (which
  hash baseline the paper used is ambiguous).

:class:`Fig5Run` holds the rows and builds the summaries for the claims and the figures.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from routelab.s3tm.lab.routing.experiments import run_cv
from routelab.s3tm.lab.routing.summary import fig5_summary, swap_hash
from routelab.s3tm.lab.routing.workloads import CVData


@dataclass(frozen=True, eq=False)
class Fig5Run:
    """The Fig. 5 rows of one notebook run.

    Attributes:
        cv: rows of the main datasets (first = the headline dataset), main splitting setting.
        cv_sources: rows of the per-source datasets (empty without them).
        hash_rows: hash under the other splitting setting on every dataset (None if not run).
        main: names of the main datasets; combine: the datasets whose relative throughputs
            the figure combines by the geometric mean (empty: fold-paired over ``main``).
        clock: wall seconds of each grid.
    """

    cv: pd.DataFrame
    cv_sources: pd.DataFrame
    hash_rows: pd.DataFrame | None
    main: list[str]
    combine: list[str]
    clock: dict[str, float] = field(default_factory=dict)

    @property
    def headline_dataset(self) -> str:
        """The dataset of the claims and the absolute panels (the union)."""
        return self.main[0]

    def _main_hash(self) -> pd.DataFrame:
        assert self.hash_rows is not None
        return self.hash_rows[self.hash_rows["dataset"].isin(self.main)]

    def claims_summary(self, other_hash: bool = False) -> pd.DataFrame | None:
        """:func:`fig5_summary` of the main datasets (the claims' numbers); with
        ``other_hash`` against hash under the other splitting setting (None if not run)."""
        if other_hash:
            if self.hash_rows is None:
                return None
            return fig5_summary(swap_hash(self.cv, self._main_hash()), self.headline_dataset)
        return fig5_summary(self.cv, self.headline_dataset)

    def claims_cv(self, other_hash: bool = False) -> pd.DataFrame | None:
        """The headline dataset's rows (with the other hash on request, None if not run)."""
        if other_hash:
            if self.hash_rows is None:
                return None
            frame = swap_hash(self.cv, self._main_hash())
        else:
            frame = self.cv
        return frame[frame["dataset"] == self.headline_dataset]

    def figure_summary(self, other_hash: bool = False) -> pd.DataFrame | None:
        """The figure's numbers: relative throughput over :attr:`combine` (geometric mean
        of the per-dataset means), the other panels of the headline dataset."""
        frame = pd.concat([f for f in (self.cv, self.cv_sources) if len(f)], ignore_index=True)
        if other_hash:
            if self.hash_rows is None:
                return None
            frame = swap_hash(frame, self.hash_rows)
        return fig5_summary(frame, self.headline_dataset, combine=self.combine or None)

    def all_rows(self) -> pd.DataFrame:
        """Every row run (for reusing runs in the skew ablation)."""
        parts = [self.cv, self.cv_sources, self.hash_rows]
        return pd.concat([p for p in parts if p is not None and len(p)], ignore_index=True)


def run_fig5(
    datasets: Sequence[CVData],
    per_source: Sequence[CVData],
    methods: Sequence[str],
    nodes: Sequence[int],
    kinds: Sequence[str],
    *,
    split_hot: bool = True,
    hash_both_ways: bool = True,
    seed: int = 0,
    spark: Any = None,
    local: bool = False,
    progress: bool = True,
) -> Fig5Run:
    """Run Fig. 5 on the main ``datasets`` (first = headline) and the ``per_source`` ones.

    The figure's relative throughput combines the per-source datasets and any main dataset
    after the first (e.g. a synthetic one) by the geometric mean; without per-source
    datasets it keeps the fold-paired geometric mean over the main datasets.
    """
    if not datasets:
        raise ValueError("Fig. 5 needs at least the headline dataset")
    args = dict(split_hot=split_hot, seed=seed, spark=spark, local=local, progress=progress)
    clock: dict[str, float] = {}
    start = time.perf_counter()
    cv = run_cv(datasets, methods, nodes, kinds, **args)
    clock["cv_grid_s"] = time.perf_counter() - start
    cv_sources = pd.DataFrame()
    if per_source:
        start = time.perf_counter()
        cv_sources = run_cv(per_source, methods, nodes, kinds, **args)
        clock["cv_sources_s"] = time.perf_counter() - start
    hash_rows = None
    if hash_both_ways and "hash" in methods:
        start = time.perf_counter()
        hash_rows = run_cv(
            [*datasets, *per_source], ["hash"], nodes, kinds, **{**args, "split_hot": not split_hot}
        )
        clock["cv_hash_other_s"] = time.perf_counter() - start
    main = [d.name for d in datasets]
    combine = [d.name for d in per_source] + main[1:] if per_source else []
    return Fig5Run(cv, cv_sources, hash_rows, main, combine, clock)


def data_note(datasets: Sequence[CVData], per_source: Sequence[CVData]) -> str:
    """Fig. 5's data line, short enough for the figure's footer: the headline dataset with
    its folds, any further main dataset, and how many datasets the relative-throughput
    panels (a, e) combine by the geometric mean, with their folds ("fewer: time budget"
    when fewer than the headline's). The sources' names and sizes are in the workload
    table. Fold counts are the datasets' own (every fold is held out once), never a
    parameter that could differ from what ran."""
    head, *others = datasets
    n_folds = head.n_folds
    note = f"real: bundled tweets ({head.info['posts']:,} posts, {n_folds} folds)"
    note += "".join(f"; {d.name} ({d.info['posts']:,} posts)" for d in others)
    if not per_source:
        return note + ("; relative throughput: geomean over these" if others else "")
    folds = sorted({d.n_folds for d in per_source})
    what = f"{len(per_source)} sources" + "".join(f" + {d.name}" for d in others)
    note += f"; (a, e): geomean over {what} ({'/'.join(map(str, folds))} folds each"
    return note + ("; fewer: time budget)" if min(folds) < n_folds else ")")
