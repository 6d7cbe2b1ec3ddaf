"""Learning-time benchmark of SALB (S3-TM Sect. 6.6, Fig. 9).

Input: synthetic posts from :func:`routelab.datasets.synthetic.topic_tweets_pandas` (the
in-process twin of the Spark topic-model generator; defaults approximate the April 2013
corpus of Table 1: about 4 words per post, ~100k-word Zipf vocabulary).

Measured on the same corpus: the SALB kernel (goal: at most 10 s for 1M posts and N = 256;
the paper's CPython SALB took about two minutes for 1M tweets), the gFCL METIS mapping
(word network + METIS), and the readable reference SALB on the first ``reference_posts``
posts against the kernel on the same subset (they must agree).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from routelab.s3tm.partition import partition_words
from routelab.s3tm.salb_kernel import salb_kernel
from routelab.s3tm.salb_reference import salb_reference
from routelab.s3tm.wordnet import word_network
from routelab.s3tm.wordsets import Corpus

SALB_GOAL_SECONDS = 10.0


def bench_salb(
    n_posts: int = 1_000_000,
    n_matchers: int = 256,
    seed: int = 0,
    *,
    reference_posts: int = 1_000,
    metis: bool = True,
    verbose: bool = True,
    progress: bool = False,
) -> dict[str, Any]:
    """Time SALB (kernel), gFCL (METIS) and the reference SALB; print and return the numbers.

    Args:
        n_posts: synthetic learning posts.
        n_matchers: N.
        seed: generator seed.
        reference_posts: size of the subset the reference runs on (it is slow by design).
        metis: also time gFCL (word network + METIS k-way partitioning).
        verbose: print a short report.
        progress: progress bars.

    Returns:
        Seconds and ratios: ``salb_seconds``, ``gfcl_seconds`` (``wordnet_seconds`` +
        ``metis_seconds``), ``gfcl_over_salb``, ``reference_seconds``,
        ``kernel_subset_seconds``, ``reference_over_kernel``, ``reference_agrees``,
        ``goal_met`` and the corpus sizes.
    """
    from routelab.datasets.synthetic import topic_tweets_pandas

    t0 = time.perf_counter()
    corpus = Corpus.from_frame(topic_tweets_pandas(n_posts, seed=seed, progress=progress))
    out: dict[str, Any] = {
        "n_posts": corpus.n_posts,
        "n_matchers": n_matchers,
        "n_words": int(np.count_nonzero(corpus.doc_freq())),
        "nnz": corpus.nnz,
        "generate_seconds": time.perf_counter() - t0,
    }
    salb_kernel(corpus.subset(np.arange(min(100, corpus.n_posts))), 2)  # JIT warm-up

    t = time.perf_counter()
    salb_kernel(corpus, n_matchers, progress=progress)
    out["salb_seconds"] = time.perf_counter() - t
    out["goal_seconds"] = SALB_GOAL_SECONDS
    out["goal_met"] = out["salb_seconds"] <= SALB_GOAL_SECONDS

    if metis:
        t = time.perf_counter()
        net = word_network(corpus)
        out["wordnet_seconds"] = time.perf_counter() - t
        t = time.perf_counter()
        partition_words(net, n_matchers, "gFCL", seed=seed)
        out["metis_seconds"] = time.perf_counter() - t
        out["n_edges"] = net.n_edges()
        out["gfcl_seconds"] = out["wordnet_seconds"] + out["metis_seconds"]
        out["gfcl_over_salb"] = out["gfcl_seconds"] / out["salb_seconds"]

    sub = corpus.subset(np.arange(min(reference_posts, corpus.n_posts)))
    t = time.perf_counter()
    ref = salb_reference(sub, n_matchers, progress=progress)
    out["reference_seconds"] = time.perf_counter() - t
    t = time.perf_counter()
    fast = salb_kernel(sub, n_matchers)
    out["kernel_subset_seconds"] = time.perf_counter() - t
    out["reference_posts"] = sub.n_posts
    out["reference_over_kernel"] = out["reference_seconds"] / out["kernel_subset_seconds"]
    out["reference_agrees"] = bool(np.array_equal(ref, fast))

    if verbose:
        print(_report(out))
    return out


def _report(r: dict[str, Any]) -> str:
    lines = [
        f"SALB benchmark: {r['n_posts']:,} synthetic posts, {r['n_words']:,} words, "
        f"{r['nnz']:,} word occurrences, N = {r['n_matchers']}",
        f"  SALB kernel        {r['salb_seconds']:8.2f} s   (goal <= {r['goal_seconds']:.0f} s: "
        f"{'met' if r['goal_met'] else 'NOT met'})",
    ]
    if "gfcl_seconds" in r:
        lines.append(
            f"  gFCL (METIS)       {r['gfcl_seconds']:8.2f} s   = word network "
            f"{r['wordnet_seconds']:.2f} s + METIS {r['metis_seconds']:.2f} s "
            f"({r['n_edges']:,} edges); {r['gfcl_over_salb']:.1f}x the SALB kernel"
        )
    lines.append(
        f"  reference SALB     {r['reference_seconds']:8.2f} s   on {r['reference_posts']:,} "
        f"posts vs kernel {r['kernel_subset_seconds'] * 1e3:.2f} ms: "
        f"{r['reference_over_kernel']:.0f}x; same mapping: {r['reference_agrees']}"
    )
    return "\n".join(lines)


def bench_rows(
    quick: bool = False, *, n_posts: int | None = None, reference_posts: int | None = None
) -> list[dict[str, Any]]:
    """Rows for :mod:`routelab.benchmarks` (``make bench``), N = 256.

    - the SALB kernel on 1M synthetic posts (``quick``: 100k), goal <= 10 s on 1M, beside
      gFCL (word network + METIS) on the same posts;
    - the SALB kernel beside the readable reference SALB on a subset (300 posts; ``quick``:
      100), which must give the same mapping.

    ``ratio`` is baseline seconds / measured seconds: the kernel's speed-up. ``n_posts`` and
    ``reference_posts`` override the sizes (the tests run it on a few hundred posts).
    """
    n_posts = n_posts or (100_000 if quick else 1_000_000)
    reference_posts = reference_posts or (100 if quick else 300)
    r = bench_salb(n_posts, 256, reference_posts=reference_posts, verbose=False)
    full = n_posts >= 1_000_000
    return [
        {
            "what": f"SALB kernel, {r['n_posts']:,} synthetic posts, N=256 "
            "(baseline: gFCL = word network + METIS, same posts)",
            "value": r["salb_seconds"],
            "unit": "s",
            "baseline": r["gfcl_seconds"],
            "ratio": r["gfcl_over_salb"],
            "goal": SALB_GOAL_SECONDS if full else None,
            "meets_goal": r["goal_met"] if full else None,
        },
        {
            "what": f"SALB kernel, {r['reference_posts']:,} posts, N=256 (baseline: reference "
            f"SALB, Algorithm 1; same mapping: {r['reference_agrees']})",
            "value": r["kernel_subset_seconds"] * 1e3,
            "unit": "ms",
            "baseline": r["reference_seconds"] * 1e3,
            "ratio": r["reference_over_kernel"],
            "goal": None,
            "meets_goal": None,
        },
    ]
