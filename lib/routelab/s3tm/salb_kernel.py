"""SALB (S3-TM Algorithm 1, Sect. 3.3) as a fast numba kernel, exact and equal to
:mod:`routelab.s3tm.salb_reference` (tested on random corpora).

Why an integer criterion is exact. For a candidate matcher i let ``l_i`` be the extra load,
``S = sum_j L_j`` the current total load and ``S_i = S + l_i``, ``Q_i`` the sum of squares
of the candidate loads. The spread kept by Algorithm 1 is always ``R = S / |P|`` (both grow
by ``l*`` and ``l* / |P|`` together), so

    u_i = -r_i * b_i = -(S_i / |P|) * (sigma_i / (S_i / N)) = -N * sigma_i / |P|,
    N^2 * sigma_i^2 = N * Q_i - S_i^2.

Maximizing ``u_i`` is therefore minimizing ``N * Q_i - S_i^2``; dropping the part common to
all candidates (``N * Q - S^2``) leaves the integer

    delta_i = l_i * (2 * (N * L_i - S) + (N - 1) * l_i),

which the kernel minimizes (ties: lowest matcher id, as in the reference). Note what this
shows about the paper's utility: the spread factor cancels against the CV's mean, and SALB
picks the candidate with the smallest standard deviation of the loads after the move.

Extra loads in O(d * k) per word: every post keeps the distinct matchers it is already
routed to (in the post's own CSR slots); ``cover[i]`` counts the posts containing w that
already reach i, and ``l_i = |nbr(w)| - cover[i]`` (Alg. 1: posts with no word on i).
Total work O(sum_w |nbr(w)| * k + |W| * N).
"""

from __future__ import annotations

import numba
import numpy as np

from routelab.progress import tqdm
from routelab.s3tm.wordsets import Corpus

_INT64_SAFE = 2**62


def salb_kernel(
    posts: Corpus, n_matchers: int, *, progress: bool = False, chunks: int = 50
) -> np.ndarray:
    """Algorithm 1 on ``posts`` for ``n_matchers`` matchers (fast, exact).

    Args:
        posts: learning posts (restricted to W^s by the caller if needed).
        n_matchers: N.
        progress: show a progress bar over the words.
        chunks: the words are processed in this many kernel calls (progress granularity).

    Returns:
        ``int32`` matcher per word id of ``posts.vocab``; ``-1`` for words in no post.

    Raises:
        OverflowError: the corpus is too large for exact 64-bit arithmetic.
    """
    if n_matchers < 1:
        raise ValueError(f"n_matchers must be >= 1, got {n_matchers}")
    order = posts.words_by_frequency().astype(np.int64)
    x = posts.to_scipy().tocsc()
    w_ptr = x.indptr.astype(np.int64)
    w_posts = x.indices.astype(np.int64)
    d_max = int(np.diff(w_ptr).max()) if len(order) else 0
    # |delta_i| <= d * (2 N S + N d) with S <= nnz
    if n_matchers * d_max * (2 * posts.nnz + d_max) >= _INT64_SAFE:
        raise OverflowError(
            f"SALB kernel: {posts.nnz} word occurrences x N={n_matchers} exceed exact int64"
        )
    result = np.full(posts.n_vocab, -1, dtype=np.int32)
    loads = np.zeros(n_matchers, dtype=np.int64)
    total = np.zeros(1, dtype=np.int64)
    cover = np.zeros(n_matchers, dtype=np.int64)
    post_match = np.empty(posts.nnz, dtype=np.int32)  # distinct matchers reached, per post
    post_nmatch = np.zeros(posts.n_posts, dtype=np.int32)
    bounds = np.linspace(0, len(order), max(1, chunks) + 1).astype(np.int64)
    with tqdm(total=len(order), desc="SALB", disable=not progress, leave=False) as bar:
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            _assign_words(
                order[a:b],
                w_ptr,
                w_posts,
                posts.indptr,
                post_match,
                post_nmatch,
                loads,
                total,
                cover,
                result,
            )
            bar.update(int(b - a))
    return result


@numba.njit(cache=True)
def _assign_words(
    order, w_ptr, w_posts, indptr, post_match, post_nmatch, loads, total, cover, result
):
    n_matchers = loads.shape[0]
    for t in range(len(order)):
        w = order[t]
        lo, hi = w_ptr[w], w_ptr[w + 1]
        d = hi - lo
        # cover[i] = number of publications containing w already routed to i
        for j in range(lo, hi):
            p = w_posts[j]
            base = indptr[p]
            for s in range(post_nmatch[p]):
                cover[post_match[base + s]] += 1
        s_total = total[0]
        best = 0
        best_l = d - cover[0]
        best_delta = best_l * (2 * (n_matchers * loads[0] - s_total) + (n_matchers - 1) * best_l)
        for i in range(1, n_matchers):
            l_i = d - cover[i]
            delta = l_i * (2 * (n_matchers * loads[i] - s_total) + (n_matchers - 1) * l_i)
            if delta < best_delta:
                best_delta = delta
                best = i
                best_l = l_i
        for j in range(lo, hi):
            p = w_posts[j]
            base = indptr[p]
            for s in range(post_nmatch[p]):
                cover[post_match[base + s]] = 0
        # commit w -> best
        result[w] = best
        loads[best] += best_l
        total[0] = s_total + best_l
        for j in range(lo, hi):
            p = w_posts[j]
            base = indptr[p]
            n = post_nmatch[p]
            found = False
            for s in range(n):
                if post_match[base + s] == best:
                    found = True
                    break
            if not found:
                post_match[base + n] = best
                post_nmatch[p] = n + 1
