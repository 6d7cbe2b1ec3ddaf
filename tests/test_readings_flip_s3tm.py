"""S3-TM readings flipped for a whole run (``ROUTELAB_READING``, :mod:`routelab.readings`):
unset, each parameter is our reading; flipped, the value notebooks 01-06 take is the
alternative; an explicit argument still wins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from routelab.readings import FLIP_ENV, FLIPS
from routelab.s3tm.routing import Mapping


@pytest.fixture
def flip(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(FLIP_ENV, raising=False)

    def set_(key: str | None) -> None:
        if key is None:
            monkeypatch.delenv(FLIP_ENV, raising=False)
        else:
            monkeypatch.setenv(FLIP_ENV, key)

    return set_


def test_every_s3tm_key_is_registered() -> None:
    keys = {"alg2", "intercept", "eq8", "stoplist", "stemmer", "topicweight", "tweetrepeat"}
    assert keys | {"fig8a", "drift"} <= set(FLIPS)


def test_alg2_flips_lasps_imbalance(flip) -> None:
    from routelab.s3tm.lasp import LASP
    from routelab.s3tm.placement import place_subscriptions
    from routelab.s3tm.wordsets import Corpus

    m = Mapping(2, "hash", 0, {"a": 0, "b": 1})
    subs = Corpus.from_word_lists([["a"], ["a", "b"], ["b"]])
    assert LASP(m).imbalance == "cv"
    assert place_subscriptions(subs, m, "LASP").info["imbalance"] == "cv"
    flip("alg2")
    assert LASP(m).imbalance == "alg2"
    # notebooks 04, 06 and 13 place through place_subscriptions (kernel) without the argument
    assert place_subscriptions(subs, m, "LASP").info["imbalance"] == "alg2"
    ref = place_subscriptions(subs, m, "LASP", impl="reference")
    assert ref.info["imbalance"] == "alg2"
    assert LASP(m, imbalance="cv").imbalance == "cv"  # explicit wins
    assert place_subscriptions(subs, m, "LASP", imbalance="cv").info["imbalance"] == "cv"


def test_intercept_flips_lasps_delta_load(flip) -> None:
    from routelab.s3tm.lab.shared import CostFunction as SharedCost
    from routelab.s3tm.lasp import LASP, CostFunction

    assert SharedCost is CostFunction
    assert CostFunction().reading == "slope"
    assert CostFunction.from_fit(2.0, 5.0).reading == "slope"
    flip("intercept")
    # notebook 04 (and 03) fit f with from_fit; 06 and 13 place with cost=None
    assert CostFunction().reading == "literal"
    assert CostFunction.from_fit(2.0, 5.0).reading == "literal"
    assert CostFunction.of((2.0, 5.0)).reading == "literal"
    assert CostFunction.of(None).delta(0) == 1.0  # the intercept counts
    assert LASP(Mapping(2, "hash", 0, {"a": 0})).cost.reading == "literal"
    assert CostFunction(reading="slope").reading == "slope"  # explicit wins
    assert CostFunction.from_fit(2.0, 5.0, "slope").reading == "slope"
    assert CostFunction.of((2.0, 5.0, "slope")).reading == "slope"


def test_eq8_flips_the_segment_ratio(flip) -> None:
    from routelab.profiles import notebook_defaults
    from routelab.s3tm.shedding_controller import buffer_segments, ratio_bound

    assert notebook_defaults("06_shedding")["eq8_reading"] == "derived"
    assert buffer_segments([4.0, 2.0], 90.0).r == pytest.approx(0.5)
    flip("eq8")
    assert notebook_defaults("06_shedding")["eq8_reading"] == "literal"  # what 06 passes
    seg = buffer_segments([4.0, 2.0], 90.0)
    assert seg.reading == "literal" and seg.r == pytest.approx(2.0)
    assert ratio_bound(2.0) == pytest.approx(1.0)
    assert buffer_segments([4.0, 2.0], 90.0, reading="derived").r == pytest.approx(0.5)


def test_stoplist_flips_the_stop_words_and_the_word_cache(flip) -> None:
    from routelab.corpus.text import clean_many, clean_words, load_stopwords

    default_dir = _words_dir()
    assert "may" in load_stopwords()
    assert clean_words("may fire", stem=False) == ["fire"]
    flip("stoplist")
    assert "may" not in load_stopwords() and load_stopwords() == load_stopwords("spark")
    assert clean_words("may fire", stem=False) == ["fire", "may"]
    assert clean_many(["may fire"], stem=False) == [["fire", "may"]]
    assert _words_dir() != default_dir  # the prepared word sets are keyed by the list
    assert "may" in load_stopwords("spark+glasgow")  # explicit wins
    flip(None)
    assert _words_dir() == default_dir and "may" in load_stopwords()


def test_stemmer_flips_porter_to_nltk_and_the_word_cache(flip) -> None:
    from routelab.corpus.text import clean_words, get_stemmer, surface_forms

    default_dir = _words_dir()
    assert clean_words("skies dying", stopwords=set()) == ["dy", "ski"]
    flip("stemmer")
    assert clean_words("skies dying", stopwords=set()) == ["die", "sky"]
    assert get_stemmer().mode == "nltk"
    assert surface_forms(["skies"]) == {"sky": "skies"}
    assert _words_dir() != default_dir  # the prepared word sets are keyed by the stemmer
    assert clean_words("skies", stopwords=set(), stem_mode="original") == ["ski"]  # explicit


def test_preprocess_records_the_flipped_settings(flip, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the notebooks' word cache records: the resolved stem mode and stop list (the
    stop-word claim of notebook 01 reads them)."""
    from routelab.corpus.lab.claims import stop_words_row
    from routelab.corpus.text import load_stopwords

    row = stop_words_row({"stopwords": "default"})
    assert f"{len(load_stopwords('spark+glasgow')):,} stop words" in row["measured"]
    flip("stoplist")
    row = stop_words_row({"stopwords": "spark"})
    assert f"{len(load_stopwords('spark')):,} stop words" in row["measured"]
    assert "Spark's English list alone" in row["measured"]
    row = stop_words_row({"stopwords": "default"})  # an old record: the default list
    assert f"{len(load_stopwords('spark+glasgow')):,} stop words" in row["measured"]


def test_topicweight_flips_the_topic_choice(flip) -> None:
    from routelab.corpus.subscriptions import TopicModel, topic_subscriptions
    from routelab.s3tm.lab.shared import make_subscriptions

    words = (tuple("abcde"), tuple("fghij"))
    model = TopicModel(words, ((0.2,) * 5, (0.2,) * 5), (1.0, 0.0))
    posts = pd.DataFrame({"post_id": [1, 2], "words": [["a"], ["f"]]})
    assert (topic_subscriptions(model, 400, max_len=2, seed=3)["topic"] == 1).sum() > 100
    flip("topicweight")
    assert (topic_subscriptions(model, 400, max_len=2, seed=3)["topic"] == 1).sum() == 0
    # notebooks 03 and 06 draw them through make_subscriptions
    subs = make_subscriptions(posts, ["topic"], 400, seed=3, topic_model=model)["topic"]
    assert (subs["topic"] == 1).sum() == 0
    uni = topic_subscriptions(model, 400, max_len=2, topic_choice="uniform", seed=3)
    assert (uni["topic"] == 1).sum() > 100  # explicit wins


def test_tweetrepeat_flips_notebook_04s_parameter(flip) -> None:
    from routelab.profiles import apply_profile, notebook_defaults
    from routelab.s3tm.lab.matching.scaling import tweet_subscription_stream
    from routelab.s3tm.wordsets import Corpus

    assert notebook_defaults("04_matching")["tweet_beyond"] == "synthetic"
    flip("tweetrepeat")
    assert notebook_defaults("04_matching")["tweet_beyond"] == "repeat"
    # the default profile keeps the parameters cell's value; an explicit one wins
    ns = {"profile": "default", "tweet_beyond": "synthetic"}
    apply_profile("04_matching", ns, quiet=True)
    assert ns["tweet_beyond"] == "synthetic"
    posts = Corpus.from_word_lists([["a", "b"], ["b", "c"]], post_ids=np.array([10, 11]))
    _, origins = tweet_subscription_stream(posts, 4, seed=1, beyond="repeat")
    assert (origins >= 0).all()  # what notebook 04 runs under the flip


def test_fig8a_flips_notebook_06s_workload(flip) -> None:
    from routelab.profiles import notebook_defaults

    assert notebook_defaults("06_shedding")["workload"] == "learning"
    flip("fig8a")
    values = notebook_defaults("06_shedding")
    assert values["workload"] == "all_words" and values["eq8_reading"] == "derived"


def test_drift_flips_the_graded_learning_set(flip) -> None:
    from routelab.s3tm.lab.drift import claims, experiments
    from routelab.s3tm.lab.drift import figures as drift_figures

    frame, trends = _drift_frames()
    assert experiments.default_learn_on() == "all"
    assert "on 'all' words" in claims.advantage_claim(frame)["note"]
    flip("drift")
    assert experiments.default_learn_on() == "subscribed"
    assert "on 'subscribed' words" in claims.advantage_claim(frame)["note"]
    rows = claims.drift_claims(trends, trends)
    assert "on 'subscribed' words of window 0" in rows[0]["note"]
    starts = pd.date_range("2013-01-01", periods=5, freq="MS")
    table = pd.DataFrame(
        {"window": range(4), "first": starts[:4], "last": starts[1:], "posts": [10] * 4}
    )
    fig = drift_figures.fig7il_drift(frame, table, dataset="tweets")
    assert "subscribed words of window 0" in fig.layout.title.text
    assert "on 'all' words" in claims.advantage_claim(frame, learn_on="all")["note"]


# --------------------------------------------------------------------------- helpers


def _words_dir() -> str:
    from routelab.corpus.preprocess import bundled_words_dir

    return bundled_words_dir().name


def _drift_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = []
    for learn_on in ("all", "subscribed"):
        for method, base in (("hash", 1.0), ("gFCL", 2.0), ("SALB", 3.0)):
            for w in range(4):
                rows.append(
                    {
                        "dataset": "tweets",
                        "learn_on": learn_on,
                        "method": method,
                        "window": w,
                        "n_matchers": 4,
                        "seed": 0,
                        "throughput": base * (2.0 if w == 0 else 1.0),
                        "relative_throughput": base / 3.0,
                        "spread_routed": 1.0 + w,
                        "imbalance": 1.0 + w,
                    }
                )
    frame = pd.DataFrame(rows)
    from routelab.s3tm.lab.drift.experiments import trend_tests

    return frame, trend_tests(frame, "throughput")
