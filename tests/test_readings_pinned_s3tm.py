"""S3-TM readings of READINGS.md pinned: each default gives the documented answer on a
small hand-checked case and the alternative the other (Gedik et al.)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pandas as pd
import pytest

from routelab.corpus.subscriptions import TopicModel, topic_subscriptions
from routelab.corpus.text import clean_words, get_stemmer, load_stopwords
from routelab.s3tm.lasp import LASP, CostFunction
from routelab.s3tm.mappings import learn_mapping
from routelab.s3tm.metrics import route_metrics
from routelab.s3tm.routing import Mapping
from routelab.s3tm.shedding_controller import buffer_segments
from routelab.s3tm.wordsets import Corpus


def _default(func, name: str):
    return inspect.signature(func).parameters[name].default


# --------------------------------------------------------------------------- Eqs. 2-7


def test_spread_averages_over_all_posts_and_routed_beside() -> None:
    """Spread, Eq. 2 (Sect. 3.1), fixed; and the throughput constant of Eqs. 6-7.

    M: a -> 0, b -> 1; W^s = {a, b}. Posts {a, b} (|K| = 2), {a} (1), {c} (0, no
    subscribed word). spread = (2 + 1 + 0) / 3 = 1; spread_routed = 3 / 2 = 1.5.
    Loads: matcher 0 gets posts 1, 2 -> 2; matcher 1 gets post 1 -> 1. B = 2 / 1.5 = 4/3;
    T = C |P| / max L = 3 / 2; T-hat = C N / (R B) = 2 / (1 x 4/3) = 1.5 = T."""
    m = Mapping(2, "hash", 0, {"a": 0, "b": 1})
    r = route_metrics(m, [["a", "b"], ["a"], ["c"]], [["a", "b"]])
    assert r.spread == pytest.approx(1.0)
    assert r.spread_routed == pytest.approx(1.5)
    assert r.loads.tolist() == [2, 1]
    assert r.imbalance == pytest.approx(4 / 3)
    assert r.throughput == pytest.approx(1.5) and r.t_hat == pytest.approx(1.5)
    assert route_metrics(m, [["a"]], capacity=4.0).throughput == pytest.approx(4.0)


# --------------------------------------------------------------------------- LASP


def _lasp_state(**kw) -> LASP:
    """N = 2, a -> 0, b -> 1; H(0) = {w, a, b} (3 words), H(1) empty; f(h) = h + 1."""
    lasp = LASP(Mapping(2, "hash", 0, {"a": 0, "b": 1}), **kw)
    lasp.H = [{"w", "a", "b"}, set()]
    return lasp


def test_lasp_imbalance_is_the_cv_by_default_alg2_printed_form_as_switch() -> None:
    """Imbalance, Eq. 4 and Alg. 2 (Sects. 3.1, 4.2): default CV, ``imbalance="alg2"``.

    LASP with empty maps, S = {a} on matcher 0: sizes [0, 1], loads f = [1, 2]: mean 1.5,
    population variance 0.25, std 0.5. CV = 0.5 / 1.5 = 1/3; Alg. 2's printed
    sqrt(var / mean) = sqrt(0.25 / 1.5) = sqrt(1/6) = 0.4082. u = -l b with l = 1."""
    m = Mapping(2, "hash", 0, {"a": 0, "b": 1})
    u, b = LASP(m).utility({"a"}, 0)
    assert b == pytest.approx(1 / 3) and u == pytest.approx(-1 / 3)
    u, b = LASP(m, imbalance="alg2").utility({"a"}, 0)
    assert b == pytest.approx(math.sqrt(1 / 6)) and u == pytest.approx(-math.sqrt(1 / 6))


def test_lasp_delta_load_is_slope_only_by_default_literal_as_switch() -> None:
    """LASP's delta load l, Alg. 2 (Sect. 4.2): default ``slope * |S \\ H(i)|``,
    ``cost_reading="literal"`` the printed f(|S \\ H(i)|) with the intercept.

    S = {a, b}, eligible {0, 1}; H(0) = {w, a, b}, H(1) = {}; f(h) = h + 1.
    slope: i=0 brings no new word, l = 0, u = 0 (the best possible); i=1: l = 2, sizes
    [3, 2], loads [4, 3], CV = 0.5 / 3.5 = 1/7, u = -2/7 -> matcher 0 (grouping).
    literal: i=0: l = f(0) = 1, sizes [0, 3], loads [1, 4], CV = 1.5 / 2.5 = 0.6,
    u = -0.6; i=1: l = f(2) = 3, u = -3/7 = -0.43 -> matcher 1 (balance)."""
    assert CostFunction().reading == "slope"
    assert _lasp_state().utility({"a", "b"}, 0)[0] == 0.0
    assert _lasp_state().utility({"a", "b"}, 1)[0] == pytest.approx(-2 / 7)
    assert _lasp_state().place(["a", "b"]) == (0,)
    lit = _lasp_state(cost_reading="literal")
    assert lit.utility({"a", "b"}, 0)[0] == pytest.approx(-0.6)
    assert lit.utility({"a", "b"}, 1)[0] == pytest.approx(-3 / 7)
    assert lit.place(["a", "b"]) == (1,)
    assert _lasp_state(cost=CostFunction(1.0, 1.0, "literal")).place(["a", "b"]) == (1,)


# --------------------------------------------------------------------------- Eq. 8


def test_segment_ratio_is_derived_by_default_literal_eq8_as_switch() -> None:
    """Segment ratio, Eqs. 8-9 (Sect. 5.2.2): default the derived upper bound
    r < 1 / (max rho - 1) times margin; ``reading="literal"`` the printed lower bound.

    Loads [4, 2]: rho = 4 / 2 = 2. derived: bound 1 / (2 - 1) = 1, r = 0.5 x 1 = 0.5,
    ideal = 90 x 0.5 / 1.5 = 30, stable 60. literal: bound 2 - 1 = 1, r = 1 / 0.5 = 2,
    ideal = 90 x 2 / 3 = 60, stable 30."""
    d = buffer_segments([4.0, 2.0], 90.0)
    assert d.reading == "derived" and d.r == pytest.approx(0.5)
    assert (d.ideal, d.stable) == pytest.approx((30.0, 60.0))
    lit = buffer_segments([4.0, 2.0], 90.0, reading="literal")
    assert lit.r == pytest.approx(2.0)
    assert (lit.ideal, lit.stable) == pytest.approx((60.0, 30.0))


# --------------------------------------------------------------------------- Fig. 5


def test_hot_word_split_plan_in_learn_mapping() -> None:
    """Which hash baseline, Fig. 5 (Sects. 5.1, 6.2): ``learn_mapping(split_hot=...)``.

    Posts {h, a}, {h, b}, {h, c}, {h, d}, N = 2: f(h) = 4, total 8, a node's even share
    8 / 2 = 4, cap = 0.5 x 4 = 2; f(h) = 4 > 2 -> h is hot, ceil(4 / 2) = 2 versions.
    learn_mapping's own default does not split (the figure asks for it)."""
    posts = [["h", "a"], ["h", "b"], ["h", "c"], ["h", "d"]]
    assert _default(learn_mapping, "split_hot") is False
    plain = learn_mapping(posts, 2, "hash")
    assert plain.versions == {} and plain.hot_counts == {}
    split = learn_mapping(posts, 2, "hash", split_hot=True)
    assert split.hot_counts == {"h": 4} and len(split.versions["h"]) == 2


def test_fig5_splits_every_method_and_runs_hash_the_other_way(monkeypatch) -> None:
    """Which hash baseline, Fig. 5 (Sects. 5.1, 6.2): by default every method runs with
    hot-word splitting (hash+split) and hash is run again without it beside;
    ``hash_both_ways=False`` drops the second run. (``run_cv`` replaced by a recorder: only
    the split settings passed are checked.)"""
    from routelab.s3tm.lab.routing import fig5

    calls = []

    def fake_run_cv(datasets, methods, nodes, kinds, **kw):
        calls.append((tuple(methods), kw["split_hot"]))
        return pd.DataFrame({"dataset": [d.name for d in datasets]})

    class D:
        name = "tweets"

    monkeypatch.setattr(fig5, "run_cv", fake_run_cv)
    run = fig5.run_fig5([D()], [], ["hash", "SALB"], [4], ["topic"], progress=False)
    assert calls == [(("hash", "SALB"), True), (("hash",), False)]
    assert run.hash_rows is not None
    calls.clear()
    run = fig5.run_fig5(
        [D()], [], ["hash", "SALB"], [4], ["topic"], hash_both_ways=False, progress=False
    )
    assert calls == [(("hash", "SALB"), True)] and run.hash_rows is None


# --------------------------------------------------------------------------- Sect. 6.1


def test_stop_words_spark_plus_glasgow_by_default_spark_alone_as_switch() -> None:
    """Stop-word list (Sect. 6.1): default Spark's list joined with the Glasgow list
    ("may" is Glasgow's, not Spark's: removed); ``stop_list="spark"`` keeps "may".
    "fire" is a Glasgow word kept as a content noun; "the" is in both."""
    default, spark = load_stopwords(), load_stopwords("spark")
    assert "may" in default and "may" not in spark
    assert "fire" not in default and "the" in spark
    assert clean_words("may fire", stem=False) == ["fire"]
    assert clean_words("may fire", stopwords=spark, stem=False) == ["fire", "may"]


def test_stemmer_is_porter_1980_by_default_nltk_extensions_as_switch() -> None:
    """Stemmer (Sect. 6.1): Porter's 1980 algorithm by default; ``stem_mode="nltk"``.

    Porter 1980 step 1a rewrites IES -> I: "skies" -> "ski"; step 1b drops ING after a
    stem with a vowel (y counts after a consonant): "dying" -> "dy". NLTK's extensions
    map these irregular forms to "sky" and "die"."""
    assert clean_words("skies dying", stopwords=set()) == ["dy", "ski"]
    assert clean_words("skies dying", stopwords=set(), stem_mode="nltk") == ["die", "sky"]
    assert get_stemmer("martin")("skies") == "ski"


def test_topic_choice_uniform_by_default_weight_as_switch() -> None:
    """LDA and topic choice (Sect. 6.1): each subscription picks its topic uniformly by
    default; ``topic_choice="weight"`` in proportion to the topics' weights.

    Two topics of weights 1 and 0. weight: topic 1 has probability 0, so all 400
    subscriptions take topic 0. uniform: topic 1 has probability 1/2; 400 draws give
    200 +- 10 (one sd), so 120..280 holds far beyond 6 sd."""
    model = TopicModel((("a", "b"), ("c", "d")), ((0.5, 0.5), (0.5, 0.5)), (1.0, 0.0))
    uni = topic_subscriptions(model, 400, max_len=2, seed=3)
    assert 120 <= int((uni["topic"] == 1).sum()) <= 280
    weighted = topic_subscriptions(model, 400, max_len=2, topic_choice="weight", seed=3)
    assert int((weighted["topic"] == 1).sum()) == 0


# --------------------------------------------------------------------------- Sects. 6.3-6.5


def test_tweet_subscriptions_beyond_the_corpus_are_synthetic_by_default() -> None:
    """Tweet-based subscriptions beyond the corpus (Sect. 6.3): the real posts once, then
    synthetic ones (origin -1); ``tweet_beyond="repeat"`` registers real posts again.

    3 posts with words, 5 subscriptions: synthetic -> 3 real origins then [-1, -1], each
    real post once; repeat -> 5 real origins, every post at least once, one twice."""
    from routelab.s3tm.lab.matching.scaling import real_scaling_data, tweet_subscription_stream

    assert _default(real_scaling_data, "tweet_beyond") == "synthetic"
    posts = Corpus.from_word_lists(
        [["a", "b"], ["b", "c"], ["c", "d", "a"]], post_ids=np.array([10, 11, 12])
    )
    subs, origins = tweet_subscription_stream(posts, 5, seed=1)
    assert sorted(origins[:3].tolist()) == [10, 11, 12] and origins[3:].tolist() == [-1, -1]
    assert subs.n_posts == 5
    subs, origins = tweet_subscription_stream(posts, 5, seed=1, beyond="repeat")
    assert set(origins.tolist()) == {10, 11, 12} and len(origins) == 5


def test_fig8a_subscriptions_from_learning_posts_by_default() -> None:
    """Fig. 8a's subscriptions (Sect. 6.5): drawn from the learning posts only, 0.1 per
    learning post (default ``workload="learning"``); ``"all_words"`` draws
    ``n_subscriptions`` from all posts.

    1,000 learning posts -> round(0.1 x 1,000) = 100; all_words -> the fixed 100,000."""
    from routelab.s3tm.lab.shedding.experiments import build_workload, subscription_count

    assert _default(build_workload, "workload") == "learning"
    assert _default(build_workload, "subscription_ratio") == 0.1
    assert subscription_count("learning", 1_000, 0.1, 100_000) == 100
    assert subscription_count("all_words", 1_000, 0.1, 100_000) == 100_000


def test_drift_learns_on_all_words_of_window_zero(monkeypatch) -> None:
    """Concept drift's "weeks" and learning set (Sect. 6.4): the mapping is learned on all
    words of window 0 (``learn_on="all"``, listed first); ``"subscribed"`` restricts
    window 0 to its subscribed words; the default source is every source.

    Window 0: posts {a, b}, {b, c}; window 1: {a, d}; W^s_0 = {a}. all -> the mapping
    learns from 2 posts over {a, b, c}; subscribed -> 2 posts over {a} (the second post
    keeps no word)."""
    from routelab.s3tm.lab.drift import experiments as ex

    assert ex.LEARN_ON[0] == "all"
    assert _default(ex.run_drift, "learn_on") == ex.LEARN_ON
    assert _default(ex.real_drift_data, "source") is None
    corpus = Corpus.from_word_lists([["a", "b"], ["b", "c"], ["a", "d"]])
    data = ex.DriftData(
        "toy", corpus, np.array([0, 0, 1]), (frozenset({"a"}), frozenset({"d"})), pd.DataFrame()
    )
    seen = []
    real_learn = ex.learn_mapping

    def spy(train, *args, **kw):
        present = np.flatnonzero(train.doc_freq() > 0)
        seen.append(sorted(train.vocab[j] for j in present))
        return real_learn(train, *args, **kw)

    monkeypatch.setattr(ex, "learn_mapping", spy)
    params = {"data": data, "method": "hash", "n_matchers": 2, "split_hot": False, "seed": 0}
    ex.drift_task({**params, "learn_on": "all"})
    ex.drift_task({**params, "learn_on": "subscribed"})
    assert seen == [["a", "b", "c"], ["a"]]
