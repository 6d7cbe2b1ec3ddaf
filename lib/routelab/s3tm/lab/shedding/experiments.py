"""Fig. 8a's experiment (notebook 06_shedding; S3-TM Sect. 6.5): the workloads (held-out
publications, tweet- and topic-based subscriptions placed on the matchers) and the accuracy /
load-shed curves of :mod:`routelab.s3tm.shedding`'s policies against random dropping.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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


def random_drop_gaps(curve: pd.DataFrame, shed: str = "load_shed", min_shed: float = 0.01) -> float:
    """Smallest accuracy lead of subscription shedding over random dropping at the same
    threshold (random dropping sheds the same load), over the thresholds shedding at least
    ``min_shed``; NaN if none does."""
    sub = curve[curve["method"] == "subscription"].set_index("m")
    rnd = curve[curve["method"] == RANDOM_DROP].set_index("m")["accuracy"]
    both = sub.index[sub[shed] >= min_shed].intersection(rnd.index)
    if not len(both):
        return float("nan")
    return float((sub.loc[both, "accuracy"] - rnd[both]).min())


def curve_summary(
    curves: dict[str, pd.DataFrame], accuracy: float = 0.9, shed: str = "load_shed"
) -> pd.DataFrame:
    """One row per workload (key of ``curves``): the load each policy sheds at ``accuracy``,
    subscription shedding's mean and smallest accuracy gain over consensus at equal shed,
    and its smallest lead over random dropping -- the numbers the claims grade."""
    rows = []
    for name, c in curves.items():
        gain = compare_at_equal_shed(c, shed=shed)
        rows.append(
            {
                "workload": name,
                f"subscription: shed at {accuracy:.0%} accuracy": shed_at_accuracy(
                    c[c["method"] == "subscription"], accuracy, shed
                ),
                f"consensus: shed at {accuracy:.0%} accuracy": shed_at_accuracy(
                    c[c["method"] == "consensus"], accuracy, shed
                ),
                "gain over consensus (mean)": gain["mean_gain"],
                "gain over consensus (min)": gain["min_gain"],
                "lead over random dropping (min)": random_drop_gaps(c, shed),
            }
        )
    return pd.DataFrame(rows).set_index("workload")


def default_thresholds(max_m: int = 12) -> list[float]:
    """The thresholds of Fig. 8a: ``inf`` (no shedding), then ``max_m, max_m - 1, ..., 1``."""
    return [math.inf, *map(float, range(int(max_m), 0, -1))]


WORKLOADS = ("learning", "all_words")
"""Subscription workloads of the Fig. 8a runs:

- ``"learning"`` (the default, the paper's setting): subscriptions are drawn from the
  **learning** posts only, ``subscription_ratio`` of them per learning post (the paper
  registers 100k subscriptions per 1M learning posts: 0.1); no held-out publication is itself
  a subscription, and only part of the vocabulary is subscribed;
- ``"all_words"`` (a stress variant, the notebook's earlier behaviour): ``n_subscriptions``
  drawn from **all** posts, held-out ones included -- every held-out publication matches at
  least itself and almost every word is subscribed, so every publication is multicast
  widely.
"""

PAPER_SUBSCRIPTION_RATIO = 0.1
"""Subscriptions per learning post in the paper's experiments (100k per 1M, Sect. 6.1)."""


@dataclass(frozen=True, eq=False)
class ShedWorkload:
    """The Fig. 8a workload of one run: the split, the subscriptions and the deliveries.

    Attributes:
        workload: one of :data:`WORKLOADS`.
        deliveries: subscription kind -> :class:`Deliveries` of the held-out publications.
        subscriptions: subscription kind -> the subscriptions (``sub_id``, ``words``, ...).
        learn_ids: post ids of the learning posts (mapping, LDA and, in ``"learning"``, the
            tweet-based subscriptions come from them).
        test_ids: post ids of the held-out publications (routed and matched).
    """

    workload: str
    deliveries: dict[str, Deliveries]
    subscriptions: dict[str, pd.DataFrame]
    learn_ids: np.ndarray
    test_ids: np.ndarray

    def table(self) -> pd.DataFrame:
        """One tidy row per subscription kind: sizes, subscribed words, spread, oracle check."""
        rows = []
        for kind, d in self.deliveries.items():
            rows.append(
                {
                    "subscriptions": kind,
                    "workload": self.workload,
                    "learning posts": len(self.learn_ids),
                    "held-out publications": d.n_posts,
                    "subscriptions registered": d.info["subscriptions"],
                    "subscribed words": d.info["subscribed_words"],
                    "mean |K(P, M)|": round(d.info["spread"], 2),
                    "oracle matches": d.n_oracle,
                    "false": d.false_matches,
                    "missed": d.missed_matches,
                }
            )
        return pd.DataFrame(rows).set_index("subscriptions")


def subscription_count(
    workload: str, n_learning: int, subscription_ratio: float, n_subscriptions: int
) -> int:
    """Subscriptions per kind: ``round(subscription_ratio * n_learning)`` (at least 1) in
    the ``"learning"`` workload, ``n_subscriptions`` in the ``"all_words"`` stress variant."""
    if workload == "learning":
        if not subscription_ratio > 0:
            raise ValueError(f"subscription_ratio must be > 0, got {subscription_ratio}")
        return max(1, int(round(subscription_ratio * n_learning)))
    if workload == "all_words":
        return int(n_subscriptions)
    raise ValueError(f"unknown workload {workload!r}; choose from {WORKLOADS}")


def build_workload(
    frame: pd.DataFrame,
    kinds: Sequence[str] = ("tweet", "topic"),
    *,
    workload: str = "learning",
    subscription_ratio: float = PAPER_SUBSCRIPTION_RATIO,
    n_subscriptions: int = 100_000,
    n_matchers: int = 16,
    method: str = "SALB",
    placement: str = "LASP",
    test_fraction: float = 0.5,
    n_topics: int = 100,
    lda_passes: int = 3,
    seed: int = 0,
    progress: bool = True,
) -> ShedWorkload:
    """The Fig. 8a workload: one :class:`Deliveries` per subscription kind.

    The posts (``post_id``, ``words``) are split by a seeded hash of their ids into a
    learning part and ``test_fraction`` held-out publications. Per kind: subscriptions as in
    Sect. 6.1 (tweet-based: random posts of the pool :data:`WORKLOADS` names; topic-based:
    LDA fitted on the learning posts), counted by :func:`subscription_count`; the mapping
    ``method`` learned on the learning posts restricted to the kind's W^s (no hot-word
    splitting), subscriptions placed by ``placement`` (LASP or random anycast), and the
    held-out publications routed, matched and compared with the oracle. Notebook 06 passes
    its ``workload`` parameter, which a run with ``ROUTELAB_READING=fig8a`` sets to
    ``"all_words"``.
    """
    from routelab.progress import tqdm
    from routelab.s3tm.lab.shared import make_subscriptions, seeded_order, subscribed_word_set
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
    n_subs = subscription_count(workload, learn.n_posts, subscription_ratio, n_subscriptions)
    learn_frame = frame[~is_test]
    model = None
    if "topic" in kinds:
        from routelab.corpus.subscriptions import fit_topics

        model = fit_topics(
            learn_frame, n_topics, passes=lda_passes, seed=seed, progress=progress, cache=True
        )
    pool = learn_frame if workload == "learning" else frame
    subs = make_subscriptions(pool, kinds, n_subs, seed, topic_model=model)
    out = {}
    for kind in tqdm(kinds, desc="shedding workloads", disable=not progress, leave=False):
        words = subscribed_word_set(subs[kind])
        mapping = learn_mapping(learn, n_matchers, method, subscriptions=words, seed=seed)
        encoded = encode_subscriptions(subs[kind], corpus)
        placed = place_subscriptions(encoded, mapping, placement, seed=seed)
        d = prepare_deliveries(test, encoded, mapping, placed)
        d.info.update(
            kind=kind,
            workload=workload,
            learning_posts=learn.n_posts,
            test_fraction=test_fraction,
        )
        out[kind] = d
    return ShedWorkload(workload, out, subs, learn.post_ids, test.post_ids)


# --------------------------------------------------------------------------- worked example

#: The worked example of notebook 06: one publication P, five matchers, eleven
#: subscriptions, each placed on the matcher of one of its words (as LASP would).
EXAMPLE_MAPPING = {"a": 0, "b": 0, "c": 0, "z": 0, "d": 1, "e": 1, "f": 2, "g": 3, "h": 4, "y": 4}
EXAMPLE_POST = ("a", "b", "c", "d", "e", "f", "g", "h")
EXAMPLE_SUBSCRIPTIONS = (
    (("a", "z"), 0),
    (("d",), 1),
    (("c", "e", "z"), 1),
    (("f",), 2),
    (("f", "g"), 2),
    (("f", "h"), 2),
    (("a", "f"), 2),
    (("b", "g"), 3),
    (("g",), 3),
    (("g", "h"), 3),
    (("h", "y"), 4),
)


def example_deliveries() -> Deliveries:
    """The worked example routed and matched (:func:`prepare_deliveries`): P goes to all
    five matchers (each holds one of its subscribed words) and matches 8 subscriptions."""
    from routelab.s3tm.placement import Placement
    from routelab.s3tm.routing import Mapping

    posts = Corpus.from_word_lists([list(EXAMPLE_POST)], post_ids=[1])
    frame = pd.DataFrame(
        {
            "sub_id": range(len(EXAMPLE_SUBSCRIPTIONS)),
            "words": [list(w) for w, _ in EXAMPLE_SUBSCRIPTIONS],
        }
    )
    subs = encode_subscriptions(frame, posts)
    n = max(EXAMPLE_MAPPING.values()) + 1
    rows = np.arange(subs.n_posts, dtype=np.int64)
    placement = Placement(
        n,
        "example",
        rows,
        np.array([m for _, m in EXAMPLE_SUBSCRIPTIONS], dtype=np.int64),
        np.zeros(len(rows), np.int8),
        np.zeros(n, np.int64),
    )
    return prepare_deliveries(
        posts, subs, Mapping(n, "example", 0, dict(EXAMPLE_MAPPING)), placement
    )


def worked_example(m: float = 2, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The example publication under each policy at threshold ``m``.

    Returns ``(matchers, policies)``: per matcher, P's words mapped there, the consensus
    utility, the subscriptions placed there (those P matches starred), the subscription
    utility and whether each policy still sends P there; per policy, the matchers P is sent
    to, the deliveries shed, the matches kept and the accuracy. Random dropping sheds the
    same share of the load by dropping whole publications: P is sent everywhere with
    probability 1 - shed, so its row is an expectation.
    """
    d = example_deliveries()
    matchers = d.targets.of(0)
    hits = np.bincount(d.match_pair, minlength=d.n_pairs)
    keep = {p: keep_mask(d, m, p, seed) for p in SHEDDING_METHODS}
    rows = []
    for q, j in enumerate(matchers):
        subs = [
            ("{" + ",".join(w) + "}") + ("*" if set(w) <= set(EXAMPLE_POST) else "")
            for w, at in EXAMPLE_SUBSCRIPTIONS
            if at == j
        ]
        rows.append(
            {
                "matcher": j,
                "P's words there": ",".join(w for w in EXAMPLE_POST if EXAMPLE_MAPPING.get(w) == j),
                "consensus utility": int(d.consensus[q]),
                "subscriptions there (* = P matches)": " ".join(subs),
                "subscription utility": int(d.subscription[q]),
                "P's matches there": int(hits[q]),
                **{f"{p} (m = {m:g})": "sent" if keep[p][q] else "shed" for p in keep},
            }
        )
    table = pd.DataFrame(rows).set_index("matcher")
    policies = []
    for p, mask in keep.items():
        r = evaluate(d, mask)
        policies.append(
            {
                "policy": f"{p} shedding",
                "matchers P is sent to": ", ".join(
                    str(j) for j, k in zip(matchers, mask, strict=True) if k
                ),
                "deliveries shed": f"{len(matchers) - int(mask.sum())} of {len(matchers)}",
                "matches kept": f"{r['produced']:g} of {d.n_oracle}",
                "accuracy": r["accuracy"],
            }
        )
    shed = 1 - int(keep["subscription"].sum()) / len(matchers)
    policies.append(
        {
            "policy": f"random dropping ({shed:.0%} of the load)",
            "matchers P is sent to": f"all {len(matchers)} with probability {1 - shed:.0%}, "
            "else none",
            "deliveries shed": f"{shed * len(matchers):g} of {len(matchers)} on average",
            "matches kept": f"{(1 - shed) * d.n_oracle:g} of {d.n_oracle} on average",
            "accuracy": 1 - shed,
        }
    )
    return table, pd.DataFrame(policies).set_index("policy")
