"""Matching and placement speed (S3-TM Sects. 4.1, 4.2).

Workload: synthetic topic-model posts (:func:`routelab.datasets.synthetic.topic_tweets_pandas`,
no Spark needed); tweet-based subscriptions are random posts (Sect. 6.1), as in Fig. 7.

- **Trie matching**: publications per second of *one* matcher holding ``n_subs`` = 100k
  subscriptions (``quick``: 10k): the flat-array kernel and the reference trie, each beside
  the brute-force oracle (set containment against every subscription) as a ratio. All three
  produce the matching subscription ids of every publication; the kernel's are checked
  against the oracle's on the timed sample.
- **LASP placement**: subscriptions per second of the numba kernel for N = 16, beside the
  readable reference of Algorithm 2 (Python sets, the pseudocode's load list per
  candidate) -- the "brute force" of placement; both make the same choices (checked).

Goals (ours; the paper gives no absolute rates, its PyPy matcher is not comparable):
the kernel matches >= 10,000 publications/s per matcher at 100k subscriptions and LASP
places >= 100,000 subscriptions/s.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from routelab.s3tm.wordsets import Corpus

MATCH_GOAL = 10_000.0
"""Publications per second per matcher at 100k subscriptions (kernel)."""
PLACE_GOAL = 100_000.0
"""LASP placements per second (kernel, N = 16)."""


def _workload(n_posts: int, n_subs: int, seed: int) -> tuple[Corpus, Corpus]:
    from routelab.datasets.synthetic import topic_tweets_pandas
    from routelab.s3tm.lab.matching.scaling import tweet_subscription_corpus

    posts = Corpus.from_frame(topic_tweets_pandas(n_posts, seed=seed)[["post_id", "words"]])
    return posts, tweet_subscription_corpus(posts, n_subs, seed)


def _rate(count: int, seconds: float) -> float:
    return count / max(seconds, 1e-9)


def bench_matching(
    n_subs: int = 100_000,
    n_pubs: int = 20_000,
    *,
    oracle_pubs: int = 30,
    reference_pubs: int = 2_000,
    seed: int = 0,
) -> dict[str, Any]:
    """Time the trie kernel, the reference trie and the oracle on one matcher."""
    from routelab.s3tm.trie_kernel import build_forest
    from routelab.s3tm.trie_reference import SubscriptionTrie, brute_force_match

    posts, subs = _workload(max(n_pubs, 50_000), n_subs, seed)
    pubs = posts.subset(np.arange(n_pubs))
    t = time.perf_counter()
    forest = build_forest(subs)
    build_s = time.perf_counter() - t
    forest.match(pubs, np.arange(10), np.zeros(10, dtype=np.int64))  # JIT warm-up
    t = time.perf_counter()
    res = forest.match(pubs, np.arange(n_pubs), np.zeros(n_pubs, dtype=np.int64))
    kernel_s = time.perf_counter() - t

    table = {int(s): frozenset(subs.words_of(r)) for r, s in enumerate(subs.post_ids)}
    words = [frozenset(pubs.words_of(p)) for p in range(max(oracle_pubs, reference_pubs))]
    t = time.perf_counter()
    oracle = [brute_force_match(table, words[p]) for p in range(oracle_pubs)]
    oracle_s = time.perf_counter() - t
    agrees = all(res.of(p) == oracle[p] for p in range(oracle_pubs))

    trie = SubscriptionTrie()
    for s, ws in table.items():
        trie.add(s, ws)
    t = time.perf_counter()
    for p in range(reference_pubs):
        trie.match(words[p])
    reference_s = time.perf_counter() - t
    return {
        "n_subs": n_subs,
        "kernel_pubs_per_s": _rate(n_pubs, kernel_s),
        "reference_pubs_per_s": _rate(reference_pubs, reference_s),
        "oracle_pubs_per_s": _rate(oracle_pubs, oracle_s),
        "build_seconds": build_s,
        "ops_per_pub": float(res.ops.mean()),
        "matches_per_pub": float(res.n_matches.mean()),
        "kernel_agrees_with_oracle": agrees,
    }


def bench_lasp(
    n_subs: int = 100_000, n_matchers: int = 16, *, reference_subs: int = 5_000, seed: int = 0
) -> dict[str, Any]:
    """Time LASP placement: kernel (all ``n_subs``) vs the reference (first
    ``reference_subs``), same choices checked on the common prefix."""
    from routelab.s3tm.mappings import learn_mapping
    from routelab.s3tm.placement import place_subscriptions

    posts, subs = _workload(50_000, n_subs, seed)
    mapping = learn_mapping(posts, n_matchers, "SALB", subscriptions=subs, split_hot=True)
    cost = (0.005, 10.0)
    place_subscriptions(subs.subset(np.arange(100)), mapping, "LASP", cost=cost)  # warm-up
    t = time.perf_counter()
    fast = place_subscriptions(subs, mapping, "LASP", cost=cost)
    kernel_s = time.perf_counter() - t
    head = subs.subset(np.arange(min(reference_subs, n_subs)))
    t = time.perf_counter()
    ref = place_subscriptions(head, mapping, "LASP", cost=cost, impl="reference")
    reference_s = time.perf_counter() - t
    keep = fast.entry_rows < head.n_posts
    agrees = np.array_equal(fast.entry_matchers[keep], ref.entry_matchers)
    t = time.perf_counter()
    place_subscriptions(subs, mapping, "random")
    random_s = time.perf_counter() - t
    return {
        "n_subs": n_subs,
        "n_matchers": n_matchers,
        "kernel_subs_per_s": _rate(n_subs, kernel_s),
        "reference_subs_per_s": _rate(head.n_posts, reference_s),
        "random_subs_per_s": _rate(n_subs, random_s),
        "reference_agrees": bool(agrees),
    }


def bench_rows(quick: bool = False) -> list[dict[str, Any]]:
    """Rows for :mod:`routelab.benchmarks`: trie matching and LASP placement rates, each
    with its brute-force / reference baseline and the ratio."""
    n_subs = 10_000 if quick else 100_000
    m = bench_matching(n_subs, 5_000 if quick else 20_000, reference_pubs=500 if quick else 2_000)
    p = bench_lasp(n_subs, reference_subs=1_000 if quick else 5_000)
    note = "" if m["kernel_agrees_with_oracle"] else " -- DISAGREES with the oracle"
    rows = [
        {
            "what": f"trie kernel matching, 1 matcher, {n_subs:,} tweet subs "
            f"(vs brute-force oracle){note}",
            "value": m["kernel_pubs_per_s"],
            "unit": "pubs/s",
            "baseline": m["oracle_pubs_per_s"],
            "ratio": m["kernel_pubs_per_s"] / m["oracle_pubs_per_s"],
            "goal": MATCH_GOAL,
            "meets_goal": m["kernel_pubs_per_s"] >= MATCH_GOAL,
        },
        {
            "what": f"reference trie matching, 1 matcher, {n_subs:,} tweet subs "
            "(vs brute-force oracle)",
            "value": m["reference_pubs_per_s"],
            "unit": "pubs/s",
            "baseline": m["oracle_pubs_per_s"],
            "ratio": m["reference_pubs_per_s"] / m["oracle_pubs_per_s"],
            "goal": None,
            "meets_goal": None,
        },
        {
            "what": f"LASP kernel placement, N = 16, {n_subs:,} tweet subs "
            f"(vs reference Alg. 2){'' if p['reference_agrees'] else ' -- DISAGREES'}",
            "value": p["kernel_subs_per_s"],
            "unit": "subs/s",
            "baseline": p["reference_subs_per_s"],
            "ratio": p["kernel_subs_per_s"] / p["reference_subs_per_s"],
            "goal": PLACE_GOAL,
            "meets_goal": p["kernel_subs_per_s"] >= PLACE_GOAL,
        },
    ]
    return rows
