"""Subscription-aware load (Sect. 4, Eq. 6 with trie lookups), Fig. 3 data and the Fig. 7
grid on small synthetic data (no Spark: ``local=True``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.corpus.subscriptions import tweet_subscriptions
from routelab.datasets.synthetic import topic_tweets_pandas
from routelab.s3tm.lab.matching.scaling import (
    placement_gain,
    scaling_data,
    tweet_subscription_corpus,
)
from routelab.s3tm.lab.shared import lookup_curve, run_scaling
from routelab.s3tm.mappings import learn_mapping
from routelab.s3tm.matching_load import (
    matching_load,
    route_subscribed,
    subscription_corpus,
)
from routelab.s3tm.placement import place_subscriptions
from routelab.s3tm.trie_reference import SubscriptionTrie
from routelab.s3tm.wordsets import Corpus


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return topic_tweets_pandas(800, seed=5, vocab_size=300, topic_words=30, n_topics=5)


@pytest.fixture(scope="module")
def posts(frame) -> Corpus:
    return Corpus.from_frame(frame[["post_id", "words"]])


def test_subscription_corpora_equal_the_generic_encoder(frame, posts):
    subs = tweet_subscriptions(frame[["post_id", "words"]], 1500, seed=2)  # > posts: repeats
    generic = Corpus.from_frame(
        subs.rename(columns={"sub_id": "post_id"})[["post_id", "words"]], vocab=posts.vocab
    )
    for fast in (subscription_corpus(subs, posts.vocab), tweet_subscription_corpus(posts, 1500, 2)):
        assert fast.vocab[: posts.n_vocab] == posts.vocab
        assert np.array_equal(fast.indptr, generic.indptr)
        assert np.array_equal(fast.indices, generic.indices)
        assert np.array_equal(fast.post_ids, generic.post_ids)


def test_matching_load_equals_reference_tries(posts):
    subs = tweet_subscription_corpus(posts, 300, seed=1)
    mapping = learn_mapping(posts, 4, "SALB", subscriptions=subs, split_hot=True)
    placement = place_subscriptions(subs, mapping, "LASP", cost=(0.01, 4.0))
    load = matching_load(mapping, placement, subs, posts, capacity=10.0)
    tries = [SubscriptionTrie() for _ in range(4)]
    for r, m in zip(placement.entry_rows, placement.entry_matchers, strict=True):
        tries[m].add(int(subs.post_ids[r]), subs.words_of(int(r)))
    targets = route_subscribed(mapping, posts, subs)
    ops = np.zeros(4, dtype=np.int64)
    for p in range(posts.n_posts):
        for m in targets.of(p):
            ops[m] += tries[m].match_ops(posts.words_of(p))[1]
    assert load.ops.tolist() == ops.tolist()
    assert load.pubs.tolist() == targets.loads().tolist()
    assert load.unique_words.tolist() == [t.unique_words for t in tries]
    assert load.throughput == pytest.approx(10.0 * posts.n_posts / ops.max())
    assert load.imbalance == pytest.approx(ops.max() / ops.mean())
    assert load.spread == pytest.approx(targets.loads().sum() / np.count_nonzero(targets.sizes()))


def test_lookup_curve_rows_are_consistent(posts):
    subs = tweet_subscription_corpus(posts, 400, seed=3)
    curve = lookup_curve(posts, subs, [20, 100, 400], n_matchers=4)
    assert set(curve["n_subs"]) == {20, 100, 400}
    assert (curve["ops_per_pub"] == curve["ops"] / curve["pubs"]).all()
    # nested workloads: a matcher's trie only grows, so the total unique words grows
    per_size = curve.groupby("n_subs")["unique_words"].sum()
    assert per_size.is_monotonic_increasing


def test_run_scaling_local_grid(posts):
    streams = {"tweet": tweet_subscription_corpus(posts, 600, seed=4)}
    data = scaling_data(posts, streams, n_folds=3, seed=0)
    frame = run_scaling(
        data,
        [50, 600],
        ["hash", "SALB"],
        kinds=["tweet"],
        n_matchers=4,
        folds=[0],
        placers=["LASP", "random"],
        cost=(0.01, 4.0),
        local=True,
        progress=False,
    )
    assert len(frame) == 2 * 2 * 2
    salb = frame[frame["method"] == "SALB"]
    assert np.allclose(salb["relative_throughput"], 1.0)
    assert (frame["n_posts"] == int((data.folds == 0).sum())).all()
    gain = placement_gain(frame)
    assert len(gain) == 4 and (gain["lasp_ops"] > 0).all()
    with pytest.raises(ValueError, match="unknown"):
        run_scaling(data, [50], ["nope"], kinds=["tweet"], local=True)


def test_reading_comparison_on_hand_made_rows():
    from routelab.s3tm.lab.matching.scaling import placement_label, reading_comparison

    rows = []
    for placer, reading, ops in (
        ("LASP", "slope", (60, 80)),
        ("LASP", "literal", (90, 110)),
        ("random", "slope", (200, 200)),
    ):
        for fold, o in enumerate(ops):
            rows.append(
                {
                    "kind": "tweet",
                    "n_subs": 100,
                    "placer": placer,
                    "cost_reading": reading,
                    "fold": fold,
                    "total_ops": o,
                    "imbalance": 1.0 + fold,
                    "unique_words": 10,
                }
            )
    frame = pd.DataFrame(rows)
    assert list(placement_label(frame)) == ["LASP"] * 2 + ["LASP (literal l)"] * 2 + ["random"] * 2
    table = reading_comparison(frame)
    assert list(table["placement"]) == ["LASP", "LASP (literal l)", "random"]
    assert list(table["total lookups"]) == [70, 100, 200]
    assert list(table["lookups / random"]) == [0.35, 0.5, 1.0]
    assert list(table["imbalance (max/avg)"]) == [1.5, 1.5, 1.5]
    from routelab.s3tm.lab.matching.scaling import reading_summary

    summary = reading_summary(table)
    assert len(summary) == 1
    row = summary.iloc[0]
    assert row["lookups / random, slope l"] == 0.35 and row["lookups / random, literal l"] == 0.5
    assert row["unique words, random"] == 10


def test_run_scaling_carries_the_cost_reading(posts):
    from routelab.s3tm.lasp import CostFunction

    streams = {"tweet": tweet_subscription_corpus(posts, 300, seed=4)}
    data = scaling_data(posts, streams, n_folds=3, seed=0)
    kw = dict(kinds=["tweet"], n_matchers=4, folds=[0], local=True, progress=False)
    slope = run_scaling(data, [300], ["SALB"], cost=CostFunction(0.01, 4.0), **kw)
    literal = run_scaling(data, [300], ["SALB"], cost=CostFunction(0.01, 4.0, "literal"), **kw)
    assert list(slope["cost_reading"]) == ["slope"] and list(literal["cost_reading"]) == ["literal"]


# ----------------------------------------------------------------------------- beyond the corpus


def _word_sets(corpus: Corpus, rows) -> list[tuple[str, ...]]:
    return [tuple(corpus.words_of(int(r))) for r in rows]


def _duplicated_posts(posts: Corpus, subs: Corpus) -> int:
    """Subscriptions beyond the first copy of each post's word set, counted over the word
    sets of the posts (a synthetic subscription that happens to equal a post counts too)."""
    post_sets = pd.Series(_word_sets(posts, range(posts.n_posts))).value_counts()
    sub_sets = pd.Series(_word_sets(subs, range(subs.n_posts))).value_counts()
    both = sub_sets.reindex(post_sets.index).fillna(0)
    return int((both - post_sets).clip(lower=0).sum())


def test_tweet_subscriptions_beyond_the_corpus_repeat_no_post(posts):
    from routelab.s3tm.lab.matching.scaling import tweet_subscription_stream

    n = 3 * posts.n_posts  # well beyond the corpus
    subs, origins = tweet_subscription_stream(posts, n, seed=6)
    assert subs.n_posts == n and subs.vocab == posts.vocab
    real = origins[origins >= 0]
    assert len(real) == len(np.unique(real)) == posts.n_posts  # every post once, no repeat
    # origins are truthful: a real subscription holds exactly its post's words
    row_of = {int(p): i for i, p in enumerate(posts.post_ids)}
    for i in np.flatnonzero(origins >= 0)[::37]:
        assert subs.words_of(int(i)) == posts.words_of(row_of[int(origins[i])])
    # no post's word set is registered more often than the posts hold it, up to the few
    # synthetic subscriptions that coincide with a short post by chance
    assert _duplicated_posts(posts, subs) <= 0.05 * n
    # the old behaviour (kept as the "repeat" variant) registers every post three times
    old, old_origins = tweet_subscription_stream(posts, n, seed=6, beyond="repeat")
    assert len(np.unique(old_origins)) == posts.n_posts and (old_origins >= 0).all()
    assert _duplicated_posts(posts, old) >= 2 * posts.n_posts
    assert _duplicated_posts(posts, tweet_subscription_corpus(posts, n, 6)) >= 2 * posts.n_posts
    with pytest.raises(ValueError, match="beyond"):
        tweet_subscription_stream(posts, n, beyond="nope")


def test_real_synthetic_boundary(posts):
    from routelab.s3tm.lab.matching.figures import fig7ah_subscription_scaling, synthetic_symbols
    from routelab.s3tm.lab.matching.scaling import tweet_subscription_stream
    from routelab.s3tm.lab.shared import scaling_task

    n_real = posts.n_posts
    subs, origins = tweet_subscription_stream(posts, n_real + 500, seed=2)
    # below the boundary: exactly the picks of the old tweet-based workload (nothing changes
    # for workloads within the corpus)
    old = tweet_subscription_corpus(posts, n_real, 2)
    head = subs.subset(np.arange(n_real))
    assert np.array_equal(head.indptr, old.indptr) and np.array_equal(head.indices, old.indices)
    assert (origins[:n_real] >= 0).all() and (origins[n_real:] == -1).all()
    data = scaling_data(posts, {"tweet": subs}, n_folds=3, origins={"tweet": origins})
    assert data.synthetic_from("tweet") == n_real
    assert [data.synthetic_count("tweet", n) for n in (10, n_real, n_real + 1, n_real + 500)] == [
        0,
        0,
        1,
        500,
    ]
    described = data.describe([n_real, n_real + 500]).set_index("subscriptions")["synthetic"]
    assert described.to_dict() == {n_real: 0, n_real + 500: 500}
    assert data.data_line([100, n_real]) == "real: posts"
    assert (
        data.data_line([100, n_real + 1])
        == f"semi-synthetic: posts; tweet subs > {n_real:,} synthetic"
    )
    repeat, rep_origins = tweet_subscription_stream(posts, n_real + 500, seed=2, beyond="repeat")
    rep = scaling_data(posts, {"tweet": repeat}, n_folds=3, origins={"tweet": rep_origins})
    assert rep.synthetic_from("tweet") is None and rep.synthetic_count("tweet", n_real + 500) == 0
    assert rep.data_line([n_real + 1]) == f"real: posts; tweet subs > {n_real:,} repeat posts"
    # synthetic subscriptions use words of the posts, the most popular most often
    synth = subs.subset(np.arange(n_real, n_real + 500))
    freq = posts.doc_freq()
    assert synth.nnz > 0 and (freq[synth.indices] > 0).all()
    assert np.argmax(synth.doc_freq()) == np.argmax(freq)
    # a workload crossing the boundary says so in its grid row
    row = scaling_task(
        {
            "data": data,
            "kind": "tweet",
            "n_subs": n_real + 500,
            "method": "hash",
            "placer": "random",
            "fold": 0,
            "n_matchers": 4,
            "cost": (0.01, 4.0, "slope"),
            "split_hot": True,
            "seed": 0,
            "capacity": 1.0,
        }
    )[0]
    assert row["synthetic_subs"] == 500
    # the figure: open markers beyond the boundary, a dashed line at it
    assert synthetic_symbols([100, n_real, n_real + 1], n_real) == [
        "circle",
        "circle",
        "circle-open",
    ]
    assert synthetic_symbols([100, 10**7], None) == ["circle", "circle"]
    summary = pd.DataFrame(
        [
            {"kind": "tweet", "method": "SALB", "n_subs": n, "metric": m, "mean": 1.0, "std": 0.0}
            for n in (100, n_real + 500)
            for m in ("relative_throughput", "throughput", "spread", "imbalance")
        ]
    )
    fig = fig7ah_subscription_scaling(summary, "tweet", synthetic_from=n_real)
    assert [s.x0 for s in fig.layout.shapes] == [n_real] * 4
    assert list(fig.data[0].marker.symbol) == ["circle", "circle-open"]
    keys = [t.name for t in fig.data if t.legendgroup == "workload"]
    assert keys == ["real posts only", "+ synthetic subs", f"corpus size ({n_real:,})"]
    assert not fig7ah_subscription_scaling(summary, "tweet").layout.shapes
    from routelab.s3tm.lab.matching.figures import extra_lasp_vs_random

    rows = pd.DataFrame(
        [
            {"kind": k, "placer": p, "n_subs": n, "total_ops": 10.0, "imbalance": 1.0}
            for k in ("tweet", "topic")
            for p in ("LASP", "random")
            for n in (100, n_real + 500)
        ]
    )
    symbols = {
        t.name: list(t.marker.symbol)
        for t in extra_lasp_vs_random(rows, synthetic_from=n_real).data
        if t.showlegend
    }
    assert symbols["LASP, tweet"] == ["circle", "circle-open"]
    assert symbols["random, topic"] == ["circle", "circle"]  # topic-based: never synthetic
    with pytest.raises(ValueError, match="origins"):
        scaling_data(posts, {"tweet": subs}, n_folds=3, origins={"tweet": origins[:5]})


def test_synthetic_subscriptions_are_seeded_and_rank_mapped(posts):
    from routelab.s3tm.lab.matching.scaling import synthetic_subscriptions

    a = synthetic_subscriptions(posts, 400, seed=1)
    b = synthetic_subscriptions(posts, 400, seed=1)
    c = synthetic_subscriptions(posts, 400, seed=2)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.indptr, b.indptr)
    assert not np.array_equal(a.indices, c.indices)
    assert list(a.post_ids) == list(range(400)) and (a.lengths() > 0).all()
    # rank for rank: the k-th most frequent synthetic word is the k-th most frequent real one
    freq = posts.doc_freq()
    real_rank = np.lexsort((np.arange(len(freq)), -freq))
    synth_freq = a.doc_freq()
    top = np.lexsort((np.arange(len(synth_freq)), -synth_freq))[:3]
    assert list(top) == list(real_rank[:3])
    with pytest.raises(ValueError, match="vocab_size"):
        synthetic_subscriptions(posts, 10, vocab_size=10**6)
