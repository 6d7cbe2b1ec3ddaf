"""Fig. 8a's experiment (notebook 06_shedding; S3-TM Sect. 6.5): the workloads (held-out
publications, tweet- and topic-based subscriptions placed on the matchers) and the accuracy /
load-shed curves of :mod:`routelab.s3tm.shedding`'s policies against random dropping.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from routelab.s3tm.shedding import (
    RANDOM_DROP,
    SHEDDING_METHODS,
    Deliveries,
    encode_subscriptions,
    evaluate,
    keep_mask,
    prepare_deliveries,
    random_drop_mask,
)
from routelab.s3tm.wordsets import Corpus


def shedding_curve(
    deliveries: Deliveries,
    thresholds: Sequence[float],
    methods: Sequence[str] = SHEDDING_METHODS,
    *,
    random_like: str | None = "subscription",
    cost: str = "ops",
    seed: int = 0,
) -> pd.DataFrame:
    """Fig. 8a: accuracy and load shed per shedding threshold m for each method.

    With ``random_like``, random dropping is added at each threshold with the load shed
    (``cost``) equal to that method's -- the "equal load shed" baseline.
    """
    rows = []
    for method in methods:
        for m in thresholds:
            rows.append(
                {
                    "method": method,
                    "m": float(m),
                    **evaluate(deliveries, keep_mask(deliveries, m, method, seed)),
                }
            )
    frame = pd.DataFrame(rows)
    if random_like is not None:
        ref = frame[frame["method"] == random_like]
        shed_col = "load_shed" if cost == "ops" else "unit_shed"
        for m, target in zip(ref["m"], ref[shed_col], strict=True):
            keep_post = random_drop_mask(deliveries, float(target), cost, seed)
            row = evaluate(deliveries, keep_post[deliveries.pair_post])
            rows.append({"method": RANDOM_DROP, "m": float(m), **row})
        frame = pd.DataFrame(rows)
    return frame


def shed_at_accuracy(curve: pd.DataFrame, accuracy: float = 0.9, shed: str = "load_shed") -> float:
    """Largest load shed with accuracy >= ``accuracy`` along one method's curve, linearly
    interpolated between neighbouring thresholds (0 if even the full load misses it)."""
    points = curve.sort_values(shed)[[shed, "accuracy"]].to_numpy()
    best = 0.0
    for (s0, a0), (s1, a1) in zip(points[:-1], points[1:], strict=True):
        if a0 >= accuracy:
            best = max(best, s0)
            if a1 < accuracy and a0 != a1:
                best = max(best, s0 + (s1 - s0) * (a0 - accuracy) / (a0 - a1))
    if len(points) and points[-1][1] >= accuracy:
        best = max(best, points[-1][0])
    return float(best)


def accuracy_at_shed(curve: pd.DataFrame, sheds: np.ndarray, shed: str = "load_shed") -> np.ndarray:
    """One method's accuracy interpolated at the given load sheds (NaN outside its range).

    The curve is taken as the upper envelope: for each shed the best accuracy reachable
    with at least that much shed, so non-monotone points do not break the interpolation."""
    pts = curve.sort_values(shed)
    x = pts[shed].to_numpy(dtype=np.float64)
    y = pts["accuracy"].to_numpy(dtype=np.float64)
    y = np.maximum.accumulate(y[::-1])[::-1]
    out = np.interp(sheds, x, y)
    out[(sheds < x.min()) | (sheds > x.max())] = np.nan
    return out


def compare_at_equal_shed(
    curve: pd.DataFrame,
    better: str = "subscription",
    worse: str = "consensus",
    shed: str = "load_shed",
    min_shed: float = 0.01,
) -> dict[str, float]:
    """Compare two methods' accuracy at the same load shed, over the sheds both curves
    reach (at least ``min_shed``): ``mean_gain`` (mean accuracy difference), ``min_gain``,
    ``share_better`` (fraction of compared sheds where ``better`` is >= ``worse``) and
    ``n`` (points compared: ``better``'s own thresholds)."""
    a = curve[curve["method"] == better]
    b = curve[curve["method"] == worse]
    sheds = np.sort(a[shed].to_numpy(dtype=np.float64))
    lo = max(min_shed, b[shed].min())
    sheds = sheds[(sheds >= lo) & (sheds <= b[shed].max())]
    if not len(sheds):
        return {
            "mean_gain": float("nan"),
            "min_gain": float("nan"),
            "share_better": float("nan"),
            "n": 0,
        }
    gain = accuracy_at_shed(a, sheds, shed) - accuracy_at_shed(b, sheds, shed)
    gain = gain[~np.isnan(gain)]
    return {
        "mean_gain": float(gain.mean()),
        "min_gain": float(gain.min()),
        "share_better": float(np.mean(gain >= -1e-12)),
        "n": len(gain),
    }


def default_thresholds(max_m: int = 12) -> list[float]:
    """The thresholds of Fig. 8a: ``inf`` (no shedding), then ``max_m, max_m - 1, ..., 1``."""
    return [math.inf, *map(float, range(int(max_m), 0, -1))]


def shedding_workloads(
    frame: pd.DataFrame,
    kinds: Sequence[str] = ("tweet", "topic"),
    n_subscriptions: int = 100_000,
    *,
    n_matchers: int = 16,
    method: str = "SALB",
    placement: str = "LASP",
    test_fraction: float = 0.5,
    n_topics: int = 100,
    lda_passes: int = 3,
    seed: int = 0,
    progress: bool = True,
) -> dict[str, Deliveries]:
    """The Fig. 8a workloads: one :class:`Deliveries` per subscription kind.

    The posts (``post_id``, ``words``) are split by a seeded hash of their ids into a
    learning part and ``test_fraction`` held-out publications. Per kind: subscriptions as in
    Sect. 6.1 (tweet-based: random posts; topic-based: LDA fitted on the learning posts),
    the mapping ``method`` learned on the learning posts restricted to the kind's W^s
    (no hot-word splitting), subscriptions placed by ``placement`` (LASP or random anycast),
    and the held-out publications routed, matched and compared with the oracle.
    """
    from routelab.progress import tqdm
    from routelab.s3tm.lab.workloads import make_subscriptions, seeded_order, subscribed_word_set
    from routelab.s3tm.mappings import learn_mapping
    from routelab.s3tm.placement import place_subscriptions

    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction}")
    corpus = Corpus.from_frame(frame[["post_id", "words"]])
    order = seeded_order(corpus.post_ids, seed)
    n_test = int(round(test_fraction * corpus.n_posts))
    is_test = np.zeros(corpus.n_posts, dtype=bool)
    is_test[order[:n_test]] = True
    learn, test = corpus.subset(~is_test), corpus.subset(is_test)
    model = None
    if "topic" in kinds:
        from routelab.corpus.subscriptions import fit_topics

        learn_frame = frame[~is_test]
        model = fit_topics(learn_frame, n_topics, passes=lda_passes, seed=seed, progress=progress)
    subs = make_subscriptions(frame, kinds, n_subscriptions, seed, topic_model=model)
    out = {}
    for kind in tqdm(kinds, desc="shedding workloads", disable=not progress, leave=False):
        words = subscribed_word_set(subs[kind])
        mapping = learn_mapping(learn, n_matchers, method, subscriptions=words, seed=seed)
        encoded = encode_subscriptions(subs[kind], corpus)
        placed = place_subscriptions(encoded, mapping, placement, seed=seed)
        d = prepare_deliveries(test, encoded, mapping, placed)
        d.info.update(kind=kind, learning_posts=learn.n_posts, test_fraction=test_fraction)
        out[kind] = d
    return out
